//! `[model]`: which model answers and how.

use std::ops::Range;

use super::section::Section;
use crate::keys::MODEL_KEYS;
use crate::problem::Report;
use crate::schema::{CredentialsStore, ModelSettings, OPENAI_PROVIDER, ReasoningEffort, defaults};

pub(crate) struct ModelRead {
    pub settings: ModelSettings,
    pub name_from_file: bool,
    /// Where the file names the provider, to point at it when it is not declared.
    pub provider_span: Option<Range<usize>>,
}

pub(crate) fn read(section: &Section<'_, '_>, report: &mut Report) -> ModelRead {
    let name = section.text("name", "\"gpt-5.5\"", report);
    let provider = section.text("provider", "\"openai\"", report);
    let effort_written = section.string("reasoning_effort", "\"medium\"", report);
    let reasoning_effort_written = effort_written.is_some();
    let reasoning_effort = match effort_written {
        Some(at) if at.value.trim().is_empty() => None,
        Some(_) => section
            .choice::<ReasoningEffort>("reasoning_effort", "a reasoning effort", report)
            .map_or(Some(ReasoningEffort::Medium), |at| Some(at.value)),
        None => Some(ReasoningEffort::Medium),
    };
    let summarize_after_tokens = section
        .count("summarize_after_tokens", "100000", 0, report)
        .map_or(defaults::SUMMARIZE_AFTER_TOKENS, |at| at.value);
    let credentials_store = section
        .choice::<CredentialsStore>("credentials_store", "a credentials store", report)
        .map_or(CredentialsStore::Auto, |at| at.value);
    section.warn_unknown_keys(MODEL_KEYS, report);

    ModelRead {
        name_from_file: name.is_some(),
        provider_span: provider.as_ref().map(|at| at.span.clone()),
        settings: ModelSettings {
            name: name.map_or_else(
                || defaults::MODEL_NAME.to_owned(),
                |at| at.value.trim().to_owned(),
            ),
            provider: provider.map_or_else(
                || OPENAI_PROVIDER.to_owned(),
                |at| at.value.trim().to_owned(),
            ),
            reasoning_effort,
            reasoning_effort_written,
            summarize_after_tokens,
            credentials_store,
        },
    }
}
