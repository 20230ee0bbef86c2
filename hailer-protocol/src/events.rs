use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One message on an event stream: a sequence number per stream plus the event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventEnvelope {
    pub seq: u64,
    pub at: i64,
    pub event: DaemonEvent,
}

/// Events of the daemon itself; sessions and turns add their own kinds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum DaemonEvent {
    /// Sent first on every stream.
    Hello { version: String, pid: u32 },
    /// Sent periodically so clients can tell a quiet daemon from a dead one.
    Heartbeat { uptime_secs: u64 },
    /// The client fell behind and missed events; it should fetch state again.
    Lagged { missed: u64 },
    /// The daemon is stopping; the stream closes next.
    ShuttingDown { reason: String },
}
