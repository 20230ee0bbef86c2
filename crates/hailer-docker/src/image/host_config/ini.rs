//! pip's configuration files: INI as Python's `configparser` reads them (`=` or `:` between a
//! name and its value, `#` and `;` comments on their own line, indented lines continuing a value,
//! names in any case, a `[DEFAULT]` section whose settings every section inherits, and no
//! section or name twice).
//!
//! Errors carry a line number and a reason, never the line itself: a line may hold a password.
//!
//! Written here rather than taken from a crate on purpose: the INI crates read duplicates as
//! "last one wins", do not let sections inherit `[DEFAULT]` and differ on comments, so they would
//! read a `pip.conf` differently from pip itself, and their errors quote the line.

use std::collections::BTreeMap;

/// A parsed file: every section but `DEFAULT`, each with its settings (names lower-cased),
/// `DEFAULT`'s settings already inherited.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Ini {
    sections: BTreeMap<String, BTreeMap<String, String>>,
}

/// Why a file is not INI pip can read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct IniError {
    /// 1-based.
    pub line: usize,
    pub reason: &'static str,
}

const DEFAULT_SECTION: &str = "DEFAULT";

impl Ini {
    /// The settings of `section`, when the file has it.
    pub(super) fn section(&self, name: &str) -> Option<&BTreeMap<String, String>> {
        self.sections.get(name)
    }
}

/// Where the value being read continues.
struct Open {
    section: String,
    name: String,
    indent: usize,
}

/// Parses `text` (a leading byte-order mark is ignored).
pub(super) fn parse(text: &str) -> Result<Ini, IniError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut sections: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut open: Option<Open> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let error = |reason| IniError { line, reason };
        let trimmed = raw.trim();
        let indent = raw.len() - raw.trim_start().len();
        if trimmed.is_empty() {
            // An empty line inside a value is kept by configparser; the value ends at the next
            // line that is not indented deeper.
            if let Some(open) = &open
                && let Some(value) = sections
                    .get_mut(&open.section)
                    .and_then(|s| s.get_mut(&open.name))
            {
                value.push('\n');
            }
            continue;
        }
        if trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if let Some(continued) = &open
            && indent > continued.indent
        {
            if let Some(value) = sections
                .get_mut(&continued.section)
                .and_then(|s| s.get_mut(&continued.name))
            {
                value.push('\n');
                value.push_str(trimmed);
            }
            continue;
        }
        open = None;
        if trimmed.starts_with('[') {
            let Some(name) = trimmed.strip_prefix('[').and_then(|t| t.strip_suffix(']')) else {
                return Err(error("a section header without its closing ]"));
            };
            if sections.contains_key(name) {
                return Err(error("a section that appears earlier in the file again"));
            }
            sections.insert(name.to_owned(), BTreeMap::new());
            current = Some(name.to_owned());
            continue;
        }
        let Some(section) = current.clone() else {
            return Err(error("a setting before the first [section] header"));
        };
        let Some(at) = trimmed.find(['=', ':']) else {
            return Err(error(
                "a line that is neither a [section] nor a `name = value` setting",
            ));
        };
        let name = trimmed[..at].trim().to_lowercase();
        if name.is_empty() {
            return Err(error("a setting without a name"));
        }
        let value = trimmed[at + 1..].trim().to_owned();
        let settings = sections.entry(section.clone()).or_default();
        if settings.contains_key(&name) {
            return Err(error("a setting that appears earlier in its section again"));
        }
        settings.insert(name.clone(), value);
        open = Some(Open {
            section,
            name,
            indent,
        });
    }
    for settings in sections.values_mut() {
        for value in settings.values_mut() {
            let kept = value.trim_end().len();
            value.truncate(kept);
        }
    }
    let defaults = sections.remove(DEFAULT_SECTION).unwrap_or_default();
    for settings in sections.values_mut() {
        for (name, value) in &defaults {
            settings
                .entry(name.clone())
                .or_insert_with(|| value.clone());
        }
    }
    Ok(Ini { sections })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn reads_what_configparser_reads() {
        let ini = parse(
            "\u{feff}# comment\n[global]\nIndex-URL = https://a/simple\ntimeout: 30\n\
             extra-index-url =\n    https://b/simple\n\n    https://c/simple\n; more\n\
             [install]\ntrusted-host=a\n[DEFAULT]\nretries = 3\n",
        )
        .unwrap();
        let global = ini.section("global").unwrap();
        assert_eq!(global["index-url"], "https://a/simple");
        assert_eq!(global["timeout"], "30");
        assert_eq!(
            global["extra-index-url"],
            "\nhttps://b/simple\n\nhttps://c/simple"
        );
        assert_eq!(global["retries"], "3");
        assert_eq!(ini.section("install").unwrap()["trusted-host"], "a");
        assert!(ini.section("DEFAULT").is_none());
    }

    #[test]
    fn malformed_files_name_the_line_but_never_quote_it() {
        let cases = [
            ("index-url = https://u:secret@x/simple\n", 1),
            ("[global]\nsecret-token-without-delimiter\n", 2),
            ("[global]\n\njust-a-word-secret\n", 3),
            ("[global\nindex-url = x\n", 1),
            ("[global]\n[global]\n", 2),
            ("[global]\na = 1\nA = 2\n", 3),
            ("[global]\n= secret\n", 2),
        ];
        for (text, line) in cases {
            let error = parse(text).unwrap_err();
            assert_eq!(error.line, line, "{text:?}: {error:?}");
            assert!(!error.reason.contains("secret"));
        }
    }
}
