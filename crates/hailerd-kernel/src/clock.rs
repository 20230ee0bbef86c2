//! Wall-clock helpers.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch, 0 if the clock is before it.
pub fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
