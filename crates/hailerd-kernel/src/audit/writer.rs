//! The trail's writer thread: digests, masking and the append, in the order records were sent.

use std::path::PathBuf;

use hailer_audit::AuditFile;
use hailer_protocol::AuditEntry;

pub(super) enum Message {
    Write(Box<AuditEntry>),
    /// Answered once written, or with why it could not be.
    WriteNow(
        Box<AuditEntry>,
        tokio::sync::oneshot::Sender<Result<(), String>>,
    ),
    /// Answered once everything sent before it is written.
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// The writer of one workspace's trail; its thread ends when the last handle is dropped.
pub(super) struct Writer {
    pub(super) sender: std::sync::mpsc::Sender<Message>,
}

/// The live writers by state folder: a session that replaces another on the same workspace
/// shares its writer, so the records of both stay in order on one chain.
static WRITERS: std::sync::LazyLock<
    std::sync::Mutex<std::collections::HashMap<PathBuf, std::sync::Weak<Writer>>>,
> = std::sync::LazyLock::new(Default::default);

/// The writer of the trail in `state_dir`, its head anchored at `anchor`: the live one, or a
/// new one.
pub(super) fn shared(
    state_dir: &std::path::Path,
    anchor: &std::path::Path,
    redactor: hailer_redact::Redactor,
) -> Option<std::sync::Arc<Writer>> {
    let mut writers = WRITERS.lock().ok()?;
    writers.retain(|_, writer| writer.strong_count() > 0);
    if let Some(writer) = writers.get(state_dir).and_then(std::sync::Weak::upgrade) {
        return Some(writer);
    }
    let writer = std::sync::Arc::new(Writer {
        sender: spawn(state_dir.to_path_buf(), anchor.to_path_buf(), redactor)?,
    });
    writers.insert(state_dir.to_path_buf(), std::sync::Arc::downgrade(&writer));
    Some(writer)
}

/// Starts the writer thread of the trail in `state_dir`; it ends when every sender is gone.
fn spawn(
    state_dir: PathBuf,
    anchor: PathBuf,
    redactor: hailer_redact::Redactor,
) -> Option<std::sync::mpsc::Sender<Message>> {
    let (sender, receiver) = std::sync::mpsc::channel::<Message>();
    let started = std::thread::Builder::new()
        .name("audit-writer".to_owned())
        .spawn(move || {
            let mut trail = Trail {
                state_dir,
                anchor,
                file: None,
                failing: false,
            };
            for message in receiver {
                match message {
                    Message::Write(entry) => {
                        let _ = trail.append(masked(*entry, &redactor));
                    }
                    Message::WriteNow(entry, done) => {
                        let _ = done.send(trail.append(masked(*entry, &redactor)));
                    }
                    Message::Flush(done) => {
                        let _ = done.send(());
                    }
                }
            }
        });
    match started {
        Ok(_) => Some(sender),
        Err(error) => {
            tracing::error!(%error, "the audit trail's writer did not start");
            None
        }
    }
}

/// The trail as the writer thread holds it: opened at the first record, and again after a
/// failure, so a trail that was made writable again is written again.
struct Trail {
    state_dir: PathBuf,
    anchor: PathBuf,
    file: Option<AuditFile>,
    /// A failure was logged and none has succeeded since (each streak is logged once).
    failing: bool,
}

impl Trail {
    /// Appends `entry`; why not, in words for the client, when it cannot.
    fn append(&mut self, entry: AuditEntry) -> Result<(), String> {
        let result = self.try_append(entry);
        match &result {
            Ok(()) => self.failing = false,
            Err(error) => {
                self.file = None;
                if !self.failing {
                    tracing::error!(%error, "the audit trail cannot be written");
                }
                self.failing = true;
            }
        }
        result.map_err(|error| error.to_string())
    }

    fn try_append(&mut self, entry: AuditEntry) -> hailer_audit::Result<()> {
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(AuditFile::open(
                &self.state_dir,
                &self.anchor,
                hailer_audit::ROTATE_BYTES,
            )?),
        };
        file.append(entry).map(drop)
    }
}

/// The digest of the code or URL as it ran, then every text with secrets masked.
fn masked(mut entry: AuditEntry, redactor: &hailer_redact::Redactor) -> AuditEntry {
    if entry.sha256.is_none() {
        entry.sha256 = entry
            .code
            .as_deref()
            .or(entry.url.as_deref())
            .map(hailer_audit::sha256_hex);
    }
    for text in [&mut entry.code, &mut entry.url, &mut entry.detail]
        .into_iter()
        .flatten()
    {
        if let std::borrow::Cow::Owned(masked) = redactor.redact(text) {
            *text = masked;
        }
    }
    entry
}
