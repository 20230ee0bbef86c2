"""Charts found in cell outputs and drawn as pictures, from the outputs marimo really makes."""

from __future__ import annotations

import base64
import json

import altair as alt
import plotly.graph_objects as go
import polars as pl
import pytest
from marimo._output.formatting import try_format

from hailer_kernel import charts


def _formatted(value):
    """The (mimetype, data) marimo stores as a cell's output for `value`."""
    from marimo._output.formatters.formatters import register_formatters

    register_formatters()
    output = try_format(value)
    return output.mimetype, output.data


def _bar_chart(title: str | None = "Rows per city") -> alt.Chart:
    frame = pl.DataFrame({"city": ["Oslo", "Lima", "Pune"], "n": [3, 1, 2]})
    chart = alt.Chart(frame).mark_bar().encode(x="city", y="n")
    return chart.properties(title=title) if title else chart


def test_an_altair_chart_is_drawn_as_svg_with_its_title():
    mimetype, data = _formatted(_bar_chart())
    assert charts.library(mimetype, data) == "altair"
    chart = charts.render(mimetype, data)
    assert chart is not None
    assert chart["library"] == "altair"
    assert chart["title"] == "Rows per city"
    image = chart["image"]
    assert image is not None
    assert image["mimetype"] == "image/svg+xml"
    prefix = "data:image/svg+xml;base64,"
    assert image["dataUrl"].startswith(prefix)
    svg = base64.b64decode(image["dataUrl"][len(prefix) :]).decode()
    assert svg.startswith("<svg")
    # the bars' labels are in the picture
    for city in ("Oslo", "Lima", "Pune"):
        assert city in svg
    assert image["renderMs"] >= 0


def test_titles_come_from_objects_lists_and_layers():
    assert charts._spec_title({"title": {"text": "Sales"}}) == "Sales"
    assert charts._spec_title({"title": ["Two", "lines"]}) == "Two lines"
    assert charts._spec_title({"layer": [{"mark": "bar"}, {"title": "Inner"}]}) == "Inner"
    assert charts._spec_title({"mark": "bar"}) is None
    mimetype, data = _formatted(_bar_chart(title=None) + _bar_chart(title="Layered"))
    rendered = charts.render(mimetype, data)
    assert rendered is not None
    assert rendered["title"] == "Layered"


def test_a_chart_whose_data_cannot_be_reached_keeps_its_title_without_a_picture():
    spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
        "title": "Remote",
        "data": {"url": "http://192.0.2.1:9/unreachable.csv"},
        "mark": "bar",
        "encoding": {"x": {"field": "a", "type": "nominal"}},
    }
    chart = charts.render("application/vnd.vegalite.v6+json", json.dumps(spec))
    assert chart is not None
    assert chart["title"] == "Remote"
    assert chart["image"] is None


def test_a_large_chart_is_drawn_as_png():
    frame = pl.DataFrame({"x": list(range(6000)), "y": [i % 97 for i in range(6000)]})
    chart = alt.Chart(frame).mark_point().encode(x="x", y="y")
    mimetype, data = _formatted(chart)
    rendered = charts.render(mimetype, data)
    assert rendered is not None
    image = rendered["image"]
    assert image is not None
    assert image["mimetype"] == "image/png"
    assert image["dataUrl"].startswith("data:image/png;base64,")
    assert charts._inline_rows(json.loads(data)) == 6000


def test_plotly_figures_are_named_without_a_picture():
    import plotly.io as pio
    from marimo._output.formatters.plotly_formatters import PlotlyFormatter

    figure = go.Figure(go.Bar(x=["a", "b"], y=[1, 2]))
    figure.update_layout(title={"text": "Plotly bars"})
    # What marimo's formatter gives inside a running notebook (outside one it gives an iframe).
    mimetype = "text/html"
    data = PlotlyFormatter.render_plotly_dict(json.loads(pio.to_json(figure))).text
    assert charts.library(mimetype, data) == "plotly"
    assert charts.render(mimetype, data) == {
        "library": "plotly",
        "title": "Plotly bars",
        "image": None,
    }


@pytest.mark.parametrize(
    ("mimetype", "data"),
    [
        ("text/plain", "42"),
        ("text/html", "<pre>42</pre>"),
        ("application/vnd.vegalite.v6+json", "not json"),
        ("application/vnd.vegalite.v6+json", "[1, 2]"),
        ("application/vnd.marimo+mimebundle", "{"),
        ("application/vnd.marimo+mimebundle", json.dumps({"text/plain": "x"})),
        ("image/png", "data:image/png;base64,AAAA"),
    ],
)
def test_other_outputs_are_no_charts(mimetype, data):
    assert charts.library(mimetype, data) is None
    assert charts.digest(mimetype, data) is None
    assert charts.render(mimetype, data) is None


def test_digests_tell_charts_apart_and_stay_the_same_for_the_same_chart():
    first = _formatted(_bar_chart("One"))
    again = _formatted(_bar_chart("One"))
    other = _formatted(_bar_chart("Two"))
    assert charts.digest(*first) == charts.digest(*again)
    assert charts.digest(*first) != charts.digest(*other)
    assert len(charts.digest(*first) or "") == 32


def test_a_mimebundle_with_a_spec_is_a_chart():
    spec = _bar_chart().to_dict()
    bundle = json.dumps({"application/vnd.vegalite.v6+json": spec, "text/plain": "chart"})
    rendered = charts.render("application/vnd.marimo+mimebundle", bundle)
    assert rendered is not None
    assert rendered["title"] == "Rows per city"
    assert rendered["image"] is not None


def _spec_with(title: str, transform: list | None = None) -> dict:
    spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
        "title": title,
        "data": {"values": [{"city": "Os\x01lo", "n": 3}, {"city": "Lima", "n": 1}]},
        "mark": "bar",
        "encoding": {"x": {"field": "city", "type": "nominal"}, "y": {"field": "n"}},
    }
    if transform:
        spec["transform"] = transform
    return spec


def test_control_characters_in_titles_and_labels_are_removed_and_the_chart_drawn():
    chart = charts.render("application/vnd.vegalite.v6+json", json.dumps(_spec_with("Ci\x01ties")))
    assert chart is not None
    assert chart["title"] == "Cities"
    image = chart["image"]
    assert image is not None
    svg = base64.b64decode(image["dataUrl"].split(",", 1)[1]).decode()
    assert "Oslo" in svg
    assert "\x01" not in svg


def test_a_spec_that_aborts_the_drawing_process_leaves_this_process_and_the_next_chart_drawn():
    # The expression makes the control character while drawing: no text in the spec holds it.
    aborting = _spec_with("Made", [{"calculate": "'a\\x01b'", "as": "label"}])
    aborting["encoding"]["x"]["field"] = "label"
    chart = charts.render("application/vnd.vegalite.v6+json", json.dumps(aborting))
    assert chart is not None
    assert chart["title"] == "Made"
    assert chart["image"] is None
    after = charts.render("application/vnd.vegalite.v6+json", json.dumps(_spec_with("After")))
    assert after is not None
    assert after["image"] is not None
