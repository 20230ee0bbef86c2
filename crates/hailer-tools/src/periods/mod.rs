//! `list_periods`: the monthly period files of the data folder (`YY-MM <dataset>.parquet`, top
//! level only), grouped by dataset, with the columns every month has, those only some months
//! have and those whose type changes, read from the Parquet footers. Other data files are named.

mod footer;
mod report;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(crate) use footer::read_columns;

use crate::Failure;

/// File suffixes (lower case, without the dot) the kernel's helpers read as data.
pub(crate) const DATA_SUFFIXES: &[&str] = &[
    "csv", "tsv", "parquet", "json", "jsonl", "ndjson", "xlsx", "xls", "xlsb", "arrow", "feather",
    "ipc",
];

/// One month of one dataset.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct PeriodFile {
    /// The dataset's name: the file name without its period.
    pub dataset: String,
    /// `YYYY-MM`.
    pub period: String,
    /// The file's name as it is in the data folder.
    pub file_name: String,
    /// The file's full path.
    pub path: PathBuf,
}

/// `(period, dataset)` for a name such as `25-03 sales.parquet` (March 2025 of `sales`): two
/// digits of year, a month from 01 to 12, one space, a dataset name that neither starts nor ends
/// with a space, and `.parquet` in any case.
pub(crate) fn parse_period_name(file_name: &str) -> Option<(String, String)> {
    let stem_len = file_name.len().checked_sub(".parquet".len())?;
    if !file_name.is_char_boundary(stem_len)
        || !file_name[stem_len..].eq_ignore_ascii_case(".parquet")
    {
        return None;
    }
    let stem = &file_name[..stem_len];
    let bytes = stem.as_bytes();
    if bytes.len() < 7
        || !bytes[0].is_ascii_digit()
        || !bytes[1].is_ascii_digit()
        || bytes[2] != b'-'
        || !bytes[3].is_ascii_digit()
        || !bytes[4].is_ascii_digit()
        || bytes[5] != b' '
    {
        return None;
    }
    let month = (bytes[3] - b'0') * 10 + (bytes[4] - b'0');
    if !(1..=12).contains(&month) {
        return None;
    }
    let dataset = &stem[6..];
    if dataset.trim() != dataset || dataset.is_empty() {
        return None;
    }
    Some((
        format!("20{}-{}", &stem[..2], &stem[3..5]),
        dataset.to_owned(),
    ))
}

/// What the data folder holds at its top level.
#[derive(Debug, Default)]
pub(crate) struct DataFolder {
    /// Period files by dataset, each sorted by month.
    pub datasets: BTreeMap<String, Vec<PeriodFile>>,
    /// Names of the other data files, sorted.
    pub other_files: Vec<String>,
}

/// Lists the top level of `data_dir`.
pub(crate) fn scan(data_dir: &Path) -> Result<DataFolder, Failure> {
    let entries = std::fs::read_dir(data_dir).map_err(|error| {
        if error.kind() == std::io::ErrorKind::NotFound {
            Failure::new(
                format!("the data folder does not exist: {}", data_dir.display()),
                "Ask the user to create it and put the data files there, or to set [hailer].data_dir in hailer.toml.",
            )
        } else {
            Failure::new(
                format!("cannot read the data folder {}: {error}", data_dir.display()),
                "Ask the user to check the folder's permissions.",
            )
        }
    })?;
    let mut folder = DataFolder::default();
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_file() {
            continue;
        }
        let Some(file_name) = entry.file_name().to_str().map(ToOwned::to_owned) else {
            continue;
        };
        if let Some((period, dataset)) = parse_period_name(&file_name) {
            folder
                .datasets
                .entry(dataset.clone())
                .or_default()
                .push(PeriodFile {
                    dataset,
                    period,
                    file_name,
                    path,
                });
        } else if is_data_file(&file_name) {
            folder.other_files.push(file_name);
        }
    }
    for files in folder.datasets.values_mut() {
        files.sort();
    }
    folder.other_files.sort();
    Ok(folder)
}

fn is_data_file(file_name: &str) -> bool {
    file_name.rsplit_once('.').is_some_and(|(stem, suffix)| {
        !stem.is_empty() && DATA_SUFFIXES.contains(&suffix.to_ascii_lowercase().as_str())
    })
}

/// The whole `list_periods` answer for `data_dir`; `name` (when not empty) keeps one dataset.
pub fn list_periods(data_dir: &Path, name: &str) -> Result<String, Failure> {
    let mut folder = scan(data_dir)?;
    let name = name.trim();
    if !name.is_empty() {
        if !folder.datasets.contains_key(name) {
            let known: Vec<&str> = folder.datasets.keys().map(String::as_str).collect();
            return Err(Failure::new(
                format!("no period files of a dataset named '{name}'"),
                if known.is_empty() {
                    "The data folder has no period files (`YY-MM <dataset>.parquet`). Call list_periods without a name to see the data files.".to_owned()
                } else {
                    format!(
                        "Datasets with period files: {}. The name must match exactly.",
                        known.join(", ")
                    )
                },
            ));
        }
        folder.datasets.retain(|dataset, _| dataset == name);
    }
    Ok(report::render(&folder))
}

#[cfg(test)]
mod tests;
