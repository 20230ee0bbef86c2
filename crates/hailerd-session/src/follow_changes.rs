//! A live session follows what the user changes: the configuration is read again for every
//! attach and every turn, with what the clients last said (their flags, their environment), and
//! kernel settings that differ from the running kernel's restart it between turns, announced to
//! every client.

use std::sync::Arc;

use hailer_config::{Loaded, Runtime};
use hailer_protocol::{KernelStatus, NoticeLevel, StartSessionParams};

use super::kernel_settings::KernelSettings;
use super::session::{KernelSlot, Session};
use super::{SessionError, fatal_problems, load_inputs, sandbox_notebooks_gate};

impl Session {
    /// Keeps what an attaching client said for the next reads of the configuration: its folder,
    /// the flags it gave and, when it sent any, its `HAILER_*` variables (the page sends none and
    /// keeps what a terminal sent). Key and header variables are kept one by one
    /// ([`Self::remember_keys`]): a client without a key never takes it away.
    pub(super) fn remember(&self, params: &StartSessionParams) {
        let Ok(mut inputs) = self.inputs.lock() else {
            return;
        };
        inputs.cwd.clone_from(&params.cwd);
        if params.config.is_some() {
            inputs.config.clone_from(&params.config);
        }
        if params.kernel.is_some() {
            inputs.kernel.clone_from(&params.kernel);
        }
        if params.model.is_some() {
            inputs.model.clone_from(&params.model);
        }
        if !params.env.is_empty() {
            inputs.env.retain(|name, _| !is_settings_variable(name));
            inputs.env.extend(
                params
                    .env
                    .iter()
                    .filter(|(name, _)| is_settings_variable(name))
                    .map(|(name, value)| (name.clone(), value.clone())),
            );
        }
        drop(inputs);
        self.remember_keys(&params.env);
    }

    /// Keeps the last value received for each provider key and header variable in `env`;
    /// a variable a client did not send, or sent empty, keeps the value the session had.
    pub fn remember_keys(&self, env: &std::collections::BTreeMap<String, String>) {
        let Ok(mut inputs) = self.inputs.lock() else {
            return;
        };
        for (name, value) in env {
            if !is_settings_variable(name) && !value.is_empty() {
                inputs.env.insert(name.clone(), value.clone());
            }
        }
    }

    /// The clients' environment as last sent (provider keys and header variables among it).
    pub fn client_env(&self) -> std::collections::BTreeMap<String, String> {
        self.inputs
            .lock()
            .map(|inputs| inputs.env.clone())
            .unwrap_or_default()
    }

    /// Reads the workspace's configuration again; the session uses it from now on. A file with
    /// fatal problems is refused and the session keeps what it had.
    pub fn reload(&self) -> Result<Arc<Loaded>, SessionError> {
        let mut params = self
            .inputs
            .lock()
            .map_err(|_| SessionError::Invalid("the session is unusable".to_owned()))?
            .clone();
        // The session belongs to this workspace, whatever folder the client is in.
        params.workspace = Some(self.workspace().display().to_string());
        let loaded = hailer_config::load(&load_inputs(&params, &self.folders.config)?)?;
        fatal_problems(&loaded)?;
        self.audit_trust(&loaded);
        let loaded = Arc::new(loaded);
        if let Ok(mut current) = self.loaded.write() {
            *current = Arc::clone(&loaded);
        }
        Ok(loaded)
    }

