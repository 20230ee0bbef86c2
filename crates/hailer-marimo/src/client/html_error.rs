//! marimo sometimes writes an error to standard error as HTML: a traceback highlighted by
//! pygments (`<span class="codehilite">...`), or an error rendered for its page. A terminal and
//! the agent get that error's one meaningful line instead: for a traceback, the exception and
//! its message; otherwise the first line of text.

/// The one line that stands for `data` when it is an error in HTML, with a newline; `None` when
/// `data` is plain text.
pub(super) fn plain_line(data: &str) -> Option<String> {
    if !is_html(data) {
        return None;
    }
    let text = unescape(&strip_tags(data));
    let is_traceback = text.lines().any(|line| {
        line.trim_start()
            .starts_with("Traceback (most recent call last)")
    });
    // A traceback's frames and source lines are indented; its exception's line is not, and
    // the last such line is the exception that ended the run.
    let line = if is_traceback {
        text.lines()
            .rev()
            .find(|line| !line.trim().is_empty() && !line.starts_with([' ', '\t']))
    } else {
        text.lines().find(|line| !line.trim().is_empty())
    };
    Some(format!(
        "{}\n",
        line.map(str::trim).unwrap_or("the code raised an error")
    ))
}

/// Whether `data` is HTML as marimo renders an error: a highlighted traceback, or markup from
/// its first character to its last.
fn is_html(data: &str) -> bool {
    let trimmed = data.trim();
    trimmed.contains("class=\"codehilite\"")
        || (trimmed.starts_with('<') && trimmed.ends_with('>') && trimmed.contains("</"))
}

/// The text of `html`, tags removed; a line break for `<br>` and block ends.
fn strip_tags(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        let after = &rest[open..];
        let Some(close) = after.find('>') else {
            rest = "";
            break;
        };
        let tag = after[1..close].trim_start_matches('/').to_ascii_lowercase();
        let name = tag.split([' ', '/']).next().unwrap_or_default();
        if matches!(name, "br" | "div" | "p" | "pre" | "li" | "tr") {
            text.push('\n');
        }
        rest = &after[close + 1..];
    }
    text.push_str(rest);
    text
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// A traceback as marimo 0.24's `_highlight_traceback` writes it (pygments' HtmlFormatter).
    const HIGHLIGHTED: &str = r#"<span class="codehilite"><div class="highlight"><pre><span></span><span class="gt">Traceback (most recent call last):</span>
  File <span class="nb">&quot;/tmp/marimo_1/__marimo__cell_Hbol_.py&quot;</span>, line <span class="m">1</span>, in <span class="n">&lt;module&gt;</span>
<span class="w">    </span><span class="nb">open</span><span class="p">(</span><span class="s1">&#39;/work/data/secret.csv&#39;</span><span class="p">)</span><span class="o">.</span><span class="n">read</span><span class="p">()</span>
<span class="w">    </span><span class="pm">^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^</span>
<span class="gr">PermissionError</span>: <span class="n">[Errno 13] Permission denied: &#39;/work/data/secret.csv&#39;</span>
</pre></div>
</span>"#;

    #[test]
    fn a_highlighted_traceback_becomes_its_exception_line() {
        assert_eq!(
            plain_line(HIGHLIGHTED).unwrap(),
            "PermissionError: [Errno 13] Permission denied: '/work/data/secret.csv'\n"
        );
    }

    #[test]
    fn other_html_becomes_its_first_line_of_text() {
        assert_eq!(
            plain_line("<div><p>This cell raised an exception: ValueError</p><p>more</p></div>")
                .unwrap(),
            "This cell raised an exception: ValueError\n"
        );
    }

    #[test]
    fn plain_text_is_left_alone() {
        assert_eq!(
            plain_line("Traceback (most recent call last):\n  ...\n"),
            None
        );
        assert_eq!(plain_line("x < 3 and y > 2\n"), None);
    }
}
