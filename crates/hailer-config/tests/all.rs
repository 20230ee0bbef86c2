//! Integration tests of configuration discovery, precedence, validation and init.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;

use suite::common;
