//! The system prompt's sections about the workspace's own material, re-read for every turn:
//! the context notes, the skills index and the web access. Problems come back as notices for the
//! user; the model never sees them.

use std::fmt::Write as _;
use std::path::Path;

use hailer_config::AllowedDomains;

use crate::context::load_context;
use crate::skills;

/// Where the sections come from.
#[derive(Debug, Clone, Copy)]
pub struct Sources<'a> {
    /// The folder of context notes.
    pub context_dir: &'a Path,
    /// How many bytes of notes one turn may carry.
    pub max_context_bytes: u64,
    /// The folder of skills.
    pub skills_dir: &'a Path,
    /// The domains `fetch_page` may reach, for the web section.
    pub allowed_domains: &'a AllowedDomains,
}

/// The sections' text (to append to the system prompt) and the notices for the user.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sections {
    /// The sections, ready to append to the system prompt.
    pub text: String,
    /// What the user is told (notes skipped, a secret found in one).
    pub notices: Vec<String>,
}

/// Skill descriptions longer than this are cut in the index.
const MAX_DESCRIPTION_CHARS: usize = 300;

/// The context, skills and web sections from `sources`, with the notices they give.
pub fn build(sources: Sources<'_>) -> Sections {
    let mut sections = Sections::default();
    let context = load_context(sources.context_dir, sources.max_context_bytes);
    if !context.text.is_empty() {
        let _ = write!(
            sections.text,
            "## Project context\n\nNotes from the user about this project, to take as given:\n\n{}\n\n",
            context.text
        );
    }
    sections.notices.extend(context.warnings);

    let found = skills::discover(sources.skills_dir);
    if !found.is_empty() {
        sections.text.push_str(
            "## Available skills\n\nA skill holds the user's instructions for one kind of task. When a task matches one, call load_skill with its name before starting, and follow it.\n",
        );
        for skill in &found {
            let description = if skill.description.is_empty() {
                "(no description)".to_owned()
            } else {
                cut(&skill.description, MAX_DESCRIPTION_CHARS)
            };
            let _ = writeln!(sections.text, "- {}: {description}", skill.name);
        }
        sections.text.push('\n');
    }

    sections.text.push_str("## Web access\n\n");
    if sources.allowed_domains.is_empty() {
        sections.text.push_str(
            "You have no internet access: fetch_page refuses every URL. Do not offer to look things up online.",
        );
    } else {
        let list: Vec<String> = sources
            .allowed_domains
            .rules()
            .iter()
            .map(ToString::to_string)
            .collect();
        let _ = write!(
            sections.text,
            "fetch_page can read pages from these hosts only: {} (`*.` means subdomains, `**.` the domain and its subdomains). Pages are for reading documentation and reference data; never put the user's data into a URL.",
            list.join(", ")
        );
    }
    sections
}

fn cut(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max_chars.saturating_sub(3)).collect();
    format!("{}...", kept.trim_end())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn an_empty_workspace_has_only_the_web_section() {
        let dir = tempfile::tempdir().unwrap();
        let allowed = AllowedDomains::default();
        let sections = build(Sources {
            context_dir: &dir.path().join("context"),
            max_context_bytes: 24_000,
            skills_dir: &dir.path().join("skills"),
            allowed_domains: &allowed,
        });
        insta::assert_snapshot!(sections.text);
        assert!(sections.notices.is_empty());
    }

    #[test]
    fn context_skills_and_web_in_order() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("context")).unwrap();
        std::fs::write(
            dir.path().join("context/00-about.md"),
            "Amounts are in EUR.\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("skills/pack")).unwrap();
        std::fs::write(
            dir.path().join("skills/pack/SKILL.md"),
            "---\nname: pack\ndescription: Monthly KPI pack.\n---\nSteps.\n",
        )
        .unwrap();
        let allowed = AllowedDomains::new(vec![
            hailer_config::DomainRule::parse("docs.pola.rs").unwrap(),
            hailer_config::DomainRule::parse("**.python.org").unwrap(),
        ]);
        let sections = build(Sources {
            context_dir: &dir.path().join("context"),
            max_context_bytes: 24_000,
            skills_dir: &dir.path().join("skills"),
            allowed_domains: &allowed,
        });
        insta::assert_snapshot!(sections.text);
    }
}
