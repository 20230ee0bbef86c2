//! A session's event bus: ordered, numbered, and never slowed by a slow client. The latest
//! events are kept, so a client whose connection dropped can catch up from the last number it
//! saw.

use std::collections::VecDeque;
use std::sync::Mutex;

use hailer_protocol::{SessionEnvelope, SessionEvent};
use tokio::sync::broadcast;

const CAPACITY: usize = 4096;
/// How many of the latest events a reconnecting client can catch up on.
const BACKLOG: usize = 4096;

#[derive(Debug)]
pub struct SessionBus {
    sender: broadcast::Sender<SessionEnvelope>,
    /// The next number and the latest events; one lock, so numbering, sending and keeping
    /// happen in the same order for everyone.
    state: Mutex<BusState>,
}

#[derive(Debug)]
struct BusState {
    next_seq: u64,
    backlog: VecDeque<SessionEnvelope>,
}

impl SessionBus {
    pub fn new() -> Self {
        let (sender, _) = broadcast::channel(CAPACITY);
        Self {
            sender,
            state: Mutex::new(BusState {
                next_seq: 1,
                backlog: VecDeque::with_capacity(BACKLOG),
            }),
        }
    }

    pub fn publish(&self, event: SessionEvent) -> SessionEnvelope {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let envelope = SessionEnvelope {
            seq: state.next_seq,
            at: crate::clock::unix_now(),
            event,
        };
        state.next_seq += 1;
        let _ = self.sender.send(envelope.clone());
        if state.backlog.len() == BACKLOG {
            state.backlog.pop_front();
        }
        state.backlog.push_back(envelope.clone());
        envelope
    }

    pub fn subscribe(&self) -> broadcast::Receiver<SessionEnvelope> {
        self.sender.subscribe()
    }

    /// A live subscription plus every event numbered after `after`, exactly once; `None` for
    /// the events when the backlog no longer reaches back that far (or `after` is in the future,
    /// as after a daemon restart).
    pub fn subscribe_after(
        &self,
        after: u64,
    ) -> (
        broadcast::Receiver<SessionEnvelope>,
        Option<Vec<SessionEnvelope>>,
    ) {
        let state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let receiver = self.sender.subscribe();
        let oldest = state.backlog.front().map_or(state.next_seq, |e| e.seq);
        let covered = after < state.next_seq && after + 1 >= oldest;
        let missed = covered.then(|| {
            state
                .backlog
                .iter()
                .filter(|envelope| envelope.seq > after)
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

    #[test]
    fn catching_up_gives_each_missed_event_once_then_live_ones() {
        let bus = SessionBus::new();
        for text in ["a", "b", "c"] {
            bus.publish(notice(text));
        }
        let (mut live, missed) = bus.subscribe_after(1);
        let seqs: Vec<u64> = missed.unwrap().iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [2, 3]);
        bus.publish(notice("d"));
        assert_eq!(live.try_recv().unwrap().seq, 4);
        assert!(live.try_recv().is_err());
    }

    #[test]
    fn a_number_the_bus_never_gave_or_no_longer_keeps_is_not_covered() {
        let bus = SessionBus::new();
        assert_eq!(bus.subscribe_after(0).1, Some(Vec::new()));
        assert_eq!(bus.subscribe_after(5).1, None);
        for _ in 0..BACKLOG + 10 {
            bus.publish(notice("x"));
        }
        assert_eq!(bus.subscribe_after(3).1, None);
        let recent = bus.subscribe_after(BACKLOG as u64 + 5).1.unwrap();
        assert_eq!(recent.len(), 5);
    }
}
