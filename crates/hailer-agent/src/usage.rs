//! Token counts summed over the model calls of a turn. A turn whose endpoint reported no usage has
//! unknown usage (`None`), which is not the same as zero.

use std::fmt;

use hailer_model::Usage;

/// Tokens sent to and received from the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TokenUsage {
    /// Tokens sent to the model (the prompt and history), as the endpoint counted them.
    pub input: u64,
    /// Tokens the model wrote back, as the endpoint counted them.
    pub output: u64,
}

impl TokenUsage {
    /// Adds one call's usage to a running total that may still be unknown.
    pub fn accumulate(total: Option<Self>, call: Option<Usage>) -> Option<Self> {
        match (total, call) {
            (total, None) => total,
            (None, Some(call)) => Some(Self::from(call)),
            (Some(total), Some(call)) => Some(Self {
                input: total.input.saturating_add(call.input),
                output: total.output.saturating_add(call.output),
            }),
        }
    }
}

impl From<Usage> for TokenUsage {
    fn from(usage: Usage) -> Self {
        Self {
            input: usage.input,
            output: usage.output,
        }
    }
}

impl fmt::Display for TokenUsage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in, {} out", self.input, self.output)
    }
}

/// How a possibly unknown usage reads to the user.
pub fn describe(usage: Option<TokenUsage>) -> String {
    usage.map_or_else(|| "unknown".to_owned(), |usage| usage.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(input: u64, output: u64) -> Option<Usage> {
        Some(Usage {
            input,
            output,
            total: None,
        })
    }

    #[test]
    fn unknown_until_a_call_reports_then_summed() {
        let mut total = None;
        total = TokenUsage::accumulate(total, None);
        assert_eq!(describe(total), "unknown");
        total = TokenUsage::accumulate(total, call(100, 20));
        total = TokenUsage::accumulate(total, None);
        total = TokenUsage::accumulate(total, call(50, 5));
        assert_eq!(
            total,
            Some(TokenUsage {
                input: 150,
                output: 25
            })
        );
        assert_eq!(describe(total), "150 in, 25 out");
    }
}
