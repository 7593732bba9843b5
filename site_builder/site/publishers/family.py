"""Family pages: leaderboards per workload and GPU, the records matrix, floors, scaling charts,
implementations, semantics and sources; with the JSON (current leaderboards, links to every
cohort's history file) and CSV twins."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from ...derive.entries import Entry, usable
from ...derive.floors import bytes_moved
from ...derive.index import SiteIndex
from ...records.schema import WORKLOAD_KINDS, Family
from .. import charts, urls
from ..models import FamilyPage
from ..publish import Data, Page, Scope, SiteContext, to_csv, to_json
from ..views import (TRUST_LABEL, cohort_view, mark_changed_sources, names_kinds, semantics_identity,
                     workload_view)

RECENT_SOURCES = 30  # run files listed under sources, newest first
#: Scaling charts a family page draws (its GPU pages draw them all).
FAMILY_PAGE_CHARTS = 4
CSV_COLUMNS = ["family", "workload", "hardware", "protocol", "trust", "implementation", "rank", "status",
               "eligible", "time_us", "p20_us", "p80_us", "samples", "device_us", "e2e_us", "ratio_to_first",
               "speedup_vs_baseline", "floor_fraction", "measured_floor_fraction", "observed", "run_url"]


def publish(index: SiteIndex, site: SiteContext):
    for fid, family in sorted(index.catalog.families.items()):
        current = site.current_shas(fid)
        inputs = index.family_inputs(fid)
        # today's source hashes mark results measured on other code: they are inputs of the page too
        yield Scope(f"family:{fid}", None if inputs is None else [inputs, sorted(current.items())],
                    partial(_family_files, index, family, current))


def _family_files(index: SiteIndex, family: Family, current: dict[str, str] | None = None):
    fid = family.id
    model = family_page(index, family, current)
    for gpu, path, gpu_page in [(model.detail_gpu, urls.family(fid), False),
                                *((g, g["url"], True) for g in model.gpus)]:
        view = on_gpu(model, gpu, gpu_page)
        specs = urls.chart_specs(path)
        yield Page(path, "family_gpu.html" if gpu_page else "family.html", {"f": view, "specs_url": specs},
                   tuple(c[k] for c in view.charts for k in ("chart", "relative") if k in c))
        yield Data(specs, chart_specs(view.charts))
    yield Data(urls.family_json(fid), to_json(family_data(model)))
    yield Data(urls.family_csv(fid), family_csv(model))


def chart_specs(chart_list: list[dict]) -> bytes:
    """The Vega-Lite specs of a page's charts as a script (`window.KR_SPECS`, by the id each chart
    names in its `data-spec`: spec-N for the Nth scaling chart, roofline-spec-N for the Nth
    roofline, as the template numbers them)."""
    specs = {}
    scaling = [c for c in chart_list if "chart_kind" not in c]
    rooflines = [c for c in chart_list if "chart_kind" in c]
    for prefix, group in (("spec", scaling), ("roofline-spec", rooflines)):
        for n, c in enumerate(group, 1):
            spec = c["chart"].ensure_spec()
            if spec:
                specs[f"{prefix}-{n}"] = spec
    return b"window.KR_SPECS = " + to_json(specs).rstrip(b"\n") + b";\n"


def on_gpu(model: FamilyPage, gpu: dict | None, gpu_page: bool = False) -> FamilyPage:
    """The page's view of one GPU: the floors, leaderboards and charts of that GPU alone (the
    family page shows its primary GPU's floors and charts and its headline workload's leaderboard,
    with links to the GPU pages, which rank every workload); the JSON and CSV twins keep every GPU
    and every workload."""
    hid = gpu["id"] if gpu else None
    # the family page ranks the headline workload; every workload's leaderboard is on the GPU's page
    shown = [lb for lb in model.leaderboards if gpu_page or lb["headline"]]
    here = [c for c in model.charts if c["hardware"] == hid]  # scaling charts, then declared kinds
    scaling = [c for c in here if "chart_kind" not in c]
    kept = scaling if gpu_page else scaling[:FAMILY_PAGE_CHARTS]
    return replace(
        model, detail_gpu=gpu, gpu_page=gpu_page,
        leaderboards=[dict(lb, cohorts=[c for c in lb["cohorts"] if c["hardware"] == hid],
                           elsewhere=sum(c["hardware"] != hid for c in lb["cohorts"]))
                      for lb in shown],
        leaderboards_elsewhere=len(model.leaderboards) - len(shown),
        floors=[fl for fl in model.floors if fl["hardware"] == hid],
        charts=kept + [c for c in here if "chart_kind" in c],
        charts_elsewhere=len(scaling) - len(kept))


def family_data(page: FamilyPage) -> FamilyPage:
    """The page's model as its JSON holds it: each chart's figures, not its drawing."""
    return replace(page, charts=[{k: v for k, v in c.items() if not isinstance(v, charts.Chart)}
                                 for c in page.charts])


def family_csv(page: FamilyPage) -> bytes:
    rows = [dict(row, family=page.id, rank=row.get("rank", ""))
            for lb in page.leaderboards for cohort in lb["cohorts"]
            for row in [*cohort["rows"], *cohort["unranked"]]]
    return to_csv(CSV_COLUMNS, rows)


def family_page(index: SiteIndex, family: Family, current: dict[str, str] | None = None) -> FamilyPage:
    """The family page's model; `current` (implementation id -> today's source hash) marks the
    results measured on other code (`source_changed`)."""
    catalog = index.catalog
    mine = index.family_entries(family.id)
    workloads = {w.id: workload_view(family, w, bytes_moved(family, w)) for w in family.workloads}
    leaderboards = [{"workload": workloads[w.id], "headline": w.id == family.headline,
                     "cohorts": [cohort_view(c) for c in index.cohorts_of(family.id, w.id)]}
                    for w in family.workloads]
    if current:
        mark_changed_sources((row for lb in leaderboards for c in lb["cohorts"]
                              for row in [*c["rows"], *c["unranked"]]), current)
    headline = next(lb["cohorts"] for lb in leaderboards if lb["headline"])
    chart_list = charts.scaling_charts(family, mine) + charts.roofline_charts(family, mine)
    gpus = _gpus(catalog, family.id, leaderboards, headline)
    return FamilyPage(
        id=family.id, title=family.title, tag=family.tag, summary=family.summary,
        eligible_results=sum(e.eligible for e in mine),
        eligible_runs=len({e.lr.path for e in mine if e.eligible}),
        runs_total=len({e.lr.path for e in mine}),
        results_total=len(mine),
        headline_workload=workloads[family.headline],
        fastest=_fastest_usable(headline),
        by_language=_by_language(headline),
        matrix=_matrix(index, family.id, leaderboards),
        source_native=[
            {k: c[k] for k in ("hardware", "hardware_name", "protocol", "protocol_version", "statistic",
                               "clock", "results", "last_observed", "history_url", "trust")}
            | {"workload": workloads[family.headline]["label"]}
            for c in headline
        ],
        floors=[{"workload": lb["workload"], "cohort": c["key"], "hardware": c["hardware"],
                 "hardware_name": c["hardware_name"],
                 "protocol": c["protocol"], **c["floor"]}
                for lb in leaderboards for c in lb["cohorts"]],
        leaderboards=leaderboards,
        # scaling charts, then the chart kinds the family declares (rooflines: `chart_kind` set)
        charts=chart_list,
        implementations=_implementations(catalog, family, mine, headline),
        semantics=_semantics(family),
        sources=_sources(mine)[:RECENT_SOURCES],
        sources_total=len({e.lr.path for e in mine}),
        json_url=urls.family_json(family.id), csv_url=urls.family_csv(family.id),
        baseline=family.baseline,
        kinds=[k for k in WORKLOAD_KINDS
               if any(w.kind == k for w in family.workloads)] if names_kinds(family) else [],
        gpus=gpus, detail_gpu=gpus[0] if gpus else None,
    )


def _gpus(catalog, fid: str, leaderboards: list[dict], headline: list[dict]) -> list[dict]:
    """The GPUs with any result of the family (every chart's results are in these cohorts): the
    primary one first (the GPU of the headline workload's first cohort, else the one with the
    most ranked results), then by name."""
    seen: dict[str, dict] = {}
    for lb in leaderboards:
        for c in lb["cohorts"]:
            g = seen.setdefault(c["hardware"], {"workloads": set(), "ranked": 0})
            g["workloads"].add(lb["workload"]["id"])
            g["ranked"] += len(c["rows"])
    if not seen:
        return []
    primary = headline[0]["hardware"] if headline else max(seen, key=lambda h: (seen[h]["ranked"], h))
    order = sorted(seen, key=lambda h: (h != primary, catalog.hardware[h].name, h))
    return [{"id": h, "name": catalog.hardware[h].name, "url": urls.family_gpu(fid, h),
             "hardware_url": urls.hardware(h), "workloads": len(seen[h]["workloads"]),
             "ranked": seen[h]["ranked"]} for h in order]


def _fastest_usable(headline: list[dict]) -> dict | None:
    """The primary cohort's fastest usable result at the headline workload, and the others'."""
    picks = []
    faster_unusable = None
    for c in headline:
        row = next((r for r in c["rows"] if r["usable"]), None)
        if row:
            picks.append(dict(row, cohort_hardware=c["hardware_name"], cohort_protocol=c["protocol"]))
            if not picks[1:] and row["rank"] > 1:  # the primary cohort's #1 has no install recipe
                faster_unusable = c["rows"][0]
    if not picks:
        return None
    return {"primary": picks[0], "others": picks[1:], "faster_unusable": faster_unusable}


def _by_language(headline: list[dict]) -> list[dict]:
    if not headline:
        return []
    best: dict[str, dict] = {}
    for row in headline[0]["rows"]:
        best.setdefault(row["language"], row)
    return sorted(best.values(), key=lambda r: r["rank"])


def _matrix(index: SiteIndex, fid: str, leaderboards: list[dict]) -> dict:
    """Per workload and GPU, the best result of the first cohort (in priority order) that ranks any.
    A GPU with no eligible result for any workload of the family gets no column: it is named in
    `empty_hardware` (the page says so in a note)."""
    catalog = index.catalog
    hardware_ids = sorted(h for h in catalog.hardware
                          if any(c["hardware"] == h and c["rows"] for lb in leaderboards for c in lb["cohorts"]))
    empty = sorted(catalog.hardware[h].name for h in catalog.hardware if h not in hardware_ids)
    rows = []
    for lb in leaderboards:
        cells = []
        for hw in hardware_ids:
            c = next((c for c in lb["cohorts"] if c["hardware"] == hw and c["rows"]), None)
            if c is None:
                cells.append({"hardware": hw, "missing": True})
                continue
            best = c["rows"][0]
            cells.append({"hardware": hw, "missing": False, "time_us": best["time_us"], "name": best["name"],
                          "implementation": best["implementation"], "runs": c["results"],
                          "trust_label": best["trust_label"], "run_url": best["run_url"],
                          "protocol": c["protocol"]})
        # where the workload's leaderboard is: the GPU of its leading cohort (as search links it)
        lead = index.leading_cohort(fid, lb["workload"]["id"])
        rows.append({"workload": lb["workload"], "cells": cells, "gpu": lead.key.hardware if lead else None})
    return {"hardware": [{"id": h, "name": catalog.hardware[h].name} for h in hardware_ids],
            "rows": rows, "missing": sum(c["missing"] for r in rows for c in r["cells"]), "empty_hardware": empty}


def _implementations(catalog, family, mine, headline) -> list[dict]:
    own: dict[str, list[Entry]] = {}
    for e in mine:
        own.setdefault(e.implementation.id, []).append(e)
    ids = sorted(set(own) | {family.baseline})
    first_rows = {r["implementation"]: r for r in headline[0]["rows"]} if headline else {}
    out = []
    for iid in ids:
        impl = catalog.implementations[iid]
        results = own.get(iid, [])
        trusts = sorted({e.run.trust for e in results if e.eligible}, key=lambda t: t != "measured")
        row = first_rows.get(iid)
        out.append({
            "id": iid, "name": impl.name, "project": impl.project, "language": impl.language,
            "license": impl.license, "install": impl.install, "source_url": impl.source_url,
            "url": urls.implementation(iid), "baseline": iid == family.baseline,
            "usable": usable(impl), "numerics": impl.numerics, "version": impl.version,
            "best_us": row["time_us"] if row else None, "ratio_to_first": row["ratio_to_first"] if row else None,
            "run_url": row["run_url"] if row else None,
            "evidence": [TRUST_LABEL[t] for t in trusts] or ["No ranked result"],
            "results": len(results), **_outcomes(results),
        })
    out.sort(key=lambda r: (r["best_us"] is None, r["best_us"] or 0, r["id"]))
    return out


FAILED = ("failed", "crashed", "timeout")


def _outcomes(results) -> dict:
    """What did not give a time, told apart: failed (failed, crashed, timed out, or a failed
    correctness check), unsupported (the implementation refuses the workload), not installed,
    not run (the run's time budget ended first);
    each as results and as the runs they came from (current results only: older ones are history)."""
    current = [e for e in results if e.superseded_by is None]
    failed = [e for e in current if e.result.status in FAILED
              or (e.result.correctness is not None and not e.result.correctness.passed)]
    unsupported = [e for e in current if e.result.status == "unsupported"]
    missing = [e for e in current if e.result.status == "not-installed"]
    not_run = [e for e in current if e.result.status == "not-run"]
    return {"failed": len(failed), "failed_runs": len({e.lr.path for e in failed}),
            "unsupported": len(unsupported), "not_installed": len(missing), "not_run": len(not_run)}


def _semantics(family: Family) -> dict:
    s = family.semantics
    tensor = lambda name, t, role: {"name": name, "role": role, "dtype": t.dtype, "shape": list(t.shape)}
    kinds = [{"kind": k, "definition": ks.definition,
              "tensors": [tensor(n, t, "input") for n, t in ks.inputs.items()]
              + [tensor(n, t, "output") for n, t in ks.outputs.items()]}
             for k, ks in s.kinds.items() if any(w.kind == k for w in family.workloads)]
    out = {
        "tensors": [tensor(n, t, "input") for n, t in s.inputs.items()]
        + [tensor(n, t, "output") for n, t in s.outputs.items()],
        "axes": [{"name": n, "kind": a.kind, "value": a.value} for n, a in s.axes.items()],
        "determinism": s.determinism, "constraints": list(s.constraints), "definition": s.definition,
        "parameters": dict(s.parameters), "identity": semantics_identity(family),
        "arithmetic": family.arithmetic.model_dump() if family.arithmetic else None,
        "kinds": kinds,
    }
    if family.charts:  # the chart kinds it declares (a family without any keeps its JSON as it was)
        out["charts"] = list(family.charts)
    return out


def _sources(mine) -> list[dict]:
    seen = {}
    for e in mine:
        lr = e.lr
        if lr.path in seen:
            continue
        run = lr.run
        seen[lr.path] = {
            "trust": run.trust, "trust_label": TRUST_LABEL[run.trust], "url": urls.run_of(lr),
            "name": run.source.name if run.source else f"Kernel Records runner on {e.hardware.name}",
            "source_url": run.source.url if run.source else None,
            "license": run.source.license if run.source else "CC-BY-4.0",
            "observed": run.observed_at.date().isoformat(), "hardware_name": e.hardware.name,
            "protocol": run.protocol.id, "results": len(run.results), "run_id": lr.id,
        }
    return sorted(seen.values(), key=lambda s: (s["observed"], s["url"]), reverse=True)
