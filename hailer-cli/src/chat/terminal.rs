//! The terminal itself: whether it can host the line editor, and putting its mode back however
//! the chat ends.

use std::io::IsTerminal;

use nix::sys::termios::{SetArg, Termios, tcgetattr, tcsetattr};

/// Standard input and output are a terminal whose `TERM` understands cursor control.
pub fn is_capable() -> bool {
    let term = std::env::var("TERM").unwrap_or_default();
    std::io::stdin().is_terminal()
        && std::io::stdout().is_terminal()
        && !matches!(term.as_str(), "" | "dumb" | "unknown")
}

/// Restores the terminal's mode when dropped, in case the chat ends while the line editor has
/// it in raw mode.
pub struct ModeGuard {
    saved: Option<Termios>,
}

impl ModeGuard {
    pub fn save() -> Self {
        let saved = std::io::stdin()
            .is_terminal()
            .then(|| tcgetattr(std::io::stdin()).ok())
            .flatten();
        Self { saved }
    }
}

impl Drop for ModeGuard {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            let _ = tcsetattr(std::io::stdin(), SetArg::TCSANOW, saved);
        }
    }
}
