//! The OpenAPI document, generated from the handlers' annotations.

use axum::Json;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "hailerd",
        description = "Hailer's local daemon. Every route needs the per-run token from the runtime file.\n\n\
A request with a method that its path does not take (`PUT /v1/sessions`, say) is answered with \
405, an `Allow` header naming the methods the path takes, and the JSON error body with the code \
`method_not_allowed`: the response `MethodNotAllowed` under `components.responses`. It is stated \
once, here, rather than in the operations, because OpenAPI lists responses per operation, that is \
per path and method, and a method a path does not take has no operation to list it under."
    ),
    paths(
        super::daemon_routes::info,
        super::daemon_routes::shutdown,
        super::events_ws::subscribe,
        super::sessions::start,
        super::sessions::list,
        super::sessions::get,
        super::sessions::stop,
        super::sessions::exec,
        super::probe_routes::probe,
        super::sessions::notebooks,
        super::sessions::create_notebook,
        super::sessions::open_notebook,
        super::sessions::close_notebook,
        super::session_events::subscribe,
        super::kernel_log::follow,
        super::kernel_routes::install_local,
        super::kernel_routes::build,
        super::kernel_routes::pull,
        super::kernel_routes::stop,
        super::docker_routes::status,
        super::status_route::status,
        super::credential_routes::login,
        super::credential_routes::logout,
        super::credential_routes::check,
        super::sessions::start_turn,
        super::sessions::cancel,
        super::conversation_routes::start,
        super::workspace_routes::skills,
        super::workspace_routes::prompts,
        super::render::render,
        super::audit_routes::list,
        super::mcp::serve,
        document,
    ),
    components(schemas(
        hailer_protocol::DaemonInfo,
        hailer_protocol::ShutdownResponse,
        hailer_protocol::StatusParams,
        hailer_protocol::StatusReport,
        hailer_protocol::ErrorBody,
        hailer_protocol::ProbeParams,
        hailer_protocol::ProbeReport,
        hailer_protocol::ProbeVerdict,
        hailer_protocol::ProbeImage,
        hailer_protocol::KernelBuildParams,
        hailer_protocol::KernelPullParams,
        hailer_protocol::KernelJobLine,
        hailer_protocol::JobStep,
        hailer_protocol::KernelStopParams,
        hailer_protocol::KernelStopResponse,
        hailer_protocol::KernelStopFailure,
        hailer_protocol::DockerAvailability,
        hailer_protocol::DockerStatusParams,
        hailer_protocol::DockerStatus,
        hailer_protocol::DockerEngine,
        hailer_protocol::KernelImageStatus,
        hailer_protocol::ErrorCode,
        hailer_protocol::EventEnvelope,
        hailer_protocol::DaemonEvent,
        hailer_protocol::StartSessionParams,
        hailer_protocol::StartSessionResponse,
        hailer_protocol::SessionInfo,
        hailer_protocol::SessionList,
        hailer_protocol::KernelStatus,
        hailer_protocol::KernelExit,
        hailer_protocol::KernelExitCause,
        hailer_protocol::ExecParams,
        hailer_protocol::ExecResponse,
        hailer_protocol::ExecValue,
        hailer_protocol::NotebookList,
        hailer_protocol::NotebookEntry,
        hailer_protocol::CreateNotebookParams,
        hailer_protocol::NotebookTemplate,
        hailer_protocol::NotebookRef,
        hailer_protocol::NotebookChange,
        hailer_protocol::SessionEnvelope,
        hailer_protocol::SessionEvent,
        hailer_protocol::NoticeLevel,
        hailer_protocol::InstallLocalParams,
        hailer_protocol::StartTurnParams,
        hailer_protocol::StartTurnResponse,
        hailer_protocol::CancelResponse,
        hailer_protocol::NewConversationParams,
        hailer_protocol::ConversationStarted,
        hailer_protocol::ConversationReason,
        hailer_protocol::TurnUsage,
        hailer_protocol::TurnResult,
        hailer_protocol::TurnOutcome,
        hailer_protocol::TurnError,
        hailer_protocol::TurnToolCall,
        hailer_protocol::LoginParams,
        hailer_protocol::CredentialTarget,
        hailer_protocol::CredentialsResponse,
        hailer_protocol::ModelCheck,
        hailer_protocol::SkillRequest,
        hailer_protocol::PromptRequest,
        hailer_protocol::SkillList,
        hailer_protocol::SkillEntry,
        hailer_protocol::PromptList,
        hailer_protocol::RenderParams,
        hailer_protocol::RenderResponse,
        hailer_protocol::AuditList,
        hailer_protocol::AuditEntry,
        hailer_protocol::AuditKind,
        hailer_protocol::AuditOutcome,
    )),
    modifiers(&BearerAuth, &CommonResponses, &MethodNotAllowed, &TurnRules)
)]
pub(crate) struct ApiDoc;

/// The refusals every route of a kind can answer, added to each operation that does not list
/// them itself, so the document names every status the daemon sends: 500, and the guards' 401
/// and 403, on every route, 400, 413 and 415 where a JSON body is taken, 400 where a query is parsed,
/// 404 for a session that does not exist, and 400 and 426 on the WebSocket routes for a
/// request that is not a WebSocket handshake. Each carries the JSON error body.
struct CommonResponses;

impl Modify for CommonResponses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (path, item) in &mut openapi.paths.paths {
            for operation in [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.delete,
                &mut item.patch,
            ]
            .into_iter()
            .flatten()
            {
                for (status, description) in common_refusals(path, operation) {
                    operation
                        .responses
                        .responses
                        .entry(status.to_owned())
                        .or_insert_with(|| error_response(description).into());
                }
            }
        }
    }
}

