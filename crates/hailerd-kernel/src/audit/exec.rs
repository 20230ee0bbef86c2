//! The records of one run of code: one with the code written before it runs (the run waits for
//! it, and does not happen when it cannot be written), and one with how it ended written when
//! it ends, or as cancelled when it is dropped before (a turn cancelled, a client gone).

use std::time::Instant;

use hailer_protocol::{AuditEntry, AuditKind, AuditOutcome, ExecResponse};

use super::{Audit, millis};

/// How a failed run is recorded: its outcome and its message. The kernel's errors say which
/// of them the memory limit ended.
pub trait RunFailure: std::fmt::Display {
    /// How the run ended, as the audit trail records it.
    fn outcome(&self) -> AuditOutcome;
}

/// A run of code under way, its first record written; see [`Audit::start_exec`]. The second
/// carries the run's digest, not its code again.
#[derive(Debug)]
pub struct ExecRecord {
    audit: Audit,
    entry: Option<AuditEntry>,
    started: Instant,
}

impl Audit {
    /// Writes the record of running `code` in `notebook` (its name in the notebooks folder)
    /// before it runs: the code, its digest, no outcome yet. `client` as for [`Audit::entry`].
    /// Why the code must not run, when the record cannot be written.
    pub async fn start_exec(
        &self,
        client: Option<&str>,
        notebook: &str,
        code: &str,
    ) -> Result<ExecRecord, String> {
        let mut end = None;
        if self.inner.is_some() {
            let mut entry = self.entry(AuditKind::Exec, client);
            entry.notebook = Some(notebook.to_owned());
            entry.sha256 = Some(hailer_audit::sha256_hex(code));
            let mut start = entry.clone();
            start.code = Some(code.to_owned());
            self.write_now(start).await?;
            end = Some(entry);
        }
        Ok(ExecRecord {
            audit: self.clone(),
            entry: end,
            started: Instant::now(),
        })
    }
}

impl ExecRecord {
    /// The run ended with `result`.
    pub fn finish(mut self, result: &Result<ExecResponse, impl RunFailure>) {
        let Some(mut entry) = self.entry.take() else {
            return;
        };
        let (outcome, bytes, detail) = match result {
            Ok(response) => (
                if response.success {
                    AuditOutcome::Ok
                } else {
                    AuditOutcome::Error
                },
                response.stdout.len()
                    + response.stderr.len()
                    + response.value.as_ref().map_or(0, |value| value.text.len()),
                response
                    .fresh_kernel
                    .then(|| "the kernel was restarted before the run".to_owned()),
            ),
            Err(error) => (error.outcome(), 0, Some(error.to_string())),
        };
        entry.time = now();
        entry.outcome = Some(outcome);
        entry.output_bytes = Some(bytes as u64);
        entry.detail = detail;
        entry.duration_ms = Some(millis(self.started.elapsed()));
        self.audit.write(entry);
    }
}

impl Drop for ExecRecord {
    fn drop(&mut self) {
        if let Some(mut entry) = self.entry.take() {
            entry.time = now();
            entry.outcome = Some(AuditOutcome::Cancelled);
            entry.duration_ms = Some(millis(self.started.elapsed()));
            self.audit.write(entry);
        }
    }
}

fn now() -> String {
    hailer_audit::format_rfc3339(hailer_audit::unix_millis_now())
}
