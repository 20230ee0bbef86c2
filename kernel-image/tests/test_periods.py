"""Monthly period files: naming, loading with a period column, DuckDB view, description."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hailer_kernel.errors import PeriodError
from hailer_kernel.periods import (
    describe_periods,
    duckdb_periods_view,
    list_periods,
    load_periods,
    parse_period,
    period_datasets,
    scan_periods,
)


@pytest.fixture
def three_months(tmp_path: Path) -> Path:
    """sales for 2025-01..03; the third month adds a `discount` column."""
    pl.DataFrame({"region": ["north", "south"], "amount": [100, 200]}).write_parquet(
        tmp_path / "25-01 sales.parquet"
    )
    pl.DataFrame({"region": ["north", "south"], "amount": [110, 190]}).write_parquet(
        tmp_path / "25-02 sales.parquet"
    )
    pl.DataFrame(
        {
            "region": ["north", "south", "east"],
            "amount": [120, 180, 50],
            "discount": [0.1, 0.0, 0.2],
        }
    ).write_parquet(tmp_path / "25-03 sales.parquet")
    (tmp_path / "notes.csv").write_text("a\n1\n")
    return tmp_path


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("25-01 sales.parquet", ("2025-01", "sales")),
        ("99-12 Sales EU (net).parquet", ("2099-12", "Sales EU (net)")),
        ("00-10 x.PARQUET", ("2000-10", "x")),
        ("25-13 sales.parquet", None),
        ("25-00 sales.parquet", None),
        ("2025-01 sales.parquet", None),
        ("25-1 sales.parquet", None),
        ("25-01sales.parquet", None),
        ("25-01 .parquet", None),
        ("25-01  sales.parquet", None),
        ("25-01 sales.csv", None),
        ("25-01 sales.parquet.bak", None),
    ],
)
def test_period_file_names(name: str, expected: tuple[str, str] | None) -> None:
    assert parse_period(name) == expected


@given(st.text(max_size=80))
def test_parsing_never_fails_on_any_name(name: str) -> None:
    result = parse_period(name)
    if result is not None:
        period, dataset = result
        assert len(period) == 7 and period[:2] == "20"
        assert 1 <= int(period[5:]) <= 12
        assert dataset and dataset == dataset.strip()


@given(
    st.integers(min_value=0, max_value=99),
    st.integers(min_value=1, max_value=12),
    st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_ ()-]{0,20}[A-Za-z0-9_)]", fullmatch=True),
)
def test_well_formed_names_round_trip(year: int, month: int, dataset: str) -> None:
    assert parse_period(f"{year:02d}-{month:02d} {dataset}.parquet") == (
        f"{2000 + year}-{month:02d}",
        dataset,
    )


def test_listing_is_top_level_sorted_and_filtered(three_months: Path) -> None:
    (three_months / "sub").mkdir()
    pl.DataFrame({"a": [1]}).write_parquet(three_months / "sub" / "25-04 sales.parquet")
    pl.DataFrame({"a": [1]}).write_parquet(three_months / "24-12 costs.parquet")
    files = list_periods(three_months)
    assert [(f.dataset, f.period) for f in files] == [
        ("costs", "2024-12"),
        ("sales", "2025-01"),
        ("sales", "2025-02"),
        ("sales", "2025-03"),
    ]
    assert [f.period for f in list_periods(three_months, "sales")] == [
        "2025-01",
        "2025-02",
        "2025-03",
    ]
    assert list_periods(three_months, "Sales") == []
    assert period_datasets(three_months) == ["costs", "sales"]
    assert list_periods(three_months / "missing") == []


def test_load_adds_a_leading_period_column_and_nulls_for_the_new_column(three_months: Path) -> None:
    frame = load_periods(three_months)
    assert frame.columns == ["period", "region", "amount", "discount"]
    assert frame.height == 7
    assert frame["period"].unique(maintain_order=True).to_list() == [
        "2025-01",
        "2025-02",
        "2025-03",
    ]
    early = frame.filter(pl.col("period") < "2025-03")
    assert early.height == 4
    assert early["discount"].null_count() == 4
    march = frame.filter(pl.col("period") == "2025-03")
    assert march["discount"].to_list() == [0.1, 0.0, 0.2]
    assert frame["amount"].sum() == 950


def test_scan_is_lazy_and_reads_only_what_is_asked(three_months: Path) -> None:
    lazy = scan_periods(three_months, "sales")
    assert isinstance(lazy, pl.LazyFrame)
    totals = lazy.group_by("period").agg(pl.col("amount").sum()).sort("period").collect().rows()
    assert totals == [("2025-01", 300), ("2025-02", 300), ("2025-03", 350)]


def test_differing_types_are_relaxed(tmp_path: Path) -> None:
    pl.DataFrame({"amount": [1, 2]}).write_parquet(tmp_path / "25-01 t.parquet")
    pl.DataFrame({"amount": [2.5]}).write_parquet(tmp_path / "25-02 t.parquet")
    frame = load_periods(tmp_path)
    assert frame.schema["amount"] == pl.Float64
    assert frame["amount"].to_list() == [1.0, 2.0, 2.5]
    text = describe_periods(tmp_path)
    assert "Columns whose type changes: amount (Int64 in 2025-01; Float64 in 2025-02" in text
    assert "combined as Float64" in text


def test_duckdb_view_over_all_months(three_months: Path) -> None:
    con = duckdb.connect()
    name = duckdb_periods_view(three_months, connection=con)
    assert name == "sales"
    columns = [row[0] for row in con.execute("DESCRIBE sales").fetchall()]
    assert columns == ["period", "region", "amount", "discount"]
    rows = con.execute(
        "SELECT period, count(*), count(discount), sum(amount) FROM sales GROUP BY period ORDER BY period"
    ).fetchall()
    assert rows == [("2025-01", 2, 0, 300), ("2025-02", 2, 0, 300), ("2025-03", 3, 3, 350)]
    # the view reads the files when queried, and the default connection works as well
    assert duckdb_periods_view(three_months, "sales", view="all_sales") == "all_sales"
    relation = duckdb.sql("SELECT count(*) FROM all_sales")  # what notebook code would write
    assert relation is not None and relation.fetchall() == [(7,)]
    relation = duckdb.sql("SELECT * FROM all_sales")
    assert relation is not None and relation.pl().columns[0] == "period"


def test_view_names_are_checked_and_paths_are_quoted(tmp_path: Path) -> None:
    folder = tmp_path / "it's data"
    folder.mkdir()
    pl.DataFrame({"a": [1]}).write_parquet(folder / "25-01 9 o'clock sales.parquet")
    con = duckdb.connect()
    assert duckdb_periods_view(folder, connection=con) == "_9_o_clock_sales"
    assert con.execute("SELECT period, a FROM _9_o_clock_sales").fetchall() == [("2025-01", 1)]
    with pytest.raises(PeriodError, match="cannot name a view"):
        duckdb_periods_view(folder, connection=con, view='x"; DROP TABLE y; --')


def test_pattern_characters_in_paths_are_refused_for_duckdb(tmp_path: Path) -> None:
    pl.DataFrame({"a": [1]}).write_parquet(tmp_path / "25-01 sales[eu].parquet")
    with pytest.raises(PeriodError, match="as a pattern"):
        duckdb_periods_view(tmp_path, connection=duckdb.connect())
    assert load_periods(tmp_path)["a"].to_list() == [1]


def test_description_names_months_columns_and_the_partial_column(three_months: Path) -> None:
    text = describe_periods(three_months)
    assert text.splitlines()[0] == "sales: 3 monthly files, 2025-01 to 2025-03."
    assert "Months: 2025-01, 2025-02, 2025-03." in text
    assert "Columns in every month (2): region String, amount Int64." in text
    assert (
        "Columns in some months only: discount Float64 (only in 2025-03; null in the other months)."
        in text
    )
    assert "Missing months" not in text
    assert "type changes" not in text


def test_description_shows_gaps_and_each_dataset(tmp_path: Path) -> None:
    for name in ("24-11 a.parquet", "25-01 a.parquet", "25-02 a.parquet", "25-06 b.parquet"):
        pl.DataFrame({"x": [1]}).write_parquet(tmp_path / name)
    text = describe_periods(tmp_path)
    a_part, b_part = text.split("\n\n")
    assert a_part.startswith("a: 3 monthly files, 2024-11 to 2025-02.")
    assert "Missing months: 2024-12." in a_part
    assert b_part.startswith("b: 1 monthly file, 2025-06 to 2025-06.")
    assert describe_periods(tmp_path, "c").startswith("No period files of 'c' in ")
    assert describe_periods(tmp_path / "none").startswith("No period files in ")


def test_long_runs_are_summarised(tmp_path: Path) -> None:
    for month in range(1, 13):
        pl.DataFrame({"x": [1]}).write_parquet(tmp_path / f"23-{month:02d} m.parquet")
        pl.DataFrame({"x": [1]}).write_parquet(tmp_path / f"24-{month:02d} m.parquet")
    pl.DataFrame({"x": [1], "y": [2]}).write_parquet(tmp_path / "25-01 m.parquet")
    text = describe_periods(tmp_path)
    assert "Months:" not in text  # 25 files are too many to list
    assert "y Int64 (only in 2025-01; null in the other months)" in text
    assert load_periods(tmp_path).height == 25


def test_errors_say_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(PeriodError, match=re.escape("named like '25-03 sales.parquet'")):
        load_periods(tmp_path)
    pl.DataFrame({"x": [1]}).write_parquet(tmp_path / "25-01 a.parquet")
    pl.DataFrame({"x": [1]}).write_parquet(tmp_path / "25-01 b.parquet")
    with pytest.raises(PeriodError, match=r"2 datasets \(a, b\); say which one"):
        scan_periods(tmp_path)
    with pytest.raises(PeriodError, match="Datasets with period files: a, b"):
        scan_periods(tmp_path, "c")
    pl.DataFrame({"x": [1]}).write_parquet(tmp_path / "25-01 a.PARQUET")
    with pytest.raises(PeriodError, match="Two files hold 2025-01 of 'a'"):
        load_periods(tmp_path, "a")


def test_a_file_with_its_own_period_column_is_refused(tmp_path: Path) -> None:
    pl.DataFrame({"period": ["Q1"], "x": [1]}).write_parquet(tmp_path / "25-01 a.parquet")
    with pytest.raises(PeriodError, match="already has a column named 'period'"):
        scan_periods(tmp_path)


def test_a_broken_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "25-01 a.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(PeriodError, match=re.escape("Cannot read 25-01 a.parquet as Parquet")):
        describe_periods(tmp_path)
