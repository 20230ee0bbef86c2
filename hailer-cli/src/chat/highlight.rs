//! Highlighting code for the terminal, a line at a time: keywords, built-ins, strings, numbers
//! and comments of Python (what the kernel runs) and SQL; other languages are shown in one
//! colour. A small lexer rather than a grammar engine: it keeps the binary small and the first
//! block fast, and a streamed answer is highlighted as its lines arrive, strings spanning lines
//! included.

use super::style::{Kind, Span};

const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "match", "case", "nonlocal", "not", "or", "pass", "raise", "return",
    "try", "while", "with", "yield",
];

const PYTHON_BUILTINS: &[&str] = &[
    "abs",
    "all",
    "any",
    "bool",
    "dict",
    "enumerate",
    "filter",
    "float",
    "int",
    "isinstance",
    "len",
    "list",
    "map",
    "max",
    "min",
    "open",
    "print",
    "range",
    "repr",
    "round",
    "set",
    "sorted",
    "str",
    "sum",
    "tuple",
    "type",
    "zip",
    "self",
];

const SQL_KEYWORDS: &[&str] = &[
    "select", "from", "where", "group", "by", "order", "having", "limit", "join", "left", "right",
    "inner", "outer", "on", "as", "and", "or", "not", "in", "is", "null", "insert", "into",
    "values", "update", "set", "delete", "create", "table", "with", "distinct", "count", "sum",
    "avg", "min", "max", "case", "when", "then", "else", "end", "union", "all", "desc", "asc",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Language {
    Python,
    Sql,
    Other,
}

/// Highlights the lines of one block, in order.
#[derive(Debug)]
pub struct Highlighter {
    language: Language,
    /// The closing quotes of a string that runs on past the line.
    open_string: Option<&'static str>,
}

impl Highlighter {
    /// For a fence's info string (`python`, `py`, `sql`, ...); an empty one is taken as Python.
    pub fn for_info(info: &str) -> Self {
        let name = info.split_whitespace().next().unwrap_or_default();
        let language = match name.to_ascii_lowercase().as_str() {
            "" | "python" | "py" | "python3" | "ipython" => Language::Python,
            "sql" | "duckdb" | "sqlite" | "postgresql" => Language::Sql,
            _ => Language::Other,
        };
        Self {
            language,
            open_string: None,
        }
    }

    pub fn python() -> Self {
        Self::for_info("python")
    }

    /// One line's runs.
    pub fn line(&mut self, line: &str) -> Vec<Span> {
        if self.language == Language::Other {
            return vec![(Kind::Code, line.to_owned())];
        }
        let mut spans: Vec<Span> = Vec::new();
        let mut rest = line;
        if let Some(close) = self.open_string {
            match rest.find(close) {
                Some(end) => {
                    let end = end + close.len();
                    push(&mut spans, Kind::Str, &rest[..end]);
                    rest = &rest[end..];
                    self.open_string = None;
                }
                None => {
                    push(&mut spans, Kind::Str, rest);
                    return spans;
                }
            }
        }
        while let Some(c) = rest.chars().next() {
            let taken = self.token(rest, c, &mut spans);
            rest = &rest[taken..];
        }
        spans
    }

    /// Reads one token at the start of `rest`; returns its length in bytes.
    fn token(&mut self, rest: &str, c: char, spans: &mut Vec<Span>) -> usize {
        let comment = match self.language {
            Language::Sql => rest.starts_with("--"),
            _ => c == '#',
        };
        if comment {
            push(spans, Kind::Comment, rest);
            return rest.len();
        }
        if c == '"' || c == '\'' {
            let length = self.string(rest);
            push(spans, Kind::Str, &rest[..length]);
            return length;
        }
        if c.is_ascii_digit() {
            let length = word_length(rest, |c| c.is_ascii_alphanumeric() || c == '.' || c == '_');
            push(spans, Kind::Number, &rest[..length]);
            return length;
        }
        if c.is_alphabetic() || c == '_' || (c == '@' && self.language == Language::Python) {
            let length = c.len_utf8() + word_length(&rest[c.len_utf8()..], is_word);
            let word = &rest[..length];
            // A string prefix: f"...", rb'...'.
            let after = &rest[length..];
            if self.language == Language::Python
                && length <= 2
                && word.chars().all(|c| "rRbBfFuU".contains(c))
                && (after.starts_with('"') || after.starts_with('\''))
            {
                let string = self.string(after);
                push(spans, Kind::Str, &rest[..length + string]);
                return length + string;
            }
            push(spans, self.word_kind(word), word);
            return length;
        }
        push(spans, Kind::Plain, &rest[..c.len_utf8()]);
        c.len_utf8()
    }

    /// The length of the string starting at `rest` (its quotes included); a triple-quoted one
    /// left open continues on the next lines.
    fn string(&mut self, rest: &str) -> usize {
        for triple in ["\"\"\"", "'''"] {
            if self.language == Language::Python && rest.starts_with(triple) {
                return match rest[3..].find(triple) {
                    Some(end) => 3 + end + 3,
                    None => {
                        self.open_string = Some(triple);
                        rest.len()
                    }
                };
            }
        }
        let quote = rest.chars().next().unwrap_or('"');
        let mut escaped = false;
        for (index, c) in rest.char_indices().skip(1) {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == quote {
                return index + 1;
            }
        }
        rest.len()
    }

    fn word_kind(&self, word: &str) -> Kind {
        match self.language {
            Language::Python if word.starts_with('@') => Kind::Keyword,
            Language::Python if PYTHON_KEYWORDS.contains(&word) => Kind::Keyword,
            Language::Python if PYTHON_BUILTINS.contains(&word) => Kind::Builtin,
            Language::Sql if SQL_KEYWORDS.contains(&word.to_ascii_lowercase().as_str()) => {
                Kind::Keyword
            }
            _ => Kind::Plain,
        }
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

/// Bytes at the start of `text` whose characters match.
fn word_length(text: &str, matches: impl Fn(char) -> bool) -> usize {
    text.char_indices()
        .find(|(_, c)| !matches(*c))
        .map_or(text.len(), |(index, _)| index)
}

/// Appends `text`, merging it into the last run when that has the same decoration.
fn push(spans: &mut Vec<Span>, kind: Kind, text: &str) {
    if text.is_empty() {
        return;
    }
    match spans.last_mut() {
        Some((last, existing)) if *last == kind => existing.push_str(text),
        _ => spans.push((kind, text.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(spans: &[Span]) -> Vec<(Kind, &str)> {
        spans
            .iter()
            .filter(|(_, text)| !text.trim().is_empty())
            .map(|(kind, text)| (*kind, text.trim()))
            .collect()
    }

    #[test]
    fn python_tokens() {
        let mut highlighter = Highlighter::python();
        let spans = highlighter.line("for x in range(3): print(f\"{x}\", 1.5)  # loop");
        assert_eq!(
            kinds(&spans),
            vec![
                (Kind::Keyword, "for"),
                (Kind::Plain, "x"),
                (Kind::Keyword, "in"),
                (Kind::Builtin, "range"),
                (Kind::Plain, "("),
                (Kind::Number, "3"),
                (Kind::Plain, "):"),
                (Kind::Builtin, "print"),
                (Kind::Plain, "("),
                (Kind::Str, "f\"{x}\""),
                (Kind::Plain, ","),
                (Kind::Number, "1.5"),
                (Kind::Plain, ")"),
                (Kind::Comment, "# loop"),
            ]
        );
    }

    #[test]
    fn triple_quoted_strings_span_lines() {
        let mut highlighter = Highlighter::python();
        assert_eq!(
            kinds(&highlighter.line("doc = \"\"\"first")),
            vec![(Kind::Plain, "doc ="), (Kind::Str, "\"\"\"first")]
        );
        assert_eq!(
            kinds(&highlighter.line("import x")),
            vec![(Kind::Str, "import x")]
        );
        assert_eq!(
            kinds(&highlighter.line("end\"\"\" + 1")),
            vec![
                (Kind::Str, "end\"\"\""),
                (Kind::Plain, "+"),
                (Kind::Number, "1")
            ]
        );
    }

    #[test]
    fn sql_and_other_languages() {
        let mut sql = Highlighter::for_info("sql");
        assert_eq!(
            kinds(&sql.line("SELECT a FROM t -- all")),
            vec![
                (Kind::Keyword, "SELECT"),
                (Kind::Plain, "a"),
                (Kind::Keyword, "FROM"),
                (Kind::Plain, "t"),
                (Kind::Comment, "-- all"),
            ]
        );
        let mut other = Highlighter::for_info("rust");
        assert_eq!(
            other.line("fn main() {}"),
            vec![(Kind::Code, "fn main() {}".to_owned())]
        );
    }
}
