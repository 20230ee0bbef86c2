//! How a kernel job's streamed lines look in the terminal: each named step as a spinner (a bar
//! where the daemon knows the total: packages, build steps, image layers) with its elapsed
//! time, kept as one line when it ends; the daemon's notes as lines; the installers' and the
//! engine's own output only with `--verbose` (it is all in the job's log). Off a terminal there
//! is nothing to redraw: steps and notes are plain lines. The kernel commands draw on standard
//! output, `hailer run` on standard error (its answer is the output), and the chat takes the
//! plain lines to print above its prompt.

use std::collections::VecDeque;
use std::io::IsTerminal as _;
use std::time::{Duration, Instant};

use crate::output::outln;
use hailer_protocol::{JobStep, KernelJobLine};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How many of the last output lines a failure shows when the daemon's message has none.
pub(crate) const TAIL_LINES: usize = 20;

/// The terminal side of one job.
#[derive(Debug)]
pub(crate) struct JobView {
    verbose: bool,
    terminal: bool,
    out: Out,
    started: Instant,
    current: Option<Current>,
    tail: VecDeque<String>,
    /// The first failed write to standard output, for the caller ([`JobView::take_write_error`]).
    write_error: Option<std::io::Error>,
}

/// Where the view writes.
#[derive(Debug)]
enum Out {
    Stdout,
    Stderr,
    /// Kept for the caller to print ([`JobView::take_lines`]).
    Lines(Vec<String>),
}

#[derive(Debug)]
struct Current {
    name: String,
    started: Instant,
    bar: Option<ProgressBar>,
    counted: Option<(u64, Option<u64>)>,
}

impl JobView {
    /// A view on standard output; bars only when it is a terminal.
    pub(crate) fn new(verbose: bool) -> Self {
        Self::with_terminal(verbose, std::io::stdout().is_terminal())
    }

    /// A view on standard error; bars only when it is a terminal.
    pub(crate) fn on_stderr(verbose: bool) -> Self {
        Self {
            out: Out::Stderr,
            ..Self::with_terminal(verbose, std::io::stderr().is_terminal())
        }
    }

    /// A view that draws nothing itself: its lines wait in [`JobView::take_lines`].
    pub(crate) fn in_lines(verbose: bool) -> Self {
        Self {
            out: Out::Lines(Vec::new()),
            ..Self::with_terminal(verbose, false)
        }
    }

    fn with_terminal(verbose: bool, terminal: bool) -> Self {
        Self {
            verbose,
            terminal,
            out: Out::Stdout,
            started: Instant::now(),
            current: None,
            tail: VecDeque::with_capacity(TAIL_LINES),
            write_error: None,
        }
    }

    /// The first write to standard output that failed since the last call (a closed pipe among
    /// them), as an error for the caller to return.
    pub(crate) fn take_write_error(&mut self) -> std::io::Result<()> {
        self.write_error.take().map_or(Ok(()), Err)
    }

    /// Shows one progress line of the job.
    pub(crate) fn line(&mut self, line: &str, output: bool, step: Option<&JobStep>) {
        if let Some(step) = step
            && self
                .current
                .as_ref()
                .is_none_or(|now| now.name != step.name)
        {
            self.finish_step(true);
            self.begin(step);
        }
        if let (Some(step), Some(current)) = (step, self.current.as_mut()) {
            current.count(step);
        }
        if output {
            if self.tail.len() == TAIL_LINES {
                self.tail.pop_front();
            }
            self.tail.push_back(line.to_owned());
            if self.verbose {
                self.print(line);
            }
        } else if step.is_none() {
            self.print(line);
        }
    }

    /// Ends the view: the step under way is kept as a line, marked done or failed.
    pub(crate) fn finish(&mut self, succeeded: bool) {
        self.finish_step(succeeded);
    }

