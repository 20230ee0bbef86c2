//! The regions' workbook: their Q1 targets on one sheet, their managers on another.

use std::path::Path;

use rust_xlsxwriter::{Workbook, XlsxError};

use super::rows::{Sale, revenue_cents};
use super::{REGIONS, REGIONS_SHEET, SampleError, TARGETS_SHEET};

/// Writes the workbook; the targets are set against `sales` so the regions land on either side.
pub(super) fn write_targets(path: &Path, sales: &[Sale]) -> Result<(), SampleError> {
    write(path, sales).map_err(|error| SampleError::Excel {
        path: path.to_path_buf(),
        detail: error.to_string(),
    })
}

fn write(path: &Path, sales: &[Sale]) -> Result<(), XlsxError> {
    let revenue = revenue_cents(sales);
    let mut workbook = Workbook::new();
    let targets = workbook.add_worksheet();
    targets.set_name(TARGETS_SHEET)?;
    targets.write_string(0, 0, "region")?;
    targets.write_string(0, 1, "q1_target")?;
    for (row, ((region, _, ratio), cents)) in (1u32..).zip(REGIONS.iter().zip(revenue)) {
        let target = (cents as f64 / 100.0 / ratio / 100.0).round() * 100.0;
        targets.write_string(row, 0, *region)?;
        targets.write_number(row, 1, target)?;
    }
    let regions = workbook.add_worksheet();
    regions.set_name(REGIONS_SHEET)?;
    regions.write_string(0, 0, "region")?;
    regions.write_string(0, 1, "manager")?;
    for (row, (region, manager, _)) in (1u32..).zip(REGIONS) {
        regions.write_string(row, 0, region)?;
        regions.write_string(row, 1, manager)?;
    }
    workbook.save(path)
}
