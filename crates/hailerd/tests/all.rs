//! hailerd's integration tests, in one test binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
