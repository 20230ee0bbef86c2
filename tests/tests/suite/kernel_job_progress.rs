//! What `hailer kernel install-local` and `hailer kernel build` show in a terminal (tmux): a few
//! step lines and one summary naming the job's log, which holds the installers' and the
//! engine's whole output; with `--verbose` that output is on the screen too, and the client and
//! the daemon it starts log at DEBUG.

use std::path::PathBuf;
use std::time::Duration;

use hailer_tests::job_log::package_lines;
use hailer_tests::prereqs::{kernel_venv, wheelhouse};
use hailer_tests::{TestWorkspace, TmuxPane};

/// The most lines a job may print to a terminal without `--verbose`.
const MOST_LINES: usize = 15;
/// An offline install or a cached build, with room for a busy machine.
const JOB: Duration = Duration::from_secs(600);

/// What the pane printed, once the program ended with success: its lines without the blank
/// ones and tmux's own note about the ended pane.
fn finished(pane: &TmuxPane) -> Vec<String> {
    let status = pane.exit_status(JOB);
    let screen = pane.screen();
    assert_eq!(status, 0, "{screen}");
    screen
        .lines()
        .map(str::trim_end)
        .filter(|line| !line.is_empty() && !line.starts_with("Pane is dead"))
        .map(str::to_owned)
        .collect()
}

/// The log the summary line names, and what it holds.
fn named_log(lines: &[String]) -> (PathBuf, String) {
    let summary = lines
        .iter()
        .find_map(|line| {
            line.split_once("Full output: ")
                .map(|(_, path)| path.trim())
        })
        .unwrap_or_else(|| panic!("no summary naming the log:\n{}", lines.join("\n")));
    let path = PathBuf::from(summary);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    (path, text)
}

fn install_local(verbose: bool) -> (TestWorkspace, Vec<String>) {
    let mut workspace = TestWorkspace::unsafe_local();
    // The managed environment is made, not a prepared one used.
    workspace
        .env
        .retain(|(name, _)| name != hailer_tests::kernel_envs::VARIABLE);
    let python = kernel_venv().join("bin/python").display().to_string();
    let wheels = wheelhouse().display().to_string();
    let mut args = vec![
        "kernel",
        "install-local",
        "--python",
        python.as_str(),
        "--wheelhouse",
        wheels.as_str(),
    ];
    if verbose {
        args.insert(0, "--verbose");
    }
    let pane = TmuxPane::spawn(&workspace.command(&args));
    let lines = finished(&pane);
    (workspace, lines)
}

#[test]
fn install_local_prints_a_few_lines_and_keeps_the_whole_output_in_its_log() {
    let (workspace, lines) = install_local(false);
    let said = lines.join("\n");
    assert!(lines.len() <= MOST_LINES, "{} lines:\n{said}", lines.len());
    assert!(said.contains("Installing packages"), "{said}");
    assert!(said.contains("Created the environment"), "{said}");
    let (path, log) = named_log(&lines);
    assert!(
        path.starts_with(workspace.home.path().join("state/logs/jobs")),
        "{}",
        path.display()
    );
    // The installer's own lines, one per package, are in the log and not on screen.
    let packages = package_lines(&log);
    assert!(packages.len() >= 20, "{log}");
    for line in &packages {
        assert!(!said.contains(line), "{line:?} on screen:\n{said}");
    }
    assert!(log.lines().count() > lines.len() + 20, "{log}");
    // The package count is on the step's finished line.
    assert!(
        lines
            .iter()
            .any(|line| line.contains("Installing packages") && line.contains('/')),
        "{said}"
    );
    // The daemon this client started logs at its default level.
    assert!(!workspace.daemon_log().contains("job progress"));
    let _ = workspace.hailer(&["daemon", "stop"]);
}

