//! Integration tests of the model client against the scripted model server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
