//! Slash commands: everything typed that starts with `/`.

use std::path::Path;
use std::time::Duration;

use hailer_config::Loaded;
use hailer_protocol::{
    CreateNotebookParams, ExecParams, ExecResponse, NotebookChange, NotebookList, NotebookRef,
    NotebookTemplate, SessionInfo,
};

use super::conversation;
use super::daemon_link::{Link, REQUEST_TIMEOUT};
use super::panel;
use super::screen::Screen;
use super::turn_view::TurnView;
use crate::commands::exec;
use crate::session_client::SessionFlags;

/// How long `/exec` may wait (the kernel may still be starting).
const EXEC_WAIT: Duration = Duration::from_secs(960);

/// What the chat needs to know to run a command.
pub(super) struct Context<'a> {
    pub screen: &'a Screen,
    pub link: Option<&'a Link>,
    pub loaded: Option<&'a Loaded>,
    pub view: &'a TurnView,
    pub busy: bool,
    pub no_browser: bool,
    /// The chat's flags: a model switch sends the provider variables they lead to.
    pub flags: &'a SessionFlags,
}

/// What the chat does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Outcome {
    Done,
    /// Start a turn with this (a skill or saved prompt the daemon expands).
    Ask(super::daemon_link::Ask),
    /// A new conversation started here (and was confirmed on screen).
    ConversationStarted,
    /// Not run now; the command stays in the draft.
    KeepDraft,
    Exit,
}

const HELP: &[(&str, &str)] = &[
    ("/help", "this list"),
    (
        "/status",
        "model, provider, kernel, notebook and this terminal's token counts",
    ),
    ("/new", "start a new conversation"),
    ("/model [provider:]name", "show or switch the model"),
    (
        "/notebook",
        "the active notebook; list | new <name> [--empty] | open <name> | close [name]",
    ),
    (
        "/exec <code>",
        "run Python in the kernel yourself (nothing goes to the model)",
    ),
    (
        "/context",
        "context files, skills, prompts and web access of this workspace",
    ),
    ("/skill <name> [message]", "ask with a skill attached"),
    ("/prompt <name> [args]", "send a saved prompt"),
    ("/reload", "read .config/hailer again"),
    ("/open", "print (and open) the link to the active notebook"),
    ("/clear", "clear the screen"),
    (
        "/exit, /quit",
        "leave; the session keeps running for a while",
    ),
];

pub(super) async fn run(context: &Context<'_>, line: &str) -> Outcome {
    let (name, rest) = match line.split_once(char::is_whitespace) {
        Some((name, rest)) => (name, rest.trim()),
        None => (line, ""),
    };
    let name = name.to_lowercase();
    let screen = context.screen;
    let style = screen.style;
    let needs_session = matches!(
        name.as_str(),
        "/status" | "/notebook" | "/exec" | "/open" | "/skill" | "/prompt" | "/new"
    ) || (name == "/model" && !rest.is_empty());
    if needs_session && context.link.is_none() {
        screen.line(style.yellow("The session is still starting; try again in a moment."));
        return Outcome::KeepDraft;
    }
    let changes_things = matches!(
        name.as_str(),
        "/exec" | "/open" | "/skill" | "/prompt" | "/new"
    ) || (name == "/notebook" && !rest.is_empty() && rest != "list")
        || (name == "/model" && !rest.is_empty());
    if changes_things && context.busy {
        screen.line(style.yellow("Still working. Ctrl+C cancels; your draft is kept."));
        return Outcome::KeepDraft;
    }
    match name.as_str() {
        "/" => screen.line("Type /help for commands."),
        "/help" => {
            for (command, what) in HELP {
                screen.line(format!("  {:<26}{what}", style.bold(command)));
            }
            screen.line("Anything else is sent to the conversation.");
        }
        "/exit" | "/quit" => return Outcome::Exit,
        "/clear" => {
            if style.has_color() || screen.is_interactive() {
                screen.text("\x1b[2J\x1b[H");
            }
        }
        "/status" => status(context).await,
        "/model" => {
            if conversation::model(context, rest).await {
                return Outcome::ConversationStarted;
            }
        }
        "/new" => {
            if conversation::start_new(context).await {
                return Outcome::ConversationStarted;
            }
        }
        "/skill" | "/prompt" => {
            let (target, words) = match rest.split_once(char::is_whitespace) {
                Some((target, words)) => (target, words.trim()),
                None => (rest, ""),
            };
            if target.is_empty() {
                screen.line(style.yellow(&format!(
                    "Usage: {name} <name> [{}]; /context lists them.",
                    if name == "/skill" { "message" } else { "args" }
                )));
                return Outcome::KeepDraft;
            }
            let mut ask = super::daemon_link::Ask::default();
            if name == "/skill" {
                ask.skill = Some(hailer_protocol::SkillRequest {
                    name: target.to_owned(),
                    message: words.to_owned(),
                });
            } else {
                ask.prompt = Some(hailer_protocol::PromptRequest {
                    name: target.to_owned(),
                    args: words.to_owned(),
                });
            }
            return Outcome::Ask(ask);
        }
        "/reload" => screen.line(
            "Context notes, skills and prompts are read again at the start of every message; \
             nothing to reload.",
        ),
        "/context" => show_context(context),
        "/notebook" => notebook(context, rest).await,
        "/exec" => run_code(context, rest).await,
        "/open" => open(context).await,
        other => screen.line(format!(
            "Unknown command {other}; type /help for the list. Anything not starting with / goes to the conversation."
        )),
    }
    Outcome::Done
}

