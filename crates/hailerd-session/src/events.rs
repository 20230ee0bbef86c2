//! Event buses, for the daemon and for each session: every event gets a sequence number, is
//! serialised once, and goes to every subscriber.
//!
//! A slow subscriber never slows the sender: the channel is bounded and a subscriber that falls
//! behind is told how many events it missed. Subscribers share one encoded copy of each event, so
//! fifty clients cost fifty socket writes, not fifty serialisations.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::ws::Utf8Bytes;
use hailer_protocol::{DaemonEvent, EventEnvelope, SessionEnvelope, SessionEvent};
use serde::Serialize;
use tokio::sync::broadcast;

/// How many events a daemon subscriber may fall behind before it misses some.
pub const DAEMON_CAPACITY: usize = 1024;
/// The same for a session subscriber; a streamed answer is many small events.
pub(crate) const SESSION_CAPACITY: usize = 4096;
/// How many of a session's latest events a reconnecting client can catch up on.
pub(crate) const SESSION_BACKLOG: usize = 4096;

/// An envelope of one of the event streams.
pub trait Envelope: Serialize + Send + Sync + 'static {
    /// The event type this envelope carries.
    type Event;
    /// An envelope for `event`, numbered `seq` and stamped `at` (Unix seconds).
    fn wrap(seq: u64, at: i64, event: Self::Event) -> Self;
    /// The envelope's sequence number.
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
        Self::wrap(
            0,
            hailerd_kernel::unix_now(),
            DaemonEvent::Lagged { missed },
        )
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
        Self::wrap(
            0,
            hailerd_kernel::unix_now(),
            SessionEvent::Lagged { missed },
        )
    }
}

/// An envelope with its JSON text, made once and shared by every subscriber.
#[derive(Debug)]
pub struct Encoded<T> {
    /// The envelope.
    pub envelope: T,
    /// Its JSON, serialised once for every client.
    pub json: Utf8Bytes,
}

/// An encoded envelope shared by every client that sends it.
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

/// One ordered stream of events, keeping the latest ones for subscribers that reconnect.
#[derive(Debug)]
pub struct Bus<T> {
    sender: broadcast::Sender<Shared<T>>,
    /// The next number and the latest events under one lock, so numbering, sending and keeping
    /// happen in the same order for everyone.
    state: Mutex<BusState<T>>,
    backlog_len: usize,
}

#[derive(Debug)]
struct BusState<T> {
    next_seq: u64,
    backlog: VecDeque<Shared<T>>,
}

/// The daemon's event stream.
pub type EventBus = Bus<EventEnvelope>;
/// A session's event stream.
pub type SessionBus = Bus<SessionEnvelope>;

impl<T: Envelope> Bus<T> {
    /// A bus whose subscribers may fall `capacity` events behind, keeping the latest
    /// `backlog_len` events for [`Self::subscribe_after`].
    pub fn new(capacity: usize, backlog_len: usize) -> Self {
        let (sender, _) = broadcast::channel(capacity);
        Self {
            sender,
            state: Mutex::new(BusState {
                next_seq: 1,
                backlog: VecDeque::with_capacity(backlog_len),
            }),
            backlog_len,
        }
    }

    /// Sends `event` to every current subscriber (none is fine) and returns it as sent.
    pub fn publish(&self, event: T::Event) -> Shared<T> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let shared = encode(T::wrap(state.next_seq, hailerd_kernel::unix_now(), event));
        state.next_seq += 1;
        let _ = self.sender.send(Arc::clone(&shared));
        if self.backlog_len > 0 {
            if state.backlog.len() == self.backlog_len {
                state.backlog.pop_front();
            }
            state.backlog.push_back(Arc::clone(&shared));
        }
        shared
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Shared<T>> {
        self.sender.subscribe()
    }

    /// A live subscription, and the number of the last event sent before it (0 when none
    /// was): a subscriber that falls behind catches up with [`Self::subscribe_after`] from
    /// there.
    pub fn subscribe_counted(&self) -> (broadcast::Receiver<Shared<T>>, u64) {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        (self.sender.subscribe(), state.next_seq - 1)
    }

    /// A live subscription plus every event numbered after `after`, exactly once; `None` for
    /// the events when the backlog no longer reaches back that far (or `after` is in the future,
    /// as after a daemon restart).
    pub fn subscribe_after(
        &self,
        after: u64,
    ) -> (broadcast::Receiver<Shared<T>>, Option<Vec<Shared<T>>>) {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let receiver = self.sender.subscribe();
        let oldest = state
            .backlog
            .front()
            .map_or(state.next_seq, |shared| shared.envelope.seq());
        let covered = after < state.next_seq && after + 1 >= oldest;
        let missed = covered.then(|| {
            state
                .backlog
                .iter()
                .filter(|shared| shared.envelope.seq() > after)
                .cloned()
                .collect()
        });
        (receiver, missed)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn notice(text: &str) -> SessionEvent {
        SessionEvent::Notice {
            level: hailer_protocol::NoticeLevel::Info,
            message: text.to_owned(),
        }
    }

    fn seqs(events: &[Shared<SessionEnvelope>]) -> Vec<u64> {
        events.iter().map(|shared| shared.envelope.seq).collect()
    }

    #[test]
    fn catching_up_gives_each_missed_event_once_then_live_ones() {
        let bus = SessionBus::new(SESSION_CAPACITY, SESSION_BACKLOG);
        for text in ["a", "b", "c"] {
            bus.publish(notice(text));
        }
        let (mut live, missed) = bus.subscribe_after(1);
        assert_eq!(seqs(&missed.unwrap()), [2, 3]);
        bus.publish(notice("d"));
        assert_eq!(live.try_recv().unwrap().envelope.seq, 4);
        assert!(live.try_recv().is_err());
    }

    #[test]
    fn a_number_the_bus_never_gave_or_no_longer_keeps_is_not_covered() {
        let bus = SessionBus::new(SESSION_CAPACITY, SESSION_BACKLOG);
        assert_eq!(bus.subscribe_after(0).1.map(|events| events.len()), Some(0));
        assert!(bus.subscribe_after(5).1.is_none());
        for _ in 0..SESSION_BACKLOG + 10 {
            bus.publish(notice("x"));
        }
        assert!(bus.subscribe_after(3).1.is_none());
        let recent = bus.subscribe_after(SESSION_BACKLOG as u64 + 5).1.unwrap();
        assert_eq!(recent.len(), 5);
    }

    #[test]
    fn every_subscriber_shares_one_encoding() {
        let bus = SessionBus::new(SESSION_CAPACITY, 0);
        let (mut first, mut second) = (bus.subscribe(), bus.subscribe());
        let sent = bus.publish(notice("shared"));
        let (a, b) = (first.try_recv().unwrap(), second.try_recv().unwrap());
        assert!(Arc::ptr_eq(&a, &b) && Arc::ptr_eq(&a, &sent));
        let parsed: serde_json::Value = serde_json::from_str(a.json.as_str()).unwrap();
        assert_eq!(parsed["event"]["message"], "shared");
    }
}