/// The statuses, with their descriptions, that `operation` on `path` can answer besides its
/// own.
fn common_refusals(
    path: &str,
    operation: &utoipa::openapi::path::Operation,
) -> Vec<(&'static str, &'static str)> {
    let mut refusals = vec![
        (
            "500",
            "An unexpected failure inside the daemon; its log file says more",
        ),
        ("401", "Missing or wrong token"),
        (
            "403",
            "`Host` is not this daemon's loopback address, or `Origin` is another site",
        ),
    ];
    if operation.request_body.is_some() {
        refusals.extend([
            (
                "400",
                "The body is not the JSON object this route takes, or asks for something invalid",
            ),
            ("413", "The body is larger than this route takes"),
            ("415", "The body is not sent as `application/json`"),
        ]);
    }
    let has_query = operation
        .parameters
        .iter()
        .flatten()
        .any(|parameter| parameter.parameter_in == utoipa::openapi::path::ParameterIn::Query);
    if has_query {
        refusals.push(("400", "A query value is not what this route takes"));
    }
    if path.contains("{id}") {
        refusals.push(("404", "No such session"));
    }
    if operation.responses.responses.contains_key("101") {
        refusals.extend([
            ("400", "Not a WebSocket handshake"),
            (
                "426",
                "Not a WebSocket upgrade: this route is a WebSocket stream",
            ),
        ]);
    }
    refusals
}

/// The 405 reply every path gives for a method it does not take, as a reusable response that
/// the document's description names (OpenAPI has no place for a path's refusal of a method
/// that has no operation).
struct MethodNotAllowed;

/// The name of the 405 reply under `components.responses`.
const METHOD_NOT_ALLOWED: &str = "MethodNotAllowed";

impl Modify for MethodNotAllowed {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let mut response = error_response(
            "The path does not take this method; `Allow` names the methods it takes",
        );
        response.headers.insert(
            "Allow".to_owned(),
            utoipa::openapi::HeaderBuilder::new()
                .schema(
                    utoipa::openapi::ObjectBuilder::new()
                        .schema_type(utoipa::openapi::schema::Type::String),
                )
                .description(Some("The methods the path takes, comma-separated"))
                .build(),
        );
        openapi
            .components
            .get_or_insert_with(Default::default)
            .responses
            .insert(METHOD_NOT_ALLOWED.to_owned(), response.into());
    }
}

/// One character that is not white space as Rust's `str::trim` counts it (Unicode's
/// `White_Space`), in a pattern every JSON Schema validator reads alike (ECMA-262, Python's
/// `re`, Rust's `regex`), unlike `\S`, whose set differs between them.
pub(crate) const NOT_BLANK: &str =
    "[^\\t\\n\\x0B\\f\\r \\x85\\xA0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]";

/// What a turn's body must hold beyond its fields' own rules, as the daemon checks it: a skill
/// or a prompt, not both, and without either a `text` that is not blank. utoipa has no place
/// for object-level `allOf`, so it goes in as a schema keyword through the object's extensions
/// (one key, so the document's text stays stable).
struct TurnRules;

impl Modify for TurnRules {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let Some(components) = openapi.components.as_mut() else {
            return;
        };
        let Some(utoipa::openapi::RefOr::T(utoipa::openapi::Schema::Object(turn))) =
            components.schemas.get_mut("StartTurnParams")
        else {
            return;
        };
        let rules = serde_json::json!([
            {"anyOf": [
                {"properties": {"skill": {"type": "null"}}},
                {"properties": {"prompt": {"type": "null"}}},
            ]},
            {"anyOf": [
                {"required": ["text"], "properties": {"text": {"pattern": NOT_BLANK}}},
                {"required": ["skill"], "properties": {"skill": {"type": "object"}}},
                {"required": ["prompt"], "properties": {"prompt": {"type": "object"}}},
            ]},
        ]);
        turn.extensions
            .get_or_insert_with(Default::default)
            .insert("allOf".to_owned(), rules);
    }
}

/// An error reply: `description`, with the JSON error body.
fn error_response(description: &str) -> utoipa::openapi::Response {
    utoipa::openapi::ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            utoipa::openapi::ContentBuilder::new()
                .schema(Some(utoipa::openapi::Ref::from_schema_name("ErrorBody")))
                .build(),
        )
        .build()
}

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// The document itself, as JSON text with a stable layout.
pub fn document_json() -> String {
    ApiDoc::openapi()
        .to_pretty_json()
        .unwrap_or_else(|error| format!("{{\"error\":\"{error}\"}}"))
}

/// This API's OpenAPI 3.1 document.
#[utoipa::path(
    get,
    path = "/v1/openapi.json",
    operation_id = "getOpenApiDocument",
    tag = "meta",
    responses((status = 200, description = "The OpenAPI document")),
    security(("bearer" = []))
)]
pub(crate) async fn document() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The pattern's set of characters is exactly the complement of `char::is_whitespace`, so
    /// "holds a character that matches" is "not blank after `trim`", for every character.
    #[test]
    fn not_blank_is_what_trim_keeps() {
        let pattern = regex::Regex::new(&format!("^{NOT_BLANK}$")).unwrap();
        for ch in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(
                pattern.is_match(ch.encode_utf8(&mut [0; 4])),
                !ch.is_whitespace(),
                "U+{:04X}",
                u32::from(ch)
            );
        }
    }
}
