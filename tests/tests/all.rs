//! End-to-end tests of hailerd and hailer as users run them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
