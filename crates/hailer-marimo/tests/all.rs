//! Integration tests of the marimo launcher and client against real and hostile servers.
//!
//! They start real marimo servers and shell-script stand-ins for Python, and signal their process
//! groups: Unix only. On Windows the launcher's process tree is a Job Object, whose unit test
//! runs under Wine (`hailer_platform::Job`); a real marimo there needs a Windows Python.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;

use suite::support;
