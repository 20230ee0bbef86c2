#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

use super::*;

/// Writes a Parquet file with no rows and the given schema (Parquet message syntax).
pub(crate) fn write_parquet(path: &Path, message: &str) {
    let schema = Arc::new(parse_message_type(message).unwrap());
    let file = std::fs::File::create(path).unwrap();
    let writer =
        SerializedFileWriter::new(file, schema, Arc::new(WriterProperties::builder().build()))
            .unwrap();
    writer.close().unwrap();
}

#[test]
fn period_names_follow_the_kernel_helpers() {
    assert_eq!(
        parse_period_name("25-03 sales.parquet"),
        Some(("2025-03".to_owned(), "sales".to_owned()))
    );
    assert_eq!(
        parse_period_name("24-12 web traffic.PARQUET"),
        Some(("2024-12".to_owned(), "web traffic".to_owned()))
    );
    for name in [
        "25-13 sales.parquet",
        "25-00 sales.parquet",
        "25-03sales.parquet",
        "25-03  sales.parquet",
        "25-03 .parquet",
        "2025-03 sales.parquet",
        "25-03 sales.csv",
        "é5-03 sales.parquet",
        "x.parquet",
    ] {
        assert_eq!(parse_period_name(name), None, "{name}");
    }
}

#[test]
fn reports_common_partial_and_retyped_columns() {
    let dir = tempfile::tempdir().unwrap();
    let base = "required binary region (STRING); required int64 units;";
    write_parquet(
        &dir.path().join("24-01 sales.parquet"),
        &format!("message m {{ {base} required int32 day (DATE); }}"),
    );
    write_parquet(
        &dir.path().join("24-02 sales.parquet"),
        &format!("message m {{ {base} required int32 day (DATE); }}"),
    );
    write_parquet(
        &dir.path().join("24-03 sales.parquet"),
        &format!(
            "message m {{ {base} required int64 day (TIMESTAMP(MICROS,false)); optional double discount; }}"
        ),
    );
    write_parquet(
        &dir.path().join("23-12 stock.parquet"),
        "message m { optional group tags (LIST) { repeated group list { optional binary element (STRING); } } }",
    );
    std::fs::write(dir.path().join("customers.csv"), "a\n1\n").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not data").unwrap();
    std::fs::write(dir.path().join("24-04 sales.parquet"), "not parquet").unwrap();
    std::fs::create_dir(dir.path().join("24-05 sales.parquet")).unwrap();

    let text = list_periods(dir.path(), "").unwrap();
    insta::assert_snapshot!(text);

    let one = list_periods(dir.path(), "stock").unwrap();
    assert!(
        one.contains("Dataset 'stock'") && !one.contains("Dataset 'sales'"),
        "{one}"
    );
    let unknown = list_periods(dir.path(), "Sales").unwrap_err();
    assert_eq!(
        unknown.message,
        "no period files of a dataset named 'Sales'"
    );
    assert!(unknown.hint.contains("sales, stock"), "{}", unknown.hint);
}

#[test]
fn a_missing_folder_is_an_error_and_an_empty_one_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let missing = list_periods(&dir.path().join("nope"), "").unwrap_err();
    assert!(
        missing
            .message
            .starts_with("the data folder does not exist"),
        "{missing:?}"
    );
    assert_eq!(
        list_periods(dir.path(), "").unwrap(),
        "No period files (`YY-MM <dataset>.parquet`, such as `25-03 sales.parquet`) in the data folder.\nNo other data files either."
    );
}

proptest::proptest! {
    #[test]
    fn period_names_never_panic_and_round_trip(name in "\\PC{0,30}") {
        if let Some((period, dataset)) = parse_period_name(&name) {
            let rebuilt = format!("{}-{} {}", &period[2..4], &period[5..7], dataset);
            let stem = &name[..name.len() - ".parquet".len()];
            proptest::prop_assert_eq!(stem, rebuilt.as_str());
        }
    }
}
