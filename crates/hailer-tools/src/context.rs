//! The context notes: every `*.md` file of the context folder, in name order, sent to the model
//! with every turn under a `## <file>` heading. Their text may hold at most `max_context_bytes`
//! bytes: the first file that does not fit and every file after it are left out, with a warning.
//! A note that looks like it holds a credential is sent all the same, with a warning.

use std::path::Path;

use crate::secrets::find_secret;

/// One note that was included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ContextFile {
    /// The note's file name in the context folder.
    pub name: String,
    /// How many bytes of it were included.
    pub bytes: usize,
}

/// The notes as gathered for one turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Context {
    /// The notes, each under a `## <file>` heading; empty when there are none.
    pub text: String,
    /// The notes included, in order.
    pub included: Vec<ContextFile>,
    /// Files left out, in order.
    pub skipped: Vec<String>,
    /// Sentences for the user, one per problem.
    pub warnings: Vec<String>,
}

/// Reads the context folder. A missing folder has no notes.
pub(crate) fn load_context(dir: &Path, max_bytes: u64) -> Context {
    let mut context = Context::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return context;
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|entry| entry.path().is_file())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| {
            !name.starts_with('.')
                && name
                    .rsplit_once('.')
                    .is_some_and(|(_, suffix)| suffix.eq_ignore_ascii_case("md"))
        })
        .collect();
    names.sort();
    let budget = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    let mut used = 0usize;
    for (index, name) in names.iter().enumerate() {
        let text = match std::fs::read(dir.join(name)).map(String::from_utf8) {
            Ok(Ok(text)) => text,
            Ok(Err(_)) => {
                context.warnings.push(format!(
                    "The context note {name} is not UTF-8 text and was left out."
                ));
                continue;
            }
            Err(error) => {
                context.warnings.push(format!(
                    "The context note {name} cannot be read ({error}) and was left out."
                ));
                continue;
            }
        };
        let bytes = text.len();
        if used + bytes > budget {
            context.skipped = names[index..].to_vec();
            let others = names.len() - index - 1;
            context.warnings.push(format!(
                "The context note {name} ({bytes} bytes) {} left out: the notes may hold {budget} bytes in all ([hailer].max_context_bytes) and {used} were already used.",
                if others == 0 {
                    "was".to_owned()
                } else {
                    format!("and the {others} after it were")
                }
            ));
            break;
        }
        used += bytes;
        if let Some(secret) = find_secret(&text) {
            context.warnings.push(format!(
                "The context note {name} looks like it holds {} (line {}); every context note is sent to the model endpoint, so move secrets elsewhere.",
                secret.kind, secret.line
            ));
        }
        if !context.text.is_empty() {
            context.text.push_str("\n\n");
        }
        context
            .text
            .push_str(&format!("## {name}\n\n{}", text.trim_end()));
        context.included.push(ContextFile {
            name: name.clone(),
            bytes,
        });
    }
    context
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn notes_are_joined_in_name_order_within_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("10-b.md"), "b".repeat(30)).unwrap();
        std::fs::write(dir.path().join("00-a.md"), "About the data.\n").unwrap();
        std::fs::write(dir.path().join("20-c.md"), "c").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "ignored").unwrap();
        let context = load_context(dir.path(), 40);
        assert_eq!(context.text, "## 00-a.md\n\nAbout the data.");
        assert_eq!(context.skipped, vec!["10-b.md", "20-c.md"]);
        assert_eq!(
            context.warnings,
            vec![
                "The context note 10-b.md (30 bytes) and the 1 after it were left out: the notes may hold 40 bytes in all ([hailer].max_context_bytes) and 16 were already used."
            ]
        );
    }

    #[test]
    fn secrets_are_warned_about_and_missing_folders_are_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("keys.md"),
            "Use\nOPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwx\n",
        )
        .unwrap();
        let context = load_context(dir.path(), 24_000);
        assert_eq!(context.included.len(), 1);
        assert_eq!(
            context.warnings,
            vec![
                "The context note keys.md looks like it holds an API key (line 2); every context note is sent to the model endpoint, so move secrets elsewhere."
            ]
        );
        assert_eq!(
            load_context(&dir.path().join("none"), 10),
            Context::default()
        );
    }
}
