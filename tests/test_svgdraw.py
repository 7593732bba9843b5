"""The SVG writer (site_builder/site/svgdraw.py) and the charts drawn with it: ticks, log-scale
positions, every declared size labelled, determinism, escaping, well-formed SVG, the history
chart's spread band, and the vl-convert path kept for chart kinds the writer does not draw."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

from site_builder.site import charts, svgdraw

NS = "{http://www.w3.org/2000/svg}"


def _data(names, xs, base=10.0):
    rows = []
    for i, n in enumerate(names):
        for j, x in enumerate(xs):
            us = base * (2 ** j) * (1 + 0.07 * i)
            rows.append({"x": x, "us": us, "impl": n, "median": f"{us:.1f} µs", "rel": round(1 + 0.07 * i, 4),
                         "vs": ""})
    return sorted(rows, key=lambda d: (d["impl"], d["x"]))


def _svgs(html: str) -> list[ET.Element]:
    """The drawings in a chart's HTML (wide, then narrow), each parsed as XML: well-formed."""
    parts = re.findall(r"<svg\b.*?</svg>", html, flags=re.S)
    assert "".join(parts) == html  # nothing but the drawings
    return [ET.fromstring(p) for p in parts]


def _texts(svg: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in svg.iter(f"{NS}text")]


# --- ticks and scales ------------------------------------------------------------------------

def test_log_ticks_are_1_2_5_over_a_short_range_and_decades_over_a_long_one():
    major, minor = svgdraw.log_ticks(0.8, 12)
    assert major == [1, 2, 5, 10]
    assert 3 in minor and 0.9 in minor and not set(major) & set(minor)
    major, minor = svgdraw.log_ticks(3, 1e4)
    assert major == [10, 100, 1000, 10000]
    assert {20, 300, 9000} <= set(minor)
    major, _ = svgdraw.log_ticks(1e-3, 1e9)  # past 7 decades, every other decade is labelled
    assert major == [0.01, 1, 100, 1e4, 1e6, 1e8]
    major, _ = svgdraw.log_ticks(14, 28)  # inside one 1-2-5 step: round linear values
    assert len(major) >= 2 and all(14 <= v <= 28 for v in major)


def test_log_scale_positions_are_proportional_to_the_logarithm():
    s = svgdraw.Scale(1, 100, 0, 200, log=True)
    assert s(1) == 0 and s(100) == 200 and s(10) == pytest.approx(100)
    assert s(2) == pytest.approx(200 * math.log10(2) / 2)
    y = svgdraw.Scale(1, 1000, 300, 0, log=True)  # pixels grow downwards on a y axis
    assert y(1) == 300 and y(1000) == 0 and y(10) == pytest.approx(200)


def test_number_labels_and_linear_ticks():
    assert [svgdraw.number_label(v) for v in (1000, 20, 0.5, 0.02, 1.5)] == ["1,000", "20", "0.5", "0.02", "1.5"]
    assert svgdraw.linear_ticks(0.99, 1.3) == [1.0, 1.1, 1.2, 1.3]
    assert svgdraw.relative_axis([1.0, 1.04], "t").ticks[0][0] == 1.0  # the fastest sits on a labelled 1


def test_time_ticks_are_round_dates_or_hours():
    import datetime as dt

    t = lambda *a: dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()
    months = svgdraw.time_ticks(t(2026, 1, 1), t(2026, 12, 1), one_day=False)
    assert [s for _, s in months] == ["2026-01-01", "2026-03-01", "2026-05-01", "2026-07-01", "2026-09-01",
                                      "2026-11-01"]
    hours = svgdraw.time_ticks(t(2026, 12, 1, 8), t(2026, 12, 1, 13), one_day=True)
    assert [s for _, s in hours] == ["08:00", "09:00", "10:00", "11:00", "12:00", "13:00"]


# --- the scaling chart -----------------------------------------------------------------------

XS = [1024, 2048, 4096, 5120, 7168, 8192, 16384, 32768]


def _scaling(names=("A", "B", "base"), xs=XS, relative=False):
    data = _data(list(names), xs)
    look = charts.styles(sorted(names), "base")
    draw = charts.draw_relative if relative else charts.draw_scaling
    return draw(data, xs, "hidden", look, "label"), data, look


def test_every_declared_size_has_its_label_on_the_wide_drawing():
    html, _, _ = _scaling()
    wide, narrow = _svgs(html)
    assert wide.get("class") == "wide" and narrow.get("class") == "narrow"
    labels = _texts(wide)
    for x in XS:
        assert charts._axis_label(x) in labels, x
    assert "5120" in labels and "8k" in labels  # the ticks issue 20 found dropped
    assert int(narrow.get("width")) <= 340  # fits a 390 px phone at 1:1


