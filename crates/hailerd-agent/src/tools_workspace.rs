//! The agent's workspace tools: `list_periods`, `load_skill`, `read_skill_file` and `fetch_page`.
//! The work is done in `hailer-tools`; this file offers it to the model and turns failures into
//! `ERROR:` text.

use std::path::PathBuf;

use hailer_agent::DuplicateTool;
use hailer_agent::tool_error;
use hailer_agent::{Tool, ToolContext, ToolRegistry};
use hailer_config::{AllowedDomains, Config};
use hailer_model::ToolSpec;
use hailer_protocol::AuditOutcome;
use hailer_tools::Failure;
use serde_json::{Value, json};

use super::tool_args::{self, FetchArgs, NameArgs, SkillFileArgs};

/// Adds the workspace tools, in the order the model is offered them.
pub(super) fn register(
    tools: &mut ToolRegistry,
    config: &Config,
    audit: &hailerd_kernel::Audit,
) -> Result<(), DuplicateTool> {
    let skills_dir = config.hailer.skills_dir.clone();
    tools.register(ListPeriods {
        data_dir: config.hailer.data_dir.clone(),
    })?;
    tools.register(LoadSkill {
        skills_dir: skills_dir.clone(),
    })?;
    tools.register(ReadSkillFile { skills_dir })?;
    tools.register(FetchPage {
        allowed: config.web.allowed_domains.clone(),
        max_page_bytes: config.web.max_page_bytes,
        audit: audit.clone(),
    })
}

fn reply(result: Result<String, Failure>) -> String {
    result.unwrap_or_else(|failure| tool_error(&failure.message, &failure.hint))
}

/// Runs file-reading work off the async threads.
async fn blocking(work: impl FnOnce() -> Result<String, Failure> + Send + 'static) -> String {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => reply(result),
        Err(error) => tool_error(&format!("unexpected failure: {error}"), ""),
    }
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
}

pub(super) struct ListPeriods {
    pub data_dir: PathBuf,
}

impl Tool for ListPeriods {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "list_periods".to_owned(),
            description: "Describe the monthly period files at the top of the data folder \
(`YY-MM <dataset>.parquet`, such as `25-03 sales.parquet`), grouped by dataset: the months, the \
columns every month has, columns only some months have (and which), and columns whose type changes \
(with the type per month), read from the Parquet footers without loading data. Other data files are \
named (at most 20). Cheap: call it before loading monthly data."
                .to_owned(),
            parameters: object(
                json!({"name": {"type": "string", "description": "Only this dataset (exact name); empty for all"}}),
                &[],
            ),
        }
    }

    async fn call(&self, arguments: Value, _ctx: &ToolContext) -> String {
        let name = match tool_args::read::<NameArgs>("list_periods", arguments) {
            Ok(args) => args.name.unwrap_or_default(),
            Err(reply) => return reply,
        };
        let data_dir = self.data_dir.clone();
        blocking(move || hailer_tools::list_periods(&data_dir, &name)).await
    }
}

pub(super) struct LoadSkill {
    pub skills_dir: PathBuf,
}

impl Tool for LoadSkill {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "load_skill".to_owned(),
            description: "Load one of the skills listed under 'Available skills': returns its \
whole SKILL.md and the list of its other files. The name is matched in any case, by skill name or \
folder."
                .to_owned(),
            parameters: object(
                json!({"name": {"type": "string", "description": "The skill's name"}}),
                &["name"],
            ),
        }
    }

    async fn call(&self, arguments: Value, _ctx: &ToolContext) -> String {
        let name = match tool_args::read::<NameArgs>("load_skill", arguments)
            .and_then(|args| tool_args::not_blank(args.name, "name", "load_skill"))
        {
            Ok(name) => name,
            Err(reply) => return reply,
        };
        let skills_dir = self.skills_dir.clone();
        blocking(move || hailer_tools::load_skill(&skills_dir, &name)).await
    }
}

pub(super) struct ReadSkillFile {
    pub skills_dir: PathBuf,
}

impl Tool for ReadSkillFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "read_skill_file".to_owned(),
            description:
                "Read one text file of a skill, named by its path relative to the skill's \
folder as load_skill lists it (such as `reference/checks.md`). Absolute paths, `..` that leave the \
folder and links pointing outside it are refused; files over 1 MB or not UTF-8 cannot be read."
                    .to_owned(),
            parameters: object(
                json!({
                    "name": {"type": "string", "description": "The skill's name"},
                    "path": {"type": "string", "description": "The file's path inside the skill"}
                }),
                &["name", "path"],
            ),
        }
    }

    async fn call(&self, arguments: Value, _ctx: &ToolContext) -> String {
        const TOOL: &str = "read_skill_file";
        let args = tool_args::read::<SkillFileArgs>(TOOL, arguments).and_then(|args| {
            let name = tool_args::not_blank(args.name, "name", TOOL)?;
            let path = tool_args::not_blank(args.path, "path", TOOL)?;
            Ok((name, path))
        });
        let (name, path) = match args {
            Ok(args) => args,
            Err(reply) => return reply,
        };
        let skills_dir = self.skills_dir.clone();
        blocking(move || hailer_tools::read_skill_file(&skills_dir, &name, &path)).await
    }
}

pub(super) struct FetchPage {
    pub allowed: AllowedDomains,
    pub max_page_bytes: u64,
    /// Every fetch is recorded in the workspace's audit trail.
    pub audit: hailerd_kernel::Audit,
}

impl Tool for FetchPage {
    fn spec(&self) -> ToolSpec {
        let hosts = if self.allowed.is_empty() {
            "No host is allowed in this workspace, so every URL is refused.".to_owned()
        } else {
            "Only hosts listed under 'Web access' can be reached.".to_owned()
        };
        ToolSpec {
            name: "fetch_page".to_owned(),
            description: format!(
                "Fetch one web page (http or https) and return it as plain text, starting with \
its final URL. {hosts} Redirects are followed at most 5 times and only to allowed hosts; at most \
{} bytes of the page are read; the fetch gives up after 20 seconds. Never put the user's data in \
a URL.",
                self.max_page_bytes
            ),
            parameters: object(
                json!({"url": {"type": "string", "description": "The page's full URL"}}),
                &["url"],
            ),
        }
    }

    async fn call(&self, arguments: Value, ctx: &ToolContext) -> String {
        let url = match tool_args::read::<FetchArgs>("fetch_page", arguments)
            .and_then(|args| tool_args::not_blank(args.url, "url", "fetch_page"))
        {
            Ok(url) => url,
            Err(reply) => return reply,
        };
        let started = std::time::Instant::now();
        tokio::select! {
            result = hailer_tools::fetch_page(&url, &self.allowed, self.max_page_bytes) => {
                match &result {
                    Ok(page) => self.audit.fetched(&url, AuditOutcome::Ok, started, page.len(), None),
                    Err(failure) => self.audit.fetched(
                        &url,
                        AuditOutcome::Error,
                        started,
                        0,
                        Some(failure.message.clone()),
                    ),
                }
                reply(result)
            }
            () = ctx.cancel.cancelled() => {
                self.audit.fetched(&url, AuditOutcome::Cancelled, started, 0, None);
                tool_error("the fetch was cancelled by the user", "Do not retry it.")
            }
        }
    }
}
