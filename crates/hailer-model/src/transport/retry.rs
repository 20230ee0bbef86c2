//! When and how long to wait before sending a request again.

use std::time::Duration;

use reqwest::header::HeaderMap;

/// Bounded retries with exponential backoff and jitter. Only requests that got no response, or a
/// response with a transient status (408, 409, 429, 5xx), are retried; a response whose body had
/// started is never replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// Wait before the first retry; doubled for every further one.
    pub initial_backoff: Duration,
    /// The longest computed backoff, before jitter; a `Retry-After` is capped separately.
    pub max_backoff: Duration,
    /// The longest `Retry-After` honoured; longer requests are cut to this.
    pub retry_after_cap: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 2,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            retry_after_cap: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// Whether a response with this status may be retried.
    pub fn is_retryable_status(status: u16) -> bool {
        matches!(status, 408 | 409 | 429 | 500..=599)
    }

    /// The wait before retry number `retry` (0 for the first), honouring the server's
    /// `Retry-After` up to the cap.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(asked) = retry_after {
            return asked.min(self.retry_after_cap);
        }
        let factor = 2u32.saturating_pow(retry);
        let backoff = self
            .initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff);
        // Jitter: between 75% and 100% of the backoff, so clients that failed together spread out.
        backoff.mul_f64(rand::random_range(0.75..=1.0))
    }
}

/// Reads `retry-after-ms` or `retry-after` (seconds) from a response.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    if let Some(ms) = text("retry-after-ms").and_then(|value| value.trim().parse::<f64>().ok()) {
        return duration_from_secs(ms / 1000.0);
    }
    let seconds = text("retry-after")?.trim().parse::<f64>().ok()?;
    duration_from_secs(seconds)
}

fn duration_from_secs(seconds: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(seconds).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn backoff_doubles_with_jitter_and_stays_capped() {
        let policy = RetryPolicy {
            max_retries: 5,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(300),
            retry_after_cap: Duration::from_secs(2),
        };
        for _ in 0..50 {
            let first = policy.delay(0, None);
            assert!((75..=100).contains(&first.as_millis()), "{first:?}");
            let second = policy.delay(1, None);
            assert!((150..=200).contains(&second.as_millis()), "{second:?}");
            let late = policy.delay(30, None);
            assert!(late <= Duration::from_millis(300), "{late:?}");
        }
    }

    #[test]
    fn retry_after_is_honoured_up_to_the_cap() {
        let policy = RetryPolicy {
            retry_after_cap: Duration::from_secs(2),
            ..RetryPolicy::default()
        };
        let asked = Some(Duration::from_secs(1));
        assert_eq!(policy.delay(0, asked), Duration::from_secs(1));
        let too_long = Some(Duration::from_secs(3600));
        assert_eq!(policy.delay(0, too_long), Duration::from_secs(2));
    }

    #[test]
    fn retry_after_headers_are_read() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(3)));
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(250)));
        headers.insert("retry-after-ms", HeaderValue::from_static("-5"));
        headers.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn only_transient_statuses_are_retryable() {
        for status in [408, 409, 429, 500, 502, 503, 599] {
            assert!(RetryPolicy::is_retryable_status(status), "{status}");
        }
        for status in [200, 400, 401, 403, 404, 405, 422] {
            assert!(!RetryPolicy::is_retryable_status(status), "{status}");
        }
    }
}
