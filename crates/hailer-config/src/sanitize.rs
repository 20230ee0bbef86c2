//! The one filter between text Hailer did not write and a terminal: the model's answer, the
//! kernel's output, a file's or notebook's name, the daemon's messages, and every string read from
//! a configuration file.
//!
//! A terminal obeys control sequences wherever they appear, so a printed value could retitle the
//! window (OSC), clear the screen or move the cursor (CSI), fake a prompt by overwriting a line
//! (`\r`, backspace), or talk to the terminal itself (DCS, APC, ...); bidirectional controls make
//! a line read in another order than it is stored. [`clean`] removes all of them (for text such
//! as a chat answer); [`escape_visible`] shows each one as a visible `\u{..}` escape (for values
//! that must be reviewed as written, such as the settings `hailer trust` lists).
//!
//! Removed: CSI sequences (`ESC [` and the 8-bit U+009B) with their parameters; OSC (`ESC ]`,
//! U+009D) up to BEL or ST; DCS, SOS, PM and APC strings (`ESC P`, `ESC X`, `ESC ^`, `ESC _` and
//! U+0090, U+0098, U+009E, U+009F) up to ST; every other escape with the character it introduces;
//! the remaining C1 controls (U+0080–U+009F); C0 controls but newline and tab; DEL; the
//! bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and marks
//! (U+200E, U+200F, U+061C). A `\r\n` is a newline; a lone `\r` and a backspace are dropped, so
//! text meant to be overwritten stays visible next to what was meant to hide it. An unterminated
//! sequence swallows the rest of the string.

const ESC: char = '\x1b';
const BEL: char = '\x07';
/// String terminator, 8-bit form.
const ST: char = '\u{9c}';

/// What the scanner is inside of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Text,
    /// After ESC.
    Escape,
    /// After ESC and intermediate bytes (0x20–0x2F): waits for the final byte.
    EscapeIntermediate,
    /// Parameters and intermediates of a CSI sequence, up to its final byte (0x40–0x7E).
    Csi,
    /// An OSC string: ends with BEL or ST.
    Osc,
    /// A DCS, SOS, PM or APC string: ends with ST.
    ControlString,
    /// ESC inside a string: a `\` makes it ST.
    StringEscape {
        osc: bool,
    },
}

/// `text` with every control sequence and control character removed (newlines and tabs kept).
pub fn clean(text: &str) -> String {
    if !has_control(text) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut state = State::Text;
    for c in text.chars() {
        state = match state {
            State::Text => match c {
                ESC => State::Escape,
                '\u{9b}' => State::Csi,
                '\u{9d}' => State::Osc,
                '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => State::ControlString,
                '\n' | '\t' => {
                    out.push(c);
                    State::Text
                }
                c if is_control(c) => State::Text,
                c => {
                    out.push(c);
                    State::Text
                }
            },
            State::Escape => match c {
                '[' => State::Csi,
                ']' => State::Osc,
                'P' | 'X' | '^' | '_' => State::ControlString,
                ESC => State::Escape,
                // A stray ESC before a space: only the ESC goes.
                ' ' => {
                    out.push(' ');
                    State::Text
                }
                '\x21'..='\x2f' => State::EscapeIntermediate,
                // A two-character escape (ESC c, ESC 7, ...): both go. A control character after
                // ESC is handled as if it came alone.
                c if is_control(c) => reenter(c, &mut out),
                _ => State::Text,
            },
            State::EscapeIntermediate => match c {
                '\x20'..='\x2f' => State::EscapeIntermediate,
                ESC => State::Escape,
                _ => State::Text,
            },
            State::Csi => match c {
                '\x40'..='\x7e' => State::Text,
                '\x20'..='\x3f' => State::Csi,
                ESC => State::Escape,
                // Anything else cannot be part of the sequence: it ends there, unprinted.
                _ => State::Text,
            },
            State::Osc => match c {
                BEL | ST => State::Text,
                ESC => State::StringEscape { osc: true },
                _ => State::Osc,
            },
            State::ControlString => match c {
                ST => State::Text,
                ESC => State::StringEscape { osc: false },
                _ => State::ControlString,
            },
            State::StringEscape { osc } => match (c, osc) {
                ('\\', _) => State::Text,
                (ESC, _) => State::StringEscape { osc },
                (_, true) => State::Osc,
                (_, false) => State::ControlString,
            },
        };
    }
    out
}

