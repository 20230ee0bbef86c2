"""Time per chart drawn in the kernel by hailer_kernel.charts, from marimo's own chart outputs.

Run with the kernel's Python (the managed environment or the test venv):
    python scripts/bench-charts.py [--runs 20]
Prints the first drawing in the process (the renderer starts), then the median and p95 of warm
drawings, for a 3-bar chart (SVG) and a 6,000-point scatter (PNG), beside the time marimo takes to
format the same chart (the floor every chart output costs anyway).
"""

from __future__ import annotations

import argparse
import statistics
import time

import altair as alt
import polars as pl
from hailer_kernel import charts
from marimo._output.formatters.formatters import register_formatters
from marimo._output.formatting import try_format


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    register_formatters()
    bars = alt.Chart(pl.DataFrame({"city": ["Oslo", "Lima", "Pune"], "n": [3, 1, 2]}))
    bars = bars.mark_bar().encode(x="city", y="n").properties(title="Rows per city")
    points = pl.DataFrame({"x": list(range(6000)), "y": [i % 97 for i in range(6000)]})
    scatter = alt.Chart(points).mark_point().encode(x="x", y="y")
    print(
        f"{'chart':<22}{'format ms':>12}{'first draw ms':>15}{'warm median ms':>16}{'warm p95 ms':>13}  picture"
    )
    for name, chart in (("3 bars", bars), ("6,000-point scatter", scatter)):
        output = try_format(chart)
        formats = [timed(lambda chart=chart: try_format(chart)) for _ in range(runs)]
        start = time.perf_counter()
        drawn = charts.render(output.mimetype, output.data)
        first = (time.perf_counter() - start) * 1000
        warm = sorted(
            timed(lambda output=output: charts.render(output.mimetype, output.data))
            for _ in range(runs)
        )
        image = drawn["image"] if drawn else None
        kind = (
            f"{image['mimetype']}, {len(image['dataUrl']) // 1024} KiB"
            if image
            else "none"
        )
        p95 = warm[max(0, round(0.95 * len(warm)) - 1)]
        print(
            f"{name:<22}{statistics.median(formats):>12.1f}{first:>15.1f}"
            f"{statistics.median(warm):>16.1f}{p95:>13.1f}  {kind}"
        )


if __name__ == "__main__":
    main()
