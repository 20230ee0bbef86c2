//! The open HTTP connections, oldest first, and which of them are idle: when every slot is
//! taken, the oldest idle connection is closed to make room for a new one.
//!
//! A connection is idle while no request of it is being answered: before its first request
//! has arrived (a slow or stalled sender among them), and between requests on a kept-alive
//! connection. A request counts from the moment hyper hands it over until its response body
//! has been sent or dropped, so a long streamed reply is never cut for a newcomer.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

/// One connection's state, shared by its task and the registry.
#[derive(Debug, Default)]
pub(crate) struct Activity {
    /// Requests being answered.
    requests: AtomicUsize,
    /// Cancelled to close the connection.
    close: CancellationToken,
}

impl Activity {
    /// Counts a request as being answered until the guard drops.
    pub(crate) fn busy(self: &Arc<Self>) -> BusyGuard {
        self.requests.fetch_add(1, Ordering::AcqRel);
        BusyGuard(Arc::clone(self))
    }

    /// Resolves when the registry chose this connection to close.
    pub(crate) async fn closing(&self) {
        self.close.cancelled().await;
    }

    fn is_idle(&self) -> bool {
        self.requests.load(Ordering::Acquire) == 0 && !self.close.is_cancelled()
    }
}

/// A request being answered (see [`Activity::busy`]).
#[derive(Debug)]
pub(crate) struct BusyGuard(Arc<Activity>);

impl Drop for BusyGuard {
    fn drop(&mut self) {
        self.0.requests.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Every open connection by age.
#[derive(Debug, Default)]
pub(crate) struct Connections {
    open: Mutex<BTreeMap<u64, Arc<Activity>>>,
    next: std::sync::atomic::AtomicU64,
}

/// A connection's place in the registry; leaving it (on drop) forgets the connection.
#[derive(Debug)]
pub(crate) struct Registered {
    connections: Arc<Connections>,
    id: u64,
    pub activity: Arc<Activity>,
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut open) = self.connections.open.lock() {
            open.remove(&self.id);
        }
    }
}

impl Connections {
    /// Adds a newly accepted connection, the youngest.
    pub(crate) fn register(self: &Arc<Self>) -> Registered {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let activity = Arc::new(Activity::default());
        if let Ok(mut open) = self.open.lock() {
            open.insert(id, Arc::clone(&activity));
        }
        Registered {
            connections: Arc::clone(self),
            id,
            activity,
        }
    }

    /// Asks the oldest idle connection to close; false when every connection is busy.
    pub(crate) fn close_oldest_idle(&self) -> bool {
        let Ok(open) = self.open.lock() else {
            return false;
        };
        match open.values().find(|activity| activity.is_idle()) {
            Some(activity) => {
                activity.close.cancel();
                true
            }
            None => false,
        }
    }

    /// How many connections are open.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.open.lock().map(|open| open.len()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_idle_connection_is_closed_first() {
        let connections = Arc::new(Connections::default());
        let oldest = connections.register();
        let busy_older = connections.register();
        let younger = connections.register();
        // The oldest is in a request: the next idle one goes.
        let guard = oldest.activity.busy();
        assert!(connections.close_oldest_idle());
        assert!(!oldest.activity.close.is_cancelled());
        assert!(busy_older.activity.close.is_cancelled());
        assert!(!younger.activity.close.is_cancelled());
        // A connection already closing is not chosen again.
        assert!(connections.close_oldest_idle());
        assert!(younger.activity.close.is_cancelled());
        assert!(!connections.close_oldest_idle());
        drop(guard);
        assert!(connections.close_oldest_idle());
        assert!(oldest.activity.close.is_cancelled());
    }

    #[test]
    fn a_closed_connection_leaves_the_registry() {
        let connections = Arc::new(Connections::default());
        let first = connections.register();
        let _second = connections.register();
        assert_eq!(connections.len(), 2);
        drop(first);
        assert_eq!(connections.len(), 1);
    }
}
