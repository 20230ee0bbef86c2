//! What every command shares, built once from the parsed command line: the global flags
//! (`--workspace`, `--config`, `--run-sandbox-notebooks`, `--exec-timeout`, `--verbose`), the
//! configuration overrides they make, the session flags they pass on, and Hailer's home folders.
//!
//! The home folders are worked out on first use, so a command that needs none of them (`hailer
//! audit`, `hailer config check`) runs even where they cannot be found, and a command that
//! refuses its arguments first says so before any complaint about them.

use std::cell::OnceCell;
use std::path::Path;

use hailer_config::HailerHome;
use hailer_config::Overrides;

use crate::cli::Cli;
use crate::session_client::SessionFlags;

/// The global flags and what follows from them, for one run of `hailer`.
pub(crate) struct Context {
    /// `--verbose`.
    verbose: bool,
    /// `--workspace` and `--config` as configuration overrides.
    overrides: Overrides,
    /// The flags a command that starts or attaches a session passes on.
    session_flags: SessionFlags,
    /// Hailer's home folders, from this process's environment once a command asks for them.
    home: OnceCell<HailerHome>,
}

impl Context {
    /// The context of the parsed command line.
    pub(crate) fn new(cli: &Cli) -> Self {
        Self {
            verbose: cli.verbose,
            overrides: Overrides {
                workspace: cli.workspace.clone(),
                config: cli.config.clone(),
                ..Default::default()
            },
            session_flags: SessionFlags {
                workspace: cli.workspace.clone(),
                config: cli.config.clone(),
                run_sandbox_notebooks: cli.run_sandbox_notebooks,
                exec_timeout: cli.exec_timeout,
                ..Default::default()
            },
            home: OnceCell::new(),
        }
    }

    /// `--verbose`.
    pub(crate) fn verbose(&self) -> bool {
        self.verbose
    }

    /// `--workspace`, when given.
    pub(crate) fn workspace(&self) -> Option<&Path> {
        self.overrides.workspace.as_deref()
    }

    /// The configuration overrides of `--workspace` and `--config`.
    pub(crate) fn overrides(&self) -> Overrides {
        self.overrides.clone()
    }

    /// The overrides the client's own logging starts from: `--verbose` is `DEBUG`.
    pub(crate) fn logging_overrides(&self) -> Overrides {
        Overrides {
            log_level: self.verbose.then(|| "DEBUG".to_owned()),
            ..self.overrides()
        }
    }

    /// The global session flags.
    pub(crate) fn session_flags(&self) -> SessionFlags {
        self.session_flags.clone()
    }

    /// The global session flags with a command's `--kernel`.
    pub(crate) fn session_flags_with(&self, kernel: Option<String>) -> SessionFlags {
        SessionFlags {
            kernel,
            ..self.session_flags()
        }
    }

    /// Hailer's home folders; the first call works them out from the environment.
    pub(crate) fn home(&self) -> anyhow::Result<&HailerHome> {
        if let Some(home) = self.home.get() {
            return Ok(home);
        }
        let home = HailerHome::from_env()?;
        Ok(self.home.get_or_init(|| home))
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::Context;
    use crate::cli::Cli;

    #[test]
    fn the_global_flags_reach_the_overrides_and_the_session_flags() {
        let cli = Cli::parse_from([
            "hailer",
            "--workspace",
            "ws",
            "--config",
            "c.toml",
            "--exec-timeout",
            "9",
            "--run-sandbox-notebooks",
            "-v",
            "status",
        ]);
        let context = Context::new(&cli);
        assert!(context.verbose());
        assert_eq!(context.workspace(), Some(std::path::Path::new("ws")));
        let overrides = context.overrides();
        assert_eq!(
            overrides.config.as_deref(),
            Some(std::path::Path::new("c.toml"))
        );
        assert_eq!(overrides.log_level, None);
        assert_eq!(
            context.logging_overrides().log_level.as_deref(),
            Some("DEBUG")
        );
        let flags = context.session_flags_with(Some("docker".to_owned()));
        assert_eq!(flags.exec_timeout, Some(9));
        assert!(flags.run_sandbox_notebooks);
        assert_eq!(flags.kernel.as_deref(), Some("docker"));
        assert!(!flags.new_thread);
    }
}
