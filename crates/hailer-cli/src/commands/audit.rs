//! `hailer audit`: the workspace's audit trail, read from `.hailer/audit.jsonl` (no daemon
//! needed), and `hailer audit verify`, which checks its hash chain and that it ends where the
//! head anchored in Hailer's data folder says.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use hailer_config::HailerHome;
use hailer_config::{LoadInputs, Overrides};
use hailer_protocol::AuditEntry;

use crate::output::{out, outln};
use hailer_render::Style;

/// Which records to show.
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    /// A duration back from now (`30m`, `2h`, `7d`) or a date (`2026-12-01`, `2026-12-01T10:30`).
    pub since: Option<String>,
    pub turn: Option<String>,
}

/// The workspace's root, found as every command finds the workspace.
fn workspace_root(overrides: Overrides) -> anyhow::Result<PathBuf> {
    let inputs = LoadInputs::from_process(overrides).context("cannot read the current folder")?;
    let workspace = hailer_config::find_workspace(&inputs.cwd, &inputs.overrides, &inputs.env)
        .map_err(|problem| anyhow::anyhow!("{problem}"))?;
    Ok(workspace.root)
}

/// The workspace's `.hailer/` folder.
fn state_dir(overrides: Overrides) -> anyhow::Result<PathBuf> {
    Ok(hailer_platform::state_folder_of(&workspace_root(
        overrides,
    )?))
}

