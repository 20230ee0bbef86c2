//! The daemon's log: a daily-rotated file in the state directory, with secrets masked.

use std::io::{self, Write};
use std::path::Path;

use tracing_appender::non_blocking::{NonBlocking, WorkerGuard};
use tracing_appender::rolling::{Builder, Rotation};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

use hailer_redact::Redactor;

/// Log files kept before the oldest is deleted.
const KEEP_FILES: usize = 7;
/// The variable that sets the log filter (`info` when unset).
pub const LOG_FILTER_VAR: &str = "HAILER_LOG";

/// Starts logging to `dir`; keep the guard alive for as long as the process logs.
pub fn init(dir: &Path, redactor: Redactor) -> anyhow::Result<WorkerGuard> {
    crate::runtime_file::ensure_private_dir(dir)?;
    let appender = Builder::new()
        .rotation(Rotation::DAILY)
        .filename_prefix("hailerd")
        .filename_suffix("log")
        .max_log_files(KEEP_FILES)
        .build(dir)?;
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = EnvFilter::try_from_env(LOG_FILTER_VAR).unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(RedactingMakeWriter { writer, redactor })
        .try_init()
        .map_err(|error| anyhow::anyhow!("cannot start logging: {error}"))?;
    Ok(guard)
}

struct RedactingMakeWriter {
    writer: NonBlocking,
    redactor: Redactor,
}

impl<'a> MakeWriter<'a> for RedactingMakeWriter {
    type Writer = RedactingWriter;

    fn make_writer(&'a self) -> Self::Writer {
        RedactingWriter {
            inner: self.writer.clone(),
            redactor: self.redactor.clone(),
        }
    }
}

/// Masks secrets in each formatted log line before it reaches the file.
struct RedactingWriter {
    inner: NonBlocking,
    redactor: Redactor,
}

impl Write for RedactingWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        self.inner
            .write_all(self.redactor.redact(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
