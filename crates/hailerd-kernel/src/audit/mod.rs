//! A session's audit trail: every run of code, cell written, page fetched, notebook copied
//! back, kernel start and stop, and consent given, appended to the workspace's
//! `.hailer/audit.jsonl` (see `hailer-audit`).
//!
//! Recording costs the caller a channel send: digests, masking and the write happen on a thread
//! of the trail's own, never on the async workers.

mod exec;

pub use exec::RunFailure;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hailer_protocol::{AuditEntry, AuditKind, AuditOutcome};

/// The turn whose tools are running, for their records.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TurnTag {
    id: String,
    client: String,
}

/// Where a session's records go; clones share the trail. A disabled trail (`[hailer] audit =
/// false`) records nothing.
#[derive(Clone, Default)]
pub struct Audit {
    inner: Option<Arc<Inner>>,
}

struct Inner {
    writer: Arc<writer::Writer>,
    session: String,
    state_dir: PathBuf,
    turn: std::sync::Mutex<Option<TurnTag>>,
}

impl std::fmt::Debug for Audit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.inner.is_some() {
            "Audit(on)"
        } else {
            "Audit(off)"
        })
    }
}

impl Audit {
    /// The trail of the workspace whose state folder is `state_dir`, its head anchored at
    /// `anchor` in Hailer's data folder, for `session`; its secrets masked by `redactor` before
    /// each line is written.
    pub fn open(
        state_dir: &Path,
        anchor: &Path,
        session: &str,
        redactor: hailer_redact::Redactor,
    ) -> Self {
        let Some(writer) = writer::shared(state_dir, anchor, redactor) else {
            return Self::default();
        };
        Self {
            inner: Some(Arc::new(Inner {
                writer,
                session: session.to_owned(),
                state_dir: state_dir.to_path_buf(),
                turn: std::sync::Mutex::new(None),
            })),
        }
    }

    /// Tools run from now on belong to this turn (`None`: to no turn).
    pub fn set_turn(&self, turn: Option<(&str, &str)>) {
        if let Some(inner) = &self.inner
            && let Ok(mut current) = inner.turn.lock()
        {
            *current = turn.map(|(id, client)| TurnTag {
                id: id.to_owned(),
                client: client.to_owned(),
            });
        }
    }

    /// A record of `kind` stamped now. With `client` it is that client's own request; without,
    /// it belongs to the running turn, or else to the daemon.
    pub fn entry(&self, kind: AuditKind, client: Option<&str>) -> AuditEntry {
        let (turn, client) = match (client, self.turn()) {
            (Some(client), _) => (None, client.to_owned()),
            (None, Some(tag)) => (Some(tag.id), tag.client),
            (None, None) => (None, "daemon".to_owned()),
        };
        AuditEntry {
            seq: 0,
            time: hailer_audit::format_rfc3339(hailer_audit::unix_millis_now()),
            kind,
            session: self
                .inner
                .as_ref()
                .map(|inner| inner.session.clone())
                .unwrap_or_default(),
            turn,
            client,
            notebook: None,
            code: None,
            url: None,
            sha256: None,
            outcome: None,
            duration_ms: None,
            output_bytes: None,
            detail: None,
            prev: String::new(),
        }
    }

    /// Appends `entry` (in the background).
    pub fn write(&self, entry: AuditEntry) {
        if let Some(inner) = &self.inner {
            let _ = inner
                .writer
                .sender
                .send(writer::Message::Write(Box::new(entry)));
        }
    }

    /// Appends `entry` and waits until it is written; why not, when it cannot be (a disabled
    /// trail writes nothing and succeeds).
    pub async fn write_now(&self, entry: AuditEntry) -> Result<(), String> {
        let Some(inner) = &self.inner else {
            return Ok(());
        };
        let (done, written) = tokio::sync::oneshot::channel();
        inner
            .writer
            .sender
            .send(writer::Message::WriteNow(Box::new(entry), done))
            .map_err(|_| "the audit trail's writer has stopped".to_owned())?;
        written
            .await
            .unwrap_or_else(|_| Err("the audit trail's writer has stopped".to_owned()))
    }

    /// Records a fetch of `url` by the running turn.
    pub fn fetched(
        &self,
        url: &str,
        outcome: AuditOutcome,
        started: std::time::Instant,
        bytes: usize,
        detail: Option<String>,
    ) {
        let mut entry = self.entry(AuditKind::Fetch, None);
        entry.url = Some(url.to_owned());
        entry.outcome = Some(outcome);
        entry.duration_ms = Some(millis(started.elapsed()));
        entry.output_bytes = Some(bytes as u64);
        entry.detail = detail;
        self.write(entry);
    }

    /// Records a pass that copied notebooks back from a docker kernel (nothing when none was).
    pub fn copied_back(&self, report: &hailer_docker::CopyReport) {
        if report.copied.is_empty() && report.backups.is_empty() {
            return;
        }
        let mut entry = self.entry(AuditKind::CopyBack, Some("daemon"));
        let mut detail = format!("copied back: {}", report.copied.join(", "));
        if !report.backups.is_empty() {
            detail.push_str(&format!(
                "; {} backup(s) of notebooks edited on both sides",
                report.backups.len()
            ));
        }
        entry.outcome = Some(AuditOutcome::Ok);
        entry.detail = Some(detail);
        self.write(entry);
    }

    /// Every record of this session so far, oldest first (written ones: waits for the writer).
    pub async fn session_entries(&self) -> Vec<AuditEntry> {
        let Some(inner) = &self.inner else {
            return Vec::new();
        };
        let (done, flushed) = tokio::sync::oneshot::channel();
        if inner
            .writer
            .sender
            .send(writer::Message::Flush(done))
            .is_ok()
        {
            let _ = flushed.await;
        }
        let state_dir = inner.state_dir.clone();
        let session = inner.session.clone();
        tokio::task::spawn_blocking(move || {
            hailer_audit::read_trail(&state_dir)
                .unwrap_or_default()
                .iter()
                .filter_map(|line| serde_json::from_str::<AuditEntry>(&line.text).ok())
                .filter(|entry| entry.session == session)
                .collect()
        })
        .await
        .unwrap_or_default()
    }

    fn turn(&self) -> Option<TurnTag> {
        self.inner
            .as_ref()
            .and_then(|inner| inner.turn.lock().ok().and_then(|turn| turn.clone()))
    }
}

fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
