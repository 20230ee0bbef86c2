//! The conversation so far, printed when the terminal attaches: each question, each tool call
//! as the code it ran with its outcome (as in a live turn), and the answer.

use hailer_protocol::PastTurn;

use super::screen::Screen;

/// Prints `turns` (already cleaned with the event that carried them), oldest first; nothing for
/// an empty conversation.
pub(super) fn show(screen: &Screen, turns: &[PastTurn]) {
    if turns.is_empty() {
        return;
    }
    let style = screen.style;
    let width = screen.width();
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
            let mut lines = hailer_render::tool_started(
                &call.name,
                &call.preview,
                call.code.as_deref(),
                style,
                width,
            );
            lines.extend(hailer_render::tool_finished(
                &call.name,
                call.ok,
                &call.result,
                &call.output,
                style,
                width,
            ));
            screen.line(lines.join("\n"));
        }
        for chart in &turn.charts {
            screen.line(hailer_render::tool_chart_line(chart, style, width));
        }
        if turn.answer.trim().is_empty() {
            screen.line(style.dim("(no answer)"));
            continue;
        }
        screen.line(style.bold("Hailer"));
        for line in hailer_render::render_markdown(&turn.answer, style, width) {
            screen.line(line);
        }
    }
    screen.line(style.dim("(end of the earlier turns)"));
}
