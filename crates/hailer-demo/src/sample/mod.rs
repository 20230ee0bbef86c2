//! The demo's sample data, the same on every run: Q1 2025 sales of four regions as CSV, the
//! web shop's orders as one Parquet file per month (March adds a `channel` column), and the
//! regions' targets and managers in an Excel workbook with two sheets. The targets are set
//! against the generated sales, so some regions beat them and some miss.

mod excel;
mod parquet_file;
mod rows;

use std::path::{Path, PathBuf};

use rows::Order;

/// The sales file.
pub(crate) const SALES_CSV: &str = "sales.csv";
/// The monthly files, in order.
pub(crate) const ORDER_FILES: [&str; 3] = [
    "25-01 orders.parquet",
    "25-02 orders.parquet",
    "25-03 orders.parquet",
];
/// The workbook and its sheets.
pub(crate) const TARGETS_XLSX: &str = "targets.xlsx";
/// The workbook's sheet of each region's revenue target.
pub(crate) const TARGETS_SHEET: &str = "Targets";
/// The workbook's sheet of the regions and their managers.
pub(crate) const REGIONS_SHEET: &str = "Regions";

/// The regions, their managers and how their sales compare with their targets (the target is
/// the region's actual revenue divided by this, rounded to hundreds).
pub(crate) const REGIONS: [(&str, &str, f64); 4] = [
    ("North", "Ana Lindqvist", 1.09),
    ("South", "Marco Bellini", 0.91),
    ("East", "Priya Raman", 1.02),
    ("West", "Tom Okafor", 0.95),
];

/// Why the sample data could not be written.
#[derive(Debug, thiserror::Error)]
pub enum SampleError {
    /// A file or the folder could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// The Parquet writer refused the data.
    #[error("cannot write the Parquet file {path}: {detail}")]
    Parquet {
        /// The file.
        path: PathBuf,
        /// The writer's message.
        detail: String,
    },
    /// The Excel writer refused the data.
    #[error("cannot write the Excel file {path}: {detail}")]
    Excel {
        /// The file.
        path: PathBuf,
        /// The writer's message.
        detail: String,
    },
}

/// One file written, for the user: its name and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleFile {
    /// The file's name in the data folder.
    pub name: String,
    /// One line on what it holds.
    pub about: String,
}

/// Writes every sample file into `data_dir` (created if missing), replacing files of the same
/// names.
pub fn write_all(data_dir: &Path) -> Result<Vec<SampleFile>, SampleError> {
    std::fs::create_dir_all(data_dir).map_err(|source| SampleError::Io {
        path: data_dir.to_path_buf(),
        source,
    })?;
    let sales = rows::sales();
    let path = data_dir.join(SALES_CSV);
    std::fs::write(&path, rows::sales_csv(&sales)).map_err(|source| SampleError::Io {
        path: path.clone(),
        source,
    })?;
    let mut written = vec![SampleFile {
        name: SALES_CSV.to_owned(),
        about: format!("{} sales of Q1 2025, four regions", sales.len()),
    }];
    for (month, name) in ORDER_FILES.iter().enumerate() {
        let orders = rows::orders(month as u32 + 1);
        let with_channel = month == ORDER_FILES.len() - 1;
        parquet_file::write_orders(&data_dir.join(name), &orders, with_channel)?;
        written.push(SampleFile {
            name: (*name).to_owned(),
            about: format!(
                "{} web orders{}",
                orders.len(),
                if with_channel {
                    ", with a new channel column"
                } else {
                    ""
                }
            ),
        });
    }
    excel::write_targets(&data_dir.join(TARGETS_XLSX), &sales)?;
    written.push(SampleFile {
        name: TARGETS_XLSX.to_owned(),
        about: format!("sheets {TARGETS_SHEET} and {REGIONS_SHEET}"),
    });
    Ok(written)
}

#[cfg(test)]
mod tests;
