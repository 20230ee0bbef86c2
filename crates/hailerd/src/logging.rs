//! The daemon's log: a daily-rotated file in the state directory, with secrets masked.

use std::io::{self, Write};
use std::path::Path;

use hailer_config::Choice as _;

use tracing_appender::non_blocking::{NonBlocking, NonBlockingBuilder, WorkerGuard};
use tracing_appender::rolling::{Builder, Rotation};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

use hailer_redact::Redactor;

/// Log files kept before the oldest is deleted.
const KEEP_FILES: usize = 7;
/// Lines the log queue holds for the writer thread. The queue's slots are allocated (and
/// touched) when logging starts: the library's default of 128,000 lines is 4 MB of an idle
/// daemon's memory, most of what it uses. A daemon writes a few lines per request; a burst past
/// this many, faster than the file takes them, loses the lines over the limit rather than
/// holding up a request.
const LOG_QUEUE_LINES: usize = 4096;
/// The variable that sets the log filter, for those who want one (`hailer=debug,hyper=info`).
pub(crate) const LOG_FILTER_VAR: &str = "HAILER_LOG";

/// The log filter: `HAILER_LOG` when set, else the level of `HAILER_LOG_LEVEL` (which the
/// client that starts the daemon sets from `--verbose`, `--log-level` or `[hailer] log_level`),
/// else `info`.
pub(crate) fn filter_directive(filter: Option<&str>, level: Option<&str>) -> String {
    if let Some(filter) = filter.map(str::trim).filter(|filter| !filter.is_empty()) {
        return filter.to_owned();
    }
    level
        .and_then(hailer_config::LogLevel::parse)
        .map_or("info", hailer_config::LogLevel::tracing_level)
        .to_owned()
}

/// Starts logging to `dir`; keep the guard alive for as long as the process logs.
pub(crate) fn init(dir: &Path, redactor: Redactor) -> anyhow::Result<WorkerGuard> {
    crate::runtime_file::ensure_private_dir(dir)?;
    let appender = Builder::new()
        .rotation(Rotation::DAILY)
        .filename_prefix("hailerd")
        .filename_suffix("log")
        .max_log_files(KEEP_FILES)
        .build(dir)?;
    let (writer, guard) = NonBlockingBuilder::default()
        .buffered_lines_limit(LOG_QUEUE_LINES)
        .finish(appender);
    hailerd_kernel::set_log_dir(dir);
    let directive = filter_directive(
        std::env::var(LOG_FILTER_VAR).ok().as_deref(),
        std::env::var(hailer_config::HAILER_LOG_LEVEL)
            .ok()
            .as_deref(),
    );
    let filter = EnvFilter::try_new(&directive).unwrap_or_else(|_| EnvFilter::new("info"));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_comes_from_hailer_log_then_the_log_level_then_info() {
        assert_eq!(
            filter_directive(Some("hailerd=trace"), Some("ERROR")),
            "hailerd=trace"
        );
        assert_eq!(filter_directive(None, Some("DEBUG")), "debug");
        assert_eq!(filter_directive(Some(" "), Some("warning")), "warn");
        assert_eq!(filter_directive(None, Some("chatty")), "info");
        assert_eq!(filter_directive(None, None), "info");
    }
}
