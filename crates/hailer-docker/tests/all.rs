//! Integration tests of the Docker runtime against the real engine.
//!
//! They drive the real Docker engine with this user's uid: Unix only. Docker Desktop on Windows
//! cannot run under Wine; the Windows side of the endpoint is table-tested in `hailer_platform`.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;

use suite::common;
