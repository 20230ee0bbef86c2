//! The daemon's one entry point: serve the API on a bound listener until shutdown.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hailer_protocol::DaemonEvent;
use http_body_util::BodyExt;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, TryAcquireError};
use tower::ServiceExt;

use crate::connections::{Activity, Connections};
use crate::daemon_state::{Daemon, DaemonConfig, DaemonState};

/// How often the idle-exit watcher looks.
const IDLE_CHECK_EVERY: Duration = Duration::from_secs(1);
/// How long event streams may take to send their last events at shutdown.
const STREAM_DRAIN: Duration = Duration::from_secs(2);
/// How long a connection may take to send a request's headers, and how long a kept-alive
/// connection may sit idle before its next request: hyper closes it after this.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The most HTTP connections open at once (upgraded WebSockets no longer count). A connection
/// beyond them closes the oldest idle one ([`crate::connections`]); when every one is busy
/// answering, it waits until one finishes.
const MAX_CONNECTIONS: u32 = 512;

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
    // The default kernel image's status is looked at now and kept fresh while asked for.
    let default_image = hailer_kernel_bundle::default_image_name(&hailer_kernel_bundle::contract());
    let trimmer = tokio::spawn(hailerd_agent::trim_after_bursts(daemon.shutdown.clone()));
    let docker = tokio::spawn(
        daemon
            .docker
            .clone()
            .refresh_until(default_image, daemon.shutdown.clone()),
    );
    tracing::info!(port, "serving");
    let result = accept_loop(&listener, app, &daemon).await;
    background.abort();
    docker.abort();
    trimmer.abort();
    daemon.sessions.stop_all("the daemon is stopping").await;
    // Upgraded event streams are not part of the HTTP drain: they end on the shutdown signal after
    // sending what was published before it. Let them finish before the process exits.
    let until = tokio::time::Instant::now() + STREAM_DRAIN;
    while daemon.clients() > 0 && tokio::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    result
}

/// Serves each accepted connection with hyper's HTTP/1 settings until shutdown, then waits for
/// the open connections to finish their requests.
async fn accept_loop(
    listener: &TcpListener,
    app: axum::Router,
    daemon: &Daemon,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS as usize));
    let connections = Arc::new(Connections::default());
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of file descriptors, usually: make room and give connections time to close.
                    tracing::warn!(%error, "could not accept a connection");
                    connections.close_oldest_idle();
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = daemon.shutdown.cancelled() => break,
        };
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(TryAcquireError::Closed) => break,
            Err(TryAcquireError::NoPermits) => {
                if !connections.close_oldest_idle() {
                    tracing::debug!("every connection is busy; a new one waits for a slot");
                }
                tokio::select! {
                    slot = slots.clone().acquire_owned() => match slot {
                        Ok(slot) => slot,
                        Err(_) => break,
                    },
                    () = daemon.shutdown.cancelled() => break,
                }
            }
        };
        // Events go out as small writes as they happen: Nagle's algorithm would hold each one
        // back until the client acknowledged the one before (a delayed ACK: milliseconds).
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "could not turn off Nagle's algorithm on a connection");
        }
        let registered = connections.register();
        let service =
            TowerToHyperService::new(counted(app.clone(), Arc::clone(&registered.activity)));
        let stop = daemon.shutdown.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let mut builder = http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT);
            let connection = builder
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            tokio::pin!(connection);
            let result = tokio::select! {
                result = connection.as_mut() => result,
                () = registered.activity.closing() => {
                    // Idle: no request is cut. Dropping the connection closes the socket.
                    tracing::debug!("closed an idle connection to make room for a new one");
                    return;
                }
                () = stop.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = result {
                tracing::debug!(%error, "connection ended");
            }
        });
    }
    // Every slot back means every connection has finished.
    let _all = slots.acquire_many(MAX_CONNECTIONS).await;
    Ok(())
}

/// The app, with each request counted as busy on its connection until its response body is
/// done, so only idle connections are closed for newcomers.
fn counted(
    app: axum::Router,
    activity: Arc<Activity>,
) -> impl tower::Service<
    hyper::Request<hyper::body::Incoming>,
    Response = axum::response::Response,
    Error = Infallible,
    Future = impl Future<Output = Result<axum::response::Response, Infallible>> + Send,
> + Clone {
    tower::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
        let busy = activity.busy();
        let call = app.clone().oneshot(request);
        async move {
            let response = call.await?;
            Ok(response.map(|body| {
                axum::body::Body::new(body.map_frame(move |frame| {
                    let _busy = &busy;
                    frame
                }))
            }))
        }
    })
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