    /// Ends the view with the job's last line (`done` or `failed`) and gives the summary to
    /// show: the time it took and the log holding the whole output; for a failure, what went
    /// wrong, what to do and the last lines of the output first.
    pub(crate) fn end(&mut self, last: &KernelJobLine) -> String {
        self.finish(matches!(last, KernelJobLine::Done { .. }));
        let took = human_duration(self.elapsed());
        match last {
            KernelJobLine::Done { log: Some(log), .. } => {
                format!("Finished in {took}. Full output: {log}")
            }
            KernelJobLine::Done { log: None, .. } | KernelJobLine::Progress { .. } => {
                format!("Finished in {took}.")
            }
            KernelJobLine::Failed { message, hint, log } => {
                let mut said = message.clone();
                if let Some(hint) = hint {
                    said.push_str(&format!("\n  {hint}"));
                }
                let tail = self.tail();
                if !said.contains("last lines") && !tail.is_empty() {
                    said.push_str(&format!(
                        "\nThe last lines of its output:\n{}",
                        tail.join("\n")
                    ));
                }
                if let Some(log) = log {
                    said.push_str(&format!("\nFailed after {took}. Full output: {log}"));
                }
                said
            }
        }
    }

    /// Prints a line that is not the job's (a tool call starting) above the step under way.
    pub(crate) fn println(&mut self, line: &str) {
        self.print(line);
    }

    /// Shows one line of a job: progress, or the last line, for which the summary comes back.
    pub(crate) fn show(&mut self, line: &KernelJobLine) -> Option<String> {
        match line {
            KernelJobLine::Progress { line, output, step } => {
                self.line(line, *output, step.as_ref());
                None
            }
            last => Some(self.end(last)),
        }
    }

    /// The lines a view made with [`JobView::in_lines`] has not handed over yet.
    pub(crate) fn take_lines(&mut self) -> Vec<String> {
        match &mut self.out {
            Out::Lines(lines) => std::mem::take(lines),
            Out::Stdout | Out::Stderr => Vec::new(),
        }
    }

    /// Time since the job began.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// The last output lines, oldest first (empty with `--verbose`: they were shown).
    pub(crate) fn tail(&self) -> Vec<String> {
        if self.verbose {
            return Vec::new();
        }
        self.tail.iter().cloned().collect()
    }

