//! The front matter of a `SKILL.md`: a block between two `---` lines at the very top, holding
//! `key: value` lines. Only `name` and `description` are read; values may be quoted, and a
//! `>` or `|` value continues on the indented lines below it. Anything else is ignored, and a file
//! without a well-formed block has no front matter (its whole text is the body).

/// The fields a skill's front matter may set. Values are trimmed and on one line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FrontMatter {
    /// `name:`, the skill's name.
    pub name: Option<String>,
    /// `description:`, what the skill is for.
    pub description: Option<String>,
}

/// Splits `text` into its front matter and the body after it.
pub(crate) fn parse(text: &str) -> (FrontMatter, &str) {
    let text_without_bom = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some((first, mut rest)) = split_line(text_without_bom) else {
        return (FrontMatter::default(), text);
    };
    if first.trim_end() != "---" {
        return (FrontMatter::default(), text);
    }
    let mut lines = Vec::new();
    loop {
        let Some((line, after)) = split_line(rest) else {
            // No closing line: not front matter after all.
            return (FrontMatter::default(), text);
        };
        rest = after;
        if matches!(line.trim_end(), "---" | "...") {
            break;
        }
        lines.push(line);
    }
    (fields(&lines), rest)
}

/// The first line (without its line break) and what follows; `None` for empty text.
fn split_line(text: &str) -> Option<(&str, &str)> {
    if text.is_empty() {
        return None;
    }
    Some(match text.find('\n') {
        Some(end) => (text[..end].trim_end_matches('\r'), &text[end + 1..]),
        None => (text.trim_end_matches('\r'), ""),
    })
}

fn fields(lines: &[&str]) -> FrontMatter {
    let mut matter = FrontMatter::default();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        index += 1;
        if line.starts_with([' ', '\t', '#']) {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let value = if matches!(value, ">" | "|" | ">-" | "|-" | ">+" | "|+") {
            let mut parts = Vec::new();
            while index < lines.len()
                && (lines[index].starts_with([' ', '\t']) || lines[index].trim().is_empty())
            {
                parts.push(lines[index].trim());
                index += 1;
            }
            parts.join(" ")
        } else {
            unquote(value).to_owned()
        };
        let value = one_line(&value);
        if value.is_empty() {
            continue;
        }
        match key.trim() {
            "name" => matter.name = Some(value),
            "description" => matter.description = Some(value),
            _ => {}
        }
    }
    matter
}

fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
        {
            return inner;
        }
    }
    value
}

fn one_line(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn reads_name_and_description() {
        let (matter, body) = parse(
            "---\nname: Monthly pack\ndescription: \"Builds the monthly KPI pack.\"\nother: x\n---\n# Steps\n",
        );
        assert_eq!(matter.name.as_deref(), Some("Monthly pack"));
        assert_eq!(
            matter.description.as_deref(),
            Some("Builds the monthly KPI pack.")
        );
        assert_eq!(body, "# Steps\n");
    }

    #[test]
    fn folded_values_and_crlf() {
        let (matter, body) = parse(
            "\u{feff}---\r\nname: 'x'\r\ndescription: >\r\n  first line\r\n  second line\r\n---\r\nbody",
        );
        assert_eq!(matter.name.as_deref(), Some("x"));
        assert_eq!(
            matter.description.as_deref(),
            Some("first line second line")
        );
        assert_eq!(body, "body");
    }

    #[test]
    fn without_a_closed_block_the_whole_text_is_the_body() {
        for text in [
            "no front matter",
            "---\nname: x\n",
            "",
            "--- \n",
            "----\nname: x\n---\n",
        ] {
            let (matter, body) = parse(text);
            assert_eq!(matter, FrontMatter::default(), "{text:?}");
            assert_eq!(body, text);
        }
    }

    proptest! {
        #[test]
        fn never_panics_and_the_body_is_a_suffix(text in "(---\n)?(\\PC|\n|\r){0,200}(\n---\n)?(\\PC|\n){0,40}") {
            let (matter, body) = parse(&text);
            prop_assert!(text.ends_with(body));
            for value in [matter.name, matter.description].into_iter().flatten() {
                prop_assert!(!value.is_empty());
                prop_assert!(!value.contains('\n'));
                prop_assert_eq!(value.trim(), value.as_str());
            }
        }

        #[test]
        fn written_fields_are_read_back(name in "[A-Za-z][A-Za-z0-9 _-]{0,30}[A-Za-z0-9]", description in "[A-Za-z0-9][A-Za-z0-9 ,.]{0,60}") {
            let text = format!("---\nname: {name}\ndescription: {description}\n---\nbody\n");
            let (matter, body) = parse(&text);
            prop_assert_eq!(matter.name, Some(one_line(&name)));
            prop_assert_eq!(matter.description, Some(one_line(&description)));
            prop_assert_eq!(body, "body\n");
        }
    }
}
