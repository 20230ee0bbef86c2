//! hailerd's HTTP and WebSocket API: the router, its guards, and the chat page's files.

mod audit_routes;
mod conversation_routes;
mod credential_routes;
mod daemon_routes;
mod docker_routes;
mod error;
mod events_ws;
mod guard;
mod job_stream;
mod json_body;
mod json_errors;
mod kernel_log;
mod kernel_routes;
mod mcp;
pub(crate) mod openapi;
mod probe_routes;
mod render;
mod session_events;
mod sessions;
mod status_route;
mod turn_follow;
mod web_page;
mod workspace_routes;
mod ws_stream;
mod ws_upgrade;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};

pub(crate) use error::ApiError;

use crate::daemon_state::Daemon;

/// The largest body most routes take: a request carrying the client's folders, flags and
/// variables.
const CLIENT_BODY: usize = 256 * 1024;
/// Routes that take a name or nothing at all.
const SMALL_BODY: usize = 16 * 1024;
/// A chat message (with the client's variables).
const MESSAGE_BODY: usize = 1024 * 1024;
/// Code to run.
const CODE_BODY: usize = 2 * 1024 * 1024;
/// An answer to render: at most 1 MiB of text, with room for its JSON escapes.
const RENDER_BODY: usize = 2 * 1024 * 1024;

/// A body limit for one route (over it: 413, through [`json_body`]).
fn limit(bytes: usize) -> DefaultBodyLimit {
    DefaultBodyLimit::max(bytes)
}

/// The whole application: the chat page's files, `/v1/` behind the token, and every route
/// behind the Host and Origin checks.
pub(crate) fn router(daemon: Daemon) -> Router {
    let v1 = Router::new()
        .route("/daemon", get(daemon_routes::info))
        .route(
            "/daemon/shutdown",
            post(daemon_routes::shutdown).layer(limit(SMALL_BODY)),
        )
        .route("/events", get(events_ws::subscribe))
        .route("/openapi.json", get(openapi::document))
        .route("/credentials/login", post(credential_routes::login))
        .route("/credentials/logout", post(credential_routes::logout))
        .route("/credentials/check", post(credential_routes::check))
        .route("/render", post(render::render).layer(limit(RENDER_BODY)))
        .route("/kernel/install-local", post(kernel_routes::install_local))
        .route("/kernel/build", post(kernel_routes::build))
        .route("/kernel/pull", post(kernel_routes::pull))
        .route("/kernel/stop", post(kernel_routes::stop))
        .route("/docker/status", post(docker_routes::status))
        .route("/status", post(status_route::status))
        .route("/sessions", post(sessions::start).get(sessions::list))
        .route("/sessions/{id}", get(sessions::get).delete(sessions::stop))
        .route(
            "/sessions/{id}/exec",
            post(sessions::exec).layer(limit(CODE_BODY)),
        )
        .route(
            "/sessions/{id}/probe",
            post(probe_routes::probe).layer(limit(SMALL_BODY)),
        )
        .route(
            "/sessions/{id}/notebooks",
            get(sessions::notebooks)
                .post(sessions::create_notebook)
                .layer(limit(SMALL_BODY)),
        )
        .route(
            "/sessions/{id}/notebooks/open",
            post(sessions::open_notebook).layer(limit(SMALL_BODY)),
        )
        .route(
            "/sessions/{id}/notebooks/close",
            post(sessions::close_notebook).layer(limit(SMALL_BODY)),
        )
        .route("/sessions/{id}/events", get(session_events::subscribe))
        .route("/sessions/{id}/kernel/log", get(kernel_log::follow))
        .route(
            "/sessions/{id}/turns",
            post(sessions::start_turn).layer(limit(MESSAGE_BODY)),
        )
        .route(
            "/sessions/{id}/cancel",
            post(sessions::cancel).layer(limit(SMALL_BODY)),
        )
        .route(
            "/sessions/{id}/conversation",
            post(conversation_routes::start),
        )
        .route("/sessions/{id}/skills", get(workspace_routes::skills))
        .route("/sessions/{id}/prompts", get(workspace_routes::prompts))
        .route("/sessions/{id}/audit", get(audit_routes::list))
        // rmcp's stateless transport takes POST only: any other method is the router's 405.
        .route("/sessions/{id}/mcp", post(mcp::serve))
        .fallback(|| async { ApiError::NotFound("no such API route".to_owned()) })
        .layer(limit(CLIENT_BODY))
        .layer(from_fn_with_state(daemon.clone(), guard::require_token));
    web_page::routes()
        .nest(hailer_protocol::API_PREFIX, v1)
        .fallback(|| async { ApiError::NotFound("not found".to_owned()) })
        .layer(from_fn_with_state(
            daemon.clone(),
            guard::check_host_and_origin,
        ))
        .layer(axum::middleware::from_fn(json_errors::as_json))
        .with_state(daemon)
}
