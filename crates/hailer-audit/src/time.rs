//! Times as the trail writes them (RFC 3339, UTC, milliseconds) and `--since` as users give it.
//! The calendar arithmetic is jiff's.

use std::time::{SystemTime, UNIX_EPOCH};

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::TimeZone;

/// Milliseconds since the Unix epoch, now.
pub fn unix_millis_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}

/// `2026-12-02T00:41:12.345Z` (a time outside jiff's years -9999 to 9999 is clamped to them).
pub fn format_rfc3339(unix_millis: i64) -> String {
    let time = Timestamp::from_millisecond(unix_millis).unwrap_or(if unix_millis < 0 {
        Timestamp::MIN
    } else {
        Timestamp::MAX
    });
    let at = TimeZone::UTC.to_datetime(time);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        at.year(),
        at.month(),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.subsec_nanosecond() / 1_000_000
    )
}

/// Milliseconds since the epoch of a time the trail wrote, or of a date a user typed:
/// `2026-12-02`, `2026-12-02T10:30`, `2026-12-02 10:30:05`, with an optional `Z` (always UTC).
pub fn parse_time(text: &str) -> Option<i64> {
    let text = text.trim().trim_end_matches('Z');
    let (date, clock) = match text.split_once(['T', ' ']) {
        Some((date, clock)) => (date, clock),
        None => (text, "00:00:00"),
    };
    let mut date_parts = date.splitn(3, '-').map(str::parse::<i64>);
    let (Some(Ok(year)), Some(Ok(month)), Some(Ok(day))) =
        (date_parts.next(), date_parts.next(), date_parts.next())
    else {
        return None;
    };
    let (clock, millis) = match clock.split_once('.') {
        Some((clock, fraction)) => {
            let digits: String = fraction.chars().take(3).collect();
            (clock, format!("{digits:0<3}").parse::<i64>().ok()?)
        }
        None => (clock, 0),
    };
    let mut clock_parts = clock.split(':').map(str::parse::<i8>);
    let hour = clock_parts.next().unwrap_or(Ok(0)).ok()?;
    let minute = clock_parts.next().unwrap_or(Ok(0)).ok()?;
    let second = clock_parts.next().unwrap_or(Ok(0)).ok()?;
    // A leap second reads as the first second of the next minute.
    let leap = i64::from(second == 60);
    let at = DateTime::new(
        i16::try_from(year).ok()?,
        i8::try_from(month).ok()?,
        i8::try_from(day).ok()?,
        hour,
        minute,
        second - i8::from(second == 60),
        0,
    )
    .ok()?;
    let start = TimeZone::UTC.to_timestamp(at).ok()?.as_millisecond();
    Some(start + leap * 1000 + millis)
}

/// The start of `--since`: a duration back from `now` (`90s`, `30m`, `2h`, `7d`, `1w`) or a date
/// (see [`parse_time`]). `None` when it is neither.
pub fn parse_since(text: &str, now_millis: i64) -> Option<i64> {
    let text = text.trim();
    let unit_at = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(unit_at);
    if let Ok(count) = number.parse::<i64>() {
        let seconds = match unit {
            "s" => Some(1),
            "m" => Some(60),
            "h" => Some(3600),
            "d" => Some(86_400),
            "w" => Some(7 * 86_400),
            _ => None,
        };
        if let Some(seconds) = seconds {
            return Some(now_millis - count.saturating_mul(seconds).saturating_mul(1000));
        }
    }
    parse_time(text)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn formatting_as_the_trail_always_wrote_it() {
        let cases = [
            (0, "1970-01-01T00:00:00.000Z"),
            (1_709_210_096_789, "2024-02-29T12:34:56.789Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (-86_400_000, "1969-12-31T00:00:00.000Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (4_102_444_799_999, "2099-12-31T23:59:59.999Z"),
            (253_402_200_000_000, "9999-12-30T20:00:00.000Z"),
        ];
        for (millis, text) in cases {
            assert_eq!(format_rfc3339(millis), text, "{millis}");
            assert_eq!(parse_time(text), Some(millis), "{text}");
        }
        // Past jiff's range a time is clamped to its ends instead of wrapping.
        let last = Timestamp::MAX.as_millisecond();
        assert_eq!(format_rfc3339(i64::MAX), format_rfc3339(last));
        assert!(format_rfc3339(i64::MAX).starts_with("9999-12-30T"));
        assert_eq!(
            format_rfc3339(i64::MIN),
            format_rfc3339(Timestamp::MIN.as_millisecond())
        );
    }

    #[test]
    fn dates_users_type() {
        let cases = [
            ("2024-02-29", Some(1_709_164_800_000)),
            ("2026-12-02T10:30", Some(1_796_207_400_000)),
            ("2026-12-02 10:30:05", Some(1_796_207_405_000)),
            (" 2000-03-01T00:00:00.5Z ", Some(951_868_800_500)),
            ("1969-12-31T23:59:59.999", Some(-1)),
            // A leap second is the next minute's first second.
            ("2016-12-31T23:59:60Z", Some(1_483_228_800_000)),
            ("2026-13-01", None),
            ("2026-00-10", None),
            ("2026-12-32", None),
            ("2026-12-02T24:00", None),
            ("2026-12-02T10:60", None),
            ("2026-12-02T10:30:61", None),
            ("2026-12-02T10:30:05.x", None),
            ("2026-12", None),
            ("yesterday", None),
        ];
        for (text, millis) in cases {
            assert_eq!(parse_time(text), millis, "{text}");
        }
    }
}
