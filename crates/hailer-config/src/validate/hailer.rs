//! `[hailer]`: notebook, folders, limits, log level.

use std::path::Path;

use super::section::Section;
use super::values::Place;
use crate::keys::HAILER_KEYS;
use crate::paths;
use crate::problem::Report;
use crate::schema::{HailerSettings, LogLevel, defaults};

pub(crate) struct HailerRead {
    pub settings: HailerSettings,
    pub log_level_from_file: bool,
}

pub(crate) fn read(
    section: &Section<'_, '_>,
    place: &Place<'_>,
    report: &mut Report,
) -> HailerRead {
    let dir = |key: &str, example: &str, default: &str, report: &mut Report| {
        section
            .path(key, example, place, report)
            .map(|at| at.value)
            .unwrap_or_else(|| paths::absolute(place.workspace, Path::new(default)))
    };
    let notebook = section.path("notebook", "\"notebooks/analysis.py\"", place, report);
    let notebooks_dir = section.path("notebooks_dir", "\"notebooks\"", place, report);

    if let Some(at) = &notebook
        && at.value.extension().and_then(|ext| ext.to_str()) != Some("py")
    {
        report.push(section.fatal(
            "notebook",
            &at.span,
            format!("{} does not name a .py file", section.label("notebook")),
            "marimo notebooks are Python files: write a path ending in .py, such as \"notebooks/analysis.py\"."
                .to_owned(),
        ));
    }
    if let (Some(notebook), Some(folder)) = (&notebook, &notebooks_dir)
        && !notebook.value.starts_with(&folder.value)
    {
        report.push(section.fatal(
            "notebook",
            &notebook.span,
            format!(
                "{} is outside notebooks_dir ({})",
                section.label("notebook"),
                section.doc.written(&folder.span)
            ),
            "Put the notebook inside the notebooks folder, or point notebooks_dir at the notebook's folder."
                .to_owned(),
        ));
    }

    let (notebook, notebooks_dir) = match (notebook, notebooks_dir) {
        (Some(notebook), Some(folder)) => (notebook.value, folder.value),
        (Some(notebook), None) => {
            let folder = notebook
                .value
                .parent()
                .map_or_else(|| place.workspace.to_path_buf(), Path::to_path_buf);
            (notebook.value, folder)
        }
        (None, Some(folder)) => (
            folder.value.join(defaults::NOTEBOOK_FILE_NAME),
            folder.value,
        ),
        (None, None) => {
            let notebook = paths::absolute(place.workspace, Path::new(defaults::NOTEBOOK));
            let folder = notebook
                .parent()
                .map_or_else(|| place.workspace.to_path_buf(), Path::to_path_buf);
            (notebook, folder)
        }
    };

    let data_dir = dir("data_dir", "\"data\"", defaults::DATA_DIR, report);
    let context_dir = dir(
        "context_dir",
        "\".config/hailer/context\"",
        defaults::CONTEXT_DIR,
        report,
    );
    let skills_dir = dir(
        "skills_dir",
        "\".config/hailer/skills\"",
        defaults::SKILLS_DIR,
        report,
    );
    let prompts_dir = dir(
        "prompts_dir",
        "\".config/hailer/prompts\"",
        defaults::PROMPTS_DIR,
        report,
    );
    let max_tool_output_chars = section
        .count("max_tool_output_chars", "12000", 1, report)
        .map_or(defaults::MAX_TOOL_OUTPUT_CHARS, |at| at.value);
    let max_context_bytes = section
        .count("max_context_bytes", "24000", 1, report)
        .map_or(defaults::MAX_CONTEXT_BYTES, |at| at.value);
    let log_level = section.choice::<LogLevel>("log_level", "a log level", report);
    let log_level_from_file = log_level.is_some();
    let audit = section
        .boolean("audit", true, report)
        .is_none_or(|at| at.value);

    section.warn_unknown_keys(HAILER_KEYS, report);
    HailerRead {
        settings: HailerSettings {
            notebook,
            notebooks_dir,
            data_dir,
            context_dir,
            skills_dir,
            prompts_dir,
            max_tool_output_chars,
            max_context_bytes,
            log_level: log_level.map_or(LogLevel::Warning, |at| at.value),
            audit,
        },
        log_level_from_file,
    }
}
