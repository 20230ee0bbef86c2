//! Times as the trail writes them (RFC 3339, UTC, milliseconds) and `--since` as users give it.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, now.
pub fn unix_millis_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}

/// `2026-12-02T00:41:12.345Z`.
pub fn format_rfc3339(unix_millis: i64) -> String {
    let seconds = unix_millis.div_euclid(1000);
    let millis = unix_millis.rem_euclid(1000);
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
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
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let (clock, millis) = match clock.split_once('.') {
        Some((clock, fraction)) => {
            let digits: String = fraction.chars().take(3).collect();
            (clock, format!("{digits:0<3}").parse::<i64>().ok()?)
        }
        None => (clock, 0),
    };
    let mut clock_parts = clock.split(':').map(str::parse::<i64>);
    let hour = clock_parts.next().unwrap_or(Ok(0)).ok()?;
    let minute = clock_parts.next().unwrap_or(Ok(0)).ok()?;
    let second = clock_parts.next().unwrap_or(Ok(0)).ok()?;
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 86_400 + hour * 3600 + minute * 60 + second) * 1000) + millis)
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

// Howard Hinnant's algorithms for the proleptic Gregorian calendar.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}
