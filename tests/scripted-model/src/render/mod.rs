//! Turning a scripted reply into wire bytes: SSE frames when streaming, one JSON object otherwise.

pub mod chat;
pub mod responses;

use crate::script::Reply;

/// One SSE frame and what it carries, so delivery can pause or cut at the right place.
#[derive(Clone, Debug)]
pub struct Frame {
    /// The frame exactly as sent: an `event:` and a `data:` line on Responses, a `data:` line
    /// on Chat, then the blank line that ends it.
    pub bytes: String,
    /// What the frame carries, which decides where pauses and interruptions fall.
    pub kind: FrameKind,
}

/// What an SSE frame carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// An event before any content: the role chunk (Chat), `response.created` or
    /// `output_item.added` for the message (Responses).
    Opening,
    /// One piece of the reply text; the reply's delta pauses and schedule apply before it.
    TextDelta,
    /// The opening event of a tool call, with its name and id but no arguments.
    ToolCallStarted,
    /// Any other event before the completion: argument pieces, and the `.done` events on
    /// Responses.
    Progress,
    /// The first frame of the completion: an interruption never goes past it.
    Finish,
    /// A frame after the completion: the usage chunk and `data: [DONE]` (Chat only).
    Trailer,
}

impl Frame {
    fn new(kind: FrameKind, bytes: String) -> Self {
        Self { bytes, kind }
    }
}

/// What a rendering needs besides the reply.
pub struct RenderContext<'a> {
    /// The `model` the request named, echoed in the reply; empty when it named none.
    pub model: &'a str,
    /// Sequence number of the request, used to make unique ids.
    pub serial: usize,
}

impl RenderContext<'_> {
    /// The id of tool call `index` of `reply`: the scripted id when there is one, else
    /// `call_<serial>_<index>`.
    pub fn call_id(&self, reply: &Reply, index: usize) -> String {
        reply
            .tool_calls
            .get(index)
            .and_then(|call| call.call_id.clone())
            .unwrap_or_else(|| format!("call_{}_{index}", self.serial))
    }
}

/// Splits text into `pieces` nearly equal non-empty parts, on character boundaries.
pub fn split_text(text: &str, pieces: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let pieces = pieces.clamp(1, chars.len());
    let base = chars.len() / pieces;
    let extra = chars.len() % pieces;
    let mut parts = Vec::with_capacity(pieces);
    let mut start = 0;
    for index in 0..pieces {
        let len = base + usize::from(index < extra);
        parts.push(chars[start..start + len].iter().collect());
        start += len;
    }
    parts
}

/// Splits a tool call's argument text in two, as real endpoints stream it in pieces.
fn split_arguments(arguments: &str) -> Vec<String> {
    split_text(arguments, 2)
}

#[cfg(test)]
mod tests {
    use super::split_text;

    #[test]
    fn split_keeps_every_character_in_order() {
        let parts = split_text("héllo wörld", 4);
        assert_eq!(parts.len(), 4);
        assert_eq!(parts.concat(), "héllo wörld");
        assert!(parts.iter().all(|part| !part.is_empty()));
        assert_eq!(split_text("ab", 5), vec!["a", "b"]);
        assert!(split_text("", 3).is_empty());
    }
}
