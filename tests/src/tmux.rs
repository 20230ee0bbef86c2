//! A program run in a tmux pane of a private tmux server: the tests type into it and read the
//! screen, as a person would.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A tmux server with one pane running the program; the server is killed on drop.
pub struct TmuxPane {
    tmux: PathBuf,
    socket: String,
}

impl std::fmt::Debug for TmuxPane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TmuxPane")
            .field("socket", &self.socket)
            .finish()
    }
}

impl TmuxPane {
    /// Runs `command` (its program, arguments, folder and environment) in a new 120×40 pane.
    /// The pane stays after the program exits, so its last screen and status can be read.
    pub fn spawn(command: &Command) -> Self {
        let tmux = crate::prereqs::tmux();
        let socket = format!(
            "hailer-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut start = Command::new(&tmux);
        start.args([
            "-L",
            &socket,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
        ]);
        if let Some(dir) = command.get_current_dir() {
            start.arg("-c").arg(dir);
        }
        start.arg("--").arg(command.get_program());
        start.args(command.get_args());
        // The server starts from this process, so the pane inherits this environment.
        start
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR")
            .env_remove("TMUX");
        for (name, value) in command.get_envs() {
            match value {
                Some(value) => start.env(name, value),
                None => start.env_remove(name),
            };
        }
        let output = start
            .output()
            .unwrap_or_else(|error| panic!("cannot run tmux: {error}"));
        assert!(
            output.status.success(),
            "tmux new-session failed: {output:?}"
        );
        let pane = Self { tmux, socket };
        pane.tmux(&["set-option", "-g", "remain-on-exit", "on"]);
        pane
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new(&self.tmux)
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .unwrap_or_else(|error| panic!("cannot run tmux: {error}"))
    }

    /// Types `text` literally, then Enter.
    pub fn type_line(&self, text: &str) {
        self.type_text(text);
        self.keys(&["Enter"]);
    }

    /// Types `text` literally, without Enter.
    pub fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "0", "-l", text]);
    }

    /// Sends keys by tmux's names (`C-c`, `C-d`, `Enter`, `M-Enter`).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// Pastes `text` as a terminal does (bracketed, when the program asked for it).
    pub fn paste(&self, text: &str) {
        self.tmux(&["set-buffer", "-b", "paste", "--", text]);
        self.tmux(&["paste-buffer", "-p", "-d", "-b", "paste", "-t", "0"]);
    }

    /// The whole screen and scrollback, wrapped lines joined.
    pub fn screen(&self) -> String {
        let output = self.tmux(&["capture-pane", "-p", "-J", "-S", "-1000", "-t", "0"]);
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// The visible screen with its colours, as escape sequences.
    pub fn screen_with_colours(&self) -> String {
        let output = self.tmux(&["capture-pane", "-p", "-e", "-J", "-t", "0"]);
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Waits until the screen shows `needle`; panics with the screen after `timeout`.
    pub fn wait_for(&self, needle: &str, timeout: Duration) -> String {
        self.wait_until(&format!("the screen shows {needle:?}"), timeout, |screen| {
            screen.contains(needle)
        })
    }

    /// Waits until `ready` holds for the screen.
    pub fn wait_until(
        &self,
        what: &str,
        timeout: Duration,
        ready: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.screen();
            if ready(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "waited {timeout:?} for {what}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The program's pid while it runs.
    pub fn pid(&self) -> Option<u32> {
        let output = self.tmux(&["display-message", "-p", "-t", "0", "#{pane_pid}"]);
        String::from_utf8_lossy(&output.stdout).trim().parse().ok()
    }

    /// The program's exit status once it has ended.
    pub fn exit_status(&self, timeout: Duration) -> i32 {
        let deadline = Instant::now() + timeout;
        loop {
            let output = self.tmux(&[
                "display-message",
                "-p",
                "-t",
                "0",
                "#{pane_dead} #{pane_dead_status}",
            ]);
            let text = String::from_utf8_lossy(&output.stdout).trim().to_owned();
            if let Some(status) = text.strip_prefix("1 ") {
                return status.parse().unwrap_or(-1);
            }
            // tmux sometimes leaves an ended program unreaped for a long while: a zombie has
            // ended, and its exit code is the last field of its stat.
            if let Some(status) = self.pid().and_then(zombie_exit_status) {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the program still runs after {timeout:?} ({}); the screen:\n{}",
                self.pid()
                    .and_then(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok())
                    .unwrap_or_default(),
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for TmuxPane {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

/// The exit status of `pid` if it has ended but was not reaped yet.
fn zombie_exit_status(pid: u32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    if fields.first() != Some(&"Z") {
        return None;
    }
    let raw: i32 = fields.last()?.parse().ok()?;
    Some((raw >> 8) & 0xff)
}
