//! What every request handler shares: the daemon's identity, its token, its event bus and the
//! counters that drive the idle exit.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::token::AccessToken;
use hailer_redact::Redactor;
use hailerd_session::Sessions;
use hailerd_session::{DAEMON_CAPACITY, EventBus};

/// Settings of one daemon run.
#[derive(Debug, Clone)]
pub struct DaemonConfig {
    /// The per-run token every API request must carry.
    pub token: AccessToken,
    /// Exit after this long with no sessions and no clients; `None` means never.
    pub idle_exit: Option<Duration>,
    /// How often event streams get a heartbeat.
    pub heartbeat: Duration,
    /// Masks the secrets of the daemon's environment in logs and audit records.
    pub redactor: Redactor,
    /// Hailer's own folders.
    pub folders: hailerd_session::HailerFolders,
}

/// A cheap handle on the daemon's shared state.
pub(crate) type Daemon = Arc<DaemonState>;

#[derive(Debug)]
pub(crate) struct DaemonState {
    pub config: DaemonConfig,
    pub port: u16,
    pub pid: u32,
    pub started_at: i64,
    pub started: Instant,
    pub events: EventBus,
    pub shutdown: CancellationToken,
    pub sessions: Sessions,
    /// The Docker engine and kernel images as last found, for `hailer status`.
    pub docker: crate::docker_status::DockerStatusCache,
    clients: AtomicUsize,
    last_busy: Mutex<Instant>,
}

impl DaemonState {
    pub(crate) fn new(config: DaemonConfig, port: u16) -> Self {
        let sessions = Sessions::new(
            config.folders.clone(),
            config.redactor.clone(),
            hailerd_agent::factory(config.folders.config.clone()),
        );
        Self {
            sessions,
            config,
            port,
            pid: std::process::id(),
            started_at: hailerd_kernel::unix_now(),
            started: Instant::now(),
            events: EventBus::new(DAEMON_CAPACITY, 0),
            shutdown: CancellationToken::new(),
            docker: crate::docker_status::DockerStatusCache::default(),
            clients: AtomicUsize::new(0),
            last_busy: Mutex::new(Instant::now()),
        }
    }

    pub(crate) fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    pub(crate) fn clients(&self) -> usize {
        self.clients.load(Ordering::Relaxed)
    }

    /// Counts a connected event-stream client until the returned guard drops.
    pub(crate) fn client_connected(self: &Arc<Self>) -> ClientGuard {
        self.clients.fetch_add(1, Ordering::Relaxed);
        ClientGuard {
            daemon: Arc::clone(self),
        }
    }

    /// Records activity, postponing the idle exit.
    pub(crate) async fn touch(&self) {
        *self.last_busy.lock().await = Instant::now();
    }

    /// How long the daemon has had nothing to do; zero while anything is connected.
    pub(crate) async fn idle_for(&self) -> Duration {
        if self.clients() > 0 || self.sessions.count().await > 0 {
            self.touch().await;
            return Duration::ZERO;
        }
        self.last_busy.lock().await.elapsed()
    }

    /// Asks the daemon to stop: clients are told, then the server drains.
    pub(crate) fn request_shutdown(&self, reason: &str) {
        if self.shutdown.is_cancelled() {
            return;
        }
        tracing::info!(reason, "shutting down");
        self.events
            .publish(hailer_protocol::DaemonEvent::ShuttingDown {
                reason: reason.to_owned(),
            });
        self.shutdown.cancel();
    }
}

/// Decrements the client count when an event stream ends.
#[derive(Debug)]
pub(crate) struct ClientGuard {
    daemon: Daemon,
}

impl Drop for ClientGuard {
    fn drop(&mut self) {
        self.daemon.clients.fetch_sub(1, Ordering::Relaxed);
        // The client's buffers are free now; after a burst of leavers the trimmer gives the
        // memory back.
        hailerd_agent::freed();
    }
}
