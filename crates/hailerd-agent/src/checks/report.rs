//! Turning the checkers' findings into the lines the model reads: only the target cells, no
//! duplicates between ruff and ty, sorted by cell and line, at most [`MAX_SHOWN`] with the code
//! line each is about.

use std::collections::HashSet;

use hailer_marimo::CellSnapshot;

/// How many findings are shown; the rest are counted.
pub(super) const MAX_SHOWN: usize = 20;

/// ruff rules that say the same as a ty rule on the same line.
const SAME_AS_TY: &[(&str, &str)] = &[("F821", "unresolved-reference")];

/// A finding in a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Finding {
    /// Index of the cell in the snapshot.
    pub cell: usize,
    /// 1-based line in the cell.
    pub line: u32,
    pub tool: &'static str,
    pub rule: String,
    pub message: String,
}

/// Drops ruff findings that repeat a ty finding, then sorts by cell position and line.
pub(super) fn tidy(mut findings: Vec<Finding>, position: impl Fn(usize) -> usize) -> Vec<Finding> {
    let ty_rules: HashSet<(usize, u32, &str)> = findings
        .iter()
        .filter(|finding| finding.tool == "ty")
        .map(|finding| (finding.cell, finding.line, finding.rule.as_str()))
        .map(|(cell, line, rule)| (cell, line, rule_name(rule)))
        .collect();
    let repeats = |finding: &Finding| {
        finding.tool == "ruff"
            && SAME_AS_TY.iter().any(|(ruff, ty)| {
                finding.rule == *ruff && ty_rules.contains(&(finding.cell, finding.line, ty))
            })
    };
    let duplicates: Vec<bool> = findings.iter().map(repeats).collect();
    let mut index = 0;
    findings.retain(|_| {
        index += 1;
        !duplicates[index - 1]
    });
    findings.sort_by_key(|finding| (position(finding.cell), finding.line, finding.tool));
    findings
}

fn rule_name(rule: &str) -> &'static str {
    SAME_AS_TY
        .iter()
        .find(|(_, ty)| *ty == rule)
        .map_or("", |(_, ty)| ty)
}

/// How a cell is named in a report: `name (id)` or just the id.
pub(super) fn cell_label(cell: &CellSnapshot) -> String {
    match cell.given_name() {
        Some(name) => format!("{name} ({})", cell.id),
        None => cell.id.clone(),
    }
}

/// The report: a summary line, the findings with their code lines, what was cut, what was
/// skipped.
pub(super) fn render(
    cells: &[CellSnapshot],
    scope: &str,
    tools: &[&str],
    findings: &[Finding],
    skipped: &[String],
) -> String {
    let mut text = String::new();
    let checked_with = if tools.is_empty() {
        String::new()
    } else {
        format!(" ({})", tools.join(", "))
    };
    let count = match findings.len() {
        // No checker ran: "no findings" would claim the code was checked.
        0 if tools.is_empty() && !skipped.is_empty() => "not checked".to_owned(),
        0 if !skipped.is_empty() => "no findings, but not every check ran".to_owned(),
        0 => "no findings".to_owned(),
        1 => "1 finding".to_owned(),
        n => format!("{n} findings"),
    };
    text.push_str(&format!("Code checks{checked_with} on {scope}: {count}.\n"));
    for finding in findings.iter().take(MAX_SHOWN) {
        let cell = &cells[finding.cell];
        text.push_str(&format!(
            "- cell {}, line {}: {} {}: {}\n",
            cell_label(cell),
            finding.line,
            finding.tool,
            finding.rule,
            finding.message
        ));
        let source = usize::try_from(finding.line)
            .ok()
            .and_then(|line| line.checked_sub(1))
            .and_then(|index| cell.code.lines().nth(index));
        if let Some(source) = source {
            text.push_str("    ");
            text.push_str(source.trim_end());
            text.push('\n');
        }
    }
    if findings.len() > MAX_SHOWN {
        text.push_str(&format!("(and {} more)\n", findings.len() - MAX_SHOWN));
    }
    for why in skipped {
        text.push_str(&format!("(Check skipped: {why})\n"));
    }
    text.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn finding(cell: usize, line: u32, tool: &'static str, rule: &str) -> Finding {
        Finding {
            cell,
            line,
            tool,
            rule: rule.to_owned(),
            message: format!("{rule} here"),
        }
    }

    #[test]
    fn ruff_repeats_of_ty_are_dropped_and_the_rest_sorted() {
        let findings = vec![
            finding(1, 2, "ruff", "F821"),
            finding(1, 2, "ty", "unresolved-reference"),
            finding(0, 5, "ruff", "B006"),
            finding(1, 1, "ruff", "F821"),
        ];
        let tidied = tidy(findings, |cell| cell);
        let rules: Vec<(usize, u32, &str)> = tidied
            .iter()
            .map(|f| (f.cell, f.line, f.rule.as_str()))
            .collect();
        assert_eq!(
            rules,
            vec![
                (0, 5, "B006"),
                (1, 1, "F821"),
                (1, 2, "unresolved-reference")
            ]
        );
    }

    #[test]
    fn skipped_checks_are_never_reported_as_clean() {
        let skipped = vec!["ty: ty was not found on PATH.".to_owned()];
        let none = render(&[], "1 changed cell", &[], &[], &skipped);
        assert!(
            none.starts_with("Code checks on 1 changed cell: not checked."),
            "{none}"
        );
        assert!(
            none.contains("(Check skipped: ty: ty was not found"),
            "{none}"
        );
        let some = render(&[], "1 changed cell", &["ruff"], &[], &skipped);
        assert!(
            some.starts_with(
                "Code checks (ruff) on 1 changed cell: no findings, but not every check ran."
            ),
            "{some}"
        );
        let all = render(&[], "1 changed cell", &["ruff", "ty"], &[], &[]);
        assert_eq!(
            all,
            "Code checks (ruff, ty) on 1 changed cell: no findings."
        );
    }
}
