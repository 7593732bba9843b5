"""Charts: drawn to inline SVG at build time (no JavaScript, no network), with a Vega-Lite
spec beside them for the optional interactive view (tooltips).

A chart on a page model is a `Chart`: the key of what it draws (its data, titles and the chart
code's version), how to make its spec, and, for the site's own kinds (scaling, relative,
history), how to draw it with the SVG writer in svgdraw.py (about a millisecond a chart). A
chart with no `draw` is rendered from its spec by vl-convert (build/svg.py): any other kind of
chart (say a roofline) works through the same interface. Specs and drawings are made only when
their page is rendered, through a cache keyed by the chart's key or the spec's hash.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Callable

from ..derive.entries import Entry
from ..records.schema import DTYPE_SHORT
from . import svgdraw
from .filters import fmt_us

WIDTH, HEIGHT = 560, 280
VERSION = "charts-4"  # bump when a chart's look changes: every page with a chart is rendered again


# Up to 12 implementations plus the baseline stay apart: 12 hues of spread lightness (so they stay
# apart in grey too), each with its own dash pattern and point shape; the baseline is always the
# neutral grey with a long dash.
PALETTE = ["#0b5cad", "#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e",
           "#a6761d", "#1f78b4", "#b2182b", "#35978f", "#5e3c99", "#e6ab02"]
DASHES = [[1, 0], [6, 3], [2, 2], [8, 3, 2, 3], [4, 2, 1, 2], [10, 4], [1, 3], [6, 2, 2, 2, 2, 2],
          [12, 3, 3, 3], [3, 3, 8, 3], [5, 5], [2, 4, 6, 4]]
SHAPES = ["circle", "square", "diamond", "triangle-up", "triangle-down", "cross", "triangle-right",
          "triangle-left", "wedge", "arrow", "stroke", "M-1,-1H1V1H-1Z"]
BASELINE_STYLE = ("#777777", [12, 4], "M-1,-0.35H1V0.35H-1Z")  # a bar: no other line has it


def styles(names: list[str], baseline: str | None) -> dict:
    """Colour, dash and shape scales for the implementations `names` (sorted, baseline last)."""
    others = [n for n in names if n != baseline]
    domain = others + ([baseline] if baseline in names else [])
    pick = lambda seq, i: seq[i % len(seq)]
    colours = [pick(PALETTE, i) for i in range(len(others))]
    dashes = [pick(DASHES, i) for i in range(len(others))]
    shapes = [pick(SHAPES, i) for i in range(len(others))]
    if baseline in names:
        colours.append(BASELINE_STYLE[0]); dashes.append(BASELINE_STYLE[1]); shapes.append(BASELINE_STYLE[2])
    return {"domain": domain, "colours": colours, "dashes": dashes, "shapes": shapes}


def digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
                          .encode()).hexdigest()


@dataclass(eq=False)
class Chart:
    key: str  # hash of the chart's inputs: equal keys draw the same chart
    make: Callable[[], dict] | None = field(repr=False)  # its Vega-Lite spec (None: no spec)
    spec: dict | None = None
    svg: str | None = None
    draw: Callable[[], str] | None = field(default=None, repr=False)  # its SVG, drawn here (None: vl-convert)

    def ensure_spec(self) -> dict | None:
        if self.spec is None and self.make is not None:
            self.spec = self.make()
        return self.spec


def chart(kind: str, make=None, draw=None, **inputs) -> Chart:
    """A chart of `kind` from `inputs`: `make(**inputs)` its spec, `draw(**inputs)` its SVG."""
    return Chart(digest([VERSION, kind, inputs]), partial(make, **inputs) if make else None,
                 draw=partial(draw, **inputs) if draw else None)


def _axis_label(value: int) -> str:
    return f"{value // 1024}k" if value >= 8192 and value % 1024 == 0 else str(value)


#: Most labelled ticks on a chart's x axis. Each is one case of the label expression, which Vega
#: parses recursively: 2,000 cases overflow its stack. Beyond this, ticks are spread evenly.
MAX_TICKS = 24


def axis_ticks(xs: list[int]) -> list[int]:
    """The sizes that get a labelled tick: all of them, or MAX_TICKS spread over them (first and last kept)."""
    if len(xs) <= MAX_TICKS:
        return list(xs)
    step = (len(xs) - 1) / (MAX_TICKS - 1)
    return sorted({xs[round(i * step)] for i in range(MAX_TICKS)})


def _label_expr(xs: list[int]) -> str:
    cases = " : ".join(f"datum.value == {x} ? '{_axis_label(x)}'" for x in xs)
    return f"{cases} : ''"


def scaling_views(family) -> list[tuple[str, tuple[str, ...], str | None]]:
    """The axes a family's scaling charts are drawn over: (axis, axes that change with it, title)."""
    return [(family.scaling.axis, (), None),
            *((v.axis, tuple(sorted(v.together)), v.title) for v in family.scaling.also)]


