//! Integration tests of the marimo launcher and client against real and hostile servers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;

use suite::support;
