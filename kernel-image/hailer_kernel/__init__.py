"""Helpers for Hailer notebooks.

- ``hailer_kernel.charts``: charts in cell outputs, drawn as pictures for the chat.
- ``hailer_kernel.data``: list the data files under a folder.
- ``hailer_kernel.periods``: monthly ``YY-MM <dataset>.parquet`` files as one table.
- ``hailer_kernel.workspace``: find the workspace folder of a notebook.
- ``hailer_kernel.forward``: the TCP forwarder (``python -m hailer_kernel.forward``).
- ``hailer_kernel.probes``: containment probes run inside the kernel (``hailer doctor --probe``).

Nothing is imported here, so the forwarder starts without loading Polars or DuckDB.
"""

__version__ = "0.1.0"