def scaling_charts(family, entries) -> list[dict]:
    """One chart per scaling axis the family declares (its `scaling.axis`, then each of
    `scaling.also`) and per (workload kind, hardware, protocol, values held constant) with at
    least three sizes; a family with more than one kind gets one chart per kind present. Each
    comes with a second, relative view: every median over the fastest at that size (1 = the
    fastest), so implementations within a few per cent stay apart. Every size the family
    declares for the group is labelled on the axis."""
    views = scaling_views(family)
    kinds_named = any(w.kind != "forward" for w in family.workloads)
    baseline = next((e.implementation.name for e in entries if e.implementation.id == family.baseline), None)
    eligible = [e for e in entries if e.eligible]
    charts = []
    for axis, together, view_title in views:
        free = {axis, *together}
        groups: dict[tuple, list[Entry]] = defaultdict(list)
        for e in eligible:
            if axis not in e.workload.sizes:
                continue
            held = tuple((a, v) for a, v in sorted(e.workload.sizes.items()) if a not in free)
            groups[(e.workload.kind, e.hardware.id, e.run.protocol.id, held, e.workload.dtype)].append(e)
        for (kind, hw, proto, held, dtype), group in sorted(groups.items()):
            measured = sorted({e.workload.sizes[axis] for e in group})
            if len(measured) < 3:  # two sizes are not a scaling curve; the leaderboards hold them
                continue
            declared = {w.sizes[axis] for w in family.workloads
                        if w.kind == kind and w.dtype == dtype and axis in w.sizes
                        and tuple((a, v) for a, v in sorted(w.sizes.items()) if a not in free) == held}
            xs = sorted(declared | set(measured))
            best = {}
            for e in group:
                x = e.workload.sizes[axis]
                best[x] = min(best.get(x, e.time_us), e.time_us)
            data = sorted(({"x": e.workload.sizes[axis], "us": e.time_us, "impl": e.implementation.name,
                            "median": fmt_us(e.time_us), "rel": round(e.time_us / best[e.workload.sizes[axis]], 4),
                            "vs": f"{e.time_us / best[e.workload.sizes[axis]]:.3f}×"}
                           for e in group), key=lambda d: (d["impl"], d["x"]))
            held_text = " · ".join([*(f"{a} = {v}" for a, v in held), DTYPE_SHORT.get(dtype, dtype)])
            title = f"{group[0].hardware.name} · {proto} · {held_text}" + (f" · {kind}" if kinds_named else "")
            table_impls = sorted({d["impl"] for d in data})
            look = styles(table_impls, baseline)
            lookup = {(d["impl"], d["x"]): d["us"] for d in data}
            over = f"{axis}" + (f" (with {', '.join(together)})" if together else "")
            label = f"Median latency against {over}, log scales, {len(table_impls)} implementations: {title}"
            primary = axis == views[0][0] and not together
            charts.append({
                "title": title, "hardware": hw, "protocol": proto, "axis": axis, "kind": kind,
                "together": list(together), "view": view_title, "primary": primary,
                # the live (JS) view only for the family's own axis: a spec on the page for each
                # chart of the other axes would push a family page over its weight budget
                "chart": chart("scaling", scaling_spec if primary else None, draw_scaling, data=data, xs=xs,
                               axis=axis, look=look, label=label),
                "relative": chart("relative", None, draw_relative, data=data, xs=xs, axis=axis, look=look,
                                  label=f"Each median over the fastest at its {axis}: {title}"),
                "unmeasured": [x for x in xs if x not in measured],
                "table": {"xs": xs, "rows": [{"name": n, "cells": [lookup.get((n, x)) for x in xs]}
                                             for n in table_impls]},
            })
    return charts