fn session_path(link: &Link, rest: &str) -> String {
    format!("/v1/sessions/{}{rest}", link.session.id)
}

async fn status(context: &Context<'_>) {
    let Some(link) = context.link else { return };
    let screen = context.screen;
    let info = match link
        .endpoint
        .get(&session_path(link, ""), REQUEST_TIMEOUT)
        .await
        .and_then(crate::http::Reply::json::<SessionInfo>)
    {
        Ok(info) => info,
        Err(error) => {
            screen.line(screen.style.red(&format!("{error:#}")));
            return;
        }
    };
    let row = |label: &str, value: String| format!("  {:<13}{value}", format!("{label}:"));
    let (provider, model) = panel::session_model(&info, context.loaded);
    let in_use = format!("{provider}:{model}");
    screen.line(row("Model", model));
    if let Some(loaded) = context.loaded {
        screen.line(row("Provider", panel::provider_named(loaded, &provider)));
        // The key as hailerd judges it for the model this session uses.
        let flags = SessionFlags {
            model: Some(in_use),
            ..context.flags.clone()
        };
        let credentials = match crate::model_check::ask(&link.endpoint, &flags).await {
            Ok(check) => crate::model_check::summary(&check),
            Err(error) => format!("not checked: {error:#}"),
        };
        screen.line(row("Credentials", credentials));
    }
    let view = context.view;
    screen.line(row(
        "Session",
        format!("{} ({} client(s))", info.id, info.clients),
    ));
    screen.line(row(
        "Turns",
        format!("{} seen by this terminal", view.turns),
    ));
    screen.line(row(
        "Tokens",
        format!("{} in / {} out", view.input_tokens, view.output_tokens),
    ));
    let kernel_state = format!("{:?}", info.kernel).to_lowercase();
    screen.line(row(
        "Kernel",
        format!("{} ({kernel_state})", info.kernel_line),
    ));
    if let Some(error) = &info.kernel_error {
        screen.line(format!("  {:<13}{}", "", screen.style.red(error)));
    }
    if let Some(hint) = &info.kernel_hint {
        screen.line(format!("  {:<13}{}", "", screen.style.dim(hint)));
    }
    screen.line(row(
        "Notebook",
        panel::active_notebook(&info, context.loaded),
    ));
    screen.line(row(
        "Notebooks",
        panel::relative(&info.notebooks_dir, &info.workspace),
    ));
    screen.line(row("Workspace", info.workspace.clone()));
    if let Some(loaded) = context.loaded {
        screen.line(row("Web access", panel::web_access(loaded)));
    }
}

fn show_context(context: &Context<'_>) {
    let screen = context.screen;
    let Some(loaded) = context.loaded else {
        screen.line(
            screen
                .style
                .yellow("The configuration could not be read from this shell."),
        );
        return;
    };
    let hailer = &loaded.config.hailer;
    let files = markdown_files(&hailer.context_dir);
    screen.line(format!("Context files ({}):", files.len()));
    for (name, size) in &files {
        screen.line(format!("  {name} ({size} bytes)"));
    }
    let skills: Vec<String> = subfolders_with(&hailer.skills_dir, "SKILL.md");
    screen.line(format!("Skills ({}): {}", skills.len(), skills.join(", ")));
    let prompts: Vec<String> = markdown_files(&hailer.prompts_dir)
        .into_iter()
        .map(|(name, _)| name.trim_end_matches(".md").to_owned())
        .collect();
    screen.line(format!(
        "Prompts ({}): {}",
        prompts.len(),
        prompts.join(", ")
    ));
    screen.line(format!("Web access: {}", panel::web_access(loaded)));
}

fn markdown_files(dir: &Path) -> Vec<(String, u64)> {
    let mut files: Vec<(String, u64)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = hailer_render::clean(&entry.file_name().to_string_lossy());
            let meta = entry.metadata().ok()?;
            (meta.is_file() && name.ends_with(".md")).then_some((name, meta.len()))
        })
        .collect();
    files.sort();
    files
}

fn subfolders_with(dir: &Path, file: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|entry| entry.path().join(file).is_file())
        .map(|entry| hailer_render::clean(&entry.file_name().to_string_lossy()))
        .collect();
    names.sort();
    names
}

