//! The settings that take one of a fixed set of words.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A setting written as one word out of a fixed list.
pub trait Choice: Copy + Sized + 'static {
    /// Every accepted value, in the order messages list them.
    const ALL: &'static [Self];
    /// The word for this value, as written in `hailer.toml`.
    fn word(self) -> &'static str;

    /// Parses a word, ignoring case and surrounding spaces.
    fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        Self::ALL
            .iter()
            .copied()
            .find(|choice| choice.word().eq_ignore_ascii_case(text))
    }

    /// The accepted words, quoted, as "a", "b" or "c".
    fn list() -> String {
        let words: Vec<String> = Self::ALL
            .iter()
            .map(|choice| format!("\"{}\"", choice.word()))
            .collect();
        match words.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

macro_rules! choice_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $word:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $word)] $variant),+
        }

        impl Choice for $name {
            const ALL: &'static [Self] = &[$(Self::$variant),+];
            fn word(self) -> &'static str {
                match self {
                    $(Self::$variant => $word),+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.word())
            }
        }
    };
}

choice_enum! {
    /// Where the notebook kernel runs.
    Runtime {
        /// In a Docker container: no network, data read-only, non-root (the default).
        Docker => "docker",
        /// As the user, in a local Python: not isolated.
        UnsafeLocal => "unsafe-local",
        /// In unsafe-local's Python, confined by the system's own sandbox (Linux namespaces,
        /// Landlock and seccomp; Seatbelt on macOS): no network, data read-only. Not on Windows.
        Sandbox => "sandbox",
    }
}

/// Which OpenAI-compatible API a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WireApi {
    /// The Responses API (`/responses`), the default.
    #[serde(rename = "responses")]
    Responses,
    /// The Chat Completions API (`/chat/completions`).
    #[serde(rename = "chat")]
    Chat,
    /// No endpoint: the scripted demo model built into the daemon, which only `hailer demo`'s
    /// workspaces use. Accepted, but not offered in messages.
    #[serde(rename = "demo")]
    Demo,
}

impl Choice for WireApi {
    const ALL: &'static [Self] = &[Self::Responses, Self::Chat, Self::Demo];

    fn word(self) -> &'static str {
        match self {
            Self::Responses => "responses",
            Self::Chat => "chat",
            Self::Demo => "demo",
        }
    }

    /// The wire APIs of real endpoints: the demo one is not suggested to anyone.
    fn list() -> String {
        "\"responses\" or \"chat\"".to_owned()
    }
}

impl fmt::Display for WireApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

choice_enum! {
    /// How hard the model reasons before answering.
    ReasoningEffort {
        /// `minimal`: the least reasoning, for the quickest answers.
        Minimal => "minimal",
        /// `low`: less reasoning than the default.
        Low => "low",
        /// `medium`: the default when `reasoning_effort` is not set.
        Medium => "medium",
        /// `high`: more reasoning than the default, at the cost of time and tokens.
        High => "high",
        /// `xhigh`: the most reasoning of the five.
        XHigh => "xhigh",
    }
}

choice_enum! {
    /// How much Hailer logs.
    LogLevel {
        /// `TRACE`: everything, including the finest detail.
        Trace => "TRACE",
        /// `DEBUG`: what `--verbose` sets.
        Debug => "DEBUG",
        /// `INFO`: normal progress, the daemon's default when nothing is chosen.
        Info => "INFO",
        /// `WARNING`: only what may need attention; the default of `[hailer] log_level`.
        Warning => "WARNING",
        /// `ERROR`: failures only.
        Error => "ERROR",
        /// `CRITICAL`: logs the same as `ERROR`, the highest level the logs have.
        Critical => "CRITICAL",
    }
}

choice_enum! {
    /// Where `hailer login` keeps API keys.
    CredentialsStore {
        /// The OS credential store when it works, else a file only the user can read.
        Auto => "auto",
        /// The OS credential store only.
        Keyring => "keyring",
        /// A file only the user can read.
        File => "file",
    }
}

impl LogLevel {
    /// The matching `tracing` level name (CRITICAL maps to error, WARNING to warn).
    pub fn tracing_level(self) -> &'static str {
        match self {
            LogLevel::Trace => "trace",
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Warning => "warn",
            LogLevel::Error | LogLevel::Critical => "error",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_any_case_and_lists_choices() {
        assert_eq!(Runtime::parse(" Unsafe-Local "), Some(Runtime::UnsafeLocal));
        assert_eq!(Runtime::parse("local"), None);
        assert_eq!(LogLevel::parse("debug"), Some(LogLevel::Debug));
        assert_eq!(WireApi::list(), "\"responses\" or \"chat\"");
        assert_eq!(WireApi::parse("Demo"), Some(WireApi::Demo));
        assert_eq!(
            CredentialsStore::list(),
            "\"auto\", \"keyring\" or \"file\""
        );
    }
}
