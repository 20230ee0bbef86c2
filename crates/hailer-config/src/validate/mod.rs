//! From a parsed file to a typed [`Config`], collecting every problem on the way.

mod daemon;
mod hailer;
pub(crate) mod kernel;
mod model;
pub(crate) mod overrides;
pub(crate) mod preflight;
mod providers;
mod section;
mod values;
mod web;

use toml::de::{DeTable, DeValue};

use crate::document::Document;
use crate::keys::SCHEMA;
use crate::problem::Report;
use crate::schema::Config;
pub(crate) use section::Section;
pub(crate) use values::Place;

/// What the file settled, before flags and environment.
pub(crate) struct FileRead {
    pub config: Config,
    pub model_name_from_file: bool,
    pub runtime_from_file: bool,
    pub image_from_file: bool,
    pub base_image_from_file: bool,
    pub log_level_from_file: bool,
    /// The file's label and source, to point at the provider line later.
    pub provider_origin: Option<crate::problem::Origin>,
    pub provider_written: Option<String>,
}

/// Reads a document (or nothing: every default) into a configuration.
pub(crate) fn read_file(
    doc: Option<&Document<'_>>,
    place: &Place<'_>,
    report: &mut Report,
) -> FileRead {
    let empty_doc;
    let doc = match doc {
        Some(doc) => doc,
        None => {
            empty_doc = Document::empty();
            &empty_doc
        }
    };
    let root = Section {
        doc,
        name: String::new(),
        table: doc.root.get_ref(),
        span: 0..0,
    };
    check_top_level(&root, report);

    let empty = DeTable::new();
    let section = |name: &str| -> Section<'_, '_> {
        match root.get(name) {
            Some((DeValue::Table(table), span)) => Section {
                doc,
                name: name.to_owned(),
                table,
                span,
            },
            _ => Section {
                doc,
                name: name.to_owned(),
                table: &empty,
                span: 0..0,
            },
        }
    };

    let hailer = hailer::read(&section("hailer"), place, report);
    let model = model::read(&section("model"), report);
    let model_providers = providers::read(&section("model_providers"), report);
    let web = web::read(&section("web"), report);
    let kernel = kernel::read(&section("kernel"), place, report);
    let daemon = daemon::read_daemon(&section("daemon"), report);
    let checks = daemon::read_checks(&section("checks"), place, report);

    FileRead {
        provider_origin: model.provider_span.as_ref().map(|span| doc.origin(span)),
        provider_written: model.provider_span.as_ref().map(|span| doc.written(span)),
        model_name_from_file: model.name_from_file,
        runtime_from_file: kernel.runtime_from_file,
        image_from_file: kernel.image_from_file,
        base_image_from_file: kernel.base_image_from_file,
        log_level_from_file: hailer.log_level_from_file,
        config: Config {
            hailer: hailer.settings,
            model: model.settings,
            model_providers,
            web,
            kernel: kernel.settings,
            daemon,
            checks,
        },
    }
}

/// Known sections must be tables; other top-level names are ignored with a warning.
fn check_top_level(root: &Section<'_, '_>, report: &mut Report) {
    let section_names: Vec<&str> = SCHEMA.iter().map(|(name, _)| *name).collect();
    for (name, span) in root.keys_in_order() {
        let Some((value, value_span)) = root.get(name) else {
            continue;
        };
        let known = section_names.contains(&name);
        match (known, value) {
            (true, DeValue::Table(_)) => {}
            (true, other) => report.push(root.fatal_unquoted(
                name,
                &value_span,
                format!(
                    "{name} must be a section ([{name}] on a line of its own), but it is {}",
                    section::type_name(other)
                ),
                format!("Write [{name}] on its own line and put its settings below it."),
            )),
            (false, DeValue::Table(_)) => {
                let hint = match section::closest(name, &section_names) {
                    Some(near) => format!("Did you mean [{near}]? Otherwise delete the section."),
                    None => format!(
                        "Delete the section; the known sections are {}.",
                        section_names
                            .iter()
                            .map(|s| format!("[{s}]"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                report.push(root.warning_unquoted(
                    name,
                    &span,
                    format!("[{name}] is not a known section and is ignored"),
                    hint,
                ));
            }
            (false, _) => report.push(root.unknown_key(name, &[], &span)),
        }
    }
}
