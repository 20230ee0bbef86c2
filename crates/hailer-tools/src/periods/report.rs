//! The text of a `list_periods` answer.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{DataFolder, PeriodFile, read_columns};

/// Months are listed one by one up to this many files.
const MAX_LISTED_PERIODS: usize = 24;
/// At most this many other data files are named.
const MAX_OTHER_FILES: usize = 20;
/// At most this many months are named for one partial column.
const MAX_PERIODS_PER_COLUMN: usize = 6;

pub(super) fn render(folder: &DataFolder) -> String {
    let mut text = String::new();
    if folder.datasets.is_empty() {
        text.push_str("No period files (`YY-MM <dataset>.parquet`, such as `25-03 sales.parquet`) in the data folder.\n");
    }
    for (dataset, files) in &folder.datasets {
        render_dataset(&mut text, dataset, files);
    }
    if !folder.other_files.is_empty() {
        let shown: Vec<&str> = folder
            .other_files
            .iter()
            .take(MAX_OTHER_FILES)
            .map(String::as_str)
            .collect();
        let _ = write!(
            text,
            "Other data files ({}): {}",
            folder.other_files.len(),
            shown.join(", ")
        );
        if folder.other_files.len() > MAX_OTHER_FILES {
            let _ = write!(
                text,
                " (and {} more)",
                folder.other_files.len() - MAX_OTHER_FILES
            );
        }
        text.push('\n');
    } else if folder.datasets.is_empty() {
        text.push_str("No other data files either.\n");
    }
    text.trim_end().to_owned()
}

/// A column's type in each month that has it.
struct Presence<'a> {
    types: Vec<(&'a str, String)>,
}

fn render_dataset(text: &mut String, dataset: &str, files: &[PeriodFile]) {
    let (Some(first), Some(last)) = (files.first(), files.last()) else {
        return;
    };
    let _ = writeln!(
        text,
        "Dataset '{dataset}': {} period file{}, {} -> {}",
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        first.period,
        last.period
    );
    if files.len() <= MAX_LISTED_PERIODS {
        let periods: Vec<&str> = files.iter().map(|file| file.period.as_str()).collect();
        let _ = writeln!(text, "  Periods: {}", periods.join(", "));
    }
    // Column name -> where it appears, in the order columns are first seen.
    let mut order: Vec<String> = Vec::new();
    let mut columns: BTreeMap<String, Presence> = BTreeMap::new();
    let mut readable = 0usize;
    let mut unreadable = Vec::new();
    for file in files {
        match read_columns(&file.path) {
            Ok(found) => {
                readable += 1;
                for column in found {
                    let presence = columns.entry(column.name.clone()).or_insert_with(|| {
                        order.push(column.name.clone());
                        Presence { types: Vec::new() }
                    });
                    presence
                        .types
                        .push((file.period.as_str(), column.type_name));
                }
            }
            Err(why) => unreadable.push(format!("{} ({why})", file.file_name)),
        }
    }
    let mut common = Vec::new();
    let mut partial = Vec::new();
    let mut differing = Vec::new();
    for name in &order {
        let Some(presence) = columns.get(name) else {
            continue;
        };
        let first_type = presence
            .types
            .first()
            .map(|(_, t)| t.as_str())
            .unwrap_or("");
        let same_type = presence.types.iter().all(|(_, t)| t == first_type);
        let type_label = if same_type {
            first_type
        } else {
            "(type varies)"
        };
        if presence.types.len() == readable {
            common.push(format!("{name} {type_label}"));
        } else {
            let periods: Vec<&str> = presence.types.iter().map(|(period, _)| *period).collect();
            partial.push(format!(
                "{name} {type_label} (in {} of {readable}: {})",
                periods.len(),
                abbreviate(&periods)
            ));
        }
        if !same_type {
            differing.push(format!("{name}: {}", types_by_period(&presence.types)));
        }
    }
    let _ = writeln!(
        text,
        "  Common columns ({}): {}",
        common.len(),
        or_none(&common)
    );
    if !partial.is_empty() {
        let _ = writeln!(text, "  Only in some periods: {}", partial.join("; "));
    }
    if !differing.is_empty() {
        let _ = writeln!(
            text,
            "  Type differs across periods: {}",
            differing.join("; ")
        );
    }
    if !unreadable.is_empty() {
        let _ = writeln!(text, "  Unreadable: {}", unreadable.join("; "));
    }
    let _ = writeln!(
        text,
        "  Read all months as one table: load_periods(DATA_DIR, \"{dataset}\") (adds a `period` column; missing columns are null)."
    );
}

fn or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

fn abbreviate(periods: &[&str]) -> String {
    if periods.len() <= MAX_PERIODS_PER_COLUMN {
        return periods.join(", ");
    }
    format!(
        "{}, ... {} (and {} more)",
        periods[..MAX_PERIODS_PER_COLUMN - 1].join(", "),
        periods[periods.len() - 1],
        periods.len() - MAX_PERIODS_PER_COLUMN
    )
}

/// `Int64 (2024-01, 2024-02) / Float64 (2024-03)`, types in the order they first appear.
fn types_by_period(types: &[(&str, String)]) -> String {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for (period, type_name) in types {
        match groups.iter_mut().find(|(t, _)| *t == type_name.as_str()) {
            Some((_, periods)) => periods.push(period),
            None => groups.push((type_name.as_str(), vec![period])),
        }
    }
    groups
        .iter()
        .map(|(type_name, periods)| format!("{type_name} ({})", abbreviate(periods)))
        .collect::<Vec<_>>()
        .join(" / ")
}
