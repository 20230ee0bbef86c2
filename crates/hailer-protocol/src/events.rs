use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One message on an event stream: a sequence number per stream plus the event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventEnvelope {
    /// Position in the daemon's stream, from 1 and without gaps; 0 on messages sent to one
    /// client only (`hello`, `lagged`).
    pub seq: u64,
    /// When the event was published, in seconds since the Unix epoch.
    pub at: i64,
    /// What happened.
    pub event: DaemonEvent,
}

/// Events of the daemon itself; sessions and turns add their own kinds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum DaemonEvent {
    /// Sent first on every stream.
    Hello {
        /// hailerd's version.
        version: String,
        /// Process id of the daemon.
        pid: u32,
    },
    /// Sent periodically so clients can tell a quiet daemon from a dead one.
    Heartbeat {
        /// Seconds since the daemon started (sent as `uptime_secs`: fields of an event keep
        /// their Rust names on the wire).
        uptime_secs: u64,
    },
    /// The client fell behind and missed events; it should fetch state again.
    Lagged {
        /// How many events the client did not receive.
        missed: u64,
    },
    /// The daemon is stopping; the stream closes next.
    ShuttingDown {
        /// Why, for a person: `signal`, `asked through the API`, or
        /// `idle: no sessions and no clients`.
        reason: String,
    },
}