US_TITLE = "median latency (µs, log scale)"
REL_TITLE = "× the fastest at this size (1 = fastest)"


def _x_axis(xs: list[int], axis: str) -> svgdraw.Axis:
    return svgdraw.size_axis(xs, axis_ticks(xs), _axis_label, f"{axis} →")


def draw_scaling(data: list[dict], xs: list[int], axis: str, look: dict, label: str = "") -> str:
    return svgdraw.lines_chart(data=data, x=_x_axis(xs, axis), y=svgdraw.log_axis([d["us"] for d in data], US_TITLE),
                               value="us", look=look, label=label)


def draw_relative(data: list[dict], xs: list[int], axis: str, look: dict, label: str = "") -> str:
    return svgdraw.lines_chart(data=data, x=_x_axis(xs, axis), y=svgdraw.relative_axis([d["rel"] for d in data], REL_TITLE),
                               value="rel", look=look, label=label, one=True)


def scaling_spec(data: list[dict], xs: list[int], axis: str, look: dict | None = None, label: str = "") -> dict:
    spec = json.loads(_scaling_template(tuple(xs), axis))
    spec["data"]["values"] = data
    if look:  # the drawing's colours, dashes, shapes and y axis: the live chart looks the same
        spec["data"]["values"] = [{k: d[k] for k in ("impl", "median", "us", "x")} for d in data]  # what it shows
        _styled(spec, look)
        _aligned_y(spec["encoding"]["y"], svgdraw.log_axis([d["us"] for d in data], US_TITLE))
        spec["encoding"]["x"]["scale"]["padding"] = 10
    return spec


def relative_spec(data: list[dict], xs: list[int], axis: str, look: dict | None = None, label: str = "") -> dict:
    spec = json.loads(_relative_template(tuple(xs), axis))
    spec["data"]["values"] = data
    return _styled(spec, look)


def _aligned_y(enc: dict, axis: svgdraw.Axis) -> None:
    enc["scale"] = dict(enc.get("scale", {}), domain=[_round(axis.lo), _round(axis.hi)], nice=False)
    enc["axis"] = dict(enc.get("axis") or {}, values=[v for v, _ in axis.ticks], format=",~g")


def _round(v: float) -> float:
    return float(f"{v:.6g}")


def _styled(spec: dict, look: dict | None) -> dict:
    if look:
        enc = spec["encoding"]
        enc["color"]["scale"] = {"domain": look["domain"], "range": look["colours"]}
        enc["strokeDash"]["scale"] = {"domain": look["domain"], "range": look["dashes"]}
        enc["shape"]["scale"] = {"domain": look["domain"], "range": look["shapes"]}
    return spec


def history_spec(points: list[dict], steps: list[dict], one_day: bool, look: dict | None = None,
                 label: str = "") -> dict:
    spec = json.loads(_history_template(one_day))
    spec["layer"][0]["data"]["values"] = steps  # the standing record's p20-p80 band
    spec["layer"][1]["data"]["values"] = steps  # the standing record
    spec["layer"][2]["data"]["values"] = points  # each result's p20-p80
    spec["layer"][3]["data"]["values"] = points  # each result
    if look:  # the drawing's colours and axes: the live chart looks the same
        colours = {"domain": look["domain"], "range": look["colours"]}
        for layer in spec["layer"][2:]:
            layer["encoding"]["color"]["scale"] = colours
        drawn = _history_axes(points, one_day)
        for layer in spec["layer"]:
            _aligned_y(layer["encoding"]["y"], drawn[1])
            x = layer["encoding"]["x"]
            x["scale"] = {"type": "utc", "domain": [_ms(drawn[0].lo), _ms(drawn[0].hi)]}
            x["axis"] = dict(x.get("axis") or {}, values=[_ms(v) for v, _ in drawn[0].ticks])
    return spec


def _ms(t: float) -> int:
    return int(round(t * 1000))


def _epoch(iso: str) -> float:
    import datetime as dt

    when = dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return when.timestamp()


def _history_axes(points: list[dict], one_day: bool):
    x = svgdraw.time_axis([_epoch(p["date"]) for p in points], one_day, "observed (UTC)")
    values = [p["us"] for p in points] + [v for p in points for v in (p.get("lo"), p.get("hi")) if v]
    return x, svgdraw.log_axis(values, US_TITLE)


