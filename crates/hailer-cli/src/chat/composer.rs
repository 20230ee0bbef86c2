//! What the user types: a line editor on a thread of its own (history, multi-line input, paste
//! as one message), or plain lines from standard input.
//!
//! The editor keeps reading while a turn runs, so the user can prepare the next message; every
//! submitted line waits for the chat's verdict, which can hand the text back as a draft.

use std::io::BufRead;
use std::path::PathBuf;
use std::sync::mpsc as std_mpsc;

use rustyline::error::ReadlineError;
use rustyline::history::{DefaultHistory, History};
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{
    Cmd, ConditionalEventHandler, Config, Editor, Event, EventContext, EventHandler, KeyCode,
    KeyEvent, Modifiers, RepeatCount,
};
use tokio::sync::mpsc;

use super::screen::Screen;
use hailer_render::Style;

/// Something the user did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Input {
    /// A message or a slash command.
    Line(String),
    /// Ctrl+C, with what was typed on the line so far.
    Interrupt(String),
    /// Ctrl+D on an empty line, or the end of standard input.
    Eof,
}

/// The chat's answer to a submitted line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Taken: the editor starts empty.
    Accepted,
    /// Not taken now: the editor starts with this text.
    KeepDraft(String),
    /// The chat is over.
    Stop,
}

/// The input side of the chat.
pub(super) struct Composer {
    pub inputs: mpsc::UnboundedReceiver<Input>,
    /// `None` in plain mode, where nothing waits for a verdict.
    verdicts: Option<std_mpsc::Sender<Verdict>>,
}

impl std::fmt::Debug for Composer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Composer")
            .field("interactive", &self.verdicts.is_some())
            .finish_non_exhaustive()
    }
}

const PROMPT: &str = "› ";

impl Composer {
    /// Starts the line editor; also answers the screen that prints above its prompt.
    pub(super) fn interactive(
        style: Style,
        history: Option<PathBuf>,
    ) -> anyhow::Result<(Self, Screen)> {
        let (input_tx, inputs) = mpsc::unbounded_channel();
        let (verdict_tx, verdict_rx) = std_mpsc::channel();
        let (printer_tx, printer_rx) = std_mpsc::channel();
        std::thread::Builder::new()
            .name("composer".to_owned())
            .spawn(move || edit_lines(style, history, &input_tx, &verdict_rx, &printer_tx))?;
        let printer = printer_rx
            .recv()
            .map_err(|_| anyhow::anyhow!("the line editor did not start"))??;
        Ok((
            Self {
                inputs,
                verdicts: Some(verdict_tx),
            },
            Screen::interactive(style, printer),
        ))
    }

    /// Reads standard input line by line; a line ending in `\` continues on the next one.
    pub(super) fn plain() -> Self {
        let (input_tx, inputs) = mpsc::unbounded_channel();
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            let mut message = String::new();
            for line in stdin.lock().lines() {
                let Ok(line) = line else { break };
                if let Some(start) = line.strip_suffix('\\') {
                    message.push_str(start);
                    message.push('\n');
                    continue;
                }
                message.push_str(&line);
                if input_tx
                    .send(Input::Line(std::mem::take(&mut message)))
                    .is_err()
                {
                    return;
                }
            }
            if !message.is_empty() {
                let _ = input_tx.send(Input::Line(message));
            }
            let _ = input_tx.send(Input::Eof);
        });
        Self {
            inputs,
            verdicts: None,
        }
    }

    pub(super) fn answer(&self, verdict: Verdict) {
        if let Some(verdicts) = &self.verdicts {
            let _ = verdicts.send(verdict);
        }
    }
}

type Printer = Box<dyn rustyline::ExternalPrinter + Send>;

fn edit_lines(
    style: Style,
    history: Option<PathBuf>,
    inputs: &mpsc::UnboundedSender<Input>,
    verdicts: &std_mpsc::Receiver<Verdict>,
    printer: &std_mpsc::Sender<anyhow::Result<Printer>>,
) {
    let config = Config::builder()
        .auto_add_history(false)
        .max_history_size(1000)
        .map(rustyline::config::Builder::build)
        .unwrap_or_default();
    let mut editor = match Editor::<MultiLine, DefaultHistory>::with_config(config) {
        Ok(editor) => editor,
        Err(error) => {
            let _ = printer.send(Err(error.into()));
            return;
        }
    };
    editor.set_helper(Some(MultiLine));
    editor.bind_sequence(
        KeyEvent(KeyCode::Enter, Modifiers::ALT),
        EventHandler::Simple(Cmd::Newline),
    );
    let typed = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    editor.bind_sequence(
        KeyEvent::ctrl('C'),
        EventHandler::Conditional(Box::new(KeepTyped(std::sync::Arc::clone(&typed)))),
    );
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    match editor.create_external_printer() {
        Ok(external) => {
            let _ = printer.send(Ok(Box::new(external)));
        }
        Err(error) => {
            let _ = printer.send(Err(error.into()));
            return;
        }
    }
    let styled = style.bold_cyan(PROMPT);
    let prompt = (PROMPT, styled.as_str());
    let mut draft = String::new();
    loop {
        let read = if draft.is_empty() {
            editor.readline(&prompt)
        } else {
            editor.readline_with_initial(&prompt, (&draft, ""))
        };
        let input = match read {
            Ok(line) => Input::Line(line.replace("\\\n", "\n")),
            Err(ReadlineError::Interrupted) => Input::Interrupt(
                typed
                    .lock()
                    .map(|mut typed| std::mem::take(&mut *typed))
                    .unwrap_or_default(),
            ),
            Err(_) => Input::Eof,
        };
        let line = match &input {
            Input::Line(line) => Some(line.clone()),
            _ => None,
        };
        if inputs.send(input).is_err() {
            return;
        }
        match verdicts.recv() {
            Ok(Verdict::Accepted) => {
                draft.clear();
                if let (Some(line), Some(path)) = (line, &history)
                    && !line.trim().is_empty()
                {
                    let _ = editor.history_mut().add(&line);
                    if let Some(parent) = path.parent() {
                        let _ = std::fs::create_dir_all(parent);
                    }
                    let _ = editor.save_history(path);
                }
            }
            Ok(Verdict::KeepDraft(text)) => draft = text,
            Ok(Verdict::Stop) | Err(_) => return,
        }
    }
}

/// Ctrl+C: the editor gives up the line, so what was typed is kept here first, for the chat to
/// hand back as the draft.
struct KeepTyped(std::sync::Arc<std::sync::Mutex<String>>);

impl ConditionalEventHandler for KeepTyped {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, context: &EventContext) -> Option<Cmd> {
        if let Ok(mut typed) = self.0.lock() {
            context.line().clone_into(&mut typed);
        }
        Some(Cmd::Interrupt)
    }
}

/// A line ending in `\` goes on to the next line (Alt+Enter does the same).
struct MultiLine;

impl rustyline::Helper for MultiLine {}
impl rustyline::completion::Completer for MultiLine {
    type Candidate = String;
}
impl rustyline::hint::Hinter for MultiLine {
    type Hint = String;
}
impl rustyline::highlight::Highlighter for MultiLine {}
impl Validator for MultiLine {
    fn validate(&self, context: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        if context.input().ends_with('\\') {
            Ok(ValidationResult::Incomplete)
        } else {
            Ok(ValidationResult::Valid(None))
        }
    }
}
