//! The daemon's one entry point: serve the API on a bound listener until shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hailer_protocol::DaemonEvent;
use tokio::net::TcpListener;

use crate::state::{Daemon, DaemonConfig, DaemonState};

/// How often the idle-exit watcher looks.
const IDLE_CHECK_EVERY: Duration = Duration::from_secs(1);
/// How long event streams may take to send their last events at shutdown.
const STREAM_DRAIN: Duration = Duration::from_secs(2);

/// Serves hailerd's API on `listener` until `shutdown` resolves, the API asks to stop, or the
/// daemon has been idle for `config.idle_exit`. Returns once every connection has drained.
pub async fn serve(
    listener: TcpListener,
    config: DaemonConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let port = listener.local_addr()?.port();
    let daemon: Daemon = Arc::new(DaemonState::new(config, port));
    let app = crate::api::router(daemon.clone());

    let background = tokio::spawn(watch(daemon.clone(), shutdown));
    tracing::info!(port, "serving");
    let drained = daemon.shutdown.clone();
    let result = axum::serve(listener, app)
        .with_graceful_shutdown(async move { drained.cancelled().await })
        .await;
    background.abort();
    daemon.sessions.stop_all("the daemon is stopping").await;
    // Upgraded event streams are not part of the HTTP drain: they end on the shutdown signal after
    // sending what was published before it. Let them finish before the process exits.
    let until = tokio::time::Instant::now() + STREAM_DRAIN;
    while daemon.clients() > 0 && tokio::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    result
}

/// Heartbeats, the external shutdown signal and the idle exit.
async fn watch(daemon: Daemon, shutdown: impl Future<Output = ()>) {
    let mut heartbeat = tokio::time::interval(daemon.config.heartbeat);
    heartbeat.tick().await;
    let mut idle_check = tokio::time::interval(IDLE_CHECK_EVERY);
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => {
                daemon.request_shutdown("signal");
                return;
            }
            _ = heartbeat.tick() => {
                daemon.events.publish(DaemonEvent::Heartbeat {
                    uptime_secs: daemon.uptime().as_secs(),
                });
            }
            _ = idle_check.tick() => {
                daemon.sessions.reap_lingering().await;
                if let Some(limit) = daemon.config.idle_exit
                    && daemon.idle_for().await >= limit
                {
                    daemon.request_shutdown("idle: no sessions and no clients");
                    return;
                }
            }
            () = daemon.shutdown.cancelled() => return,
        }
    }
}
