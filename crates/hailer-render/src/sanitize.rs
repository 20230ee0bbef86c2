//! The chat's side of the one control-sequence filter ([`hailer_config::clean_text`]): whole
//! values from the daemon cleaned field by field, JSON made safe to print, and the test check
//! that only our own styling reaches the terminal.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use hailer_config::clean_text as clean;
use hailer_config::{has_control, is_control};

/// `value` with every string in it cleaned, whatever field it is in: what the daemon sends (an
/// event, a run's result, an audit record) passes here as a whole, so a field added later is
/// covered too. `None` only if the value does not survive the round trip through JSON.
pub fn clean_all<T: Serialize + DeserializeOwned>(value: &T) -> Option<T> {
    let mut json = serde_json::to_value(value).ok()?;
    clean_json(&mut json);
    serde_json::from_value(json).ok()
}

fn clean_json(value: &mut Value) {
    match value {
        Value::String(text) => {
            if has_control(text) {
                *text = clean(text);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(clean_json),
        Value::Object(fields) => fields.values_mut().for_each(clean_json),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// JSON text made safe to print as it is: control characters (which JSON allows raw only inside
/// strings, and only DEL and C1 at that) become `\u` escapes, so the data read back is the same.
pub fn escape_json_text(json: &str) -> String {
    if !has_control(json) {
        return json.to_owned();
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if is_control(c) && c != '\n' && c != '\t' {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Asserts that `shown` holds no control character but newlines, tabs and the ESC that starts
/// each of our own SGR sequences (`ESC [ digits;... m`), the only styling we add (for tests).
#[cfg(any(test, feature = "test-support"))]
#[track_caller]
pub fn assert_only_our_styling(shown: &str) {
    let mut rest = shown;
    while let Some(at) = rest.find('\x1b') {
        let sequence = &rest[at + 1..];
        let params = sequence.strip_prefix('[').map(|after| {
            after
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == ';')
        });
        let length = params.map(Iterator::count);
        let ours = length.is_some_and(|length| sequence[1 + length..].starts_with('m'));
        assert!(ours, "an escape that is not our styling in {shown:?}");
        rest = &sequence[1 + length.unwrap_or(0) + 1..];
    }
    let bare: String = shown.replace('\x1b', "");
    assert!(
        !bare
            .chars()
            .any(|c| is_control(c) && c != '\n' && c != '\t'),
        "a control character in {shown:?}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_text_keeps_its_data_and_loses_its_controls() {
        let value = serde_json::json!({"text": "a\u{9b}2J\x7f\x1b[2J"});
        let text = serde_json::to_string(&value).unwrap_or_default();
        assert!(has_control(&text), "serde_json leaves C1 and DEL raw");
        let escaped = escape_json_text(&text);
        assert!(!has_control(&escaped), "{escaped:?}");
        let back: serde_json::Value = serde_json::from_str(&escaped).unwrap_or_default();
        assert_eq!(back, value);
    }
}
