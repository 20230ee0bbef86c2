//! Event buses, for the daemon and for each session: every event gets a sequence number, is
//! serialised once, and goes to every subscriber.
//!
//! A slow subscriber never slows the sender: the channel is bounded and a subscriber that falls
//! behind is told how many events it missed. Subscribers share one encoded copy of each event, so
//! fifty clients cost fifty socket writes, not fifty serialisations.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::ws::Utf8Bytes;
use hailer_protocol::{DaemonEvent, EventEnvelope, SessionEnvelope, SessionEvent};
use serde::Serialize;
use tokio::sync::broadcast;

/// How many events a daemon subscriber may fall behind before it misses some.
pub const DAEMON_CAPACITY: usize = 1024;
/// The same for a session subscriber; a streamed answer is many small events.
pub const SESSION_CAPACITY: usize = 4096;

/// An envelope of one of the event streams.
pub trait Envelope: Serialize + Send + Sync + 'static {
    type Event;
    fn wrap(seq: u64, at: i64, event: Self::Event) -> Self;
    fn seq(&self) -> u64;
    /// The stream closes after this one.
    fn is_last(&self) -> bool;
    /// The notice sent to a subscriber that missed `missed` events.
    fn lagged(missed: u64) -> Self;
}

impl Envelope for EventEnvelope {
    type Event = DaemonEvent;

    fn wrap(seq: u64, at: i64, event: DaemonEvent) -> Self {
        Self { seq, at, event }
    }

    fn seq(&self) -> u64 {
        self.seq
    }

    fn is_last(&self) -> bool {
        matches!(self.event, DaemonEvent::ShuttingDown { .. })
    }

    fn lagged(missed: u64) -> Self {
        Self::wrap(0, crate::clock::unix_now(), DaemonEvent::Lagged { missed })
    }
}

impl Envelope for SessionEnvelope {
    type Event = SessionEvent;

    fn wrap(seq: u64, at: i64, event: SessionEvent) -> Self {
        Self { seq, at, event }
    }

    fn seq(&self) -> u64 {
        self.seq
    }

    fn is_last(&self) -> bool {
        matches!(self.event, SessionEvent::Stopped { .. })
    }

    fn lagged(missed: u64) -> Self {
        Self::wrap(0, crate::clock::unix_now(), SessionEvent::Lagged { missed })
    }
}

/// An envelope with its JSON text, made once and shared by every subscriber.
#[derive(Debug)]
pub struct Encoded<T> {
    pub envelope: T,
    pub json: Utf8Bytes,
}

pub type Shared<T> = Arc<Encoded<T>>;

/// Serialises `envelope` once for every subscriber.
pub fn encode<T: Serialize>(envelope: T) -> Shared<T> {
    let json = serde_json::to_string(&envelope).unwrap_or_else(|error| {
        // Envelopes are plain data; this cannot happen, but a stream must never stop on it.
        tracing::error!(%error, "an event could not be serialised");
        "{}".to_owned()
    });
    Arc::new(Encoded {
        envelope,
        json: Utf8Bytes::from(json),
    })
}

/// One ordered stream of events.
#[derive(Debug)]
pub struct Bus<T> {
    sender: broadcast::Sender<Shared<T>>,
    next_seq: AtomicU64,
}

pub type EventBus = Bus<EventEnvelope>;
pub type SessionBus = Bus<SessionEnvelope>;

impl<T: Envelope> Bus<T> {
    pub fn new(capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(capacity);
        Self {
            sender,
            next_seq: AtomicU64::new(1),
        }
    }

    /// Sends `event` to every current subscriber (none is fine) and returns it as sent.
    pub fn publish(&self, event: T::Event) -> Shared<T> {
        let envelope = T::wrap(
            self.next_seq.fetch_add(1, Ordering::Relaxed),
            crate::clock::unix_now(),
            event,
        );
        let shared = encode(envelope);
        let _ = self.sender.send(Arc::clone(&shared));
        shared
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Shared<T>> {
        self.sender.subscribe()
    }
}
