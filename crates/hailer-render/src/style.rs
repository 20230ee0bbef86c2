//! Colours and emphasis for the terminal, or none: `NO_COLOR`, plain mode and pipes get bare text.

use std::io::IsTerminal;

/// How text is decorated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    color: bool,
}

impl Style {
    /// Colours when standard output is a terminal, `NO_COLOR` is unset or empty, and the
    /// caller has not asked for plain output.
    pub fn detect(plain: bool) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        Self {
            color: !plain && !no_color && std::io::stdout().is_terminal(),
        }
    }

    /// Colours, or none, as asked.
    pub fn with_color(color: bool) -> Self {
        Self { color }
    }

    /// No colours (for tests).
    #[cfg(any(test, feature = "test-support"))]
    pub fn plain() -> Self {
        Self::with_color(false)
    }

    /// Colours (for tests).
    #[cfg(any(test, feature = "test-support"))]
    pub fn colored() -> Self {
        Self::with_color(true)
    }

    /// Whether colours are on.
    pub fn has_color(self) -> bool {
        self.color
    }

    fn wrap(self, code: &str, text: &str) -> String {
        if self.color && !text.is_empty() {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// `text` in bold.
    pub fn bold(self, text: &str) -> String {
        self.wrap("1", text)
    }

    /// `text` dimmed.
    pub fn dim(self, text: &str) -> String {
        self.wrap("2", text)
    }

    /// `text` in italics.
    pub fn italic(self, text: &str) -> String {
        self.wrap("3", text)
    }

    /// `text` in red.
    pub fn red(self, text: &str) -> String {
        self.wrap("31", text)
    }

    /// `text` in green.
    pub fn green(self, text: &str) -> String {
        self.wrap("32", text)
    }

    /// `text` in yellow.
    pub fn yellow(self, text: &str) -> String {
        self.wrap("33", text)
    }

    /// `text` in cyan.
    pub fn cyan(self, text: &str) -> String {
        self.wrap("36", text)
    }

    /// `text` in bold cyan.
    pub fn bold_cyan(self, text: &str) -> String {
        self.wrap("1;36", text)
    }

    /// `text` decorated as `kind`.
    pub fn paint(self, kind: Kind, text: &str) -> String {
        match kind {
            Kind::Plain => text.to_owned(),
            Kind::Bold => self.bold(text),
            Kind::Italic => self.italic(text),
            Kind::Dim | Kind::Comment => self.dim(text),
            Kind::Code | Kind::Builtin => self.cyan(text),
            Kind::Keyword => self.wrap("35", text),
            Kind::Str => self.green(text),
            Kind::Number => self.yellow(text),
        }
    }

    /// Runs of decorated text, each run painted, joined.
    pub fn paint_spans(self, spans: &[Span]) -> String {
        let mut out = String::new();
        for (kind, text) in spans {
            out.push_str(&self.paint(*kind, text));
        }
        out
    }
}

/// How a run of text is decorated: emphasis in prose, token classes in code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Unstyled.
    Plain,
    /// Strong emphasis.
    Bold,
    /// Emphasis.
    Italic,
    /// Less important text.
    Dim,
    /// Inline code, and code of a language with no highlighting.
    Code,
    /// A keyword of the language.
    Keyword,
    /// A built-in name.
    Builtin,
    /// A string literal.
    Str,
    /// A number literal.
    Number,
    /// A comment.
    Comment,
}

/// A run of text with one decoration.
pub(crate) type Span = (Kind, String);
