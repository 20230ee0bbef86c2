"""Shared fixtures, and a loud failure when the test Python lacks the kernel's packages."""

from __future__ import annotations

import importlib.metadata
import os
import sys
from pathlib import Path

import pytest

KERNEL_IMAGE = Path(__file__).resolve().parent.parent
MARIMO_VERSION = "0.24.2"

_HOW_TO_GET_IT = (
    "Run scripts/test-prereqs.sh from the repository root, then run the tests with the Python it "
    'prints: . .cache/test-env.sh && "$HAILER_TEST_PYTHON" -m pytest kernel-image'
)


def pytest_sessionstart(session: pytest.Session) -> None:
    missing = []
    for package in ("marimo", "polars", "duckdb", "pyarrow", "fastexcel", "xlsxwriter"):
        try:
            importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            missing.append(package)
    if missing:
        raise pytest.UsageError(
            f"{sys.executable} lacks {', '.join(missing)}, which these tests need. {_HOW_TO_GET_IT}"
        )
    found = importlib.metadata.version("marimo")
    if found != MARIMO_VERSION:
        raise pytest.UsageError(
            f"{sys.executable} has marimo {found}; the kernel is pinned to {MARIMO_VERSION}. "
            f"{_HOW_TO_GET_IT}"
        )


@pytest.fixture
def subprocess_env() -> dict[str, str]:
    """The environment for child Pythons: this checkout's hailer_kernel first on the path."""
    env = {k: v for k, v in os.environ.items() if k != "HAILER_DATA_DIR"}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(KERNEL_IMAGE), env.get("PYTHONPATH", "")) if p
    )
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env
