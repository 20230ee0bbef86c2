//! Flags and environment over the file: flag > environment > file > default.

use super::FileRead;
use super::kernel::{RuntimeSource, is_image_reference, parse_runtime};
use crate::env::{self, ClientEnv};
use crate::inputs::{Overrides, Provenance, Sources};
use crate::problem::{Origin, Problem, Report};
use crate::schema::{Choice, Config, LogLevel, defaults};

/// One override, with where it came from.
struct Given<'a> {
    value: &'a str,
    origin: Origin,
    provenance: Provenance,
    /// How messages write it: `--model x` or `HAILER_MODEL=x`.
    subject: String,
}

fn given<'a>(
    flag_name: &str,
    flag: Option<&'a str>,
    variable: &str,
    env: &'a ClientEnv,
) -> Option<Given<'a>> {
    if let Some(value) = flag {
        return Some(Given {
            value,
            origin: Origin::Flag {
                flag: flag_name.to_owned(),
            },
            provenance: Provenance::Flag,
            subject: format!("{flag_name} {}", shown(value)),
        });
    }
    env.get(variable).map(|value| Given {
        value,
        origin: Origin::Environment {
            variable: variable.to_owned(),
        },
        provenance: Provenance::Environment,
        subject: format!("{variable}={}", shown(value)),
    })
}

/// A value as messages show it: quoted when it is empty or has spaces.
fn shown(value: &str) -> String {
    if value.is_empty() || value.chars().any(char::is_whitespace) {
        format!("{value:?}")
    } else {
        value.to_owned()
    }
}

impl Given<'_> {
    fn problem(&self, key: &str, section: &str, message: String, hint: String) -> Problem {
        Problem::fatal(self.origin.clone(), message, hint)
            .at(Some(section), Some(key))
            .with_value(self.value)
    }

    /// The fix phrased for where the value came from.
    fn fix(&self, what: &str) -> String {
        match &self.origin {
            Origin::Environment { variable } => format!("Set {variable} to {what}, or unset it."),
            Origin::Flag { flag } => format!("Pass {flag} with {what}, or leave the flag out."),
            _ => format!("Use {what}."),
        }
    }

    /// A non-empty, trimmed value, or a problem.
    fn text(&self, key: &str, section: &str, report: &mut Report) -> Option<String> {
        let text = self.value.trim();
        if text.is_empty() {
            report.push(self.problem(
                key,
                section,
                format!("{} is empty", self.subject),
                self.fix("a value"),
            ));
            return None;
        }
        Some(text.to_owned())
    }

    /// A non-empty image reference for `[kernel] key`, or a problem.
    fn image_reference(&self, key: &str, example: &str, report: &mut Report) -> Option<String> {
        let image = self.text(key, "kernel", report)?;
        if is_image_reference(&image) {
            return Some(image);
        }
        report.push(self.problem(
            key,
            "kernel",
            format!("{} is not an image name", self.subject),
            self.fix(&format!(
                "an image reference without spaces, such as {example}"
            )),
        ));
        None
    }
}

fn provenance(from_file: bool) -> Provenance {
    if from_file {
        Provenance::File
    } else {
        Provenance::Default
    }
}

