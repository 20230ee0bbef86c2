//! Numbers as JSON carries them: a whole number may come written as `377` or `377.0`, which
//! JSON Schema's `integer` both allows.

use serde::{Deserialize, Deserializer, de::Error as _};

/// An optional whole number, written with or without a zero fraction; a negative, fractional
/// or too large number is refused.
pub(crate) fn optional_whole<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Number {
        Whole(u64),
        Other(f64),
    }
    match Option::<Number>::deserialize(deserializer)? {
        None => Ok(None),
        Some(Number::Whole(number)) => Ok(Some(number)),
        // 2^64 as an f64: every float below it with no fraction fits a u64.
        Some(Number::Other(number))
            if number.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&number) =>
        {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Ok(Some(number as u64))
        }
        Some(Number::Other(number)) => Err(D::Error::custom(format!(
            "{number} is not a whole number from 0 up"
        ))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Limit {
        #[serde(default, deserialize_with = "optional_whole")]
        secs: Option<u64>,
    }

    fn parse(json: &str) -> Result<Option<u64>, String> {
        serde_json::from_str::<Limit>(json)
            .map(|limit| limit.secs)
            .map_err(|error| error.to_string())
    }

    #[test]
    fn whole_numbers_pass_in_either_spelling_and_others_are_refused() {
        assert_eq!(parse(r#"{"secs": 377}"#), Ok(Some(377)));
        assert_eq!(parse(r#"{"secs": 377.0}"#), Ok(Some(377)));
        assert_eq!(parse(r#"{"secs": 3.77e2}"#), Ok(Some(377)));
        assert_eq!(parse(r#"{"secs": null}"#), Ok(None));
        assert_eq!(parse("{}"), Ok(None));
        for bad in ["377.5", "-1", "-1.0", "1e30", r#""377""#, "true"] {
            assert!(parse(&format!(r#"{{"secs": {bad}}}"#)).is_err(), "{bad}");
        }
    }
}