#[test]
fn install_local_with_verbose_shows_the_whole_output_and_logs_at_debug() {
    let (workspace, lines) = install_local(true);
    let said = lines.join("\n");
    let (_, log) = named_log(&lines);
    let packages = package_lines(&log);
    assert!(packages.len() >= 20, "{log}");
    for line in &packages {
        assert!(said.contains(line), "{line:?} not shown:\n{said}");
    }
    // --verbose reaches the daemon this client started: it logs each job line at DEBUG.
    assert!(
        workspace.daemon_log().contains("job progress"),
        "{}",
        workspace.daemon_log()
    );
    let _ = workspace.hailer(&["daemon", "stop"]);
}

fn build(verbose: bool) -> (TestWorkspace, Vec<String>) {
    let workspace = TestWorkspace::docker();
    let tag = format!(
        "hailer-kernel:progress-{}-{}",
        std::process::id(),
        if verbose { "verbose" } else { "quiet" }
    );
    let base = hailer_tests::prereqs::base_image();
    let wheelhouse = hailer_tests::prereqs::image_wheelhouse()
        .display()
        .to_string();
    let mut args = vec![
        "kernel",
        "build",
        "--tag",
        &tag,
        "--base-image",
        &base,
        "--wheelhouse",
        &wheelhouse,
    ];
    if verbose {
        args.insert(0, "--verbose");
    }
    let pane = TmuxPane::spawn(&workspace.command(&args));
    let status = pane.exit_status(JOB);
    // The tag goes; its layers stay as the build cache of the next run.
    let _ = std::process::Command::new("docker")
        .args(["rmi", "--no-prune", &tag])
        .output();
    assert_eq!(status, 0, "{}", pane.screen());
    let lines = finished(&pane);
    (workspace, lines)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kernel_build_prints_a_few_lines_and_keeps_the_whole_output_in_its_log() {
    hailer_tests::docker_image::kernel_image().await;
    let (workspace, lines) = tokio::task::block_in_place(|| build(false));
    let said = lines.join("\n");
    assert!(lines.len() <= MOST_LINES, "{} lines:\n{said}", lines.len());
    assert!(said.contains("is ready (kernel contract"), "{said}");
    let (_, log) = named_log(&lines);
    let steps = build_steps(&log);
    assert!(steps.len() >= 5, "{log}");
    // BuildKit numbers the steps per stage (`[build 3/6] RUN ...`); the build's count is all
    // of them, on its finished line. The steps themselves are not on screen.
    let total: u64 = steps
        .iter()
        .filter_map(|step| step_of(step))
        .map(|(stage, _, of)| (stage, of))
        .collect::<std::collections::BTreeMap<_, _>>()
        .values()
        .sum();
    assert!(
        said.contains(&format!(", {total}/{total})")),
        "{total}:\n{said}"
    );
    let last = steps.last().copied().unwrap_or_default();
    assert!(!said.contains(last), "{said}");
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kernel_build_with_verbose_shows_the_whole_output() {
    hailer_tests::docker_image::kernel_image().await;
    let (workspace, lines) = tokio::task::block_in_place(|| build(true));
    let said = lines.join("\n");
    let (_, log) = named_log(&lines);
    let steps = build_steps(&log);
    assert!(steps.len() >= 5, "{log}");
    for step in steps {
        assert!(said.contains(step), "{step:?} not shown:\n{said}");
    }
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

/// The lines of a build's log that name a step of the Dockerfile: `[build 3/6] RUN ...`, or
/// `CACHED [build 3/6] RUN ...` for a step found in the build cache.
fn build_steps(log: &str) -> Vec<&str> {
    log.lines().filter(|line| step_of(line).is_some()).collect()
}

/// The stage, step and steps of the stage a step line names.
fn step_of(line: &str) -> Option<(&str, u64, u64)> {
    let rest = line
        .strip_prefix("CACHED ")
        .unwrap_or(line)
        .strip_prefix('[')?;
    let (inside, _) = rest.split_once(']')?;
    let (stage, numbers) = inside.rsplit_once(' ')?;
    let (step, steps) = numbers.split_once('/')?;
    Some((stage, step.parse().ok()?, steps.parse().ok()?))
}
