"""Charts as altair specs, rendered at build time to inline SVG (no JavaScript, no network)."""

from __future__ import annotations

from collections import defaultdict

import altair as alt
import vl_convert as vlc

from .derive import Entry
from .schema import DTYPE_SHORT
from .render import fmt_us
from .svgslim import slim_svg

WIDTH, HEIGHT = 560, 280


def _svg(chart: alt.Chart) -> str:
    svg = slim_svg(vlc.vegalite_to_svg(chart.to_dict()))
    # vl-convert writes a fixed-size SVG; let CSS scale it to the column width.
    return svg.replace('class="marks"', 'class="marks" role="img"', 1)


def _axis_label(value: int) -> str:
    return f"{value // 1024}k" if value >= 8192 and value % 1024 == 0 else str(value)


def scaling_charts(family, entries: list[Entry]) -> list[dict]:
    """One chart per (hardware, protocol, values held constant) with at least three sizes."""
    axis = family.scaling.axis
    groups: dict[tuple, list[Entry]] = defaultdict(list)
    for e in entries:
        if not e.eligible:
            continue
        held = tuple((a, v) for a, v in sorted(e.workload.sizes.items()) if a != axis)
        groups[(e.hardware.id, e.run.protocol.id, held, e.workload.dtype)].append(e)
    charts = []
    for (hw, proto, held, dtype), group in sorted(groups.items()):
        xs = sorted({e.workload.sizes[axis] for e in group})
        if len(xs) < 3:  # two sizes are not a scaling curve; the leaderboards hold them
            continue
        data = sorted(({"x": e.workload.sizes[axis], "us": e.time_us, "impl": e.implementation.name,
                        "median": fmt_us(e.time_us)}
                       for e in group), key=lambda d: (d["impl"], d["x"]))
        held_text = " · ".join([*(f"{a} = {v}" for a, v in held), DTYPE_SHORT.get(dtype, dtype)])
        title = f"{group[0].hardware.name} · {proto} · {held_text}"
        chart = (
            alt.Chart(alt.Data(values=data), width=WIDTH, height=HEIGHT)
            .mark_line(point=alt.OverlayMarkDef(size=40, filled=True), strokeWidth=2)
            .encode(
                x=alt.X("x:Q", title=f"{axis} →", scale=alt.Scale(type="log", base=2, nice=False,
                                                                   domain=[xs[0], xs[-1]]),
                        axis=alt.Axis(values=xs, labelExpr=_label_expr(xs), grid=True)),
                y=alt.Y("us:Q", title="median latency (µs, log scale)", scale=alt.Scale(type="log")),
                color=alt.Color("impl:N", title="implementation", legend=alt.Legend(orient="bottom", columns=3)),
                strokeDash=alt.StrokeDash("impl:N", legend=None),
                shape=alt.Shape("impl:N", legend=None),
                tooltip=[alt.Tooltip("impl:N", title="implementation"), alt.Tooltip("x:Q", title=axis),
                         alt.Tooltip("median:N", title="median")],
            )
            .properties(background="transparent")
            .configure_axis(labelFontSize=12, titleFontSize=12)
            .configure_legend(labelFontSize=12, titleFontSize=12, labelLimit=260)
        )
        table_impls = sorted({d["impl"] for d in data})
        lookup = {(d["impl"], d["x"]): d["us"] for d in data}
        charts.append({
            "title": title, "hardware": hw, "protocol": proto, "axis": axis,
            "svg": _svg(chart), "spec": chart.to_dict(),
            "table": {"xs": xs, "rows": [{"name": n, "cells": [lookup.get((n, x)) for x in xs]}
                                         for n in table_impls]},
        })
    return charts


def _label_expr(xs: list[int]) -> str:
    cases = " : ".join(f"datum.value == {x} ? '{_axis_label(x)}'" for x in xs)
    return f"{cases} : ''"


def history_chart(rows: list[dict]) -> str | None:
    points = [{"date": r["observed"], "us": r["time_us"], "impl": r["name"], "protocol": r["protocol"]}
              for r in rows if r["time_us"] and r["status"] == "ok"]
    if len({p["date"] for p in points}) < 2:
        return None
    chart = (
        alt.Chart(alt.Data(values=points), width=WIDTH, height=220)
        .mark_point(filled=True, size=60)
        .encode(x=alt.X("date:T", title="observed"),
                y=alt.Y("us:Q", title="median latency (µs, log scale)", scale=alt.Scale(type="log")),
                color=alt.Color("impl:N", title="implementation", legend=alt.Legend(orient="bottom")),
                shape=alt.Shape("protocol:N", title="protocol"))
        .properties(background="transparent")
    )
    return _svg(chart)
