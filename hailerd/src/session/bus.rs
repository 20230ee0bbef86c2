//! A session's event bus: ordered, numbered, and never slowed by a slow client.

use std::sync::atomic::{AtomicU64, Ordering};

use hailer_protocol::{SessionEnvelope, SessionEvent};
use tokio::sync::broadcast;

const CAPACITY: usize = 4096;

#[derive(Debug)]
pub struct SessionBus {
    sender: broadcast::Sender<SessionEnvelope>,
    next_seq: AtomicU64,
}

impl SessionBus {
    pub fn new() -> Self {
        let (sender, _) = broadcast::channel(CAPACITY);
        Self {
            sender,
            next_seq: AtomicU64::new(1),
        }
    }

    pub fn publish(&self, event: SessionEvent) -> SessionEnvelope {
        let envelope = SessionEnvelope {
            seq: self.next_seq.fetch_add(1, Ordering::Relaxed),
            at: crate::clock::unix_now(),
            event,
        };
        let _ = self.sender.send(envelope.clone());
        envelope
    }

    pub fn subscribe(&self) -> broadcast::Receiver<SessionEnvelope> {
        self.sender.subscribe()
    }
}
