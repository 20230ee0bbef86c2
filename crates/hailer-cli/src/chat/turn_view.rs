//! How a session's events look on the terminal: the answer as it streams, each tool call as the
//! code it runs and the start of its result, charts, the turn's token counts, notices and kernel
//! changes. Every event is cleaned of control sequences before any of it is shown.

use hailer_protocol::{ConversationReason, KernelStatus, NoticeLevel, SessionEvent, TurnUsage};

use super::screen::Screen;
use crate::commands::kernel::job_view::JobView;
use hailer_render::MarkdownStream;

/// What happened to the turn, for the chat's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum TurnOutcome {
    Started { turn_id: String },
    Ended { turn_id: String },
}

/// Renders the events of the session's turns.
#[derive(Debug)]
pub(super) struct TurnView {
    answer: MarkdownStream,
    wrote_answer: bool,
    /// The text the user typed for the turn that this client started and has not seen begin.
    pub own_text: Option<String>,
    /// Turns and token counts seen by this client.
    pub turns: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    kernel_was_ready: bool,
    /// New conversations this client started and already confirmed, whose events are still to
    /// come: those are not announced again.
    own_conversations: u32,
    /// The kernel's environment set-up under way, shown as a job is.
    setup: Option<JobView>,
    /// Show the installers' own output of a set-up too.
    verbose: bool,
}

impl TurnView {
    pub(super) fn new(screen: &Screen) -> Self {
        Self {
            answer: MarkdownStream::new(screen.style, screen.width()),
            wrote_answer: false,
            own_text: None,
            turns: 0,
            input_tokens: 0,
            output_tokens: 0,
            kernel_was_ready: false,
            own_conversations: 0,
            setup: None,
            verbose: false,
        }
    }

    /// The same view, showing a set-up's whole output when `verbose`.
    pub(super) fn with_verbose(self, verbose: bool) -> Self {
        Self { verbose, ..self }
    }

    /// Shows one event; says when a turn began or ended.
    pub(super) fn show(&mut self, screen: &Screen, event: &SessionEvent) -> Option<TurnOutcome> {
        // What the model, the kernel and the files said reaches the terminal only cleaned.
        let event = &hailer_render::clean_all(event)?;
        let style = screen.style;
        let width = screen.width();
        match event {
            SessionEvent::TurnStarted {
                turn_id,
                text,
                client,
            } => {
                hailer_render::preload_highlighting();
                let ours = self.own_text.take().is_some_and(|own| own == *text);
                if !ours {
                    screen.line(format!(
                        "{} {}",
                        style.bold_cyan(&format!("{client} >")),
                        text
                    ));
                }
                self.answer = MarkdownStream::new(style, width);
                self.wrote_answer = false;
                screen.line(style.dim("thinking…"));
                return Some(TurnOutcome::Started {
                    turn_id: turn_id.clone(),
                });
            }
            SessionEvent::TextDelta { delta, .. } => self.delta(screen, delta),
            SessionEvent::ToolCallStarted {
                name,
                preview,
                code,
                client,
                ..
            } => {
                self.flush_answer(screen);
                if let Some(client) = client {
                    // Another agent's own call (over MCP), outside any turn of ours.
                    screen.line(format!(
                        "{} {}",
                        style.bold_cyan(&format!("{client} >")),
                        style.dim(&format!("called {name}"))
                    ));
                }
                let lines =
                    hailer_render::tool_started(name, preview, code.as_deref(), style, width);
                screen.line(lines.join("\n"));
            }
            SessionEvent::ToolCallFinished {
                name,
                ok,
                preview,
                output,
                ..
            } => {
                let lines =
                    hailer_render::tool_finished(name, Some(*ok), preview, output, style, width);
                screen.line(lines.join("\n"));
            }
            SessionEvent::Chart { chart, .. } => {
                screen.line(hailer_render::tool_chart_line(chart, style, width));
            }
            SessionEvent::Usage { .. } => {}
            SessionEvent::TurnFinished {
                turn_id,
                text,
                usage,
            } => {
                if !self.wrote_answer {
                    if text.trim().is_empty() {
                        screen.line(style.dim("(no reply)"));
                    } else {
                        self.delta(screen, text);
                    }
                }
                self.flush_answer(screen);
                self.count(usage);
                screen.line(style.dim(&usage_line(usage)));
                return Some(TurnOutcome::Ended {
                    turn_id: turn_id.clone(),
                });
            }
            SessionEvent::TurnFailed {
                turn_id,
                message,
                hint,
            } => {
                self.flush_answer(screen);
                screen.line(style.red(message));
                if let Some(hint) = hint {
                    screen.line(format!("  {hint}"));
                }
                return Some(TurnOutcome::Ended {
                    turn_id: turn_id.clone(),
                });
            }
            SessionEvent::TurnCancelled { turn_id } => {
                self.flush_answer(screen);
                screen.line(style.yellow("Interrupted."));
                return Some(TurnOutcome::Ended {
                    turn_id: turn_id.clone(),
                });
            }
            SessionEvent::Notice { level, message } => {
                let text = match level {
                    NoticeLevel::Info => style.dim(message),
                    NoticeLevel::Warning => style.yellow(message),
                    NoticeLevel::Error => style.red(message),
                };
                screen.line(text);
            }
            SessionEvent::Kernel {
                status,
                message,
                hint,
                ..
            } => self.kernel(screen, *status, message.as_deref(), hint.as_deref()),
            SessionEvent::KernelSetup { line } => {
                let view = self
                    .setup
                    .get_or_insert_with(|| JobView::in_lines(self.verbose));
                let summary = view.show(line);
                for line in view.take_lines() {
                    screen.line(style.dim(&line));
                }
                if let Some(summary) = summary {
                    screen.line(summary);
                    self.setup = None;
                }
            }
            SessionEvent::NotebookSwitched { notebook } => {
                screen.line(format!("Active notebook is now {notebook}."));
            }
            SessionEvent::ConversationStarted {
                model,
                provider,
                reason,
                client,
            } => {
                self.reset_counters();
                if self.own_conversations > 0 {
                    self.own_conversations -= 1;
                } else {
                    let said = match reason {
                        ConversationReason::New => {
                            format!("{client} started a new conversation; earlier turns are gone.")
                        }
                        ConversationReason::Model => format!(
                            "{client} switched the model to {provider}:{model}; a new conversation began."
                        ),
                    };
                    screen.line(style.yellow(&said));
                }
            }
            SessionEvent::Lagged { missed } => {
                screen.line(style.yellow(&format!(
                    "This terminal fell behind and missed {missed} event(s)."
                )));
            }
            SessionEvent::History { turns } => super::history_view::show(screen, turns),
            SessionEvent::Attached { .. } | SessionEvent::Stopped { .. } => {}
        }
        None
    }

