//! Typed access to one table of `hailer.toml`, turning every surprise into a [`Problem`].

use std::ops::Range;

use toml::de::{DeArray, DeTable, DeValue};

use crate::document::Document;
use crate::keys;
use crate::problem::{Problem, Report};

/// A value with the place it was written.
pub(crate) struct At<T> {
    pub value: T,
    pub span: Range<usize>,
}

/// One table of the file: `[kernel]`, `[model_providers.acme]`, or the top level.
pub(crate) struct Section<'d, 's> {
    pub doc: &'d Document<'s>,
    /// `kernel`, `model_providers.acme`, or empty for the top level.
    pub name: String,
    pub table: &'d DeTable<'s>,
    pub span: Range<usize>,
}

impl<'d, 's> Section<'d, 's> {
    /// How messages name a key of this section: `[kernel] memory`, or `memory` at the top.
    pub(crate) fn label(&self, key: &str) -> String {
        if self.name.is_empty() {
            format!("top-level key {key}")
        } else {
            format!("[{}] {key}", self.name)
        }
    }

    fn section(&self) -> Option<&str> {
        (!self.name.is_empty()).then_some(self.name.as_str())
    }

    /// The raw value of a key.
    pub(crate) fn get(&self, key: &str) -> Option<(&'d DeValue<'s>, Range<usize>)> {
        self.table
            .iter()
            .find(|(name, _)| name.get_ref().as_ref() == key)
            .map(|(_, value)| (value.get_ref(), value.span()))
    }

    /// Keys in the order they appear in the file.
    pub(crate) fn keys_in_order(&self) -> Vec<(&'d str, Range<usize>)> {
        let mut keys: Vec<(&'d str, Range<usize>)> = self
            .table
            .iter()
            .map(|(name, _)| (name.get_ref().as_ref(), name.span()))
            .collect();
        keys.sort_by_key(|(_, span)| span.start);
        keys
    }

    /// A fatal problem about the value of `key`, quoting it as written.
    pub(crate) fn fatal(
        &self,
        key: &str,
        span: &Range<usize>,
        message: String,
        hint: String,
    ) -> Problem {
        Problem::fatal(self.doc.origin(span), message, hint)
            .at(self.section(), Some(key))
            .with_value(self.doc.written(span))
    }

    /// A fatal problem about `key` that must not quote its value (it may be a secret).
    pub(crate) fn fatal_unquoted(
        &self,
        key: &str,
        span: &Range<usize>,
        message: String,
        hint: String,
    ) -> Problem {
        Problem::fatal(self.doc.origin(span), message, hint).at(self.section(), Some(key))
    }

    /// A warning about `key` that does not quote its value.
    pub(crate) fn warning_unquoted(
        &self,
        key: &str,
        span: &Range<usize>,
        message: String,
        hint: String,
    ) -> Problem {
        Problem::warning(self.doc.origin(span), message, hint).at(self.section(), Some(key))
    }

    /// A problem about the whole section (no value quoted).
    pub(crate) fn problem_here(
        &self,
        key: Option<&str>,
        fatal: bool,
        message: String,
        hint: String,
    ) -> Problem {
        let origin = self.doc.origin(&self.span);
        let problem = if fatal {
            Problem::fatal(origin, message, hint)
        } else {
            Problem::warning(origin, message, hint)
        };
        problem.at(self.section(), key)
    }

    fn wrong_type(
        &self,
        key: &str,
        expected: &str,
        example: &str,
        value: &DeValue<'_>,
        span: &Range<usize>,
    ) -> Problem {
        let written = self.doc.written(span);
        self.fatal(
            key,
            span,
            format!(
                "{} must be {expected}, but it is {} ({written})",
                self.label(key),
                type_name(value)
            ),
            format!("Write it as {key} = {example}."),
        )
    }

    pub(crate) fn string(
        &self,
        key: &str,
        example: &str,
        report: &mut Report,
    ) -> Option<At<&'d str>> {
        let (value, span) = self.get(key)?;
        match value {
            DeValue::String(text) => Some(At {
                value: text.as_ref(),
                span,
            }),
            other => {
                report.push(self.wrong_type(key, "a string", example, other, &span));
                None
            }
        }
    }

    /// `example` is the value the fix suggests, usually the default.
    pub(crate) fn boolean(
        &self,
        key: &str,
        example: bool,
        report: &mut Report,
    ) -> Option<At<bool>> {
        let (value, span) = self.get(key)?;
        match value {
            DeValue::Boolean(flag) => Some(At { value: *flag, span }),
            other => {
                report.push(self.wrong_type(
                    key,
                    "true or false",
                    if example { "true" } else { "false" },
                    other,
                    &span,
                ));
                None
            }
        }
    }

    pub(crate) fn integer(&self, key: &str, example: &str, report: &mut Report) -> Option<At<i64>> {
        let (value, span) = self.get(key)?;
        match value {
            DeValue::Integer(number) => {
                match i64::from_str_radix(number.as_str(), number.radix()) {
                    Ok(parsed) => Some(At {
                        value: parsed,
                        span,
                    }),
                    Err(_) => {
                        report.push(self.fatal(
                            key,
                            &span,
                            format!("{} is too large", self.label(key)),
                            format!("Write a smaller whole number, for example {key} = {example}."),
                        ));
                        None
                    }
                }
            }
            other => {
                report.push(self.wrong_type(key, "a whole number", example, other, &span));
                None
            }
        }
    }