/// Prints the records (newest last), or JSON with `json`.
pub(crate) fn show(overrides: Overrides, filter: &Filter, json: bool) -> anyhow::Result<ExitCode> {
    let since = match &filter.since {
        Some(text) => Some(
            hailer_audit::parse_since(text, hailer_audit::unix_millis_now()).with_context(
                || {
                    format!(
                        "--since {text:?} is neither a duration (90s, 30m, 2h, 7d, 1w) nor a date \
                     (2026-12-01, 2026-12-01T10:30, in UTC)"
                    )
                },
            )?,
        ),
        None => None,
    };
    let dir = state_dir(overrides)?;
    let entries: Vec<AuditEntry> = hailer_audit::read_trail(&dir)?
        .iter()
        .filter_map(|line| serde_json::from_str::<AuditEntry>(&line.text).ok())
        .filter(|entry| {
            since.is_none_or(|since| {
                hailer_audit::parse_time(&entry.time).is_some_and(|time| time >= since)
            })
        })
        .filter(|entry| {
            filter
                .turn
                .as_ref()
                .is_none_or(|turn| entry.turn.as_deref() == Some(turn.as_str()))
        })
        .collect();
    if json {
        outln!("{}", serde_json::to_string_pretty(&entries)?)?;
    } else if entries.is_empty() {
        outln!(
            "No audit records{}.",
            if filter.since.is_some() || filter.turn.is_some() {
                " match"
            } else {
                " yet"
            }
        )?;
    } else {
        let style = Style::detect(false);
        let width = crate::chat::terminal_width();
        for entry in &entries {
            out!("{}", render(entry, style, width))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Checks the chain and its end against the anchored head; exits 1 naming the first line that
/// was changed or follows a removal, or what was removed.
pub(crate) fn verify(overrides: Overrides) -> anyhow::Result<ExitCode> {
    let root = workspace_root(overrides)?;
    let dir = hailer_platform::state_folder_of(&root);
    let home = HailerHome::from_env()?;
    let anchor = hailer_audit::anchor_path(&home.data_dir, &root);
    match hailer_audit::verify_dir(&dir, &anchor)? {
        Ok(verified) if verified.records == 0 => {
            outln!("No audit records in {}.", dir.display())?;
            Ok(ExitCode::SUCCESS)
        }
        Ok(verified) => {
            outln!(
                "The audit trail is intact: {} records, each chained to the one before{}",
                verified.records,
                if verified.anchored {
                    ", the last one where Hailer's data folder says the trail ends."
                } else {
                    ".\nHailer's data folder holds no head for this trail (it was written \
                     elsewhere, or before heads were kept there), so records removed from its \
                     end cannot be told."
                }
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Err(broken) => {
            outln!("The audit trail was tampered with: {broken}.")?;
            Ok(ExitCode::FAILURE)
        }
    }
}

/// One record: a heading, then its URL or its code (highlighted and folded as in the chat).
/// Everything in the record is cleaned of control sequences first: the trail holds code and
/// names that came from the model and from files.
pub(crate) fn render(entry: &AuditEntry, style: Style, width: usize) -> String {
    let Some(entry) = hailer_render::clean_all(entry) else {
        return String::new();
    };
    let entry = &entry;
    let mut heading = vec![
        entry
            .time
            .replace('T', " ")
            .trim_end_matches('Z')
            .to_owned(),
        style.bold(&kind_label(entry)),
        entry.client.clone(),
    ];
    if let Some(turn) = &entry.turn {
        heading.push(format!("turn {turn}"));
    }
    if let Some(notebook) = &entry.notebook {
        heading.push(notebook.clone());
    }
    if let Some(outcome) = entry.outcome {
        let label = outcome.label();
        heading.push(match outcome {
            hailer_protocol::AuditOutcome::Ok => style.green(label),
            _ => style.red(label),
        });
    } else if entry.kind == hailer_protocol::AuditKind::Exec {
        // Written before the run; the record of how it ended follows.
        heading.push("started".to_owned());
    }
    if let Some(ms) = entry.duration_ms {
        heading.push(format!("{ms} ms"));
    }
    if let Some(bytes) = entry.output_bytes {
        heading.push(format!("{bytes} B out"));
    }
    let mut out = format!("{}\n", heading.join("  "));
    if let Some(url) = &entry.url {
        out.push_str(&format!("    {}\n", style.cyan(url)));
    }
    if let Some(code) = &entry.code {
        for line in hailer_render::code_lines(code, style, width) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    if let Some(sha) = &entry.sha256 {
        out.push_str(&format!("    {}\n", style.dim(&format!("sha256 {sha}"))));
    }
    if let Some(detail) = &entry.detail {
        out.push_str(&format!("    {}\n", style.dim(detail)));
    }
    out
}

fn kind_label(entry: &AuditEntry) -> String {
    use hailer_protocol::AuditKind;
    match entry.kind {
        AuditKind::Exec => "exec",
        AuditKind::Cell => "cell",
        AuditKind::Fetch => "fetch",
        AuditKind::CopyBack => "copy back",
        AuditKind::KernelStart => "kernel start",
        AuditKind::KernelStop => "kernel stop",
        AuditKind::Trust => "trust",
    }
    .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(code: &str) -> AuditEntry {
        AuditEntry {
            seq: 1,
            time: "2026-12-02T00:41:12.345Z".to_owned(),
            kind: hailer_protocol::AuditKind::Exec,
            session: "s_1".to_owned(),
            turn: Some("t_9".to_owned()),
            client: "terminal".to_owned(),
            notebook: Some("analysis.py".to_owned()),
            code: Some(code.to_owned()),
            url: None,
            sha256: Some("ab".repeat(32)),
            outcome: Some(hailer_protocol::AuditOutcome::Ok),
            duration_ms: Some(12),
            output_bytes: Some(3),
            detail: None,
            prev: String::new(),
        }
    }

    #[test]
    fn a_record_reads_as_a_heading_and_its_code_folded_as_in_the_chat() {
        let code = (1..=20)
            .map(|n| format!("x{n} = {n}"))
            .collect::<Vec<_>>()
            .join("\n");
        let shown = render(&entry(&code), Style::plain(), 100);
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(
            lines[0],
            "2026-12-02 00:41:12.345  exec  terminal  turn t_9  analysis.py  ok  12 ms  3 B out"
        );
        assert_eq!(lines[1], "  │ x1 = 1");
        assert_eq!(lines[6], "  │ x6 = 6");
        assert_eq!(lines[7], "  │ … 11 more lines …");
        assert_eq!(lines[8], "  │ x18 = 18");
        assert_eq!(lines[10], "  │ x20 = 20");
        assert_eq!(lines[11], format!("    sha256 {}", "ab".repeat(32)));
    }

    #[test]
    fn a_record_loses_the_control_sequences_in_its_code_and_names() {
        let mut hostile = entry("print('\x1b]0;pwned\x07hi')\x1b[2J");
        hostile.notebook = Some("evil\u{9b}2J.py".to_owned());
        let shown = render(&hostile, Style::colored(), 100);
        assert!(!shown.contains("pwned"), "{shown:?}");
        assert!(shown.contains("  evil.py  "), "{shown:?}");
        hailer_render::assert_only_our_styling(&shown);
    }
}