def test_drawings_are_accessible_images_with_a_title():
    html, _, _ = _scaling()
    for svg in _svgs(html):
        assert svg.get("role") == "img"
        assert svg.find(f"{NS}title").text == "label"


def test_the_drawing_is_byte_deterministic():
    a, data, look = _scaling()
    b = charts.draw_scaling([dict(d) for d in data], list(XS), "hidden", dict(look), "label")
    assert a == b
    c = charts.chart("scaling", charts.scaling_spec, charts.draw_scaling, data=data, xs=XS, axis="hidden",
                     look=look, label="label")
    assert c.draw() == a and c.key == charts.chart("scaling", charts.scaling_spec, charts.draw_scaling, data=data,
                                                  xs=XS, axis="hidden", look=look, label="label").key


def test_names_are_escaped():
    nasty = 'a<b & "c"> \'d\''
    html, _, _ = _scaling(names=(nasty, "B", "base"))
    assert "<b &" not in html
    for svg in _svgs(html):  # parsed back, the name is the same text
        assert any(t.startswith("a<b & \"c") for t in _texts(svg))


def test_points_sit_where_the_log_scales_put_them():
    data = [{"x": x, "us": us, "impl": "A", "median": "", "rel": 1.0, "vs": ""}
            for x, us in ((1, 1.0), (4, 10.0), (16, 100.0))]
    look = charts.styles(["A"], None)
    wide = _svgs(charts.draw_scaling(data, [1, 4, 16], "n", look, "l"))[0]
    circles = [(float(c.get("cx")), float(c.get("cy"))) for c in wide.iter(f"{NS}circle")][:3]
    (x0, y0), (x1, y1), (x2, y2) = circles
    assert x1 - x0 == pytest.approx(x2 - x1, abs=0.11)  # 1, 4, 16: equal steps on a log x axis
    assert y0 - y1 == pytest.approx(y1 - y2, abs=0.11)  # 1, 10, 100 µs: equal steps on a log y axis
    assert y0 > y1 > y2  # slower is higher


def test_colours_dashes_and_shapes_follow_the_palette_with_the_baseline_grey():
    html, _, look = _scaling(names=[f"i{n:02d}" for n in range(12)] + ["base"])
    wide = _svgs(html)[0]
    strokes = [p.get("stroke") for p in wide.iter(f"{NS}path") if p.get("stroke-width") == "2" and p.get("fill") == "none"]
    assert set(charts.PALETTE) <= set(strokes) and charts.BASELINE_STYLE[0] in strokes
    dashes = {p.get("stroke-dasharray") for p in wide.iter(f"{NS}path") if p.get("stroke-width") == "2"}
    assert "12,4" in dashes and "6,3" in dashes


def test_the_spec_of_the_live_chart_has_the_drawings_axis_and_colours():
    _, data, look = _scaling()
    spec = charts.scaling_spec(data, XS, "hidden", look)
    axis = svgdraw.log_axis([d["us"] for d in data], charts.US_TITLE)
    assert spec["encoding"]["y"]["axis"]["values"] == [v for v, _ in axis.ticks]
    assert spec["encoding"]["y"]["scale"]["nice"] is False
    assert spec["encoding"]["color"]["scale"]["range"] == look["colours"]
    assert spec["encoding"]["strokeDash"]["scale"]["range"] == look["dashes"]


def test_relative_drawing_starts_at_one():
    html, _, _ = _scaling(relative=True)
    labels = _texts(_svgs(html)[0])
    assert "1" in labels and " ".join(labels).count("× the fastest at this size") == 1
    assert "(1 = fastest)" in " ".join(labels)


def test_a_narrow_drawing_of_many_sizes_turns_or_thins_its_labels():
    xs = [2 ** i for i in range(4, 28)]  # 24 sizes
    data = _data(["A"], xs, base=1.0)
    wide, narrow = _svgs(charts.draw_scaling(data, xs, "n", charts.styles(["A"], None), "l"))
    turned = [t for t in narrow.iter(f"{NS}text") if "rotate(" in (t.get("transform") or "")]
    assert turned  # labels turned to fit
    assert len([t for t in _texts(wide) if t in {charts._axis_label(x) for x in xs}]) == 24


# --- the history chart -----------------------------------------------------------------------