async fn notebook(context: &Context<'_>, rest: &str) {
    let Some(link) = context.link else { return };
    let screen = context.screen;
    let style = screen.style;
    let (action, argument) = match rest.split_once(char::is_whitespace) {
        Some((action, argument)) => (action, argument.trim()),
        None => (rest, ""),
    };
    let endpoint = &link.endpoint;
    let change = match action {
        "" | "list" => {
            let list = endpoint
                .get(&session_path(link, "/notebooks"), REQUEST_TIMEOUT)
                .await
                .and_then(crate::http::Reply::json::<NotebookList>);
            match list {
                Ok(list) => show_notebooks(screen, &list, action == "list"),
                Err(error) => screen.line(style.red(&format!("{error:#}"))),
            }
            if action.is_empty() {
                screen.line(
                    "  Usage: /notebook list | new <name> [--empty] | open <name> | close [name]",
                );
            }
            return;
        }
        "new" => {
            let empty = argument.split_whitespace().any(|word| word == "--empty");
            let name: Vec<&str> = argument
                .split_whitespace()
                .filter(|word| *word != "--empty")
                .collect();
            if name.is_empty() {
                screen.line("Usage: /notebook new <name> [--empty]");
                return;
            }
            let params = CreateNotebookParams {
                name: name.join(" "),
                template: if empty {
                    NotebookTemplate::Empty
                } else {
                    NotebookTemplate::Starter
                },
            };
            endpoint
                .post(&session_path(link, "/notebooks"), &params, REQUEST_TIMEOUT)
                .await
        }
        "open" | "close" => {
            if action == "open" && argument.is_empty() {
                screen.line("Usage: /notebook open <name>");
                return;
            }
            let params = NotebookRef {
                notebook: argument.to_owned(),
            };
            endpoint
                .post(
                    &session_path(link, &format!("/notebooks/{action}")),
                    &params,
                    REQUEST_TIMEOUT,
                )
                .await
        }
        other => {
            screen.line(format!(
                "Unknown /notebook action {other}; use list, new, open or close."
            ));
            return;
        }
    };
    match change.and_then(crate::http::Reply::json::<NotebookChange>) {
        Ok(change) => {
            screen.line(change.message);
            if let Some(url) = change.link {
                screen.line(format!("  Open it in a browser: {url}"));
            }
        }
        Err(error) => screen.line(style.red(&format!("{error:#}"))),
    }
}

fn show_notebooks(screen: &Screen, list: &NotebookList, all: bool) {
    let Some(list) = &hailer_render::clean_all(list) else {
        return;
    };
    let style = screen.style;
    screen.line(format!(
        "Active notebook: {}",
        list.active.as_deref().unwrap_or("(the configured one)")
    ));
    if all {
        for entry in &list.notebooks {
            let mut marks = Vec::new();
            if entry.active {
                marks.push("active");
            }
            if entry.open {
                marks.push("open");
            }
            let marks = if marks.is_empty() {
                String::new()
            } else {
                style.dim(&format!(" ({})", marks.join(", ")))
            };
            screen.line(format!("  {} {} bytes{marks}", entry.name, entry.size));
        }
    } else if !list.recent.is_empty() {
        let recent: Vec<&str> = list.recent.iter().take(5).map(String::as_str).collect();
        screen.line(format!("Recent: {}", recent.join(", ")));
    }
}

async fn run_code(context: &Context<'_>, code: &str) {
    let Some(link) = context.link else { return };
    let screen = context.screen;
    if code.is_empty() {
        screen.line("Usage: /exec <python code>");
        return;
    }
    let params = ExecParams {
        code: code.to_owned(),
        notebook: None,
        timeout_secs: None,
        client: Some("terminal".to_owned()),
    };
    let reply = link
        .endpoint
        .post(&session_path(link, "/exec"), &params, EXEC_WAIT)
        .await
        .and_then(crate::http::Reply::json::<ExecResponse>);
    match reply {
        Ok(response) => {
            let pieces = exec::output(&response);
            if pieces.is_empty() {
                screen.line(screen.style.dim("(no output)"));
            }
            for piece in pieces {
                let text = piece.text.trim_end_matches('\n');
                if piece.is_error {
                    screen.line(screen.style.red(text));
                } else {
                    screen.line(text.to_owned());
                }
            }
        }
        Err(error) => screen.line(screen.style.red(&format!("{error:#}"))),
    }
}

async fn open(context: &Context<'_>) {
    let Some(link) = context.link else { return };
    let screen = context.screen;
    let notebook = match link
        .endpoint
        .get(&session_path(link, ""), REQUEST_TIMEOUT)
        .await
        .and_then(crate::http::Reply::json::<SessionInfo>)
    {
        Ok(info) => info.active_notebook.unwrap_or_default(),
        Err(error) => {
            screen.line(screen.style.red(&format!("{error:#}")));
            return;
        }
    };
    let params = NotebookRef { notebook };
    let change = link
        .endpoint
        .post(
            &session_path(link, "/notebooks/open"),
            &params,
            REQUEST_TIMEOUT,
        )
        .await
        .and_then(crate::http::Reply::json::<NotebookChange>);
    match change {
        Ok(NotebookChange {
            link: Some(url), ..
        }) => {
            screen.line(format!("The notebook: {url}"));
            if !context.no_browser {
                crate::browser::open(&url);
            }
        }
        Ok(change) => screen.line(format!("{} (no link to open)", change.message)),
        Err(error) => screen.line(screen.style.red(&format!("{error:#}"))),
    }
}
