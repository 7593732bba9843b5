"""Record history: one page per (family, workload, hardware) with every result over time, the
moments a record was set (and by which implementation), and the Atom feed of new records.

A record is set when a run's fastest eligible result beats the best eligible result of the same
protocol in earlier runs (the first run with an eligible result sets the first record). Dates come from the
records, never from the build clock, so the same records build the same feed.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from itertools import groupby

import altair as alt
import vl_convert as vlc

from .charts import WIDTH
from .derive import Entry
from .load import Catalog
from .render import fmt_us
from .svgslim import slim_svg
from .views import entry_view, history_url, workload_label

FEED_LIMIT = 200
_NS = uuid.UUID("6f1c1a52-7d0e-4c1e-9b8e-2a4a6f0c3d11")


def _is_record(e: Entry, best: dict[str, float]) -> bool:
    """Eligible at the time it was observed: ok, correct, not below the floor."""
    ok = e.result.status == "ok" and not e.reasons and e.time_us
    return bool(ok and (e.run.protocol.id not in best or e.time_us < best[e.run.protocol.id]))


def history_pages(catalog: Catalog, entries: list[Entry]) -> list[dict]:
    groups: dict[tuple, list[Entry]] = defaultdict(list)
    for e in entries:
        groups[(e.family.id, e.workload.id, e.hardware.id)].append(e)
    pages = []
    for (fid, wid, hid), group in sorted(groups.items()):
        family = catalog.families[fid]
        workload = next(w for w in family.workloads if w.id == wid)
        group.sort(key=lambda e: (e.observed, e.lr.path, e.index))
        best: dict[str, float] = {}
        holder: dict[str, dict] = {}
        rows, records = [], []
        for _, batch in groupby(group, key=lambda e: e.lr.path):
            batch = list(batch)
            # results of one run are simultaneous: only the run's fastest can set a record
            setters = {}
            for e in batch:
                proto = e.run.protocol.id
                if _is_record(e, best) and (proto not in setters or e.time_us < setters[proto].time_us):
                    setters[proto] = e
            for e in batch:
                proto = e.run.protocol.id
                record = setters.get(proto) is e
                row = dict(entry_view(e), record_set=record, previous_us=None, improvement=None,
                           previous_name=None, observed_at=e.observed.isoformat().replace("+00:00", "Z"),
                           observed_label=_when(e))
                if record:
                    if proto in best:
                        row.update(previous_us=best[proto], improvement=best[proto] / e.time_us,
                                   previous_name=holder[proto]["name"])
                    best[proto] = e.time_us
                    holder[proto] = row
                    records.append(dict(row, anchor=f"{e.lr.id}-{e.anchor}"))
                rows.append(row)
        label = workload.label or workload_label(family, workload)
        chart = history_chart(rows, label)
        pages.append({
            "family": fid, "family_title": family.title, "workload": wid, "workload_label": label,
            "hardware": hid, "hardware_name": catalog.hardware[hid].name,
            "url": history_url(fid, wid, hid), "rows": rows, "records": list(reversed(records)),
            "current": [dict(holder[p], protocol=p) for p in sorted(holder)],
            "chart": chart["svg"] if chart else None, "spec": chart["spec"] if chart else None,
        })
    return pages


def history_chart(rows: list[dict], label: str) -> dict | None:
    """Every ok result as a point (colour: implementation), the record as a step line per protocol."""
    points = [{"date": r["observed_at"], "when": r["observed_label"], "us": r["time_us"], "impl": r["name"], "protocol": r["protocol"],
               "median": fmt_us(r["time_us"]), "record": "new record" if r["record_set"] else "result"}
              for r in rows if r["time_us"] and r["status"] == "ok"]
    if not points:
        return None
    steps = [p for p in points if p["record"] == "new record"]
    last = max(p["date"] for p in points)
    # the record line runs on to the newest result, so a record that still stands shows as such
    steps += [dict(s, date=last) for s in _standing(steps) if s["date"] != last]
    y = alt.Y("us:Q", title="median latency (µs, log scale)", scale=alt.Scale(type="log"))
    dates = sorted(p["date"] for p in points)
    one_day = dates[0][:10] == dates[-1][:10]
    x = alt.X("date:T", title="observed (UTC)", scale=alt.Scale(type="utc", padding=24),
              axis=alt.Axis(labelAngle=0, tickCount=6, format="%H:%M" if one_day else "%Y-%m-%d"))
    tooltip = [alt.Tooltip("impl:N", title="implementation"), alt.Tooltip("median:N", title="median"),
               alt.Tooltip("when:N", title="observed"), alt.Tooltip("protocol:N", title="protocol"),
               alt.Tooltip("record:N", title="")]
    line = (alt.Chart(alt.Data(values=steps)).mark_line(interpolate="step-after", color="#777", strokeWidth=1.5)
            .encode(x=x, y=y, detail="protocol:N"))
    dots = (alt.Chart(alt.Data(values=points)).mark_point(filled=True, opacity=0.9)
            .encode(x=x, y=y,
                    color=alt.Color("impl:N", title="implementation", legend=alt.Legend(orient="bottom", columns=3)),
                    shape=alt.Shape("record:N", title="", scale=alt.Scale(domain=["new record", "result"],
                                                                            range=["diamond", "circle"]),
                                    legend=alt.Legend(orient="bottom")),
                    size=alt.Size("record:N", scale=alt.Scale(domain=["new record", "result"], range=[140, 45]),
                                  legend=None),
                    tooltip=tooltip))
    chart = (alt.layer(line, dots, width=WIDTH, height=220)
             .properties(background="transparent")
             .configure_axis(labelFontSize=12, titleFontSize=12)
             .configure_legend(labelFontSize=12, titleFontSize=12, labelLimit=260))
    spec = chart.to_dict()
    svg = slim_svg(vlc.vegalite_to_svg(spec)).replace('class="marks"', 'class="marks" role="img"', 1)
    return {"svg": svg, "spec": spec}


def _when(e: Entry) -> str:
    """The date, and the time of day when the record gives one (runs of one day told apart)."""
    value = e.run.observed
    if hasattr(value, "hour"):
        return e.observed.strftime("%Y-%m-%d %H:%M UTC")
    return e.observed.date().isoformat()


def _standing(steps: list[dict]) -> list[dict]:
    latest: dict[str, dict] = {}
    for s in steps:
        latest[s["protocol"]] = s
    return list(latest.values())


def feed_entries(pages: list[dict], catalog: Catalog) -> list[dict]:
    """Every record set, newest first, as feed entries with stable ids."""
    out = []
    for h in pages:
        for r in h["records"]:
            key = f"{h['family']}/{h['workload']}/{h['hardware']}/{r['protocol']}/{r['run_id']}/{r['implementation']}"
            run = next(lr for lr in catalog.runs if lr.id == r["run_id"] and lr.run.family == h["family"]
                       and lr.run.hardware == h["hardware"])
            moment = run.run.observed_at.isoformat().replace("+00:00", "Z")
            title = (f"{r['name']}: {fmt_us(r['time_us'])} · {h['family_title']} · {h['workload_label']} · "
                     f"{h['hardware_name']}")
            if r["improvement"]:
                text = (f"New record for {h['family_title']}, {h['workload_label']} on {h['hardware_name']} "
                        f"({r['protocol']}, {r['trust_label'].lower()}): {r['name']} at {fmt_us(r['time_us'])}, "
                        f"{r['improvement']:.2f}× faster than the previous record ({r['previous_name']}, "
                        f"{fmt_us(r['previous_us'])}).")
            else:
                text = (f"First record for {h['family_title']}, {h['workload_label']} on {h['hardware_name']} "
                        f"({r['protocol']}, {r['trust_label'].lower()}): {r['name']} at {fmt_us(r['time_us'])}.")
            out.append({"id": f"urn:uuid:{uuid.uuid5(_NS, key)}", "updated": moment, "title": title,
                        "summary": text, "url": r["run_url"], "history_url": h["url"], "sort": (moment, key)})
    out.sort(key=lambda x: x["sort"], reverse=True)
    return out[:FEED_LIMIT]
