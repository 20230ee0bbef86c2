//! Measures the docker runtime against the engine on this machine:
//!
//! * a docker kernel ready with a notebook session open (image present; leftovers looked for and
//!   the image's contract checked first, as hailerd does), against the floor
//!   measured in the same run: the same image started straight into `marimo edit` (one
//!   container, a bind-mounted notebook, no network or forwarder), to `/health` and one session
//!   stream's kernel-ready, as the same user as ours;
//! * copying 500 notebooks into a kernel;
//! * a copy-back pass over those 500 notebooks, unchanged.
//!
//! ```sh
//! cargo run --release -p hailer-docker --example docker_bench [-- ROUNDS]
//! ```
//!
//! Needs the kernel image of this contract (`hailer kernel build`, or run this crate's tests
//! once, which build it from the test wheelhouse).
//!
//! Unix only: it hands files to the container user with chown.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(unix)]
include!("unix.rs");

#[cfg(not(unix))]
fn main() {
    eprintln!("this benchmark runs on Unix only");
    std::process::exit(2);
}