    fn begin(&mut self, step: &JobStep) {
        let bar = self.terminal.then(|| {
            let target = match self.out {
                Out::Stderr => ProgressDrawTarget::stderr(),
                Out::Stdout | Out::Lines(_) => ProgressDrawTarget::stdout(),
            };
            let bar = ProgressBar::with_draw_target(step.total, target);
            let template = if step.total.is_some() {
                "{spinner} {wide_msg} {pos}/{len} [{bar:24}] {elapsed}"
            } else {
                "{spinner} {wide_msg} {elapsed}"
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_message(step.name.clone());
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        if !self.terminal {
            self.say(step.name.clone());
        }
        self.current = Some(Current {
            name: step.name.clone(),
            started: Instant::now(),
            bar,
            counted: None,
        });
    }

    fn finish_step(&mut self, succeeded: bool) {
        let Some(current) = self.current.take() else {
            return;
        };
        let mark = if succeeded { "done" } else { "failed" };
        let counted = match current.counted {
            Some((done, Some(total))) => format!(", {done}/{total}"),
            Some((done, None)) => format!(", {done}"),
            None => String::new(),
        };
        let summary = format!(
            "{mark} ({}{counted})",
            human_duration(current.started.elapsed())
        );
        match current.bar {
            Some(bar) => {
                // Kept whole (the terminal wraps it): its time and count are at its end.
                if let Ok(style) = ProgressStyle::with_template("{msg}") {
                    bar.set_style(style);
                }
                bar.finish_with_message(format!("{} {} {summary}", tick(succeeded), current.name));
            }
            // The chat's lines may have notes between a step's start and its end: the end
            // names its step.
            None if matches!(self.out, Out::Lines(_)) => {
                self.say(format!("{} {} {summary}", tick(succeeded), current.name));
            }
            None => self.say(format!("  {summary}")),
        }
    }

    fn print(&mut self, line: &str) {
        match self
            .current
            .as_ref()
            .and_then(|current| current.bar.as_ref())
        {
            Some(bar) => bar.println(line),
            None => self.say(line.to_owned()),
        }
    }

    /// A whole line, where the view writes.
    fn say(&mut self, line: String) {
        match &mut self.out {
            Out::Stdout => {
                if let Err(error) = outln!("{line}") {
                    self.write_error.get_or_insert(error);
                }
            }
            Out::Stderr => eprintln!("{line}"),
            Out::Lines(lines) => lines.push(line),
        }
    }
}

impl Current {
    fn count(&mut self, step: &JobStep) {
        let Some(done) = step.done else {
            return;
        };
        self.counted = Some((done, step.total));
        if let Some(bar) = &self.bar {
            if let Some(total) = step.total {
                bar.set_length(total);
            }
            bar.set_position(done);
        }
    }
}

fn tick(succeeded: bool) -> &'static str {
    if succeeded { "✓" } else { "✗" }
}

/// `0.4s`, `12.0s`, `2m 05s`, `1h 02m`.
pub(crate) fn human_duration(elapsed: Duration) -> String {
    let seconds = elapsed.as_secs();
    match seconds {
        0..60 => format!("{:.1}s", elapsed.as_secs_f64()),
        60..3600 => format!("{}m {:02}s", seconds / 60, seconds % 60),
        _ => format!("{}h {:02}m", seconds / 3600, seconds % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(name: &str, done: Option<u64>, total: Option<u64>) -> JobStep {
        JobStep {
            name: name.to_owned(),
            done,
            total,
        }
    }

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(human_duration(Duration::from_millis(400)), "0.4s");
        assert_eq!(human_duration(Duration::from_secs(125)), "2m 05s");
        assert_eq!(human_duration(Duration::from_secs(3720)), "1h 02m");
    }

    #[test]
    fn output_is_kept_for_the_tail_and_counts_follow_the_step() {
        let mut view = JobView::with_terminal(false, false);
        view.line(
            "Installing packages",
            false,
            Some(&step("Installing packages", None, Some(3))),
        );
        for n in 1..=25 {
            view.line(
                &format!("Collecting p{n}"),
                true,
                Some(&step("Installing packages", Some(n), Some(3))),
            );
        }
        let counted = view.current.as_ref().and_then(|current| current.counted);
        assert_eq!(counted, Some((25, Some(3))));
        let tail = view.tail();
        assert_eq!(tail.len(), TAIL_LINES);
        assert_eq!(tail.last().map(String::as_str), Some("Collecting p25"));
        view.finish(true);
        assert!(view.current.is_none());
        assert!(JobView::with_terminal(true, false).tail().is_empty());
    }

    #[test]
    fn a_view_in_lines_keeps_steps_and_ends_with_a_summary_naming_the_log() {
        let mut view = JobView::in_lines(false);
        let progress = |line: &str, output: bool, step: Option<JobStep>| KernelJobLine::Progress {
            line: line.to_owned(),
            output,
            step,
        };
        let installing = step("Installing packages", None, Some(2));
        assert_eq!(
            view.show(&progress("Installing packages", false, Some(installing))),
            None
        );
        let counted = step("Installing packages", Some(2), Some(2));
        view.show(&progress("Collecting polars", true, Some(counted)));
        view.show(&progress("Starting marimo", false, None));
        let summary = view.show(&KernelJobLine::Done {
            image: None,
            contract: "c".to_owned(),
            command: None,
            log: Some("/logs/session-start.log".to_owned()),
        });
        let lines = view.take_lines();
        assert_eq!(lines[0], "Installing packages");
        // The installer's line is only in the log; the step ends with its count.
        assert!(
            !lines.iter().any(|line| line.contains("Collecting")),
            "{lines:?}"
        );
        assert_eq!(lines[1], "Starting marimo");
        let done = lines.last().cloned().unwrap_or_default();
        assert!(
            done.starts_with("✓ Installing packages done (") && done.ends_with(", 2/2)"),
            "{lines:?}"
        );
        let summary = summary.unwrap_or_default();
        assert!(summary.starts_with("Finished in "), "{summary}");
        assert!(
            summary.ends_with("Full output: /logs/session-start.log"),
            "{summary}"
        );
        assert!(view.take_lines().is_empty());
    }
}