def _rows():
    rows = []
    for i, (day, name, us, rec) in enumerate([(1, "Fast <k>", 10.0, True), (2, "Slow", 14.0, False),
                                              (3, "Fast <k>", 9.0, True), (4, "Slow", 13.0, False)]):
        rows.append({"observed_at": f"2026-01-0{day}T10:00:00Z", "observed_label": f"2026-01-0{day}",
                     "time_us": us, "status": "ok", "name": name, "protocol": "p", "record_set": rec,
                     "p20_us": us * 0.97, "p80_us": us * 1.04, "baseline": name == "Slow",
                     "workload": "w", "hardware_name": "GPU"})
    return rows


def test_history_chart_draws_the_spread_band_and_each_results_spread():
    c = charts.history_chart(_rows())
    html = c.draw()
    for svg in _svgs(html):
        bands = [p for p in svg.iter(f"{NS}path") if p.get("class") == "band"]
        spreads = [p for p in svg.iter(f"{NS}path") if p.get("class") == "spread"]
        assert len(bands) == 1 and sum(p.get("d").count("M") for p in spreads) == 4  # one rule a result
        assert "standing record, p20–p80 band" in _texts(svg)
    spec = c.ensure_spec()
    assert spec["layer"][0]["mark"]["type"] == "area" and spec["layer"][0]["encoding"]["y2"]["field"] == "hi"
    assert spec["layer"][3]["encoding"]["color"]["scale"]["domain"] == ["Fast <k>", "Slow"]
    assert c.draw() == html


def test_history_without_spreads_draws_no_band():
    rows = [dict(r, p20_us=None, p80_us=None) for r in _rows()]
    html = charts.history_chart(rows).draw()
    assert 'class="band"' not in html and 'class="spread"' not in html


# --- the renderer path kept for other chart kinds ----------------------------------------------

def test_a_chart_without_draw_is_rendered_by_vl_convert_and_drawn_ones_are_cached():
    from site_builder.build.cache import ChartStore
    from site_builder.build.svg import render_charts

    data, look = _data(["A", "B", "C"], [1, 2, 4]), charts.styles(["A", "B", "C"], None)
    spec_only = charts.Chart("k", make=lambda: charts.altair_scaling_spec(data, [1, 2, 4], "n"))
    drawn = charts.chart("scaling", charts.scaling_spec, charts.draw_scaling, data=data, xs=[1, 2, 4], axis="n",
                         look=look, label="l")
    store = ChartStore(None)
    assert render_charts([spec_only, drawn], store, jobs=1) == 2
    assert spec_only.svg.startswith("<svg") and 'class="marks"' in spec_only.svg  # vl-convert's
    assert drawn.svg == drawn.draw() and drawn.spec is not None  # the page still embeds its spec
    again = charts.chart("scaling", charts.scaling_spec, charts.draw_scaling, data=data, xs=[1, 2, 4], axis="n",
                         look=look, label="l")
    assert render_charts([again], store, jobs=1) == 0 and again.svg == drawn.svg  # from the cache


def test_drawing_is_fast():
    import time

    _, data, look = _scaling(names=[f"i{n}" for n in range(8)])
    start = time.process_time()
    for _ in range(50):
        charts.draw_scaling(data, XS, "hidden", look, "l")
    per_chart = (time.process_time() - start) / 50
    assert per_chart < 0.01, per_chart  # about a millisecond here; vl-convert takes 15-25 ms


# --- the declaration of more scaling axes ----------------------------------------------------

@pytest.mark.parametrize("also, message", [
    ("[{axis: nope}]", "axis 'nope' is not a declared axis"),
    ("[{axis: m, together: [m]}]", "'m' is both the chart's axis and in `together`"),
    ("[{axis: m}, {axis: m}]", "a chart over 'm' is already declared"),
    ("[{axis: m, colour: red}]", "colour"),
])
def test_a_bad_scaling_axis_declaration_is_refused_with_its_file_and_line(second_copy, also, message):
    from site_builder.errors import RecordErrors
    from site_builder.records.load import load_catalog

    path = second_copy / "families" / "grouped-matvec.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("scaling: {axis: k}", f"scaling: {{axis: k, also: {also}}}"), encoding="utf-8")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith("scaling:"))
    with pytest.raises(RecordErrors) as info:
        load_catalog(second_copy)
    shown = [str(p) for p in info.value.problems]
    assert any(message in p and f"grouped-matvec.yaml:{line}" in p for p in shown), shown


def test_a_declared_scaling_axis_is_read(second_copy):
    from site_builder.records.load import load_catalog

    path = second_copy / "families" / "grouped-matvec.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(
        "scaling: {axis: k}", 'scaling: {axis: k, also: [{axis: m, title: "decode sizes"}]}'), encoding="utf-8")
    family = load_catalog(second_copy).families["grouped-matvec"]
    assert charts.scaling_views(family) == [("k", (), None), ("m", (), "decode sizes")]
