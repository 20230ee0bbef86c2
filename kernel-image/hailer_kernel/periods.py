"""Monthly period files: ``YY-MM <dataset>.parquet`` in the data folder, read as one table.

A file named ``25-03 sales.parquet`` holds March 2025 of the dataset ``sales``. The helpers here find
such files (top level of the data folder only), read them lazily with a leading ``period`` column
(``"2025-03"``), and combine months whose columns differ: a column that appears later is null in the
earlier months, and a column whose type changes takes a type that holds every month's values.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hailer_kernel.errors import DataFolderError, PeriodError

if TYPE_CHECKING:
    import duckdb
    import polars as pl

#: The column that names each row's month, ``YYYY-MM``.
PERIOD_COLUMN = "period"

#: Months are listed one by one in descriptions up to this many files.
MAX_LISTED_MONTHS = 24

_PERIOD_NAME = re.compile(
    r"(?P<yy>\d{2})-(?P<mm>0[1-9]|1[0-2]) (?P<dataset>\S(?:.*\S)?)\.parquet", re.IGNORECASE
)
_GLOB_CHARACTERS = frozenset("*?[]{}")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, order=True)
class PeriodFile:
    """One month of one dataset."""

    dataset: str
    """The dataset's name, from the file name (``sales`` in ``25-03 sales.parquet``)."""
    period: str
    """The month, ``YYYY-MM``."""
    path: Path
    """Where the file is."""


def parse_period(file_name: str) -> tuple[str, str] | None:
    """``(period, dataset)`` for a period file name such as ``25-03 sales.parquet``, else ``None``.

    The year is 2000 plus the two digits; the month is 01 to 12.
    """
    match = _PERIOD_NAME.fullmatch(file_name)
    if match is None:
        return None
    return f"20{match['yy']}-{match['mm']}", match["dataset"]


def list_periods(folder: str | os.PathLike[str], dataset: str | None = None) -> list[PeriodFile]:
    """The period files in ``folder`` (not its sub-folders), sorted by dataset and month.

    With ``dataset``, only that dataset's files (the name must match exactly). A folder that does
    not exist holds none.
    """
    root = Path(folder)
    if not root.exists():
        return []
    try:
        entries = list(os.scandir(root))
    except NotADirectoryError as err:
        raise DataFolderError(f"{root} is a file, not a folder of period files.") from err
    except OSError as err:
        raise DataFolderError(
            f"Cannot read {root}: {err.strerror or err}. Check that you may read that folder."
        ) from err
    found = []
    for entry in entries:
        parsed = parse_period(entry.name)
        if parsed is None:
            continue
        period, name = parsed
        if dataset is not None and name != dataset:
            continue
        try:
            if not entry.is_file():
                continue
        except OSError:
            continue
        found.append(PeriodFile(dataset=name, period=period, path=Path(entry.path)))
    return sorted(found)


def period_datasets(folder: str | os.PathLike[str]) -> list[str]:
    """The names of the datasets that have period files in ``folder``, sorted."""
    return sorted({f.dataset for f in list_periods(folder)})


def scan_periods(folder: str | os.PathLike[str], dataset: str | None = None) -> pl.LazyFrame:
    """Every month of one dataset as one lazy Polars frame, ``period`` first.

    ``dataset`` may be left out when the folder holds a single dataset. Nothing is read until the
    frame is collected; columns that some months lack are null there, and differing types are
    relaxed to one that fits every month.
    """
    import polars as pl

    files = _one_dataset(folder, dataset)
    frames = [
        pl.scan_parquet(f.path, glob=False).select(pl.lit(f.period).alias(PERIOD_COLUMN), pl.all())
        for f in files
    ]
    for f in files:
        if PERIOD_COLUMN in _schema(f):
            raise PeriodError(
                f"{f.path.name} already has a column named {PERIOD_COLUMN!r}, so the month cannot "
                f"be added under that name. Read it with pl.scan_parquet instead."
            )
    return pl.concat(frames, how="diagonal_relaxed")


def load_periods(folder: str | os.PathLike[str], dataset: str | None = None) -> pl.DataFrame:
    """Every month of one dataset as one Polars frame, ``period`` first (see ``scan_periods``)."""
    return scan_periods(folder, dataset).collect()


def duckdb_periods_view(
    folder: str | os.PathLike[str],
    dataset: str | None = None,
    *,
    connection: duckdb.DuckDBPyConnection | None = None,
    view: str | None = None,
) -> str:
    """Create (or replace) a DuckDB view over every month of one dataset and return its name.

    The view has the ``period`` column first, and reads the files each time it is queried.
    ``view`` defaults to the dataset's name made into an identifier (``sales``); ``connection``
    defaults to DuckDB's default connection, the one ``duckdb.sql`` uses.
    """
    import duckdb

    files = _one_dataset(folder, dataset)
    name = view if view is not None else _identifier(files[0].dataset)
    if not _IDENTIFIER.fullmatch(name):
        raise PeriodError(
            f"{name!r} cannot name a view: use letters, digits and underscores, not starting "
            "with a digit."
        )
    for f in files:
        if _GLOB_CHARACTERS.intersection(str(f.path)):
            raise PeriodError(
                f"DuckDB would read {str(f.path)!r} as a pattern because of the characters "
                f"{''.join(sorted(_GLOB_CHARACTERS))}; rename the file, or use load_periods."
            )
    selects = [
        f"SELECT {_sql_text(f.period)} AS {PERIOD_COLUMN}, * FROM read_parquet({_sql_text(str(f.path))})"
        for f in files
    ]
    query = "\nUNION ALL BY NAME\n".join(selects)
    con = connection if connection is not None else duckdb.default_connection()
    con.execute(f'CREATE OR REPLACE VIEW "{name}" AS\n{query}')
    return name


