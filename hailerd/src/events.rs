//! The daemon's event bus: every event gets a sequence number and goes to every subscriber.
//!
//! A slow subscriber never slows the sender: the channel is bounded and a subscriber that falls
//! behind is told how many events it missed.

use std::sync::atomic::{AtomicU64, Ordering};

use hailer_protocol::{DaemonEvent, EventEnvelope};
use tokio::sync::broadcast;

/// How many events a subscriber may fall behind before it misses some.
const CAPACITY: usize = 1024;

#[derive(Debug)]
pub struct EventBus {
    sender: broadcast::Sender<EventEnvelope>,
    next_seq: AtomicU64,
}

impl Default for EventBus {
    fn default() -> Self {
        Self::new()
    }
}

impl EventBus {
    pub fn new() -> Self {
        let (sender, _) = broadcast::channel(CAPACITY);
        Self {
            sender,
            next_seq: AtomicU64::new(1),
        }
    }

    /// Sends `event` to every current subscriber.
    pub fn publish(&self, event: DaemonEvent) {
        let envelope = EventEnvelope {
            seq: self.next_seq.fetch_add(1, Ordering::Relaxed),
            at: crate::clock::unix_now(),
            event,
        };
        // No subscribers is fine: nobody is listening.
        let _ = self.sender.send(envelope);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<EventEnvelope> {
        self.sender.subscribe()
    }
}
