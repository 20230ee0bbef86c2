//! Integration tests of the agent engine against the scripted model server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