def draw_history(points: list[dict], steps: list[dict], one_day: bool, look: dict, label: str = "") -> str:
    x, y = _history_axes(points, one_day)
    timed = lambda rows: [dict(r, t=_epoch(r["date"])) for r in rows]
    return svgdraw.history_drawing(points=timed(points), steps=timed(steps), x=x, y=y, look=look, label=label)


# The specs above are templates with the data put in: the same dict altair makes with it. The
# templates are altair's output made once and kept in vega_templates.py (importing altair costs
# most of a second, making a chart with it 0.04-0.2 s): `python -m site_builder.site.charts`
# writes them again, and a test checks they are what the installed altair makes. The parts of a
# scaling spec that depend on its sizes and axis name are put in here, as altair would.

TEMPLATE_XS, TEMPLATE_AXIS = [1, 2, 4], "AXIS"


def altair_templates() -> dict[str, dict]:
    return {"scaling": altair_scaling_spec([], TEMPLATE_XS, TEMPLATE_AXIS),
            "relative": altair_scaling_spec([], TEMPLATE_XS, TEMPLATE_AXIS, relative=True),
            "history-one-day": altair_history_spec([], [], True),
            "history": altair_history_spec([], [], False)}


@lru_cache(maxsize=256)
def _scaling_template(xs: tuple, axis: str, relative: bool = False) -> str:
    from .vega_templates import TEMPLATES

    spec = json.loads(TEMPLATES["relative" if relative else "scaling"])
    enc = spec["encoding"]
    ticks = axis_ticks(list(xs))
    enc["x"]["title"] = f"{axis} →"
    enc["x"]["scale"]["domain"] = [xs[0], xs[-1]]
    enc["x"]["axis"].update(values=ticks, labelExpr=_label_expr(ticks), labelAngle=-45 if len(ticks) > 7 else 0)
    enc["tooltip"][1]["title"] = axis
    return json.dumps(spec)


def _relative_template(xs: tuple, axis: str) -> str:
    return _scaling_template(xs, axis, True)


@lru_cache(maxsize=4)
def _history_template(one_day: bool) -> str:
    from .vega_templates import TEMPLATES

    return TEMPLATES["history-one-day" if one_day else "history"]


