"""The notebook templates, run the way marimo runs a notebook as a script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from hailer_kernel.workspace import data_folder, find_workspace

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
TIMEOUT = 120

# Runs a notebook's app in a child Python and prints what a person would look at, as JSON.
_REPORT = r"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("notebook", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
outputs, defs = module.app.run()
print(json.dumps({
    "workspace": str(defs["WORKSPACE"]),
    "data_dir": str(defs["DATA_DIR"]),
    "data_files": [f.name for f in defs["data_files"]],
    "period_files": [[f.dataset, f.period] for f in defs["period_files"]],
    "welcome": defs["welcome"].text,
    "names": sorted(k for k in defs if not k.startswith("_")),
}))
"""


def make_workspace(root: Path, template: str = "starter.py", *, marker: bool = True) -> Path:
    (root / "notebooks").mkdir(parents=True)
    if marker:
        (root / "hailer.toml").write_text("")
    notebook = root / "notebooks" / "analysis.py"
    shutil.copyfile(TEMPLATES / template, notebook)
    return notebook


def run_as_script(notebook: Path, workspace: Path, env: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, str(notebook.relative_to(workspace))],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    assert "Error" not in result.stderr, result.stderr


def report(notebook: Path, env: dict[str, str], cwd: Path) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", _REPORT, str(notebook)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_starter_runs_with_data(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    workspace = tmp_path / "ws"
    notebook = make_workspace(workspace)
    data = workspace / "data"
    data.mkdir()
    pl.DataFrame({"region": ["n"], "amount": [1]}).write_parquet(data / "25-01 sales.parquet")
    pl.DataFrame({"region": ["n"], "amount": [2]}).write_parquet(data / "25-02 sales.parquet")
    pl.DataFrame({"sheet": ["a"]}).write_excel(data / "budget.xlsx", worksheet="Budget")
    (data / "notes").mkdir()
    (data / "notes" / "targets.csv").write_text("target\n10\n")

    run_as_script(notebook, workspace, subprocess_env)
    seen = report(notebook, subprocess_env, cwd=tmp_path)

    assert seen["workspace"] == str(workspace)
    assert seen["data_dir"] == str(data)
    assert seen["data_files"] == [
        "25-01 sales.parquet",
        "25-02 sales.parquet",
        "budget.xlsx",
        "notes/targets.csv",
    ]
    assert seen["period_files"] == [["sales", "2025-01"], ["sales", "2025-02"]]
    welcome = seen["welcome"]
    assert "Hailer workspace" in welcome
    assert str(data) in welcome
    assert "4 data files" in welcome
    assert "notes/targets.csv" in welcome and "2025-02" in welcome
    assert "There is no data here yet" not in welcome
    for name in ("mo", "pl", "duckdb", "Path", "load_periods", "describe_periods", "scan_periods"):
        assert name in seen["names"]


def test_starter_runs_without_data(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    workspace = tmp_path / "empty workspace"
    notebook = make_workspace(workspace)

    run_as_script(notebook, workspace, subprocess_env)
    seen = report(notebook, subprocess_env, cwd=tmp_path)

    assert seen["data_dir"] == str(workspace / "data")
    assert seen["data_files"] == [] and seen["period_files"] == []
    assert "There is no data here yet" in seen["welcome"]
    assert "25-03 sales.parquet" in seen["welcome"]


def test_starter_follows_the_configured_data_folder(
    tmp_path: Path, subprocess_env: dict[str, str]
) -> None:
    workspace = tmp_path / "ws"
    notebook = make_workspace(workspace, marker=False)
    elsewhere = tmp_path / "shared data"
    elsewhere.mkdir()
    (elsewhere / "a.csv").write_text("x\n1\n")
    seen = report(notebook, dict(subprocess_env, HAILER_DATA_DIR=str(elsewhere)), cwd=tmp_path)
    assert seen["workspace"] == str(workspace)  # no marker: the notebooks folder's parent
    assert seen["data_dir"] == str(elsewhere)
    assert seen["data_files"] == ["a.csv"]


def test_empty_template_runs(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    notebook = make_workspace(tmp_path, "empty.py")
    run_as_script(notebook, tmp_path, subprocess_env)


@pytest.mark.parametrize("template", ["starter.py", "empty.py"])
def test_templates_pass_marimos_own_check(template: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "marimo", "check", "--strict", str(TEMPLATES / template)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    text = (TEMPLATES / template).read_text()
    assert "import marimo" in text and 'marimo.App(width="medium")' in text
    assert '__generated_with = "0.24.2"' in text


def test_workspace_is_the_nearest_folder_with_a_marker(tmp_path: Path) -> None:
    nested = tmp_path / "project" / "notebooks" / "q3"
    nested.mkdir(parents=True)
    assert find_workspace(nested) == nested.parent  # no marker anywhere: the parent
    (tmp_path / "project" / "pyproject.toml").write_text("")
    assert find_workspace(nested) == tmp_path / "project"
    (tmp_path / "project" / "notebooks" / "hailer.toml").write_text("")
    assert find_workspace(nested) == tmp_path / "project" / "notebooks"
    (nested / "hailer.toml").mkdir()  # a folder with the name is no marker
    assert find_workspace(nested) == tmp_path / "project" / "notebooks"


def test_data_folder_default_and_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HAILER_DATA_DIR", raising=False)
    assert data_folder(tmp_path) == tmp_path / "data"
    monkeypatch.setenv("HAILER_DATA_DIR", "  ")
    assert data_folder(tmp_path) == tmp_path / "data"
    monkeypatch.setenv("HAILER_DATA_DIR", "/srv/data")
    assert data_folder(tmp_path) == Path("/srv/data")