    fn delta(&mut self, screen: &Screen, delta: &str) {
        if !self.wrote_answer {
            self.wrote_answer = true;
            let header = if screen.is_interactive() {
                screen.style.bold("Hailer")
            } else {
                "Hailer >".to_owned()
            };
            screen.line(header);
        }
        if screen.is_interactive() {
            for line in self.answer.push(delta) {
                screen.line(line);
            }
        } else {
            screen.text(delta);
            self.answer.push(delta);
        }
    }

    fn flush_answer(&mut self, screen: &Screen) {
        if screen.is_interactive() {
            for line in self.answer.finish() {
                screen.line(line);
            }
        } else if self.answer.has_pending() {
            self.answer.finish();
            screen.text("\n");
        } else {
            self.answer.finish();
        }
    }

    /// This client started a new conversation and said so: its counters start again, and the
    /// session's event for it is not shown twice.
    pub(super) fn started_conversation(&mut self) {
        self.reset_counters();
        self.own_conversations += 1;
    }

    fn reset_counters(&mut self) {
        self.turns = 0;
        self.input_tokens = 0;
        self.output_tokens = 0;
    }

    fn count(&mut self, usage: &TurnUsage) {
        self.turns += 1;
        self.input_tokens += usage.input_tokens.unwrap_or(0);
        self.output_tokens += usage.output_tokens.unwrap_or(0);
    }

    fn kernel(
        &mut self,
        screen: &Screen,
        status: KernelStatus,
        message: Option<&str>,
        hint: Option<&str>,
    ) {
        let style = screen.style;
        match status {
            KernelStatus::Idle if !self.kernel_was_ready => {
                self.kernel_was_ready = true;
                screen.line(style.dim("The kernel is ready."));
            }
            KernelStatus::Failed => {
                let why = message.unwrap_or("no reason given");
                screen.line(style.red(&format!("The kernel failed: {why}")));
                if let Some(hint) = hint {
                    screen.line(style.dim(hint));
                }
            }
            KernelStatus::Restarting => screen.line(style.yellow("The kernel is restarting.")),
            KernelStatus::Stopped => screen.line(style.yellow("The kernel stopped.")),
            _ => {}
        }
    }
}

/// `tokens: 120 in / 20 out` (or that the endpoint reported none).
pub(super) fn usage_line(usage: &TurnUsage) -> String {
    match (usage.input_tokens, usage.output_tokens) {
        (None, None) => "tokens: not reported".to_owned(),
        (input, output) => format!(
            "tokens: {} in / {} out",
            input.unwrap_or(0),
            output.unwrap_or(0)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_lines() {
        let usage = TurnUsage {
            input_tokens: Some(120),
            output_tokens: Some(20),
        };
        assert_eq!(usage_line(&usage), "tokens: 120 in / 20 out");
        assert_eq!(usage_line(&TurnUsage::default()), "tokens: not reported");
    }
}
