//! Forwarding an event bus to one WebSocket client: in order, never blocking the sender, telling
//! a client that fell behind how much it missed, and ending on the last event or on shutdown.

use axum::extract::ws::{Message, Utf8Bytes, WebSocket};
use hailer_protocol::{DaemonEvent, EventEnvelope, SessionEnvelope, SessionEvent};
use serde::Serialize;
use tokio::sync::broadcast::{Receiver, error::RecvError};
use tokio_util::sync::CancellationToken;

/// An envelope that can travel on a stream.
pub trait StreamEnvelope: Serialize + Clone + Send {
    fn seq(&self) -> u64;
    /// The stream closes after this one.
    fn is_last(&self) -> bool;
    /// The notice sent to a client that missed `missed` events.
    fn lagged(missed: u64) -> Self;
}

impl StreamEnvelope for EventEnvelope {
    fn seq(&self) -> u64 {
        self.seq
    }

    fn is_last(&self) -> bool {
        matches!(self.event, DaemonEvent::ShuttingDown { .. })
    }

    fn lagged(missed: u64) -> Self {
        Self {
            seq: 0,
            at: crate::clock::unix_now(),
            event: DaemonEvent::Lagged { missed },
        }
    }
}

impl StreamEnvelope for SessionEnvelope {
    fn seq(&self) -> u64 {
        self.seq
    }

    fn is_last(&self) -> bool {
        matches!(self.event, SessionEvent::Stopped { .. })
    }

    fn lagged(missed: u64) -> Self {
        Self {
            seq: 0,
            at: crate::clock::unix_now(),
            event: SessionEvent::Lagged { missed },
        }
    }
}

/// Sends what `events` receives until the last event, the client leaving, or `shutdown`. Events
/// numbered up to `already_sent` are skipped (they went out in a replay).
pub async fn forward<T: StreamEnvelope>(
    socket: &mut WebSocket,
    events: &mut Receiver<T>,
    already_sent: u64,
    shutdown: &CancellationToken,
) {
    loop {
        tokio::select! {
            received = events.recv() => match received {
                Ok(envelope) if envelope.seq() <= already_sent => {}
                Ok(envelope) => {
                    if send(socket, &envelope).await.is_err() || envelope.is_last() {
                        break;
                    }
                }
                Err(RecvError::Lagged(missed)) => {
                    if send(socket, &T::lagged(missed)).await.is_err() {
                        break;
                    }
                }
                Err(RecvError::Closed) => break,
            },
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
            },
            () = shutdown.cancelled() => {
                // What was published before the shutdown (its notice included) still goes out.
                while let Ok(envelope) = events.try_recv() {
                    if send(socket, &envelope).await.is_err() {
                        break;
                    }
                }
                break;
            }
        }
    }
    let _ = socket.send(Message::Close(None)).await;
}

/// Sends one JSON message.
pub async fn send<T: Serialize>(socket: &mut WebSocket, message: &T) -> Result<(), axum::Error> {
    let text = serde_json::to_string(message).map_err(axum::Error::new)?;
    socket.send(Message::Text(Utf8Bytes::from(text))).await
}
