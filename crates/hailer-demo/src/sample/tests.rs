#![allow(clippy::unwrap_used, clippy::expect_used)]

use parquet::file::reader::{FileReader, SerializedFileReader};

use super::*;

#[test]
fn every_file_is_written_and_the_parquet_files_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let written = write_all(&dir.path().join("data")).unwrap();
    let names: Vec<&str> = written.iter().map(|file| file.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "sales.csv",
            "25-01 orders.parquet",
            "25-02 orders.parquet",
            "25-03 orders.parquet",
            "targets.xlsx"
        ]
    );
    let csv = std::fs::read_to_string(dir.path().join("data/sales.csv")).unwrap();
    assert!(csv.starts_with("date,region,product,units,unit_price,amount\n2025-01-01,"));
    assert_eq!(csv.lines().count(), 361);

    for (name, columns) in [("25-01 orders.parquet", 4), ("25-03 orders.parquet", 5)] {
        let file = std::fs::File::open(dir.path().join("data").join(name)).unwrap();
        let reader = SerializedFileReader::new(file).unwrap();
        let meta = reader.metadata().file_metadata();
        assert_eq!(meta.schema_descr().num_columns(), columns, "{name}");
        assert!(meta.num_rows() > 100, "{name}");
    }
    let xlsx = std::fs::read(dir.path().join("data/targets.xlsx")).unwrap();
    assert!(xlsx.starts_with(b"PK"), "an xlsx file is a zip archive");
}
