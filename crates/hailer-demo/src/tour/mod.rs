//! The scripted model's tour: fixed steps through the real tools, then an answer written from
//! what those tools returned.
//!
//! The model looks at the conversation since the user's last message: with no tool result yet
//! it takes the first step, after the n-th result the next one, and after the last it answers.
//! Each step is one `marimo_execute` call; most create a notebook cell through marimo's code
//! mode, so the notebook keeps the analysis. A message that does not ask for the tour gets an
//! explanation instead: this model can do nothing else.

mod answer;
mod steps;

pub(crate) use answer::{answer, off_script};
pub use steps::STEPS;
pub(crate) use steps::step_arguments;
#[cfg(test)]
use {answer::cells_created, steps::step_code};

/// The tool every step calls.
pub const TOOL: &str = "marimo_execute";

/// What `hailer demo` asks.
pub const QUESTION: &str = "Give me the demo tour of this data: what is in the files, which \
     region sells the most, how the monthly orders changed, and how each region did against its \
     target. Keep your work as notebook cells, with a chart.";

/// What the scripted model does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Move {
    /// Call [`TOOL`] with these JSON arguments.
    Call {
        /// Which step of the tour this call is, from 0.
        step: usize,
        /// The tool's arguments, as JSON text.
        arguments: String,
    },
    /// Answer with this text; the turn ends.
    Answer(String),
}

/// Whether `message` asks for the tour (the demo's own question does; so does any message
/// that says "tour").
pub(crate) fn asks_for_tour(message: &str) -> bool {
    message.to_lowercase().contains("tour")
}

/// The next move, given the user's last message and the results of the tool calls since.
pub fn next_move(message: &str, results: &[&str]) -> Move {
    if !asks_for_tour(message) {
        return Move::Answer(off_script());
    }
    match STEPS.get(results.len()) {
        Some(_) => Move::Call {
            step: results.len(),
            arguments: step_arguments(results.len()),
        },
        None => Move::Answer(answer(results)),
    }
}

#[cfg(test)]
mod tests;
