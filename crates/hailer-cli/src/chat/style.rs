//! Colours and emphasis for the terminal, or none: `NO_COLOR`, plain mode and pipes get bare text.

use std::io::IsTerminal;

/// How text is decorated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    color: bool,
}

impl Style {
    /// Colours when standard output is a terminal, `NO_COLOR` is unset or empty, and the
    /// caller has not asked for plain output.
    pub(crate) fn detect(plain: bool) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        Self {
            color: !plain && !no_color && std::io::stdout().is_terminal(),
        }
    }

    /// Colours, or none, as asked.
    pub(crate) fn with_color(color: bool) -> Self {
        Self { color }
    }

    #[cfg(test)]
    pub(crate) fn plain() -> Self {
        Self::with_color(false)
    }

    #[cfg(test)]
    pub(crate) fn colored() -> Self {
        Self::with_color(true)
    }

    pub(crate) fn has_color(self) -> bool {
        self.color
    }

    fn wrap(self, code: &str, text: &str) -> String {
        if self.color && !text.is_empty() {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    pub(crate) fn bold(self, text: &str) -> String {
        self.wrap("1", text)
    }

    pub(crate) fn dim(self, text: &str) -> String {
        self.wrap("2", text)
    }

    pub(crate) fn italic(self, text: &str) -> String {
        self.wrap("3", text)
    }

    pub(crate) fn red(self, text: &str) -> String {
        self.wrap("31", text)
    }

    pub(crate) fn green(self, text: &str) -> String {
        self.wrap("32", text)
    }

    pub(crate) fn yellow(self, text: &str) -> String {
        self.wrap("33", text)
    }

    pub(crate) fn cyan(self, text: &str) -> String {
        self.wrap("36", text)
    }

    pub(crate) fn bold_cyan(self, text: &str) -> String {
        self.wrap("1;36", text)
    }

    /// `text` decorated as `kind`.
    pub(crate) fn paint(self, kind: Kind, text: &str) -> String {
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
    pub(crate) fn paint_spans(self, spans: &[Span]) -> String {
        let mut out = String::new();
        for (kind, text) in spans {
            out.push_str(&self.paint(*kind, text));
        }
        out
    }
}

/// How a run of text is decorated: emphasis in prose, token classes in code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Plain,
    Bold,
    Italic,
    Dim,
    /// Inline code, and code of a language with no highlighting.
    Code,
    Keyword,
    Builtin,
    Str,
    Number,
    Comment,
}

/// A run of text with one decoration.
pub(crate) type Span = (Kind, String);
