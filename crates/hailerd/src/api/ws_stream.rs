//! Forwarding an event bus to one WebSocket client: in order, never blocking the sender, telling
//! a client that fell behind how much it missed, and ending on the last event or on shutdown.
//!
//! Events that are already waiting go out together, flushed once, so a fast stream costs one
//! socket write per burst rather than one per event.

use axum::extract::ws::{Message, Utf8Bytes, WebSocket};
use futures_util::SinkExt as _;
use serde::Serialize;
use tokio::sync::broadcast::{Receiver, error::RecvError, error::TryRecvError};
use tokio_util::sync::CancellationToken;

use hailerd_session::{Envelope, Shared, encode};

/// The most waiting events sent before one flush.
const BURST: usize = 256;

/// What to do after one received item.
enum Step {
    Go,
    Stop,
}

/// Sends what `events` receives until the last event, the client leaving, or `shutdown`. Events
/// numbered up to `already_sent` are skipped (they went out in a replay).
pub(super) async fn forward<T: Envelope>(
    socket: &mut WebSocket,
    events: &mut Receiver<Shared<T>>,
    already_sent: u64,
    shutdown: &CancellationToken,
) {
    loop {
        tokio::select! {
            received = events.recv() => {
                let mut step = feed(socket, received, already_sent).await;
                let mut burst = 1;
                while matches!(step, Step::Go) && burst < BURST {
                    match events.try_recv() {
                        Ok(shared) => step = feed(socket, Ok(shared), already_sent).await,
                        Err(TryRecvError::Lagged(missed)) => {
                            step = feed::<T>(socket, Err(RecvError::Lagged(missed)), already_sent)
                                .await;
                        }
                        Err(TryRecvError::Closed) => step = Step::Stop,
                        Err(TryRecvError::Empty) => break,
                    }
                    burst += 1;
                }
                if socket.flush().await.is_err() || matches!(step, Step::Stop) {
                    break;
                }
            },
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Close(_)) | Err(_)) | None => break,
                Some(Ok(_)) => {}
            },
            () = shutdown.cancelled() => {
                // What was published before the shutdown (its notice included) still goes out.
                while let Ok(shared) = events.try_recv() {
                    if socket.feed(text(&shared.json)).await.is_err() {
                        break;
                    }
                }
                let _ = socket.flush().await;
                break;
            }
        }
    }
    let _ = socket.send(Message::Close(None)).await;
}

/// Queues one received item on the socket without flushing.
async fn feed<T: Envelope>(
    socket: &mut WebSocket,
    received: Result<Shared<T>, RecvError>,
    already_sent: u64,
) -> Step {
    match received {
        Ok(shared) if shared.envelope.seq() <= already_sent => Step::Go,
        Ok(shared) => {
            if socket.feed(text(&shared.json)).await.is_err() || shared.envelope.is_last() {
                Step::Stop
            } else {
                Step::Go
            }
        }
        Err(RecvError::Lagged(missed)) => {
            let notice = encode(T::lagged(missed));
            if socket.feed(text(&notice.json)).await.is_err() {
                Step::Stop
            } else {
                Step::Go
            }
        }
        Err(RecvError::Closed) => Step::Stop,
    }
}

fn text(json: &Utf8Bytes) -> Message {
    Message::Text(json.clone())
}

/// Sends one JSON message.
pub(super) async fn send<T: Serialize>(
    socket: &mut WebSocket,
    message: &T,
) -> Result<(), axum::Error> {
    let text = serde_json::to_string(message).map_err(axum::Error::new)?;
    socket.send(Message::Text(Utf8Bytes::from(text))).await
}

/// Sends one already encoded message.
pub(super) async fn send_encoded(
    socket: &mut WebSocket,
    json: &Utf8Bytes,
) -> Result<(), axum::Error> {
    socket.send(text(json)).await
}
