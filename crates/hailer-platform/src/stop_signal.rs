//! A long-running process's "please stop": SIGTERM or SIGINT on Unix; Ctrl+C, Ctrl+Break or the
//! console closing on Windows.

use std::future::Future;

/// Starts listening now; the future resolves on the first stop request and names it. When the
/// system refuses the listeners it logs that and never resolves (the process can still be
/// stopped through its API).
pub fn stop_requested() -> impl Future<Output = &'static str> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let listeners = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        );
        async move {
            let (Ok(mut term), Ok(mut int)) = listeners else {
                tracing::error!("cannot listen for signals");
                return std::future::pending().await;
            };
            tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            }
        }
    }
    #[cfg(windows)]
    {
        use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close};
        let listeners = (ctrl_c(), ctrl_break(), ctrl_close());
        async move {
            let (Ok(mut c), Ok(mut brk), Ok(mut close)) = listeners else {
                tracing::error!("cannot listen for console events");
                return std::future::pending().await;
            };
            tokio::select! {
                _ = c.recv() => "Ctrl+C",
                _ = brk.recv() => "Ctrl+Break",
                _ = close.recv() => "console closed",
            }
        }
    }
}

/// Resolves on each interrupt (Ctrl+C) from now on; `Err` when the system refuses the listener.
pub struct Interrupts {
    #[cfg(unix)]
    inner: tokio::signal::unix::Signal,
    #[cfg(windows)]
    inner: tokio::signal::windows::CtrlC,
}

impl Interrupts {
    /// Starts listening for interrupts.
    pub fn listen() -> std::io::Result<Self> {
        #[cfg(unix)]
        let inner = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
        #[cfg(windows)]
        let inner = tokio::signal::windows::ctrl_c()?;
        Ok(Self { inner })
    }

    /// The next interrupt; `None` when no more can arrive.
    pub async fn recv(&mut self) -> Option<()> {
        self.inner.recv().await
    }
}