/// Handles a control character met right after ESC as if ESC had not been there.
fn reenter(c: char, out: &mut String) -> State {
    match c {
        '\u{9b}' => State::Csi,
        '\u{9d}' => State::Osc,
        '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => State::ControlString,
        '\n' | '\t' => {
            out.push(c);
            State::Text
        }
        _ => State::Text,
    }
}

/// A character [`clean`] removes or acts on: C0 (but newline and tab), DEL, C1 and the
/// bidirectional controls.
pub fn is_control(c: char) -> bool {
    matches!(
        c,
        '\0'..='\x08'
            | '\x0b'..='\x1f'
            | '\x7f'..='\u{9f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{61c}'
    )
}

/// Whether `text` holds a character that [`clean`] removes.
pub fn has_control(text: &str) -> bool {
    text.chars().any(is_control)
}

/// `text` with every character [`clean`] would act on written as a visible escape (`\u{1b}`),
/// newlines and tabs kept: what a reviewer sees is what the file holds, and nothing in it reaches
/// the terminal as a command.
pub fn escape_visible(text: &str) -> String {
    if !has_control(text) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_control(c) && c != '\n' && c != '\t' {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn sequences_and_controls_go_and_text_stays() {
        let cases = [
            ("plain text\nwith\ttab", "plain text\nwith\ttab"),
            ("\x1b]0;pwned\x07title", "title"),
            (
                "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",
                "link",
            ),
            ("\x1b[2J\x1b[Hcleared", "cleared"),
            ("\x1b[31;1mred\x1b[0m", "red"),
            ("lone \x1b escape", "lone  escape"),
            ("esc at end \x1b", "esc at end "),
            ("\x1bcreset", "reset"),
            ("\x1b(Bcharset", "charset"),
            ("\u{9b}2Jc1 csi", "c1 csi"),
            ("\u{9d}0;t\u{9c}c1 osc", "c1 osc"),
            ("a\u{85}b\u{8d}c", "abc"),
            ("\x1bP1$r0m\x1b\\dcs", "dcs"),
            ("\x1b_apc\x1b\\after", "after"),
            ("\x1b^pm\u{9c}after", "after"),
            ("safe\rEVIL", "safeEVIL"),
            ("line\r\nnext", "line\nnext"),
            ("abc\x08\x08\x08XYZ", "abcXYZ"),
            ("bell\x07 nul\0 del\x7f", "bell nul del"),
            ("\x1b]0;unterminated title", ""),
            ("ünïcødé ✓ 表", "ünïcødé ✓ 表"),
        ];
        for (input, expected) in cases {
            assert_eq!(clean(input), expected, "{input:?}");
        }
    }

    #[test]
    fn bidi_controls_go() {
        assert_eq!(clean("a\u{202e}b\u{2066}c\u{2069}d\u{200f}"), "abcd");
    }

    #[test]
    fn escapes_are_visible_and_text_stays() {
        assert_eq!(
            escape_visible("ruff\x1b[2K\r/usr/bin/ruff"),
            "ruff\\u{1b}[2K\\u{d}/usr/bin/ruff"
        );
        assert_eq!(escape_visible("a\u{202e}b\nc\td"), "a\\u{202e}b\nc\td");
        assert_eq!(escape_visible("plain ✓"), "plain ✓");
        assert!(!has_control(&escape_visible("\u{9b}2J\x07\x7f")));
    }

    proptest! {
        #[test]
        fn output_never_holds_a_control_character(input in any::<String>()) {
            let cleaned = clean(&input);
            prop_assert!(!has_control(&cleaned), "{cleaned:?}");
        }

        #[test]
        fn output_never_holds_a_control_character_for_escape_heavy_input(
            input in proptest::collection::vec(
                prop_oneof![
                    Just("\x1b".to_owned()),
                    Just("[".to_owned()),
                    Just("]".to_owned()),
                    Just("\x07".to_owned()),
                    Just("\\".to_owned()),
                    Just("\u{9b}".to_owned()),
                    Just("\u{9c}".to_owned()),
                    Just("\r".to_owned()),
                    Just("\x08".to_owned()),
                    "[a-zA-Z0-9;]{0,3}",
                ],
                0..40,
            )
        ) {
            let cleaned = clean(&input.concat());
            prop_assert!(!has_control(&cleaned), "{cleaned:?}");
        }

        #[test]
        fn text_without_controls_is_unchanged(input in "[^\\x00-\\x08\\x0b-\\x1f\\x7f-\\u{9f}\\u{202a}-\\u{202e}\\u{2066}-\\u{2069}\\u{200e}\\u{200f}\\u{61c}]*") {
            prop_assert_eq!(clean(&input), input);
        }
    }
}
