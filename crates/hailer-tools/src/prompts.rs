//! Prompt templates for `/prompt <name> [args]`: `<prompts_dir>/<name>.md`, with every `{{args}}`
//! replaced by the arguments. A template without `{{args}}` gets the arguments appended.
//! Prompts are for the user; the model never sees the list.

use std::path::Path;

use crate::Failure;

/// The most bytes a template may have.
const MAX_PROMPT_BYTES: u64 = 256 * 1024;

/// The names of the templates (file names without `.md`), sorted.
pub fn names(prompts_dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(prompts_dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|entry| entry.path().is_file())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter_map(|name| {
            let (stem, suffix) = name.rsplit_once('.')?;
            (suffix.eq_ignore_ascii_case("md")
                && !stem.is_empty()
                && !stem.starts_with('.')
                && !stem.eq_ignore_ascii_case("readme"))
            .then(|| stem.to_owned())
        })
        .collect();
    names.sort();
    names
}

/// The message the template `name` makes with `args`.
pub fn render(prompts_dir: &Path, name: &str, args: &str) -> Result<String, Failure> {
    let available = names(prompts_dir);
    let wanted = name.trim();
    let Some(found) = available
        .iter()
        .find(|candidate| candidate.as_str() == wanted)
        .or_else(|| {
            available
                .iter()
                .find(|candidate| candidate.eq_ignore_ascii_case(wanted))
        })
    else {
        let hint = if available.is_empty() {
            format!(
                "There are no prompts yet; add one as {}/<name>.md.",
                prompts_dir.display()
            )
        } else {
            format!("Available prompts: {}.", available.join(", "))
        };
        return Err(Failure::new(
            format!("there is no prompt named '{wanted}'"),
            hint,
        ));
    };
    let path = prompts_dir.join(format!("{found}.md"));
    let template = read_template(&path).map_err(|why| {
        Failure::new(
            format!("cannot read the prompt '{found}': {why}"),
            "A prompt must be a UTF-8 text file.",
        )
    })?;
    let args = args.trim();
    let rendered = if template.contains("{{args}}") || template.contains("{{ args }}") {
        template
            .replace("{{args}}", args)
            .replace("{{ args }}", args)
    } else if args.is_empty() {
        template
    } else {
        format!("{}\n\n{args}", template.trim_end())
    };
    Ok(rendered.trim().to_owned())
}

fn read_template(path: &Path) -> Result<String, String> {
    let metadata = std::fs::metadata(path).map_err(|error| error.to_string())?;
    if metadata.len() > MAX_PROMPT_BYTES {
        return Err(format!("it is larger than {MAX_PROMPT_BYTES} bytes"));
    }
    let bytes = std::fs::read(path).map_err(|error| error.to_string())?;
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn renders_templates_with_their_arguments() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("first-look.md"),
            "Give a first look at {{args}}.\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("plain.md"), "Summarise the data.").unwrap();
        std::fs::write(dir.path().join("README.md"), "about prompts").unwrap();
        assert_eq!(names(dir.path()), vec!["first-look", "plain"]);
        assert_eq!(
            render(dir.path(), "first-look", " sales.csv ").unwrap(),
            "Give a first look at sales.csv."
        );
        assert_eq!(
            render(dir.path(), "PLAIN", "for 2024").unwrap(),
            "Summarise the data.\n\nfor 2024"
        );
        let unknown = render(dir.path(), "../hailer", "").unwrap_err();
        assert_eq!(unknown.message, "there is no prompt named '../hailer'");
        assert_eq!(unknown.hint, "Available prompts: first-look, plain.");
    }
}
