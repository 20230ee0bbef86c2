//! `[kernel]`: runtime, image and container limits; and the runtime word from any source.

use super::section::Section;
use super::values::Place;
use crate::keys::KERNEL_KEYS;
use crate::problem::{Origin, Problem, Report};
use crate::schema::{Choice, KernelSettings, MemoryError, MemoryLimit, Runtime, defaults};

/// Where a runtime word was written, for the wording of the fix.
#[derive(Clone, Copy)]
pub(crate) enum RuntimeSource {
    File,
    Environment,
    Flag,
}

/// Parses a runtime word; `local` (the old name of unsafe-local) and unknown words are refused
/// with a message about `subject` (how the value was written) and a fix for its source.
pub(crate) fn parse_runtime(
    text: &str,
    subject: &str,
    source: RuntimeSource,
) -> Result<Runtime, (String, String)> {
    if let Some(runtime) = Runtime::parse(text) {
        return Ok(runtime);
    }
    let (choose_unsafe, choose_docker) = match source {
        RuntimeSource::File => (
            "write runtime = \"unsafe-local\"",
            "write runtime = \"docker\"",
        ),
        RuntimeSource::Environment => (
            "set HAILER_KERNEL=unsafe-local",
            "set HAILER_KERNEL=docker or unset HAILER_KERNEL",
        ),
        RuntimeSource::Flag => (
            "pass --kernel unsafe-local",
            "pass --kernel docker or leave the flag out",
        ),
    };
    if text.trim().eq_ignore_ascii_case("local") {
        Err((
            format!(
                "{subject} uses the old name of the runtime that runs notebook code as you, with your files and network; that runtime is now called \"unsafe-local\" because it is not isolated"
            ),
            format!(
                "To keep running notebook code unisolated, {choose_unsafe}, but only if you accept that; otherwise {choose_docker} for the isolated kernel."
            ),
        ))
    } else {
        Err((
            format!("{subject} is not a kernel runtime"),
            format!(
                "Use \"docker\" (isolated, the default) or \"unsafe-local\" (runs as you, not isolated); for the isolated kernel, {choose_docker}."
            ),
        ))
    }
}

/// Checks a `--kernel` value before anything else runs (the client exits with a usage error).
pub fn parse_kernel_flag(value: &str) -> Result<Runtime, Box<Problem>> {
    parse_runtime(value, &format!("--kernel {value}"), RuntimeSource::Flag).map_err(
        |(message, hint)| {
            Box::new(
                Problem::fatal(
                    Origin::Flag {
                        flag: "--kernel".to_owned(),
                    },
                    message,
                    hint,
                )
                .at(Some("kernel"), Some("runtime"))
                .with_value(value),
            )
        },
    )
}

pub(crate) struct KernelRead {
    pub settings: KernelSettings,
    pub runtime_from_file: bool,
    pub image_from_file: bool,
    pub base_image_from_file: bool,
}

pub(crate) fn read(
    section: &Section<'_, '_>,
    place: &Place<'_>,
    report: &mut Report,
) -> KernelRead {
    let runtime = section
        .string("runtime", "\"docker\"", report)
        .and_then(|at| {
            let subject = format!(
                "{} = {}",
                section.label("runtime"),
                section.doc.written(&at.span)
            );
            match parse_runtime(at.value, &subject, RuntimeSource::File) {
                Ok(runtime) => Some(runtime),
                Err((message, hint)) => {
                    report.push(section.fatal("runtime", &at.span, message, hint));
                    None
                }
            }
        });

    let image = image_name(section, "image", "hailer-kernel:company", report);
    let base_image = image_name(
        section,
        "base_image",
        "registry.example/python:3.13-slim",
        report,
    );

    let memory = section.string("memory", "\"4g\"", report).and_then(|at| match MemoryLimit::parse(at.value) {
        Ok(limit) => Some(limit),
        Err(error) => {
            let why = match error {
                MemoryError::Malformed => "is not a memory size",
                MemoryError::Zero => "must be greater than 0",
                MemoryError::TooLarge => "is too large",
                MemoryError::BelowKernelMinimum => "is less than the 256m a kernel needs to start",
            };
            report.push(section.fatal(
                "memory",
                &at.span,
                format!("{} = {} {why}", section.label("memory"), section.doc.written(&at.span)),
                "Write a size of at least 256m, as a number with an optional unit b, k, m or g, such as memory = \"4g\" or \"512m\".".to_owned(),
            ));
            None
        }
    });

    let cpus = section.number("cpus", "2", report).and_then(|at| {
        if at.value > 0.0 {
            Some(at.value)
        } else {
            report.push(
                section.fatal(
                    "cpus",
                    &at.span,
                    format!(
                        "{} = {} must be greater than 0",
                        section.label("cpus"),
                        section.doc.written(&at.span)
                    ),
                    "Write how many CPUs the kernel may use, such as cpus = 2 or cpus = 1.5."
                        .to_owned(),
                ),
            );
            None
        }
    });

    let network = section
        .boolean("network", false, report)
        .is_some_and(|at| at.value);
    let python = section.program("python", "\".venv/bin/python\"", place, report);
    let exec_timeout_secs = section
        .count("exec_timeout_secs", "3600", 1, report)
        .and_then(|at| {
            if at.value <= defaults::MAX_EXEC_TIMEOUT_SECS {
                return Some(at.value);
            }
            report.push(section.fatal(
                "exec_timeout_secs",
                &at.span,
                format!(
                    "{} = {} is more than a day",
                    section.label("exec_timeout_secs"),
                    at.value
                ),
                format!(
                    "Write a number of seconds from 1 to {}, such as exec_timeout_secs = 3600.",
                    defaults::MAX_EXEC_TIMEOUT_SECS
                ),
            ));
            None
        });

    section.warn_unknown_keys(KERNEL_KEYS, report);
    KernelRead {
        runtime_from_file: runtime.is_some(),
        image_from_file: image.is_some(),
        base_image_from_file: base_image.is_some(),
        settings: KernelSettings {
            runtime: runtime.unwrap_or(Runtime::Docker),
            image,
            base_image,
            memory: memory.unwrap_or_else(MemoryLimit::default_limit),
            cpus: cpus.unwrap_or(defaults::CPUS),
            network,
            python,
            exec_timeout_secs: exec_timeout_secs.unwrap_or(defaults::EXEC_TIMEOUT_SECS),
        },
    }
}

/// An image reference under `key`: one word, `None` when empty (the default).
fn image_name(
    section: &Section<'_, '_>,
    key: &str,
    example: &str,
    report: &mut Report,
) -> Option<String> {
    let at = section.string(key, &format!("\"{example}\""), report)?;
    let name = at.value.trim();
    if !is_image_reference(name) {
        report.push(section.fatal(
            key,
            &at.span,
            format!(
                "{} = {} is not an image name",
                section.label(key),
                section.doc.written(&at.span)
            ),
            format!(
                "Write an image reference without spaces, such as {key} = \"{example}\", or \"\" \
                 for the default image."
            ),
        ));
        return None;
    }
    (!name.is_empty()).then(|| name.to_owned())
}

/// Whether `name` can be an image reference: no spaces or control characters, and no leading
/// `-` (which the engine, and any command line it is shown in, would take for an option).
pub fn is_image_reference(name: &str) -> bool {
    !name.starts_with('-') && !name.chars().any(|c| c.is_whitespace() || c.is_control())
}