/// Applies flags and variables to the file's configuration.
pub(crate) fn apply(
    file: &mut FileRead,
    overrides: &Overrides,
    env: &ClientEnv,
    report: &mut Report,
) -> Sources {
    let config: &mut Config = &mut file.config;
    let mut sources = Sources {
        model: provenance(file.model_name_from_file),
        provider: provenance(file.provider_origin.is_some()),
        runtime: provenance(file.runtime_from_file),
        image: provenance(file.image_from_file),
        base_image: provenance(file.base_image_from_file),
        log_level: provenance(file.log_level_from_file),
    };

    if let Some(given) = given(
        "--model",
        overrides.model.as_deref(),
        env::HAILER_MODEL,
        env,
    ) && let Some(name) = given.text("name", "model", report)
    {
        config.model.name = name;
        sources.model = given.provenance;
    }

    let provider = given(
        "--provider",
        overrides.provider.as_deref(),
        env::HAILER_MODEL_PROVIDER,
        env,
    );
    if let Some(given) = &provider
        && let Some(id) = given.text("provider", "model", report)
    {
        config.model.provider = id;
        sources.provider = given.provenance;
    }

    if let Some(given) = given(
        "--kernel",
        overrides.kernel.as_deref(),
        env::HAILER_KERNEL,
        env,
    ) {
        let source = match given.provenance {
            Provenance::Flag => RuntimeSource::Flag,
            _ => RuntimeSource::Environment,
        };
        match parse_runtime(given.value, &given.subject, source) {
            Ok(runtime) => {
                config.kernel.runtime = runtime;
                sources.runtime = given.provenance;
            }
            Err((message, hint)) => report.push(given.problem("runtime", "kernel", message, hint)),
        }
    }

    if let Some(given) = given(
        "--kernel-image",
        overrides.kernel_image.as_deref(),
        env::HAILER_KERNEL_IMAGE,
        env,
    ) && let Some(image) = given.image_reference("image", "hailer-kernel:company", report)
    {
        config.kernel.image = Some(image);
        sources.image = given.provenance;
    }

    if let Some(given) = given(
        "--base-image",
        overrides.kernel_base_image.as_deref(),
        env::HAILER_KERNEL_BASE_IMAGE,
        env,
    ) && let Some(image) =
        given.image_reference("base_image", "registry.example/python:3.13-slim", report)
    {
        config.kernel.base_image = Some(image);
        sources.base_image = given.provenance;
    }

    if let Some(given) = given(
        "--log-level",
        overrides.log_level.as_deref(),
        env::HAILER_LOG_LEVEL,
        env,
    ) {
        match LogLevel::parse(given.value) {
            Some(level) => {
                config.hailer.log_level = level;
                sources.log_level = given.provenance;
            }
            None => report.push(given.problem(
                "log_level",
                "hailer",
                format!("{} is not a log level", given.subject),
                given.fix(&LogLevel::list()),
            )),
        }
    }

    if let Some(given) = given(
        "--exec-timeout",
        overrides.exec_timeout.as_deref(),
        env::HAILER_EXEC_TIMEOUT_SECS,
        env,
    ) {
        match given.value.trim().parse::<u64>() {
            Ok(secs) if (1..=defaults::MAX_EXEC_TIMEOUT_SECS).contains(&secs) => {
                config.kernel.exec_timeout_secs = secs;
            }
            _ => report.push(given.problem(
                "exec_timeout_secs",
                "kernel",
                format!(
                    "{} is not a number of seconds from 1 to 86400",
                    given.subject
                ),
                given.fix("a whole number of seconds, such as 3600"),
            )),
        }
    }

    check_provider_declared(file, provider.as_ref(), report);
    warn_retired_variables(env, report);
    sources
}

/// The effective provider must be `openai` or declared under `[model_providers]`.
fn check_provider_declared(file: &FileRead, given: Option<&Given<'_>>, report: &mut Report) {
    let config = &file.config;
    let id = &config.model.provider;
    if config.model_providers.contains_key(id) {
        return;
    }
    let declared: Vec<&str> = config.model_providers.keys().map(String::as_str).collect();
    let message_tail = format!(
        "names the provider \"{id}\", which is not declared (known: {})",
        declared.join(", ")
    );
    let hint = format!(
        "Add a [model_providers.{id}] section with base_url and env_key, or choose one of: {}.",
        declared.join(", ")
    );
    let problem = match (given, &file.provider_origin) {
        (Some(given), _) if given.value.trim() == id => given.problem(
            "provider",
            "model",
            format!("{} {message_tail}", given.subject),
            hint,
        ),
        (_, Some(origin)) => {
            let written = file.provider_written.clone().unwrap_or_default();
            Problem::fatal(
                origin.clone(),
                format!("[model] provider = {written} {message_tail}"),
                hint,
            )
            .at(Some("model"), Some("provider"))
            .with_value(written)
        }
        _ => return,
    };
    report.push(problem);
}

fn warn_retired_variables(env: &ClientEnv, report: &mut Report) {
    for variable in env::RETIRED_VARIABLES {
        if env.get(variable).is_some() {
            report.push(Problem::warning(
                Origin::Environment {
                    variable: variable.to_owned(),
                },
                format!("{variable} is no longer read and is ignored"),
                format!(
                    "Unset {variable}: Hailer starts its own kernel and reads notebooks and folders from hailer.toml."
                ),
            ));
        }
    }
}
