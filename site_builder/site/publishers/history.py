"""History pages: one per (family, workload, hardware). The page shows the standing records,
every moment a record was set, a compact summary of the whole series per implementation, and
the most recent results (a bounded window); the full series is the page's JSON and CSV."""

from __future__ import annotations

from functools import partial

from ...derive.history import Point, Series
from ...derive.index import SiteIndex
from .. import charts, urls
from ..models import HistoryPage
from ..publish import Data, Page, Scope, SiteContext, to_csv, to_json
from ..views import entry_view, workload_title

WINDOW = 60  # results shown on the page, newest; the JSON and CSV hold all of them
CSV_COLUMNS = ["observed_at", "implementation", "protocol", "trust", "status", "time_us", "p20_us", "p80_us",
               "samples", "device_us", "e2e_us", "record_set", "tied", "improvement", "eligible", "superseded", "run_url"]


def publish(index: SiteIndex, site: SiteContext):
    by_family: dict[str, list[Series]] = {}
    for s in index.history.values():
        by_family.setdefault(s.family, []).append(s)
    for fid, series in by_family.items():  # in the order of the keys: family first
        yield Scope(f"history:{fid}", index.family_inputs(fid), partial(_history_files, index, series))


def _history_files(index: SiteIndex, all_series: list[Series]):
    for s in all_series:
        rows = [row(p) for p in s.points]
        model = history_page(index, s, rows)
        yield Page(model.url, "history.html", {"h": model}, (model.chart,) if model.chart else ())
        series = [compact(r) for r in rows]  # the full series, one small row per result
        yield Data(model.json_url, to_json(dict(_head(model), rows=series)))
        yield Data(model.csv_url, to_csv(CSV_COLUMNS, series))


def compact(r: dict) -> dict:
    return {c: (r["superseded_by"] is not None) if c == "superseded" else r[c] for c in CSV_COLUMNS}


def row(p: Point) -> dict:
    e = p.entry
    out = dict(entry_view(e), record_set=p.record_set, tied=p.tied, previous_us=None, improvement=None,
               previous_name=None,
               observed_at=e.observed.isoformat().replace("+00:00", "Z"), observed_label=_when(e))
    if p.previous is not None:
        out.update(previous_us=p.previous.time_us, previous_name=p.previous.implementation.name,
                   improvement=p.previous.time_us / e.time_us if p.record_set else None)
    return out


def _head(model: HistoryPage) -> dict:
    return {k: getattr(model, k) for k in ("family", "family_title", "workload", "workload_label", "hardware",
                                            "hardware_name", "url", "total", "first_observed", "summary",
                                            "records", "current")}


def history_page(index: SiteIndex, s: Series, rows: list[dict]) -> HistoryPage:
    catalog = index.catalog
    family = catalog.families[s.family]
    workload = index.workload(s.family, s.workload)
    by_entry = {id(p.entry): r for p, r in zip(s.points, rows)}
    records = [dict(by_entry[id(p.entry)], anchor=f"{p.entry.lr.id}-{p.entry.anchor}") for p in s.records]
    window = rows[-WINDOW:]
    shown = {id(r) for r in window}
    # the chart: the window's results, and every record ever set (the step line needs them all)
    drawn = [r for r in rows if id(r) in shown or r["record_set"]]
    return HistoryPage(
        family=s.family, family_title=family.title, workload=s.workload,
        workload_label=workload_title(family, workload),
        hardware=s.hardware, hardware_name=catalog.hardware[s.hardware].name,
        url=urls.history(*s.key), json_url=urls.history_json(*s.key), csv_url=urls.history_csv(*s.key),
        rows=window, shown=len(window), total=len(rows),
        first_observed=rows[0]["observed_label"] if rows else None,
        summary=_summary(rows),
        records=list(reversed(records)),
        current=[dict(by_entry[id(p.entry)], protocol=proto) for proto, p in s.current],
        chart=charts.history_chart(drawn),
    )


def _summary(rows: list[dict]) -> list[dict]:
    """Per implementation over the whole series: results, ok ones, the best and the latest time."""
    out: dict[str, dict] = {}
    for r in rows:
        s = out.setdefault(r["implementation"], {
            "implementation": r["implementation"], "name": r["name"], "implementation_url": r["implementation_url"],
            "baseline": r["baseline"], "results": 0, "ok": 0, "best_us": None, "best_url": None,
            "latest_us": None, "latest_url": None, "first": r["observed_label"], "last": None})
        s["results"] += 1
        s["last"] = r["observed_label"]
        if r["time_us"] and r["status"] == "ok":
            s["ok"] += 1
            if s["best_us"] is None or r["time_us"] < s["best_us"]:
                s["best_us"], s["best_url"] = r["time_us"], r["run_url"]
            s["latest_us"], s["latest_url"] = r["time_us"], r["run_url"]
    return sorted(out.values(), key=lambda s: (s["best_us"] is None, s["best_us"] or 0, s["implementation"]))


def _when(e) -> str:
    """The date, and the time of day when the record gives one (runs of one day told apart)."""
    if hasattr(e.run.observed, "hour"):
        return e.observed.strftime("%Y-%m-%d %H:%M UTC")
    return e.observed.date().isoformat()
