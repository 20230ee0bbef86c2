//! `[web]`: the allow list of the page-fetching tool.

use toml::de::DeValue;

use super::section::{Section, type_name};
use crate::domains::{AllowedDomains, DomainError, DomainRule};
use crate::keys::WEB_KEYS;
use crate::problem::Report;
use crate::schema::{WebSettings, defaults};

pub(crate) fn read(section: &Section<'_, '_>, report: &mut Report) -> WebSettings {
    let mut rules = Vec::new();
    if let Some(list) = section.array(
        "allowed_domains",
        "[\"docs.python.org\", \"**.example.com\"]",
        report,
    ) {
        for item in list.value {
            let span = item.span();
            let entry = match item.get_ref() {
                DeValue::String(text) => text,
                other => {
                    report.push(section.fatal(
                        "allowed_domains",
                        &span,
                        format!(
                            "{} has an entry that is {}, not a string",
                            section.label("allowed_domains"),
                            type_name(other)
                        ),
                        "Write every entry in quotes, such as allowed_domains = [\"docs.python.org\"].".to_owned(),
                    ));
                    continue;
                }
            };
            match DomainRule::parse(entry) {
                Ok(rule) => rules.push(rule),
                Err(error) => report.push(section.fatal(
                    "allowed_domains",
                    &span,
                    format!(
                        "{} entry {} {error}",
                        section.label("allowed_domains"),
                        section.doc.written(&span)
                    ),
                    DomainError::hint(&error).to_owned(),
                )),
            }
        }
    }
    let max_page_bytes = section
        .count("max_page_bytes", "200000", 1, report)
        .map_or(defaults::MAX_PAGE_BYTES, |at| at.value);
    section.warn_unknown_keys(WEB_KEYS, report);
    WebSettings {
        allowed_domains: AllowedDomains::new(rules),
        max_page_bytes,
    }
}
