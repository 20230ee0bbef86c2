//! Highlighting code for the terminal, a line at a time, with syntect's grammars (Sublime
//! Text's) mapped onto our own palette ([`Kind`]): keywords, built-ins and function names,
//! strings, numbers and comments. Python (what the kernel runs) is the default; a fence that
//! names another language the grammars know (sql, json, bash, yaml, ...) gets that one, and an
//! unknown one is shown in one colour. The parser's state carries over from line to line, so a
//! streamed answer is highlighted as its lines arrive, strings spanning lines included.

use std::sync::{LazyLock, Once};

use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

use crate::style::{Kind, Span};

/// The grammars, loaded once (the first code block pays for it).
static SYNTAXES: LazyLock<SyntaxSet> = LazyLock::new(SyntaxSet::load_defaults_newlines);

/// Scope prefixes and the decoration each stands for, tried on a token's scopes from the
/// innermost out; the first scope with a match decides, by the first prefix that matches it
/// (so the narrower ones come first).
static PALETTE: LazyLock<Vec<(Scope, Kind)>> = LazyLock::new(|| {
    [
        ("comment", Kind::Comment),
        ("string", Kind::Str),
        ("constant.character.escape", Kind::Str),
        ("constant.numeric", Kind::Number),
        ("constant.language", Kind::Keyword),
        ("keyword", Kind::Keyword),
        // A string's prefix: the `f` of f"...".
        ("storage.type.string", Kind::Str),
        ("storage", Kind::Keyword),
        ("support.function", Kind::Builtin),
        ("support.type", Kind::Builtin),
        ("variable.language", Kind::Builtin),
        ("entity.name.function", Kind::Builtin),
        ("meta.annotation", Kind::Keyword),
    ]
    .into_iter()
    .filter_map(|(name, kind)| Scope::new(name).ok().map(|scope| (scope, kind)))
    .collect()
});

/// Operators are keywords to the grammars; only the spelled-out ones (`and`, `in`) are to us.
static OPERATOR: LazyLock<Option<Scope>> = LazyLock::new(|| Scope::new("keyword.operator").ok());

/// Loads the grammars and compiles Python's first patterns on a thread of its own, once, so the
/// first code block shown does not wait for them. The chat calls it when a turn starts, not when
/// it starts itself: a chat idle at its prompt does not hold the grammars (some megabytes), and
/// the model takes longer to send its first words than the grammars take to load.
pub fn preload_in_background() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        std::thread::spawn(|| Highlighter::python().line("import polars as pl  # 1"));
    });
}

/// Highlights the lines of one block, in order.
#[derive(Debug)]
pub(crate) struct Highlighter {
    /// `None` for a language with no grammar, or after the grammar failed on a line.
    parser: Option<Parser>,
}

#[derive(Debug)]
struct Parser {
    state: ParseState,
    scopes: ScopeStack,
}

impl Highlighter {
    /// For a fence's info string (`python`, `py`, `sql`, `json`, ...); an empty one is taken
    /// as Python.
    pub(crate) fn for_info(info: &str) -> Self {
        let name = info.split_whitespace().next().unwrap_or_default();
        let parser = syntax(&name.to_ascii_lowercase()).map(|syntax| Parser {
            state: ParseState::new(syntax),
            scopes: ScopeStack::new(),
        });
        Self { parser }
    }

    /// A highlighter for Python.
    pub(crate) fn python() -> Self {
        Self::for_info("python")
    }

    /// One line's runs.
    pub(crate) fn line(&mut self, line: &str) -> Vec<Span> {
        let Some(parser) = self.parser.as_mut() else {
            return vec![(Kind::Code, line.to_owned())];
        };
        match parser.line(line) {
            Some(spans) => spans,
            None => {
                // A grammar that fails once is not trusted with the rest of the block.
                self.parser = None;
                vec![(Kind::Code, line.to_owned())]
            }
        }
    }
}

impl Parser {
    fn line(&mut self, line: &str) -> Option<Vec<Span>> {
        // The grammars are the newline kind: each line ends with one.
        let fed = format!("{line}\n");
        let ops = self.state.parse_line(&fed, &SYNTAXES).ok()?;
        let mut spans = Vec::new();
        let mut start = 0;
        for (at, op) in &ops {
            let at = (*at).min(line.len());
            if at > start {
                push(
                    &mut spans,
                    kind(self.scopes.as_slice(), &line[start..at]),
                    &line[start..at],
                );
                start = at;
            }
            self.scopes.apply(op).ok()?;
        }
        if start < line.len() {
            push(
                &mut spans,
                kind(self.scopes.as_slice(), &line[start..]),
                &line[start..],
            );
        }
        Some(spans)
    }
}

