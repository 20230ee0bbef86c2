//! How long until the first execute is possible, against the floor of a bare marimo start.
//!
//! Usage: `HAILER_TEST_PYTHON=<python with marimo 0.24.2> cargo run --release -p hailer-marimo
//! --example bench_ready -- [runs] [execute round trips]`
//!
//! (a) floor: spawn `marimo edit` by hand, poll `/health`, read one `/sse` until `kernel-ready`;
//! (b) ours: `launch()` plus `ensure_session()` (open and instantiate);
//! and the median round trip of executing `pass`.
//!
//! Unix only: it signals process groups and reads /proc.

#[cfg(unix)]
include!("unix.rs");

#[cfg(not(unix))]
fn main() {
    eprintln!("this benchmark runs on Unix only");
    std::process::exit(2);
}
