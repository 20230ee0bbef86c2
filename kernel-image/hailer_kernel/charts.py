"""Charts in cell outputs, turned into pictures a chat can show next to the answer.

The daemon asks for these after code that writes or runs cells: :func:`digest` tells which cells
hold a chart (and whether it changed), :func:`render` draws one. Altair charts (Vega-Lite or Vega
specs, as marimo formats them) are drawn with ``vl-convert``, offline and without a browser;
Plotly figures are only named, since their static export needs a browser. A chart that cannot be
drawn (data behind a URL the kernel cannot reach, a spec ``vl-convert`` refuses) keeps its title
and cell, with no picture.

Drawing runs in a child process (:mod:`hailer_kernel.chart_drawing`): ``vl-convert`` aborts the
process it runs in on some input, and that must never be the kernel. Control characters, which
are what it aborts on when written in a spec, are removed from the spec's text first, so such a
chart is still drawn.
"""

from __future__ import annotations

import base64
import hashlib
import html
import importlib.util
import json
import re
import time
from typing import Any, TypedDict

from hailer_kernel.chart_drawing import Drawer

VEGA_LITE = "application/vnd.vegalite."
VEGA = "application/vnd.vega."
MIMEBUNDLE = "application/vnd.marimo+mimebundle"
PLOTLY_ELEMENT = "<marimo-plotly"
# Larger SVGs (many marks) are drawn as PNG instead; larger PNGs are not sent at all.
SVG_LIMIT = 512 * 1024
PNG_LIMIT = 1024 * 1024
# A chart with more inline rows than this is drawn as PNG at once: its SVG would be too large.
SVG_ROWS = 2000
PLOTLY_FIGURE = re.compile(r"data-figure='([^']*)'")
# Control characters other than tab and line breaks: vl-convert aborts on them.
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")

_drawer = Drawer()


class Picture(TypedDict):
    mimetype: str
    dataUrl: str
    renderMs: int


class Chart(TypedDict):
    library: str
    title: str | None
    image: Picture | None


def _as_text(data: Any) -> str:
    return data if isinstance(data, str) else json.dumps(data, sort_keys=True)


def _bundle(data: Any) -> dict[str, Any]:
    if isinstance(data, dict):
        return data
    try:
        parsed = json.loads(data)
    except (TypeError, ValueError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _spec_of(mimetype: str, data: Any) -> tuple[str, Any] | None:
    """The Vega or Vega-Lite spec in an output: (``vega-lite`` or ``vega``, the spec)."""
    if mimetype == MIMEBUNDLE:
        for key, value in _bundle(data).items():
            found = _spec_of(key, value)
            if found is not None:
                return found
        return None
    if mimetype.startswith(VEGA_LITE):
        kind = "vega-lite"
    elif mimetype.startswith(VEGA):
        kind = "vega"
    else:
        return None
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError:
            return None
    return (kind, data) if isinstance(data, dict) else None


def library(mimetype: str, data: Any) -> str | None:
    """``altair`` or ``plotly`` when the output is a chart, else None."""
    if _spec_of(mimetype, data) is not None:
        return "altair"
    if mimetype == "text/html" and isinstance(data, str) and PLOTLY_ELEMENT in data:
        return "plotly"
    return None


def digest(mimetype: str, data: Any) -> str | None:
    """A short fingerprint of a chart output (None when the output is no chart)."""
    if library(mimetype, data) is None:
        return None
    text = f"{mimetype}\0{_as_text(data)}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _title_text(title: Any) -> str | None:
    if isinstance(title, str):
        return title.strip() or None
    if isinstance(title, list):
        return " ".join(str(part) for part in title).strip() or None
    if isinstance(title, dict):
        return _title_text(title.get("text"))
    return None


def _spec_title(spec: dict[str, Any]) -> str | None:
    title = _title_text(spec.get("title"))
    if title:
        return title
    # A layered or concatenated chart may carry its title on its first part.
    for key in ("layer", "hconcat", "vconcat", "concat"):
        parts = spec.get(key)
        if isinstance(parts, list):
            for part in parts:
                if isinstance(part, dict) and (title := _spec_title(part)):
                    return title
    return None


def _plotly_title(data: str) -> str | None:
    match = PLOTLY_FIGURE.search(data)
    if match is None:
        return None
    try:
        figure = json.loads(html.unescape(match.group(1)))
    except ValueError:
        return None
    layout = figure.get("layout") if isinstance(figure, dict) else None
    return _title_text(layout.get("title")) if isinstance(layout, dict) else None


def _data_url(mimetype: str, payload: bytes) -> str:
    return f"data:{mimetype};base64,{base64.b64encode(payload).decode('ascii')}"


def _fetches(value: Any) -> bool:
    """Whether a spec loads anything by URL (other than inline ``data:`` URLs)."""
    if isinstance(value, dict):
        url = value.get("url")
        if isinstance(url, str) and not url.startswith("data:"):
            return True
        return any(_fetches(item) for item in value.values())
    if isinstance(value, list):
        return any(_fetches(item) for item in value)
    return False


def _inline_rows(spec: dict[str, Any]) -> int:
    """The rows a spec carries inline (Altair puts them under ``datasets``)."""
    rows = 0
    datasets = spec.get("datasets")
    if isinstance(datasets, dict):
        rows += sum(len(values) for values in datasets.values() if isinstance(values, list))
    data = spec.get("data")
    if isinstance(data, dict) and isinstance(data.get("values"), list):
        rows += len(data["values"])
    return rows


def without_controls(value: Any) -> Any:
    """``value`` (a parsed spec) with control characters removed from every text in it."""
    if isinstance(value, str):
        return CONTROL.sub("", value)
    if isinstance(value, dict):
        return {without_controls(key): without_controls(item) for key, item in value.items()}
    if isinstance(value, list):
        return [without_controls(item) for item in value]
    return value


def picture(kind: str, spec: dict[str, Any]) -> Picture | None:
    """The spec drawn as SVG (PNG when the SVG is too large), or None when it cannot be.

    A spec that loads data by URL is not drawn: drawing never reaches out of the kernel, and a
    chart whose data did not load would be drawn empty.
    """
    if _fetches(spec) or importlib.util.find_spec("vl_convert") is None:
        return None
    spec = without_controls(spec)
    start = time.perf_counter()
    svg = _drawer.draw(kind, spec, "svg") if _inline_rows(spec) <= SVG_ROWS else ""
    if svg is None:
        return None
    if isinstance(svg, str) and svg and len(svg) <= SVG_LIMIT:
        mimetype, payload = "image/svg+xml", svg.encode("utf-8")
    else:
        png = _drawer.draw(kind, spec, "png")
        if not isinstance(png, bytes) or len(png) > PNG_LIMIT:
            return None
        mimetype, payload = "image/png", png
    elapsed = round((time.perf_counter() - start) * 1000)
    return {"mimetype": mimetype, "dataUrl": _data_url(mimetype, payload), "renderMs": elapsed}


def render(mimetype: str, data: Any) -> Chart | None:
    """The chart in an output, drawn where it can be; None when the output is no chart."""
    found = _spec_of(mimetype, data)
    if found is not None:
        kind, spec = found
        title = _spec_title(spec)
        return {
            "library": "altair",
            "title": title if title is None else CONTROL.sub("", title),
            "image": picture(kind, spec),
        }
    if library(mimetype, data) == "plotly":
        return {"library": "plotly", "title": _plotly_title(data), "image": None}
    return None