    /// Restarts the kernel when `loaded`'s kernel settings differ from those it was started
    /// with: every client is told what changes, the notebooks come back from a docker kernel
    /// first, and the new kernel starts in the background (requests wait for it). Call it only
    /// while no turn runs. `agreed` carries the user's agreement to run notebooks a docker
    /// kernel wrote, for a switch to unsafe-local.
    pub async fn apply_kernel_settings(
        self: &Arc<Self>,
        loaded: &Loaded,
        agreed: bool,
    ) -> Result<(), SessionError> {
        let spec = self.kernel_spec(loaded);
        let next = KernelSettings::of(&spec);
        let current = self
            .kernel_settings
            .lock()
            .ok()
            .and_then(|settings| settings.clone());
        let Some(current) = current else {
            return Ok(());
        };
        if current == next {
            return Ok(());
        }
        let gate = if next.runtime == Runtime::UnsafeLocal {
            sandbox_notebooks_gate(loaded, agreed)
        } else {
            Ok(false)
        };
        if let Ok(true) = gate {
            self.audit_consent("hailer.toml");
        }
        if let Err(refused) = gate {
            self.notice(
                NoticeLevel::Warning,
                format!(
                    "The kernel keeps its settings: the runtime changed to unsafe-local, and \
                     {refused}."
                ),
            );
            return Err(refused);
        }
        let changes = current.changes_to(&next).join(", ");
        tracing::info!(session = %self.id, %changes, "restarting the kernel for changed settings");
        self.notice(
            NoticeLevel::Warning,
            format!(
                "The kernel restarts to apply: {changes}. Variables from earlier runs are gone; \
                 the notebooks are kept."
            ),
        );
        self.copy_back_notebooks().await;
        let previous = self.kernel.write().await.take();
        self.set_kernel_state(KernelSlot::plain(KernelStatus::Restarting));
        if let Some(previous) = previous {
            previous.stop().await;
        }
        self.start_kernel_with(spec);
        Ok(())
    }

    /// Tells every client, once per change, that the kernel restarts after the running turn to
    /// apply settings that differ from those it runs with.
    fn announce_pending_restart(&self, loaded: &Loaded) {
        let next = KernelSettings::of(&self.kernel_spec(loaded));
        let Some(current) = self.running_kernel() else {
            return;
        };
        if current == next {
            return;
        }
        let changes = current.changes_to(&next).join(", ");
        let Ok(mut announced) = self.pending_announced.lock() else {
            return;
        };
        if announced.as_deref() == Some(changes.as_str()) {
            return;
        }
        *announced = Some(changes.clone());
        drop(announced);
        self.notice(
            NoticeLevel::Warning,
            format!(
                "The kernel restarts when the running turn ends, to apply: {changes}. Until \
                 then it keeps running as it is ({}).",
                self.kernel_line()
            ),
        );
    }

    /// Starts a kernel for `spec` in the background and remembers its settings.
    pub(super) fn start_kernel_with(self: &Arc<Self>, spec: hailerd_kernel::KernelSpec) {
        if let Ok(mut settings) = self.kernel_settings.lock() {
            *settings = Some(KernelSettings::of(&spec));
        }
        if let Ok(mut announced) = self.pending_announced.lock() {
            *announced = None;
        }
        tokio::spawn(super::start_kernel(Arc::clone(self), spec));
    }
}

/// A `HAILER_*` variable: it changes the settings, and the client that attached last decides
/// it. Every other variable a client sends is a provider's key or header variable.
pub fn is_settings_variable(name: &str) -> bool {
    name.starts_with("HAILER_")
}

impl Session {
    /// A client attached to the live session: what it said is kept, the configuration and the
    /// key are judged again, and, between turns, changed kernel settings are applied.
    pub(super) async fn follow_attach(
        self: &Arc<Self>,
        params: &StartSessionParams,
    ) -> Result<(), SessionError> {
        self.remember(params);
        let loaded = self.reload()?;
        let Some(agent) = self.agent.get().cloned() else {
            return Ok(());
        };
        Arc::clone(&agent).judge(Arc::clone(self)).await;
        let agreed = params.run_sandbox_notebooks;
        match agent
            .between_turns(Box::pin(self.apply_kernel_settings(&loaded, agreed)))
            .await
        {
            Some(applied) => applied,
            // A turn runs: the next one applies them, and every client hears so now.
            None => {
                self.announce_pending_restart(&loaded);
                Ok(())
            }
        }
    }
}

impl Session {
    /// Records in the audit trail that the user agreed to run notebooks a docker kernel wrote.
    pub(super) fn audit_consent(&self, client: &str) {
        let mut entry = self
            .audit
            .entry(hailer_protocol::AuditKind::Trust, Some(client));
        entry.outcome = Some(hailer_protocol::AuditOutcome::Ok);
        entry.detail = Some(
            "agreed to run, on this machine under unsafe-local, notebooks a docker kernel wrote"
                .to_owned(),
        );
        self.audit.write(entry);
    }
}
