//! Keeping tool results within what the model is sent: the head and the tail of a long result
//! survive, around a line saying how much was cut.

/// The default `max_tool_output_chars`.
pub(crate) const DEFAULT_MAX_TOOL_OUTPUT_CHARS: usize = 12_000;

/// Share of the kept characters taken from the head, in tenths.
const HEAD_TENTHS: usize = 7;

fn marker(cut: usize) -> String {
    format!("[... {cut} characters cut ...]")
}

/// The byte offset of the `index`-th character (the length when past the end).
fn byte_offset(text: &str, index: usize) -> usize {
    text.char_indices()
        .nth(index)
        .map_or(text.len(), |(offset, _)| offset)
}

/// Cuts `text` to at most `max_chars` characters. A text that fits comes back unchanged;
/// otherwise the first 70% and the last 30% of the room are kept, on either side of a line that
/// says how many characters were cut. The marker and its two line breaks count against the room.
pub fn cap_output(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_owned();
    }
    // The marker never holds a longer number than `total`, so this reserve is always enough.
    let reserve = marker(total).chars().count() + 2;
    let Some(room) = max_chars.checked_sub(reserve).filter(|room| *room >= 2) else {
        return text[..byte_offset(text, max_chars)].to_owned();
    };
    let head = room * HEAD_TENTHS / 10;
    let tail = room - head;
    let cut = total - head - tail;
    let head_end = byte_offset(text, head);
    let tail_start = byte_offset(text, total - tail);
    format!(
        "{}\n{}\n{}",
        &text[..head_end],
        marker(cut),
        &text[tail_start..]
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn short_text_is_unchanged() {
        assert_eq!(cap_output("hello", 5), "hello");
        assert_eq!(cap_output("", 0), "");
    }

    #[test]
    fn long_text_keeps_head_and_tail_around_the_marker() {
        let text: String = (0..20_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let capped = cap_output(&text, DEFAULT_MAX_TOOL_OUTPUT_CHARS);
        assert!(capped.chars().count() <= DEFAULT_MAX_TOOL_OUTPUT_CHARS);
        let (head, rest) = capped.split_once('\n').unwrap();
        let (line, tail) = rest.split_once('\n').unwrap();
        assert!(text.starts_with(head));
        assert!(text.ends_with(tail));
        let cut = text.len() - head.len() - tail.len();
        assert_eq!(line, format!("[... {cut} characters cut ...]"));
        // 70/30 split of the room, within a character.
        let ratio = head.len() as f64 / (head.len() + tail.len()) as f64;
        assert!((ratio - 0.7).abs() < 0.001, "{ratio}");
    }

    #[test]
    fn multibyte_text_is_cut_on_character_boundaries() {
        let text = "é".repeat(500);
        let capped = cap_output(&text, 100);
        assert!(capped.chars().count() <= 100);
        assert!(capped.contains("characters cut"));
    }

    #[test]
    fn tiny_limits_cut_plainly() {
        assert_eq!(cap_output("abcdefghij", 4), "abcd");
        assert_eq!(cap_output("abcdefghij", 0), "");
    }

    proptest! {
        #[test]
        fn never_longer_than_the_limit(text in ".{0,400}", max in 0usize..300) {
            let capped = cap_output(&text, max);
            prop_assert!(capped.chars().count() <= max.max(text.chars().count().min(max)));
            if text.chars().count() <= max {
                prop_assert_eq!(&capped, &text);
            } else {
                prop_assert!(capped.chars().count() <= max);
                let first = capped.split('\n').next().unwrap_or("");
                prop_assert!(text.starts_with(first));
            }
        }
    }
}
