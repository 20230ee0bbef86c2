//! Integration tests of the Docker runtime against the real engine.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;

use suite::common;