/// The grammar of a fence's language name (lowercase), if there is one; plain text has none.
fn syntax(name: &str) -> Option<&'static SyntaxReference> {
    let token = match name {
        "" | "python3" | "ipython" | "pycon" => "python",
        "duckdb" | "sqlite" | "postgresql" | "postgres" | "mysql" => "sql",
        "shell" | "console" | "zsh" | "sh" => "bash",
        "jsonl" | "ndjson" | "geojson" => "json",
        "text" | "txt" | "plain" | "plaintext" => return None,
        other => other,
    };
    SYNTAXES.find_syntax_by_token(token)
}

/// How a token under `scopes` (outermost first) is decorated.
fn kind(scopes: &[Scope], text: &str) -> Kind {
    for scope in scopes.iter().rev() {
        let found = PALETTE
            .iter()
            .find(|(prefix, _)| prefix.is_prefix_of(*scope));
        if let Some((_, kind)) = found {
            let spelled = text.trim().chars().all(char::is_alphabetic);
            return match OPERATOR.as_ref() {
                Some(operator) if operator.is_prefix_of(*scope) && !spelled => Kind::Plain,
                _ => *kind,
            };
        }
    }
    Kind::Plain
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

    /// The runs of one decoration, trimmed.
    fn of(spans: &[Span], wanted: Kind) -> Vec<&str> {
        kinds(spans)
            .into_iter()
            .filter(|(kind, _)| *kind == wanted)
            .map(|(_, text)| text)
            .collect()
    }

    #[test]
    fn python_tokens() {
        let mut highlighter = Highlighter::python();
        let spans = highlighter.line("for x in range(3): print(f\"{x}\", 1.5)  # loop");
        let line: String = spans.iter().map(|(_, text)| text.as_str()).collect();
        assert_eq!(line, "for x in range(3): print(f\"{x}\", 1.5)  # loop");
        assert_eq!(of(&spans, Kind::Keyword), ["for", "in"]);
        assert_eq!(of(&spans, Kind::Builtin), ["range", "print"]);
        assert_eq!(of(&spans, Kind::Number), ["3", "1.5"]);
        assert_eq!(of(&spans, Kind::Comment), ["# loop"]);
        assert!(of(&spans, Kind::Str).concat().contains("f\""), "{spans:?}");
        // Punctuation and operators stay plain.
        let spans = highlighter.line("total = a + b");
        assert_eq!(of(&spans, Kind::Plain), ["total = a + b"]);
    }

    #[test]
    fn triple_quoted_strings_span_lines() {
        let mut highlighter = Highlighter::python();
        let first = highlighter.line("doc = \"\"\"first");
        assert_eq!(of(&first, Kind::Str), ["\"\"\"first"]);
        assert_eq!(
            kinds(&highlighter.line("import x")),
            vec![(Kind::Str, "import x")]
        );
        let last = highlighter.line("end\"\"\" + 1");
        assert_eq!(of(&last, Kind::Str), ["end\"\"\""]);
        assert_eq!(of(&last, Kind::Number), ["1"]);
        assert_eq!(of(&highlighter.line("import x"), Kind::Keyword), ["import"]);
    }

    #[test]
    fn sql_json_and_bash_have_their_own_grammars() {
        let mut sql = Highlighter::for_info("sql");
        let spans = sql.line("SELECT a FROM t WHERE b = 'x' -- all");
        assert_eq!(of(&spans, Kind::Keyword), ["SELECT", "FROM", "WHERE"]);
        assert_eq!(of(&spans, Kind::Str), ["'x'"]);
        assert_eq!(of(&spans, Kind::Comment), ["-- all"]);
        let mut json = Highlighter::for_info("json");
        let spans = json.line("{\"a\": [1, true, \"b\"]}");
        assert_eq!(of(&spans, Kind::Number), ["1"]);
        assert_eq!(of(&spans, Kind::Keyword), ["true"]);
        assert!(of(&spans, Kind::Str).contains(&"\"b\""), "{spans:?}");
        let mut bash = Highlighter::for_info("bash");
        let spans = bash.line("echo \"hi\" # greet");
        assert_eq!(of(&spans, Kind::Comment), ["# greet"]);
        assert_eq!(of(&spans, Kind::Str), ["\"hi\""]);
    }

    #[test]
    fn unknown_languages_and_plain_text_are_one_colour() {
        for info in ["klingon", "text", "txt"] {
            let mut other = Highlighter::for_info(info);
            assert_eq!(
                other.line("fn main() {}"),
                vec![(Kind::Code, "fn main() {}".to_owned())]
            );
        }
    }
}
