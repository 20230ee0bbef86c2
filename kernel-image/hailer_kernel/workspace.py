"""Find the workspace a notebook belongs to, and its data folder."""

from __future__ import annotations

import os
from pathlib import Path

#: A folder holding one of these files is a workspace.
WORKSPACE_MARKERS = ("hailer.toml", "pyproject.toml")


def find_workspace(notebook_dir: str | os.PathLike[str] | None = None) -> Path:
    """The workspace folder of a notebook that lives in ``notebook_dir``.

    That is the nearest folder, starting at ``notebook_dir`` and going up, that holds
    ``hailer.toml`` or ``pyproject.toml``. When there is none, it is the parent of ``notebook_dir``
    (notebooks usually sit in the workspace's ``notebooks/`` folder). ``None`` means the current
    folder. In the Docker kernel this gives ``/work``.
    """
    start = Path(notebook_dir if notebook_dir is not None else Path.cwd()).absolute()
    for folder in (start, *start.parents):
        if any(_is_file(folder / marker) for marker in WORKSPACE_MARKERS):
            return folder
    return start.parent


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


#: Set by Hailer when the data folder is not the workspace's ``data/`` folder.
DATA_DIR_VARIABLE = "HAILER_DATA_DIR"


def data_folder(workspace: str | os.PathLike[str]) -> Path:
    """The data folder of ``workspace``: ``$HAILER_DATA_DIR`` when set, else ``<workspace>/data``."""
    configured = os.environ.get(DATA_DIR_VARIABLE, "").strip()
    return Path(configured) if configured else Path(workspace) / "data"
