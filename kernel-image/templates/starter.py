import marimo

__generated_with = "0.24.2"
app = marimo.App(width="medium")


@app.cell
def _():
    from pathlib import Path

    import duckdb
    import marimo as mo
    import polars as pl

    return Path, duckdb, mo, pl


@app.cell
def _():
    # Hailer's notebook helpers: data files, and monthly "YY-MM <dataset>.parquet" files.
    from hailer_kernel.data import data_files_table, list_data_files
    from hailer_kernel.periods import (
        describe_periods,
        duckdb_periods_view,
        list_periods,
        load_periods,
        scan_periods,
    )
    from hailer_kernel.workspace import data_folder, find_workspace

    return (
        data_files_table,
        data_folder,
        describe_periods,
        duckdb_periods_view,
        find_workspace,
        list_data_files,
        list_periods,
        load_periods,
        scan_periods,
    )


@app.cell
def _(data_folder, find_workspace, mo):
    # The workspace is the nearest folder above this notebook with hailer.toml or pyproject.toml.
    WORKSPACE = find_workspace(mo.notebook_dir())
    DATA_DIR = data_folder(WORKSPACE)
    return DATA_DIR, WORKSPACE


@app.cell
def _(DATA_DIR, list_data_files, list_periods):
    data_files = list_data_files(DATA_DIR)
    period_files = list_periods(DATA_DIR)
    return data_files, period_files


@app.cell
def _(DATA_DIR, WORKSPACE, data_files, data_files_table, mo, period_files, pl):
    _months = {f.path.name: f.period for f in period_files}
    if data_files:
        _count = f"{len(data_files)} data file" + ("" if len(data_files) == 1 else "s")
        _table = data_files_table(data_files).drop("bytes")
        _table = _table.with_columns(
            pl.Series("month", [_months.get(f.name, "") for f in data_files], dtype=pl.String)
        )
        _body = mo.vstack(
            [
                mo.md(f"**{_count}** in `{DATA_DIR}`:"),
                mo.ui.table(_table, selection=None, page_size=20),
                mo.md(
                    "Ask about them in the chat, for example: *What is in these files?*, "
                    "*Which months are there, and what changed between them?*, "
                    "*Show the ten largest values of ... as a chart.*"
                ),
            ]
        )
    else:
        _body = mo.callout(
            mo.md(
                f"There is no data here yet. Put CSV, TSV, Parquet, JSON or Excel files in "
                f"`{DATA_DIR}`, then ask about them in the chat. Monthly files named like "
                f"`25-03 sales.parquet` are read together as one table with a `period` column."
            ),
            kind="info",
        )
    welcome = mo.vstack(
        [
            mo.md("# Hailer workspace"),
            mo.md(f"Workspace: `{WORKSPACE}`  \nData folder: `{DATA_DIR}`"),
            _body,
        ]
    )
    welcome
    return (welcome,)


if __name__ == "__main__":
    app.run()
