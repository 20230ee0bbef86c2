//! The WebSocket handshake of every streaming route: the subprotocol a client gets back, and a
//! JSON refusal for a request that is not a WebSocket upgrade.
//!
//! A client offers `hailer.v1` (and, when it cannot set headers, `hailer.token.<token>` beside
//! it): the daemon answers `hailer.v1`. A client that offers only the token subprotocol, as a
//! browser's `new WebSocket(url, ["hailer.token.<token>"])` does, gets that one back, because a
//! browser fails a connection whose reply names none of the subprotocols it offered.

use axum::extract::FromRequestParts;
use axum::extract::ws::WebSocketUpgrade;
use axum::http::header;
use axum::http::request::Parts;
use hailer_protocol::{ErrorCode, WS_PROTOCOL, WS_TOKEN_PROTOCOL_PREFIX};

use super::error::ApiError;

/// A WebSocket upgrade with its subprotocol chosen.
pub(super) struct Upgrade(pub WebSocketUpgrade);

impl<S: Send + Sync> FromRequestParts<S> for Upgrade {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let offered = offered_protocols(parts);
        let upgrade = WebSocketUpgrade::from_request_parts(parts, state)
            .await
            .map_err(|rejection| ApiError::Refused {
                status: rejection.status(),
                code: ErrorCode::UpgradeRequired,
                message: format!(
                    "this route is a WebSocket stream, and the request is not a WebSocket \
                     handshake: {}",
                    rejection.body_text()
                ),
                hint: Some(format!(
                    "Connect with a WebSocket client offering the `{WS_PROTOCOL}` subprotocol, \
                     with the token in `Authorization: Bearer <token>` or as the \
                     `{WS_TOKEN_PROTOCOL_PREFIX}<token>` subprotocol."
                )),
            })?;
        let upgrade = bounded(upgrade);
        Ok(Self(match chosen_protocol(&offered) {
            Some(protocol) => upgrade.protocols([protocol]),
            None => upgrade,
        }))
    }
}

/// What one client's connection may hold. Clients send the daemon next to nothing (a close, a
/// ping), so a small read buffer and small messages do; what goes out is written through a
/// small buffer (each burst of events is flushed at once anyway), and a client that stops
/// reading is cut off once this much waits for it, rather than growing without limit.
const READ_BUFFER: usize = 4 * 1024;
const MAX_INCOMING_MESSAGE: usize = 64 * 1024;
const WRITE_BUFFER: usize = 16 * 1024;
/// Room for the largest message the daemon sends (a long conversation's history) and more.
const MAX_WAITING_TO_BE_WRITTEN: usize = 64 * 1024 * 1024;

/// The upgrade with the connection's buffers bounded (tungstenite's defaults are 128 KiB each
/// way, allocated per connection, and an unbounded write queue).
fn bounded(upgrade: WebSocketUpgrade) -> WebSocketUpgrade {
    upgrade
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_BUFFER)
        .max_write_buffer_size(MAX_WAITING_TO_BE_WRITTEN)
        .max_message_size(MAX_INCOMING_MESSAGE)
        .max_frame_size(MAX_INCOMING_MESSAGE)
}

/// The subprotocols the client offered, in its order.
fn offered_protocols(parts: &Parts) -> Vec<String> {
    parts
        .headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|protocol| protocol.trim().to_owned())
        .filter(|protocol| !protocol.is_empty())
        .collect()
}

/// The subprotocol to answer: `hailer.v1` when offered, else the token subprotocol when that is
/// all the client offered of ours, else none.
fn chosen_protocol(offered: &[String]) -> Option<String> {
    if offered.iter().any(|protocol| protocol == WS_PROTOCOL) {
        return Some(WS_PROTOCOL.to_owned());
    }
    offered
        .iter()
        .find(|protocol| protocol.starts_with(WS_TOKEN_PROTOCOL_PREFIX))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offered(list: &[&str]) -> Vec<String> {
        list.iter().map(|protocol| (*protocol).to_owned()).collect()
    }

    #[test]
    fn the_versioned_protocol_wins_and_the_token_protocol_alone_is_echoed() {
        let cases: [(&[&str], Option<&str>); 6] = [
            (&["hailer.v1"], Some("hailer.v1")),
            (&["hailer.token.abc", "hailer.v1"], Some("hailer.v1")),
            (&["hailer.v1", "hailer.token.abc"], Some("hailer.v1")),
            (&["hailer.token.abc"], Some("hailer.token.abc")),
            (&["chat", "superchat"], None),
            (&[], None),
        ];
        for (list, expected) in cases {
            assert_eq!(
                chosen_protocol(&offered(list)).as_deref(),
                expected,
                "{list:?}"
            );
        }
    }
}