def write_templates() -> Path:
    """Write vega_templates.py from the installed altair."""
    path = Path(__file__).with_name("vega_templates.py")
    lines = ['"""Vega-Lite templates of the site\'s charts, as altair makes them (with no data): written by',
             '`python -m site_builder.site.charts`; charts.py puts the data and the sizes in. Do not edit."""',
             "", "TEMPLATES = {"]
    for name, spec in altair_templates().items():
        lines.append(f"    {name!r}: {json.dumps(json.dumps(spec, sort_keys=True, ensure_ascii=True))},")
    lines.append("}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def altair_scaling_spec(data: list[dict], xs: list[int], axis: str, relative: bool = False) -> dict:
    import altair as alt

    if relative:
        y = alt.Y("rel:Q", title="× the fastest at this size (1 = fastest)",
                  scale=alt.Scale(type="linear", zero=False, nice=True))
        value = alt.Tooltip("vs:N", title="vs fastest")
    else:
        y = alt.Y("us:Q", title="median latency (µs, log scale)", scale=alt.Scale(type="log"))
        value = alt.Tooltip("median:N", title="median")
    chart = (
        alt.Chart(alt.Data(values=data), width=WIDTH, height=HEIGHT)
        .mark_line(point=alt.OverlayMarkDef(size=40, filled=True), strokeWidth=2)
        .encode(
            x=alt.X("x:Q", title=f"{axis} →", scale=alt.Scale(type="log", base=2, nice=False,
                                                               domain=[xs[0], xs[-1]]),
                    axis=alt.Axis(values=axis_ticks(xs), labelExpr=_label_expr(axis_ticks(xs)), grid=True,
                                  labelOverlap=False, labelAngle=-45 if len(axis_ticks(xs)) > 7 else 0)),
            y=y,
            color=alt.Color("impl:N", title="implementation", legend=alt.Legend(orient="bottom", columns=3)),
            strokeDash=alt.StrokeDash("impl:N", legend=None),
            shape=alt.Shape("impl:N", legend=None),
            tooltip=[alt.Tooltip("impl:N", title="implementation"), alt.Tooltip("x:Q", title=axis),
                     alt.Tooltip("median:N", title="median"), *([value] if relative else [])],
        )
        .properties(background="transparent")
        .configure_axis(labelFontSize=12, titleFontSize=12)
        .configure_legend(labelFontSize=12, titleFontSize=12, labelLimit=260)
    )
    return chart.to_dict()


def altair_history_spec(points: list[dict], steps: list[dict], one_day: bool) -> dict:
    """Every ok result as a point (colour: implementation) over its p20-p80 spread, the record as
    a step line per protocol over its p20-p80 band."""
    import altair as alt

    y = alt.Y("us:Q", title=US_TITLE, scale=alt.Scale(type="log"))
    x = alt.X("date:T", title="observed (UTC)", scale=alt.Scale(type="utc", padding=24),
              axis=alt.Axis(labelAngle=0, tickCount=6, format="%H:%M" if one_day else "%Y-%m-%d"))
    tooltip = [alt.Tooltip("impl:N", title="implementation"), alt.Tooltip("median:N", title="median"),
               alt.Tooltip("spread:N", title="p20–p80"),
               alt.Tooltip("when:N", title="observed"), alt.Tooltip("protocol:N", title="protocol"),
               alt.Tooltip("record:N", title="")]
    colour = alt.Color("impl:N", title="implementation", legend=alt.Legend(orient="bottom", columns=3))
    band = (alt.Chart(alt.Data(values=steps)).mark_area(interpolate="step-after", color="#777777", opacity=0.18)
            .encode(x=x, y=alt.Y("lo:Q", title=US_TITLE, scale=alt.Scale(type="log")), y2="hi:Q",
                    detail="protocol:N"))
    line = (alt.Chart(alt.Data(values=steps)).mark_line(interpolate="step-after", color="#777777", strokeWidth=1.5)
            .encode(x=x, y=y, detail="protocol:N"))
    spread = (alt.Chart(alt.Data(values=points)).mark_rule(strokeWidth=1.5, opacity=0.6)
              .encode(x=x, y=alt.Y("lo:Q", title=US_TITLE, scale=alt.Scale(type="log")), y2="hi:Q",
                      color=colour))
    dots = (alt.Chart(alt.Data(values=points)).mark_point(filled=True, opacity=0.9)
            .encode(x=x, y=y, color=colour,
                    shape=alt.Shape("record:N", title="", scale=alt.Scale(domain=["new record", "result"],
                                                                            range=["diamond", "circle"]),
                                    legend=alt.Legend(orient="bottom")),
                    size=alt.Size("record:N", scale=alt.Scale(domain=["new record", "result"], range=[140, 45]),
                                  legend=None),
                    tooltip=tooltip))
    chart = (alt.layer(band, line, spread, dots, width=WIDTH, height=220)
             .properties(background="transparent")
             .configure_axis(labelFontSize=12, titleFontSize=12)
             .configure_legend(labelFontSize=12, titleFontSize=12, labelLimit=260))
    return chart.to_dict()


def history_chart(rows: list[dict]) -> Chart | None:
    points = [{"date": r["observed_at"], "when": r["observed_label"], "us": r["time_us"], "impl": r["name"],
               "protocol": r["protocol"], "median": fmt_us(r["time_us"]),
               "lo": r.get("p20_us"), "hi": r.get("p80_us"),
               "spread": f"{fmt_us(r['p20_us'])} – {fmt_us(r['p80_us'])}" if r.get("p20_us") and r.get("p80_us") else "—",
               "record": "new record" if r["record_set"] else "result"}
              for r in rows if r["time_us"] and r["status"] == "ok"]
    if not points:
        return None
    steps = [p for p in points if p["record"] == "new record"]
    last = max(p["date"] for p in points)
    # the record line runs on to the newest result, so a record that still stands shows as such
    latest: dict[str, dict] = {}
    for s in steps:
        latest[s["protocol"]] = s
    steps += [dict(s, date=last) for s in latest.values() if s["date"] != last]
    dates = sorted(p["date"] for p in points)
    baseline = next((r["name"] for r in rows if r.get("baseline")), None)
    look = styles(sorted({p["impl"] for p in points}), baseline)
    one_day = dates[0][:10] == dates[-1][:10]
    label = (f"Record history of {rows[0]['workload']} on {rows[0]['hardware_name']}: {len(points)} results of "
             f"{len(look['domain'])} implementations over time, median latency on a log scale, the standing record "
             "as a step line over its p20–p80 band")
    return chart("history", history_spec, draw_history, points=points, steps=steps, one_day=one_day, look=look,
                 label=label)


# --- roofline (a chart kind a family declares: `charts: [roofline]` in its record) ---------------

ROOF_STYLE = {"datasheet": [1, 0], "measured": [6, 3]}


def _sig(value: float) -> float:
    """Six significant figures: the spec (and so its hash and SVG) stays stable across float noise."""
    return float(f"{value:.6g}")


def roofline_charts(family, entries) -> list[dict]:
    """One roofline per (hardware, protocol, dtype, workload kind) with eligible results: each
    result (one per implementation and workload) at its arithmetic intensity (FLOP/byte, x) and
    achieved rate (TFLOP/s, y), log-log, under two roofs: the datasheet's (bandwidth slope,
    then the dense peak) and the measured one (the run's copy bandwidth, then the run's
    measured peak where the family asks for one, else the datasheet peak). A family that does
    not declare `roofline` under `charts`, or has no flops, gets none."""
    if "roofline" not in family.charts or family.arithmetic is None:
        return []
    from ..derive.floors import achieved_tflops

    kinds_named = any(w.kind != "forward" for w in family.workloads)
    baseline = next((e.implementation.name for e in entries if e.implementation.id == family.baseline), None)
    groups: dict[tuple, list[Entry]] = defaultdict(list)
    for e in entries:
        if e.eligible and e.time_us and e.floor.flops:
            groups[(e.hardware.id, e.run.protocol.id, e.workload.dtype, e.workload.kind)].append(e)
    out = []
    for (hw, proto, dtype, kind), group in sorted(groups.items()):
        first = group[0]
        points = sorted(({"x": _sig(e.floor.intensity), "tflops": _sig(achieved_tflops(e.floor.flops, e.time_us)),
                          "impl": e.implementation.name, "workload": e.workload.label or e.workload.id,
                          "median": fmt_us(e.time_us), "rate": f"{achieved_tflops(e.floor.flops, e.time_us):,.1f} TFLOP/s",
                          "intensity": f"{e.floor.intensity:,.1f} FLOP/B"}
                         for e in group), key=lambda d: (d["impl"], d["x"], d["workload"]))
        peak = first.floor.peak_tflops
        roofs = []
        if peak:
            roofs.append({"roof": "datasheet", "bandwidth_gbps": first.floor.bandwidth_gbps, "peak_tflops": peak})
        newest = max((e for e in group if e.measured_floor), key=lambda e: (e.observed, e.lr.path), default=None)
        if newest is not None:
            mf = newest.measured_floor
            roofs.append({"roof": "measured", "bandwidth_gbps": mf.bandwidth_gbps,
                          "peak_tflops": mf.measured_peak_tflops or peak, "peak_measured": bool(mf.measured_peak_tflops)})
        roofs = [r for r in roofs if r["peak_tflops"]]
        for r in roofs:
            r["ridge"] = _sig(r["peak_tflops"] * 1e3 / r["bandwidth_gbps"])
        xs = [p["x"] for p in points] + [r["ridge"] for r in roofs]
        x_lo, x_hi = min(xs) / 2, max(xs) * 2
        lines = [v for r in roofs for v in roof_line(r, x_lo, x_hi)]
        look = styles(sorted({p["impl"] for p in points}), baseline)
        title = f"{first.hardware.name} · {proto} · {DTYPE_SHORT.get(dtype, dtype)}" + (f" · {kind}" if kinds_named else "")
        out.append({
            "chart_kind": "roofline", "title": title, "hardware": hw, "protocol": proto, "kind": kind,
            "roofs": roofs,
            "chart": chart("roofline", roofline_spec, draw=_roofline_drawing, points=points, roofs=roofs,
                           lines=lines, x_domain=[x_lo, x_hi], y_domain=_roofline_y_domain(points, lines),
                           look=look, label=f"Roofline: {title}"),
            "table": [{"name": p["impl"], "workload": p["workload"], "intensity": p["x"], "tflops": p["tflops"],
                       "median": p["median"]} for p in points],
        })
    return out


def roof_line(roof: dict, x_lo: float, x_hi: float) -> list[dict]:
    """The roof as line vertices (x FLOP/byte, y TFLOP/s): the bandwidth slope from x_lo to the
    ridge, then flat at the peak to x_hi (straight lines on log-log axes)."""
    bw, peak, ridge = roof["bandwidth_gbps"], roof["peak_tflops"], roof["ridge"]
    rate = lambda x: min(peak, bw * x / 1e3)  # GB/s × FLOP/B = GFLOP/s
    xs = sorted({x_lo, min(max(ridge, x_lo), x_hi), x_hi})
    label = f"{roof['roof']} roof"
    return [{"x": _sig(x), "y": _sig(rate(x)), "roof": label} for x in xs]


def _roofline_y_domain(points: list[dict], lines: list[dict]) -> list[float]:
    ys = [p["tflops"] for p in points] + [v["y"] for v in lines]
    return [min(ys) / 2, max(ys) * 1.5]


def _roofline_drawing(*, roofs: list[dict], lines: list[dict], **inputs) -> str:
    from .svgdraw import roofline_drawing

    drawn = [{"name": f"{r['roof']} roof", "dash": ROOF_STYLE[r["roof"]],
              "vertices": [(v["x"], v["y"]) for v in lines if v["roof"] == f"{r['roof']} roof"]} for r in roofs]
    return roofline_drawing(roofs=drawn, **inputs)


def roofline_spec(points: list[dict], roofs: list[dict], lines: list[dict], x_domain: list[float],
                  y_domain: list[float], look: dict | None = None, label: str | None = None) -> dict:
    """A Vega-Lite spec (a plain dict, as altair would write it): the roofs as grey lines (solid:
    datasheet, dashed: measured; `lines`, their vertices from roof_line), the results as points
    (colour and shape: implementation)."""
    x = {"field": "x", "type": "quantitative", "title": "arithmetic intensity (FLOP/byte, log scale) →",
         "scale": {"type": "log", "domain": x_domain, "nice": False}, "axis": {"grid": True}}
    y = {"field": "y", "type": "quantitative", "title": "achieved TFLOP/s (log scale)",
         "scale": {"type": "log", "domain": y_domain, "nice": False}, "axis": {"grid": True}}
    roof_names = [f"{r['roof']} roof" for r in roofs]
    # the implementations below the plot in two columns; the roofs' key inside it, top left,
    # where no result can sit (above the bandwidth slope): two bottom legends overlap there
    impl_enc = {"field": "impl", "type": "nominal", "title": "implementation",
                "legend": {"orient": "bottom", "columns": 2, "direction": "vertical"}}
    colour, shape = dict(impl_enc), {"field": "impl", "type": "nominal", "legend": None}
    if look:
        colour["scale"] = {"domain": look["domain"], "range": look["colours"]}
        shape["scale"] = {"domain": look["domain"], "range": look["shapes"]}
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "width": WIDTH, "height": HEIGHT, "background": "transparent",
        "config": {"axis": {"labelFontSize": 12, "titleFontSize": 12},
                   "legend": {"labelFontSize": 12, "titleFontSize": 12, "labelLimit": 260}},
        "layer": [
            {"data": {"values": lines}, "mark": {"type": "line", "color": "#777777", "strokeWidth": 1.5},
             "encoding": {"x": x, "y": y,
                          "strokeDash": {"field": "roof", "type": "nominal", "title": "",
                                         "scale": {"domain": roof_names,
                                                   "range": [ROOF_STYLE[r["roof"]] for r in roofs]},
                                         "legend": {"orient": "top-left", "fillColor": "#ffffffcc",
                                                    "padding": 4}},
                          "detail": {"field": "roof", "type": "nominal"}}},
            {"data": {"values": [dict(p, y=p["tflops"]) for p in points]},
             "mark": {"type": "point", "filled": True, "size": 50, "opacity": 0.9},
             "encoding": {"x": x, "y": y, "color": colour, "shape": shape,
                          "tooltip": [{"field": "impl", "type": "nominal", "title": "implementation"},
                                      {"field": "workload", "type": "nominal", "title": "workload"},
                                      {"field": "rate", "type": "nominal", "title": "achieved"},
                                      {"field": "intensity", "type": "nominal", "title": "intensity"},
                                      {"field": "median", "type": "nominal", "title": "median"}]}},
        ],
    }


if __name__ == "__main__":
    print(f"wrote {write_templates()}")
