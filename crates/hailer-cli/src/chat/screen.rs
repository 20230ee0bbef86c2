//! Where the chat writes: above the line editor's prompt (interactive), or straight to standard
//! output (plain mode and pipes).

use std::io::Write;
use std::sync::Mutex;

use rustyline::ExternalPrinter;

use hailer_render::Style;

/// The chat's output.
pub(super) struct Screen {
    pub style: Style,
    /// Prints above the prompt while the line editor reads; `None` in plain mode.
    printer: Option<Mutex<Box<dyn ExternalPrinter + Send>>>,
    /// A fixed width in columns; unset, the terminal's width at each use.
    width: Option<usize>,
}

impl std::fmt::Debug for Screen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Screen")
            .field("style", &self.style)
            .field("interactive", &self.printer.is_some())
            .field("width", &self.width)
            .finish()
    }
}

impl Screen {
    pub(super) fn interactive(style: Style, printer: Box<dyn ExternalPrinter + Send>) -> Self {
        Self {
            style,
            printer: Some(Mutex::new(printer)),
            width: None,
        }
    }

    pub(super) fn plain(style: Style) -> Self {
        Self {
            style,
            printer: None,
            width: None,
        }
    }

    /// The same screen at a fixed width.
    #[cfg(test)]
    pub(super) fn with_width(self, width: usize) -> Self {
        Self {
            width: Some(width),
            ..self
        }
    }

    /// Columns to lay text out in.
    pub(super) fn width(&self) -> usize {
        self.width.unwrap_or_else(super::terminal::width)
    }

    pub(super) fn is_interactive(&self) -> bool {
        self.printer.is_some()
    }

    /// Before the chat exits: the line editor may still show its prompt (the session stopped
    /// while it read), which would be left in front of the shell's own; wipe that line.
    pub(super) fn clear_prompt(&self) {
        if self.printer.is_none() {
            return;
        }
        // What was just printed above the prompt goes out first.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(b"\r\x1b[2K");
        let _ = out.flush();
    }

    /// Prints whole lines (one or more, separated by newlines).
    pub(super) fn line(&self, text: impl Into<String>) {
        let mut text = text.into();
        text.push('\n');
        self.write(text);
    }

    /// Prints text as it is, without ending the line (plain mode's streamed answer).
    pub(super) fn text(&self, text: &str) {
        self.write(text.to_owned());
    }

    fn write(&self, text: String) {
        match &self.printer {
            Some(printer) => {
                if let Ok(mut printer) = printer.lock() {
                    let _ = printer.print(text);
                }
            }
            None => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
        }
    }
}
