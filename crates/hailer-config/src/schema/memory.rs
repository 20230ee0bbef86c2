//! `[kernel].memory`: a Docker memory limit such as `"4g"`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The least memory a kernel works in: marimo's server alone takes about 60 MiB, and a kernel
/// that has imported Polars and DuckDB about 100 MiB more. Below this the kernel thrashes or is
/// killed before it answers, so such a limit is refused when the configuration is read.
pub const KERNEL_MINIMUM_BYTES: u64 = 256 * 1024 * 1024;

/// A memory limit, kept as written and in bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryLimit {
    /// The limit as written, such as `4g`.
    pub written: String,
    /// The limit in bytes.
    pub bytes: u64,
}

/// Why a memory limit was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryError {
    /// Not `<number>[b|k|m|g]`.
    Malformed,
    /// Zero.
    Zero,
    /// More than this machine can count.
    TooLarge,
    /// Below [`KERNEL_MINIMUM_BYTES`].
    BelowKernelMinimum,
}

impl MemoryLimit {
    /// Parses `<number>[unit]` where the number may have a decimal part and the unit is one of
    /// b, k, m, g (optionally followed by b, as in `512mb`), in any case. No unit means bytes.
    pub fn parse(text: &str) -> Result<Self, MemoryError> {
        let trimmed = text.trim();
        let digits_end = trimmed
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(trimmed.len());
        let (number, unit) = trimmed.split_at(digits_end);
        let multiplier: u64 = match unit.to_ascii_lowercase().as_str() {
            "" | "b" => 1,
            "k" | "kb" => 1 << 10,
            "m" | "mb" => 1 << 20,
            "g" | "gb" => 1 << 30,
            _ => return Err(MemoryError::Malformed),
        };
        let bytes = scaled(number, multiplier)?;
        if bytes == 0 {
            return Err(MemoryError::Zero);
        }
        if bytes < KERNEL_MINIMUM_BYTES {
            return Err(MemoryError::BelowKernelMinimum);
        }
        Ok(Self {
            written: trimmed.to_owned(),
            bytes,
        })
    }

    /// The default limit, 4 GiB.
    pub fn default_limit() -> Self {
        Self {
            written: "4g".to_owned(),
            bytes: 4 << 30,
        }
    }
}

/// `number * multiplier` in whole bytes, for a number such as `1.5`, without floating point.
fn scaled(number: &str, multiplier: u64) -> Result<u64, MemoryError> {
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let valid = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !valid(whole) || !valid(fraction) {
        return Err(MemoryError::Malformed);
    }
    let whole_value: u128 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| MemoryError::TooLarge)?
    };
    let mut total = whole_value
        .checked_mul(u128::from(multiplier))
        .ok_or(MemoryError::TooLarge)?;
    // Up to 30 fractional digits are enough for whole-byte precision at any unit.
    let mut scale = u128::from(multiplier);
    for digit in fraction.bytes().take(30) {
        let digit_value = u128::from(digit - b'0');
        total = total
            .checked_add(digit_value * scale / 10)
            .ok_or(MemoryError::TooLarge)?;
        scale /= 10;
        if scale == 0 {
            break;
        }
    }
    u64::try_from(total).map_err(|_| MemoryError::TooLarge)
}

impl fmt::Display for MemoryLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_and_refuses_nonsense() {
        let cases: &[(&str, Result<u64, MemoryError>)] = &[
            ("4g", Ok(4 << 30)),
            ("512M", Ok(512 << 20)),
            ("1.5g", Ok(3 << 29)),
            ("2048mb", Ok(2 << 30)),
            ("268435456", Ok(268_435_456)),
            ("268435455", Err(MemoryError::BelowKernelMinimum)),
            ("255m", Err(MemoryError::BelowKernelMinimum)),
            ("0.5g", Ok(512 << 20)),
            ("0", Err(MemoryError::Zero)),
            ("0g", Err(MemoryError::Zero)),
            ("1k", Err(MemoryError::BelowKernelMinimum)),
            ("-1g", Err(MemoryError::Malformed)),
            ("4x", Err(MemoryError::Malformed)),
            ("g", Err(MemoryError::Malformed)),
            (".", Err(MemoryError::Malformed)),
            ("1.2.3g", Err(MemoryError::Malformed)),
            ("", Err(MemoryError::Malformed)),
            ("99999999999999999999g", Err(MemoryError::TooLarge)),
        ];
        for (text, expected) in cases {
            let got = MemoryLimit::parse(text).map(|limit| limit.bytes);
            assert_eq!(&got, expected, "{text}");
        }
    }
}
