//! The conversation so far, printed compactly when the terminal attaches: each question, one
//! line per tool call with its outcome, and the answer.

use hailer_protocol::PastTurn;

use super::markdown::MarkdownStream;
use super::screen::Screen;
use super::turn_view::short;

/// Prints `turns`, oldest first; nothing for an empty conversation.
pub fn show(screen: &Screen, turns: &[PastTurn]) {
    if turns.is_empty() {
        return;
    }
    let style = screen.style;
    let count = match turns.len() {
        1 => "1 turn".to_owned(),
        n => format!("{n} turns"),
    };
    screen.line(style.dim(&format!("The conversation so far ({count}):")));
    for turn in turns {
        screen.line(format!(
            "{} {}",
            style.bold_cyan("asked >"),
            turn.text.trim()
        ));
        for call in &turn.tools {
            let outcome = match call.ok {
                Some(true) => style.green("ok"),
                Some(false) => format!("{} {}", style.red("error"), short(&call.result)),
                None => style.dim("no result"),
            };
            screen.line(format!(
                "{} {outcome}",
                style.dim(&format!("· {}: {}", call.name, short(&call.preview)))
            ));
        }
        if turn.answer.trim().is_empty() {
            screen.line(style.dim("(no answer)"));
            continue;
        }
        screen.line(style.bold("Hailer"));
        let mut answer = MarkdownStream::new(style);
        let mut lines = answer.push(&turn.answer);
        lines.extend(answer.finish());
        for line in lines {
            screen.line(line);
        }
    }
    screen.line(style.dim("(end of the earlier turns)"));
}
