use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Every error hailerd answers has this body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// What kind of failure it is, for programs; the HTTP status says roughly the same.
    pub code: ErrorCode,
    /// What went wrong, for a person.
    pub message: String,
    /// What to do about it, when there is something to do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl ErrorBody {
    /// What a person reads: the message, then the hint on a line of its own, once (a message
    /// that carries its hint already keeps it once).
    pub fn said(&self) -> String {
        let message = self.message.trim_end();
        match self
            .hint
            .as_deref()
            .map(str::trim)
            .filter(|hint| !hint.is_empty())
        {
            Some(hint) if !message.contains(hint) => format!("{message}\n  {hint}"),
            _ => message.to_owned(),
        }
    }
}

/// Stable machine-readable error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// 401: the access token of the runtime file is missing or wrong.
    Unauthorized,
    /// 403: `Host` does not name this daemon as `127.0.0.1`, `localhost` or `[::1]` with its
    /// port (a guard against DNS rebinding).
    ForbiddenHost,
    /// 403: a WebSocket upgrade or a state-changing request came from another web origin.
    ForbiddenOrigin,
    /// 404: no such session or notebook.
    NotFound,
    /// 422: a turn names a skill or prompt that does not exist; the hint lists those that do.
    /// (The session of the route's path exists: 404 would say it does not.)
    UnknownName,
    /// 400: the request is malformed or asks for something invalid (a bad notebook name, a
    /// time limit out of range, a duplicated `Host` header); also 422 for a well-formed request
    /// the route cannot do, such as Markdown nested too deeply to render.
    BadRequest,
    /// 405: the route exists, but not for this method.
    MethodNotAllowed,
    /// 426 (or 400 for a malformed handshake): a WebSocket route was asked without a WebSocket
    /// upgrade.
    UpgradeRequired,
    /// The request body is larger than the route takes.
    PayloadTooLarge,
    /// The request body is not sent as `application/json`.
    UnsupportedMediaType,
    /// 422: the workspace's configuration has fatal problems; the hint is the first one's fix.
    InvalidConfig,
    /// 409: the request clashes with the session's state: a turn is running, the session is
    /// stopping, or a notebook of that name exists already.
    Conflict,
    /// The request needs the user's explicit agreement first (the message says to what).
    ConsentRequired,
    /// 503 when the kernel could not start, 502 when a request to the running kernel failed.
    KernelUnavailable,
    /// 502: the kernel was restarted during the run or ran out of memory; earlier state is
    /// gone.
    KernelFailed,
    /// 424: the session's agent cannot answer (no key, an unknown provider, a bad model
    /// setting).
    ModelFailed,
    /// 504 when the kernel did not become ready in time; 503 when too much of one kind of work
    /// (rendering, say) runs already and the caller may retry shortly.
    Timeout,
    /// 500 for a failure inside the daemon (files, the conversation store); 503 when the OS
    /// credential store could not be used.
    Internal,
}

#[cfg(test)]
mod said_tests {
    use super::{ErrorBody, ErrorCode};

    fn body(message: &str, hint: Option<&str>) -> ErrorBody {
        ErrorBody {
            code: ErrorCode::BadRequest,
            message: message.to_owned(),
            hint: hint.map(str::to_owned),
        }
    }

    #[test]
    fn the_hint_follows_on_its_own_line_once() {
        assert_eq!(body("No.", Some("Try this.")).said(), "No.\n  Try this.");
        assert_eq!(
            body("No. Try this.", Some("Try this.")).said(),
            "No. Try this."
        );
        assert_eq!(body("No.\n", Some("  ")).said(), "No.");
        assert_eq!(body("No.", None).said(), "No.");
    }
}
