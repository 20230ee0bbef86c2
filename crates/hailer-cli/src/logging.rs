//! The client's own log level and where it goes: `--verbose` (DEBUG) or `--log-level`, else
//! `HAILER_LOG_LEVEL`, else `[hailer] log_level` in the workspace's hailer.toml, else WARNING.
//! The client's tracing writes to standard error at that level, and a daemon this client starts
//! gets it as `HAILER_LOG_LEVEL` when it was chosen (a daemon that is already running keeps
//! its own).

use std::sync::OnceLock;

use hailer_config::{Choice as _, LoadInputs, LogLevel, Provenance};
use tracing_subscriber::EnvFilter;

/// The level in force, and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LogChoice {
    pub level: LogLevel,
    pub source: Provenance,
}

static CHOSEN: OnceLock<LogChoice> = OnceLock::new();

/// The level the flags, the client's variables and the workspace's file lead to, by the
/// configuration's own precedence. A configuration that does not load still honours the flag
/// and the variable.
pub(crate) fn resolve(inputs: &LoadInputs) -> LogChoice {
    if let Ok(loaded) = hailer_config::load(inputs) {
        return LogChoice {
            level: loaded.config.hailer.log_level,
            source: loaded.sources.log_level,
        };
    }
    let given = [
        (inputs.overrides.log_level.as_deref(), Provenance::Flag),
        (
            inputs.env.get(hailer_config::HAILER_LOG_LEVEL),
            Provenance::Environment,
        ),
    ];
    given
        .into_iter()
        .find_map(|(value, source)| {
            value
                .and_then(LogLevel::parse)
                .map(|level| LogChoice { level, source })
        })
        .unwrap_or(LogChoice {
            level: LogLevel::Warning,
            source: Provenance::Default,
        })
}

/// The filter of the client's tracing at `choice`.
pub(crate) fn filter(choice: LogChoice) -> EnvFilter {
    EnvFilter::new(choice.level.tracing_level())
}

/// Starts the client's tracing on standard error at `choice`, and remembers it for the daemon.
pub(crate) fn init(choice: LogChoice) {
    let _ = CHOSEN.set(choice);
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter(choice))
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}

/// The variable a daemon this client starts gets its log level from, when one was chosen.
pub(crate) fn daemon_variable(choice: Option<LogChoice>) -> Option<(&'static str, String)> {
    let choice = choice?;
    (choice.source != Provenance::Default)
        .then(|| (hailer_config::HAILER_LOG_LEVEL, choice.level.to_string()))
}

/// The level [`init`] was given.
pub(crate) fn chosen() -> Option<LogChoice> {
    CHOSEN.get().copied()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn inputs(dir: &std::path::Path, flag: Option<&str>, env: Option<&str>) -> LoadInputs {
        let mut inputs = LoadInputs::new(dir);
        inputs.overrides.log_level = flag.map(str::to_owned);
        if let Some(value) = env {
            inputs.env.set(hailer_config::HAILER_LOG_LEVEL, value);
        }
        inputs
    }

    #[test]
    fn the_flag_wins_over_the_variable_which_wins_over_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("hailer.toml"),
            "[hailer]\nlog_level = \"ERROR\"\n",
        )
        .unwrap();
        let at = |flag, env| resolve(&inputs(dir.path(), flag, env));
        assert_eq!(
            at(Some("DEBUG"), Some("info")),
            LogChoice {
                level: LogLevel::Debug,
                source: Provenance::Flag
            }
        );
        assert_eq!(
            at(None, Some("info")),
            LogChoice {
                level: LogLevel::Info,
                source: Provenance::Environment
            }
        );
        assert_eq!(
            at(None, None),
            LogChoice {
                level: LogLevel::Error,
                source: Provenance::File
            }
        );
        let empty = tempfile::tempdir().unwrap();
        assert_eq!(
            resolve(&inputs(empty.path(), None, None)),
            LogChoice {
                level: LogLevel::Warning,
                source: Provenance::Default
            }
        );
    }

    #[test]
    fn a_broken_configuration_still_honours_the_flag_and_the_variable() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("hailer.toml"), "[hailer\nbroken").unwrap();
        assert_eq!(
            resolve(&inputs(dir.path(), Some("TRACE"), Some("info"))).level,
            LogLevel::Trace
        );
        assert_eq!(
            resolve(&inputs(dir.path(), None, Some("info"))).level,
            LogLevel::Info
        );
    }

    #[test]
    fn the_level_is_applied_to_the_client_and_handed_to_the_daemon() {
        let debug = LogChoice {
            level: LogLevel::Debug,
            source: Provenance::Flag,
        };
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(filter(debug))
            .with_writer(std::io::sink)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            assert!(tracing::enabled!(tracing::Level::DEBUG));
            assert!(!tracing::enabled!(tracing::Level::TRACE));
        });
        let quiet = LogChoice {
            level: LogLevel::Warning,
            source: Provenance::Default,
        };
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(filter(quiet))
            .with_writer(std::io::sink)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            assert!(tracing::enabled!(tracing::Level::WARN));
            assert!(!tracing::enabled!(tracing::Level::INFO));
        });
        assert_eq!(
            daemon_variable(Some(debug)),
            Some(("HAILER_LOG_LEVEL", "DEBUG".to_owned()))
        );
        assert_eq!(daemon_variable(Some(quiet)), None);
        assert_eq!(daemon_variable(None), None);
    }
}