    /// A whole number or a decimal.
    pub(crate) fn number(&self, key: &str, example: &str, report: &mut Report) -> Option<At<f64>> {
        let (value, span) = self.get(key)?;
        let parsed = match value {
            DeValue::Integer(number) => i64::from_str_radix(number.as_str(), number.radix())
                .ok()
                .map(|n| n as f64),
            DeValue::Float(number) => number.as_str().parse::<f64>().ok(),
            other => {
                report.push(self.wrong_type(key, "a number", example, other, &span));
                return None;
            }
        };
        match parsed {
            Some(value) if value.is_finite() => Some(At { value, span }),
            _ => {
                report.push(self.fatal(
                    key,
                    &span,
                    format!("{} is not a usable number", self.label(key)),
                    format!("Write an ordinary number, for example {key} = {example}."),
                ));
                None
            }
        }
    }

    pub(crate) fn array(
        &self,
        key: &str,
        example: &str,
        report: &mut Report,
    ) -> Option<At<&'d DeArray<'s>>> {
        let (value, span) = self.get(key)?;
        match value {
            DeValue::Array(items) => Some(At { value: items, span }),
            other => {
                report.push(self.wrong_type(key, "a list", example, other, &span));
                None
            }
        }
    }

    /// A sub-table such as `http_headers`, as a section of its own.
    pub(crate) fn table(
        &self,
        key: &str,
        example: &str,
        report: &mut Report,
    ) -> Option<Section<'d, 's>> {
        let (value, span) = self.get(key)?;
        match value {
            DeValue::Table(table) => Some(Section {
                doc: self.doc,
                name: if self.name.is_empty() {
                    key.to_owned()
                } else {
                    format!("{}.{key}", self.name)
                },
                table,
                span,
            }),
            other => {
                report.push(self.wrong_type(key, "a table", example, other, &span));
                None
            }
        }
    }

    /// Warns about every key not in `known`, never quoting their values.
    pub(crate) fn warn_unknown_keys(&self, known: &[&str], report: &mut Report) {
        for (key, span) in self.keys_in_order() {
            if known.contains(&key) {
                continue;
            }
            report.push(self.unknown_key(key, known, &span));
        }
    }

    pub(crate) fn unknown_key(&self, key: &str, known: &[&str], span: &Range<usize>) -> Problem {
        let origin = self.doc.origin(span);
        let label = self.label(key);
        let (message, hint) = if keys::RETIRED_KEYS.contains(&key) {
            (
                format!("{label} is no longer used and is ignored"),
                "Delete the line.".to_owned(),
            )
        } else if keys::looks_secret(key) {
            (
                format!(
                    "{label} looks like a secret and is ignored: Hailer never reads keys or tokens from its configuration file"
                ),
                format!(
                    "Delete the line, keep the key in the environment variable named by env_key, or store it with `hailer login {}`.",
                    self.name
                        .strip_prefix("model_providers.")
                        .unwrap_or("<provider>")
                ),
            )
        } else if let Some(home) =
            keys::home_section(key).filter(|home| Some(*home) != self.section().map(section_root))
        {
            let effect = if home == "kernel" {
                "; the kernel settings stay as they are (runtime \"docker\" unless [kernel] says otherwise)"
            } else {
                ""
            };
            (
                format!("{label} is ignored here: it belongs under [{home}]{effect}"),
                format!("Move the line below a [{home}] line."),
            )
        } else {
            let hint = match closest(key, known) {
                Some(near) => format!("Did you mean {near}? Otherwise delete the line."),
                None if known.is_empty() => {
                    "Delete the line; settings go below a section line such as [hailer] or [model]."
                        .to_owned()
                }
                None => format!(
                    "Delete the line; the known keys here are {}.",
                    known.join(", ")
                ),
            };
            (
                format!("{label} is not a known setting and is ignored"),
                hint,
            )
        };
        Problem::warning(origin, message, hint).at(self.section(), Some(key))
    }
}

/// `model_providers.acme` → `model_providers`.
fn section_root(name: &str) -> &str {
    name.split('.').next().unwrap_or(name)
}

/// "a string", "an integer", ... for messages.
pub(crate) fn type_name(value: &DeValue<'_>) -> &'static str {
    match value {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "a whole number",
        DeValue::Float(_) => "a decimal number",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date or time",
        DeValue::Array(_) => "a list",
        DeValue::Table(_) => "a table",
    }
}

/// The known name nearest to `word`, when it is a likely typo (at most two edits away).
pub(crate) fn closest<'k>(word: &str, known: &[&'k str]) -> Option<&'k str> {
    known
        .iter()
        .map(|candidate| (edit_distance(word, candidate), *candidate))
        .filter(|(distance, _)| *distance <= 2)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            let deletion = previous[j + 1] + 1;
            let insertion = current[j] + 1;
            current.push(substitution.min(deletion).min(insertion));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_names_only() {
        assert_eq!(closest("runtim", keys::KERNEL_KEYS), Some("runtime"));
        assert_eq!(closest("memroy", keys::KERNEL_KEYS), Some("memory"));
        assert_eq!(closest("colour", keys::KERNEL_KEYS), None);
    }
}
