"""Listing data files: names, kinds, sizes, and what is left out."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hailer_kernel.data import DATA_KINDS, data_files_table, data_kind, human_size, list_data_files
from hailer_kernel.errors import DataFolderError


def write(path: Path, size: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    return path


def test_every_supported_suffix_is_listed_with_its_kind_and_size(tmp_path: Path) -> None:
    for index, suffix in enumerate(sorted(DATA_KINDS)):
        write(tmp_path / f"file{index}{suffix}", index + 1)
    files = list_data_files(tmp_path)
    assert len(files) == len(DATA_KINDS) == 12
    by_suffix = {Path(f.name).suffix: f for f in files}
    assert by_suffix[".csv"].kind == "csv"
    assert by_suffix[".tsv"].kind == "tsv"
    assert by_suffix[".parquet"].kind == "parquet"
    assert by_suffix[".json"].kind == "json"
    assert by_suffix[".jsonl"].kind == by_suffix[".ndjson"].kind == "jsonl"
    assert {by_suffix[s].kind for s in (".xlsx", ".xls", ".xlsb")} == {"excel"}
    assert {by_suffix[s].kind for s in (".arrow", ".feather", ".ipc")} == {"arrow"}
    for f in files:
        assert f.size == f.path.stat().st_size


def test_nested_files_get_relative_names_and_are_sorted(tmp_path: Path) -> None:
    write(tmp_path / "b.csv", 3)
    write(tmp_path / "2025" / "Q1" / "sales.parquet", 10)
    write(tmp_path / "A.JSON", 5)
    names = [f.name for f in list_data_files(tmp_path)]
    assert names == ["2025/Q1/sales.parquet", "A.JSON", "b.csv"]


def test_hidden_lock_and_unknown_files_are_left_out(tmp_path: Path) -> None:
    write(tmp_path / "keep.csv", 1)
    write(tmp_path / ".hidden.csv", 1)
    write(tmp_path / ".git" / "inside.csv", 1)
    write(tmp_path / "~$Budget.xlsx", 1)
    write(tmp_path / "notes.txt", 1)
    write(tmp_path / "report.csv.bak", 1)
    write(tmp_path / "__pycache__" / "cached.parquet", 1)
    (tmp_path / "folder.csv").mkdir()
    assert [f.name for f in list_data_files(tmp_path)] == ["keep.csv"]


def test_depth_and_count_are_bounded(tmp_path: Path) -> None:
    deep = tmp_path
    for level in range(7):
        deep = deep / f"level{level}"
        write(deep / "here.csv", 1)
    names = [f.name for f in list_data_files(tmp_path, max_depth=2)]
    assert names == ["level0/here.csv", "level0/level1/here.csv"]
    for index in range(30):
        write(tmp_path / f"many{index:02d}.csv", 1)
    assert len(list_data_files(tmp_path, limit=10)) == 10


def test_links_to_folders_are_not_followed_and_broken_links_are_skipped(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write(data / "real.csv", 4)
    outside = write(tmp_path / "outside" / "secret.csv", 4)
    os.symlink(outside.parent, data / "linked-folder")
    os.symlink(data, data / "loop")
    os.symlink(tmp_path / "missing.csv", data / "broken.csv")
    os.symlink(data / "real.csv", data / "alias.csv")
    names = [f.name for f in list_data_files(data)]
    assert names == ["alias.csv", "real.csv"]


def test_a_missing_folder_has_no_files_and_a_file_is_refused(tmp_path: Path) -> None:
    assert list_data_files(tmp_path / "nowhere") == []
    not_a_folder = write(tmp_path / "data", 1)
    with pytest.raises(DataFolderError, match="is a file, not a folder"):
        list_data_files(not_a_folder)


def test_an_unreadable_folder_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "a.csv", 1)

    def denied(path: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(os, "scandir", denied)
    with pytest.raises(DataFolderError, match=r"Cannot read the data folder .*Permission denied"):
        list_data_files(tmp_path)


def test_the_table_has_one_row_per_file(tmp_path: Path) -> None:
    write(tmp_path / "a.csv", 1500)
    write(tmp_path / "b.parquet", 12)
    table = data_files_table(list_data_files(tmp_path))
    assert table.schema == pl.Schema(
        {"file": pl.String, "kind": pl.String, "size": pl.String, "bytes": pl.Int64}
    )
    assert table.rows() == [("a.csv", "csv", "1.5 kB", 1500), ("b.parquet", "parquet", "12 B", 12)]
    assert data_files_table([]).height == 0


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0 B"),
        (999, "999 B"),
        (1000, "1.0 kB"),
        (1449, "1.4 kB"),
        (99_949, "99.9 kB"),
        (99_960, "100 kB"),
        (999_499, "999 kB"),
        (999_500, "1.0 MB"),
        (2_500_000_000, "2.5 GB"),
        (10**18, "1000 PB"),
    ],
)
def test_sizes_read_naturally(size: int, text: str) -> None:
    assert human_size(size) == text


@given(st.integers(min_value=0, max_value=10**17))
def test_size_texts_are_short_and_well_formed(size: int) -> None:
    number, unit = human_size(size).split(" ")
    assert unit in {"B", "kB", "MB", "GB", "TB", "PB"}
    assert 0 <= float(number) < 1000
    assert len(number) <= 4


@given(st.text())
def test_any_name_has_a_kind_or_none(name: str) -> None:
    kind = data_kind(name.replace("\x00", ""))
    assert kind is None or kind in set(DATA_KINDS.values())
