//! The terminal itself: whether it can host the line editor, and putting its mode back however
//! the chat ends.

use std::io::IsTerminal;

/// Standard input and output are a terminal whose `TERM` understands cursor control. Windows
/// consoles set no `TERM` and understand it (rustyline drives them through the console API).
pub(super) fn is_capable() -> bool {
    let term = std::env::var("TERM").ok();
    std::io::stdin().is_terminal()
        && std::io::stdout().is_terminal()
        && term_is_capable(term.as_deref(), cfg!(windows))
}

/// The terminal's width in columns: standard output's, else `COLUMNS`, else 80.
pub(crate) fn width() -> usize {
    if let Some((terminal_size::Width(columns), _)) = terminal_size::terminal_size() {
        return usize::from(columns).max(20);
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|columns| columns.trim().parse::<usize>().ok())
        .filter(|columns| *columns >= 20)
        .unwrap_or(80)
}

/// Whether `TERM` (unset: `None`) allows the line editor.
fn term_is_capable(term: Option<&str>, windows: bool) -> bool {
    match term {
        None | Some("") => windows,
        Some(term) => !matches!(term, "dumb" | "unknown"),
    }
}

/// Restores the terminal's mode when dropped, in case the chat ends while the line editor has
/// it in raw mode. (A Windows console's mode belongs to the console and rustyline restores it.)
pub(super) struct ModeGuard {
    #[cfg(unix)]
    saved: Option<nix::sys::termios::Termios>,
}

impl ModeGuard {
    pub(super) fn save() -> Self {
        #[cfg(unix)]
        let saved = std::io::stdin()
            .is_terminal()
            .then(|| nix::sys::termios::tcgetattr(std::io::stdin()).ok())
            .flatten();
        Self {
            #[cfg(unix)]
            saved,
        }
    }
}

impl Drop for ModeGuard {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(saved) = &self.saved {
            use nix::sys::termios::{SetArg, tcsetattr};
            let _ = tcsetattr(std::io::stdin(), SetArg::TCSANOW, saved);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn term_values_on_each_system() {
        for (term, windows, expected) in [
            (None, false, false),
            (None, true, true),
            (Some(""), true, true),
            (Some("dumb"), true, false),
            (Some("xterm-256color"), false, true),
            (Some("unknown"), false, false),
        ] {
            assert_eq!(
                term_is_capable(term, windows),
                expected,
                "{term:?} {windows}"
            );
        }
    }
}
