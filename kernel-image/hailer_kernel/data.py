"""Find the data files under a folder: what they are called, what kind they are, how big.

Only the standard library is used here; ``data_files_table`` imports Polars when it is called.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hailer_kernel.errors import DataFolderError

if TYPE_CHECKING:
    import polars as pl

#: File suffix (lower case) -> kind of data file.
DATA_KINDS: dict[str, str] = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".xlsx": "excel",
    ".xls": "excel",
    ".xlsb": "excel",
    ".arrow": "arrow",
    ".feather": "arrow",
    ".ipc": "arrow",
}

#: How deep below the data folder files are looked for (the folder itself is depth 0).
DEFAULT_MAX_DEPTH = 4

#: At most this many files are listed, so a huge folder cannot stall a notebook.
DEFAULT_LIMIT = 5000

# Folders that hold tool state rather than data.
_SKIPPED_FOLDERS = frozenset({"__pycache__", "__marimo__", "node_modules", "site-packages"})


@dataclass(frozen=True)
class DataFile:
    """One data file found under the data folder."""

    path: Path
    """Where the file is."""
    name: str
    """Its path relative to the data folder, with ``/`` between folders."""
    kind: str
    """One of ``csv tsv parquet json jsonl excel arrow``."""
    size: int
    """Size in bytes."""

    @property
    def size_text(self) -> str:
        """The size for people, such as ``1.4 MB``."""
        return human_size(self.size)


def data_kind(name: str | os.PathLike[str]) -> str | None:
    """The kind of data file ``name`` is, judged by its suffix, or ``None``."""
    return DATA_KINDS.get(Path(name).suffix.lower())


def human_size(size: int) -> str:
    """``size`` bytes in decimal units, such as ``512 B``, ``1.4 MB``, ``12 GB``."""
    if size < 1000:
        return f"{max(size, 0)} B"
    value = float(size)
    text = ""
    for unit in ("kB", "MB", "GB", "TB", "PB"):
        value /= 1000
        text = f"{value:.1f} {unit}" if round(value, 1) < 100 else f"{value:.0f} {unit}"
        if round(value) < 1000:
            break
    return text


def list_data_files(
    folder: str | os.PathLike[str],
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    limit: int = DEFAULT_LIMIT,
) -> list[DataFile]:
    """List the data files under ``folder``, sorted by name.

    Hidden files and folders (names starting with ``.``), Excel's ``~$`` lock files and tool folders
    are left out, and links to folders are not followed. A folder that does not exist has no data
    files; a path that is a file, or a folder that cannot be read, raises ``DataFolderError``.
    """
    root = Path(folder)
    if not root.exists():
        return []
    if not root.is_dir():
        raise DataFolderError(f"{root} is a file, not a folder: point the data folder at a folder.")
    try:
        os.scandir(root).close()
    except OSError as err:
        raise DataFolderError(
            f"Cannot read the data folder {root}: {err.strerror or err}. "
            "Check that it exists and that you may read it."
        ) from err

    found: list[DataFile] = []
    pending: list[tuple[Path, str, int]] = [(root, "", 0)]
    while pending and len(found) < limit:
        folder_path, prefix, depth = pending.pop()
        try:
            entries = list(os.scandir(folder_path))
        except OSError:
            continue  # an unreadable sub-folder is skipped, the rest is still listed
        for entry in entries:
            name = entry.name
            if name.startswith((".", "~$")):
                continue
            relative = f"{prefix}{name}"
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth < max_depth and name not in _SKIPPED_FOLDERS:
                        pending.append((Path(entry.path), f"{relative}/", depth + 1))
                    continue
                kind = data_kind(name)
                if kind is None or not entry.is_file():
                    continue
                size = entry.stat().st_size
            except OSError:
                continue  # a broken link or a file removed while listing
            found.append(DataFile(path=Path(entry.path), name=relative, kind=kind, size=size))
    found.sort(key=lambda f: (f.name.casefold(), f.name))
    return found[:limit]


def data_files_table(files: list[DataFile]) -> pl.DataFrame:
    """The files as a Polars table with columns ``file``, ``kind``, ``size`` and ``bytes``."""
    import polars as pl

    return pl.DataFrame(
        {
            "file": [f.name for f in files],
            "kind": [f.kind for f in files],
            "size": [f.size_text for f in files],
            "bytes": [f.size for f in files],
        },
        schema={"file": pl.String, "kind": pl.String, "size": pl.String, "bytes": pl.Int64},
    )