def describe_periods(folder: str | os.PathLike[str], dataset: str | None = None) -> str:
    """A short text about the period files: months, gaps, columns, and where months differ.

    Without ``dataset`` every dataset in the folder is described.
    """
    files = list_periods(folder, dataset)
    if not files:
        which = f"of {dataset!r} " if dataset is not None else ""
        return (
            f"No period files {which}in {Path(folder)}. Period files are named like "
            "'25-03 sales.parquet' (year, month, a space, the dataset's name)."
        )
    names = sorted({f.dataset for f in files})
    return "\n\n".join(_describe_one([f for f in files if f.dataset == n]) for n in names)


def _describe_one(files: list[PeriodFile]) -> str:
    months = [f.period for f in files]
    schemas = {f.period: _schema(f) for f in files}
    combined = _combined_types(files)
    lines = [
        f"{files[0].dataset}: {_count(len(files), 'monthly file')}, {months[0]} to {months[-1]}."
    ]
    if len(months) <= MAX_LISTED_MONTHS:
        lines.append(f"Months: {', '.join(months)}.")
    missing = _missing_months(months)
    if missing:
        lines.append(f"Missing months: {_months_text(missing)}.")

    columns: list[str] = []
    for schema in schemas.values():
        columns.extend(c for c in schema if c not in columns)
    everywhere = [c for c in columns if all(c in s for s in schemas.values())]
    partial = [c for c in columns if c not in everywhere]
    lines.append(
        f"Columns in every month ({len(everywhere)}): "
        + (", ".join(f"{c} {combined.get(c, '?')}" for c in everywhere) or "none")
        + "."
    )
    if partial:
        parts = []
        for c in partial:
            present = [m for m in months if c in schemas[m]]
            parts.append(
                f"{c} {combined.get(c, '?')} (only in {_months_text(present)}; null in the other months)"
            )
        lines.append(f"Columns in some months only: {'; '.join(parts)}.")
    changed = []
    for c in columns:
        by_type: dict[str, list[str]] = {}
        for m in months:
            if c in schemas[m]:
                by_type.setdefault(str(schemas[m][c]), []).append(m)
        if len(by_type) > 1:
            spread = "; ".join(f"{t} in {_months_text(ms)}" for t, ms in by_type.items())
            changed.append(f"{c} ({spread}; combined as {combined.get(c, '?')})")
    if changed:
        lines.append(f"Columns whose type changes: {'; '.join(changed)}.")
    return "\n".join(lines)


def _one_dataset(folder: str | os.PathLike[str], dataset: str | None) -> list[PeriodFile]:
    files = list_periods(folder, dataset)
    if not files:
        which = f"of the dataset {dataset!r} " if dataset is not None else ""
        available = period_datasets(folder) if dataset is not None else []
        hint = f" Datasets with period files: {', '.join(available)}." if available else ""
        raise PeriodError(
            f"No period files {which}in {Path(folder)}. Period files are named like "
            f"'25-03 sales.parquet' and sit directly in the data folder.{hint}"
        )
    names = sorted({f.dataset for f in files})
    if len(names) > 1:
        raise PeriodError(
            f"{Path(folder)} holds period files of {len(names)} datasets ({', '.join(names)}); "
            f"say which one, for example dataset={names[0]!r}."
        )
    seen: dict[str, PeriodFile] = {}
    for f in files:
        if f.period in seen:
            raise PeriodError(
                f"Two files hold {f.period} of {f.dataset!r}: {seen[f.period].path.name} and "
                f"{f.path.name}. Keep one of them."
            )
        seen[f.period] = f
    return files


def _schema(file: PeriodFile) -> pl.Schema:
    import polars as pl

    try:
        return pl.scan_parquet(file.path, glob=False).collect_schema()
    except (OSError, pl.exceptions.PolarsError) as err:
        raise PeriodError(f"Cannot read {file.path.name} as Parquet: {err}") from err


def _combined_types(files: list[PeriodFile]) -> dict[str, str]:
    import polars as pl

    try:
        schema = pl.concat(
            [pl.scan_parquet(f.path, glob=False) for f in files], how="diagonal_relaxed"
        ).collect_schema()
    except (OSError, pl.exceptions.PolarsError):
        return {}  # the months cannot be combined; each month's own types are still shown
    return {name: str(dtype) for name, dtype in schema.items()}


def _month_number(period: str) -> int:
    year, month = period.split("-")
    return int(year) * 12 + int(month) - 1


def _month_text(number: int) -> str:
    return f"{number // 12:04d}-{number % 12 + 1:02d}"


def _missing_months(months: list[str]) -> list[str]:
    present = {_month_number(m) for m in months}
    first, last = min(present), max(present)
    return [_month_text(n) for n in range(first, last + 1) if n not in present]


def _months_text(months: list[str]) -> str:
    """Months with consecutive runs joined: ``2025-01 to 2025-03, 2025-06``."""
    numbers = sorted({_month_number(m) for m in months})
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return ", ".join(
        _month_text(a) if a == b else f"{_month_text(a)} to {_month_text(b)}" for a, b in runs
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _identifier(name: str) -> str:
    text = re.sub(r"[^0-9a-zA-Z_]+", "_", name).strip("_").lower() or "periods"
    return f"_{text}" if text[0].isdigit() else text


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"
