//! Benchmark of `hailer kernel install-local` into an empty environment, with pip and with uv
//! side by side in one run: the same Python, the same pinned packages from the same wheelhouse
//! (offline, so the network does not count), and a warm package cache (one run of each first,
//! not counted). pip is what Hailer uses when `uv` is not on `PATH`; uv when it is. After each
//! install, the first session in that environment is timed too (`hailer exec -c "import polars"`
//! from a stopped daemon): an environment without bytecode pays for it there.
//!
//! Needs the test wheelhouse and the pinned uv (scripts/test-prereqs.sh). Run it on release
//! builds: `cargo build --release --bins && target/release/bench-install-local --samples 3`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use hailer_tests::TestWorkspace;
use hailer_tests::prereqs::{kernel_venv, uv, wheelhouse};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// One install into a new Hailer home, with `path` as the client's `PATH`; checks which
/// installer the progress named. Answers how long the install took, then the first session
/// in the new environment (daemon start, kernel start, a first run).
fn install(workspace: &TestWorkspace, path: &str, installer: &str) -> (Duration, Duration) {
    let home = tempfile::tempdir().unwrap();
    let wheels = wheelhouse().display().to_string();
    let started = Instant::now();
    let output = workspace
        .command(&["kernel", "install-local", "--wheelhouse", &wheels])
        .env("HAILER_HOME", home.path())
        .env("PATH", path)
        .output()
        .unwrap();
    let elapsed = started.elapsed();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        said.lines()
            .any(|line| line.starts_with("Creating a Python") && line.contains(installer)),
        "{said}"
    );
    let stop = || {
        let _ = workspace
            .command(&["daemon", "stop"])
            .env("HAILER_HOME", home.path())
            .output();
    };
    stop();
    let started = Instant::now();
    let output = workspace
        .command(&["exec", "-c", "import polars, duckdb, altair"])
        .env("HAILER_HOME", home.path())
        .env("PATH", path)
        .output()
        .unwrap();
    let first_session = started.elapsed();
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    stop();
    (elapsed, first_session)
}

fn main() {
    let samples: usize = std::env::args()
        .skip_while(|arg| arg != "--samples")
        .nth(1)
        .and_then(|value| value.parse().ok())
        .unwrap_or(3);
    let mut workspace = TestWorkspace::unsafe_local();
    workspace
        .env
        .retain(|(name, _)| name != hailer_tests::kernel_envs::VARIABLE);
    // The same interpreter for both: the test Python, reached through a link on PATH.
    let tools = tempfile::tempdir().unwrap();
    let python_dir = tools.path().join("python");
    let uv_dir = tools.path().join("uv");
    std::fs::create_dir_all(&python_dir).unwrap();
    std::fs::create_dir_all(&uv_dir).unwrap();
    let real = std::fs::canonicalize(kernel_venv().join("bin/python")).unwrap();
    // Both names, so no other Python 3.11 on PATH comes first.
    for name in ["python3", "python3.11"] {
        std::os::unix::fs::symlink(&real, python_dir.join(name)).unwrap();
    }
    std::os::unix::fs::symlink(uv(), uv_dir.join("uv")).unwrap();
    let join = |dirs: &[&Path]| {
        std::env::join_paths(dirs)
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let pip_path = join(&[&python_dir, Path::new("/usr/bin"), Path::new("/bin")]);
    let uv_path = join(&[
        &python_dir,
        &uv_dir,
        Path::new("/usr/bin"),
        Path::new("/bin"),
    ]);

    // Warm both package caches; not counted.
    install(&workspace, &pip_path, "with pip");
    install(&workspace, &uv_path, "with uv");
    let (mut pip, mut with_uv) = (Vec::new(), Vec::new());
    let (mut pip_first, mut uv_first) = (Vec::new(), Vec::new());
    for _ in 0..samples {
        let (install_time, first) = install(&workspace, &pip_path, "with pip");
        pip.push(install_time);
        pip_first.push(first);
        let (install_time, first) = install(&workspace, &uv_path, "with uv");
        with_uv.push(install_time);
        uv_first.push(first);
    }
    let (pip, with_uv) = (median(pip), median(with_uv));
    let (pip_first, uv_first) = (median(pip_first), median(uv_first));
    println!(
        "hailer kernel install-local into an empty environment, offline, warm cache ({samples} samples, medians)"
    );
    println!("  with pip   {:.1} s", pip.as_secs_f64());
    hailer_tests::bench_row(
        "install-local with uv (floor: with pip)",
        &format!("{:.1} s", with_uv.as_secs_f64()),
        &format!("{:.1} s", pip.as_secs_f64()),
        "faster than pip",
    );
    println!("  with uv    {:.1} s", with_uv.as_secs_f64());
    println!(
        "  pip / uv   {:.1}",
        pip.as_secs_f64() / with_uv.as_secs_f64()
    );
    println!("the first session after the install (daemon and kernel start, one run), medians");
    println!("  after pip  {:.2} s", pip_first.as_secs_f64());
    println!("  after uv   {:.2} s", uv_first.as_secs_f64());
    println!(
        "  uv / pip   {:.2} (target: at most 1.10)",
        uv_first.as_secs_f64() / pip_first.as_secs_f64()
    );
    hailer_tests::bench_row(
        "first session after a uv setup (floor: after a pip setup)",
        &format!("{:.2} s", uv_first.as_secs_f64()),
        &format!("{:.2} s", pip_first.as_secs_f64()),
        "at most 1.10 x",
    );
}
