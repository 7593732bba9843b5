"""One function per page kind: catalog + entries in, a page model (plain dict) out.

Family, run and index pages here; compare, history, challenges, implementation and hardware
pages in their own modules (compare.py, history.py, challenges.py, profiles.py)."""

from __future__ import annotations

from . import charts
from .derive import Entry, usable
from .floors import bytes_moved
from .load import Catalog
from .schema import Family
from .views import (TRUST_LABEL, TRUST_NOTE, cohort_view, copy_bandwidths, entry_view, family_cohorts,
                    history_url, run_url, semantics_identity, workload_label, workload_view)


def family_page(catalog: Catalog, family: Family, entries: list[Entry]) -> dict:
    mine = [e for e in entries if e.family.id == family.id]
    per_workload = family_cohorts(family, mine)
    copy_bw = copy_bandwidths(catalog)
    workloads = {w.id: workload_view(family, w, bytes_moved(family, w)) for w in family.workloads}

    leaderboards = []
    for w in family.workloads:
        items = per_workload.get(w.id, [])
        leaderboards.append({
            "workload": workloads[w.id], "headline": w.id == family.headline,
            "cohorts": [cohort_view(k, g, family, copy_bw) for k, g in items],
        })

    headline = next(lb["cohorts"] for lb in leaderboards if lb["headline"])
    return {
        "id": family.id, "title": family.title, "tag": family.tag, "summary": family.summary,
        "eligible_runs": sum(e.eligible for e in mine),
        "results_total": len(mine),
        "headline_workload": workloads[family.headline],
        "fastest": _fastest_usable(headline),
        "by_language": _by_language(headline),
        "matrix": _matrix(catalog, leaderboards),
        "source_native": [
            {k: c[k] for k in ("hardware", "hardware_name", "protocol", "protocol_version", "statistic",
                               "clock", "results", "last_observed", "history_url", "trust")}
            | {"workload": workloads[family.headline]["label"]}
            for c in headline
        ],
        "floors": [{"workload": lb["workload"], "cohort": c["key"], "hardware_name": c["hardware_name"],
                    "protocol": c["protocol"], **c["floor"]}
                   for lb in leaderboards for c in lb["cohorts"]],
        "leaderboards": leaderboards,
        "charts": charts.scaling_charts(family, mine),
        "implementations": _implementations(catalog, family, mine, headline),
        "semantics": _semantics(family),
        "sources": _sources(mine),
        "json_url": f"families/{family.id}.json", "csv_url": f"families/{family.id}.csv",
        "baseline": family.baseline,
    }


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


def _matrix(catalog, leaderboards: list[dict]) -> dict:
    """Per workload and GPU, the best result of the first cohort (in priority order) that ranks any."""
    hardware_ids = sorted(catalog.hardware)
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
        rows.append({"workload": lb["workload"], "cells": cells})
    return {"hardware": [{"id": h, "name": catalog.hardware[h].name} for h in hardware_ids],
            "rows": rows, "missing": sum(c["missing"] for r in rows for c in r["cells"])}


def _implementations(catalog, family, mine, headline) -> list[dict]:
    ids = sorted({e.implementation.id for e in mine} | {family.baseline})
    first_rows = {r["implementation"]: r for r in headline[0]["rows"]} if headline else {}
    out = []
    for iid in ids:
        impl = catalog.implementations[iid]
        own = [e for e in mine if e.implementation.id == iid]
        trusts = sorted({e.run.trust for e in own if e.eligible}, key=lambda t: t != "measured")
        row = first_rows.get(iid)
        out.append({
            "id": iid, "name": impl.name, "project": impl.project, "language": impl.language,
            "license": impl.license, "install": impl.install, "source_url": impl.source_url,
            "url": f"implementations/{iid}.html", "baseline": iid == family.baseline,
            "usable": usable(impl), "numerics": impl.numerics, "version": impl.version,
            "best_us": row["time_us"] if row else None, "ratio_to_first": row["ratio_to_first"] if row else None,
            "run_url": row["run_url"] if row else None,
            "evidence": [TRUST_LABEL[t] for t in trusts] or ["No ranked result"],
            "results": len(own), "failed": sum(e.result.status not in ("ok", "not-installed") for e in own),
        })
    out.sort(key=lambda r: (r["best_us"] is None, r["best_us"] or 0, r["id"]))
    return out


def _semantics(family: Family) -> dict:
    s = family.semantics
    tensor = lambda name, t, role: {"name": name, "role": role, "dtype": t.dtype, "shape": list(t.shape)}
    return {
        "tensors": [tensor(n, t, "input") for n, t in s.inputs.items()]
        + [tensor(n, t, "output") for n, t in s.outputs.items()],
        "axes": [{"name": n, "kind": a.kind, "value": a.value} for n, a in s.axes.items()],
        "determinism": s.determinism, "constraints": list(s.constraints), "definition": s.definition,
        "parameters": dict(s.parameters), "identity": semantics_identity(family),
        "arithmetic": family.arithmetic.model_dump() if family.arithmetic else None,
    }


def _sources(mine: list[Entry]) -> list[dict]:
    seen = {}
    for e in mine:
        lr = e.lr
        if lr.path in seen:
            continue
        run = lr.run
        seen[lr.path] = {
            "trust": run.trust, "trust_label": TRUST_LABEL[run.trust], "url": run_url(lr),
            "name": run.source.name if run.source else f"Kernel Records runner on {e.hardware.name}",
            "source_url": run.source.url if run.source else None,
            "license": run.source.license if run.source else "CC-BY-4.0",
            "observed": run.observed_at.date().isoformat(), "hardware_name": e.hardware.name,
            "protocol": run.protocol.id, "results": len(run.results), "run_id": lr.id,
        }
    return sorted(seen.values(), key=lambda s: (s["observed"], s["url"]), reverse=True)


def run_page(catalog: Catalog, lr, entries: list[Entry]) -> dict:
    run = lr.run
    family = catalog.families[run.family]
    mine = [e for e in entries if e.lr is lr]
    rows = []
    for e in mine:
        view = entry_view(e)
        r = e.result
        view.update({
            "anchor": e.anchor, "workload_label": workload_label(family, e.workload),
            "kernel_sha": r.kernel_sha, "correctness": r.correctness.model_dump() if r.correctness else None,
            "device": r.device_us.model_dump() if r.device_us else None,
            "e2e": r.e2e_us.model_dump() if r.e2e_us else None,
            "floor_us": e.floor.us, "measured_floor_us": e.measured_floor.us if e.measured_floor else None,
            "history_url": history_url(family.id, e.workload.id, e.hardware.id),
        })
        rows.append(view)
    return {
        "id": lr.id, "path": lr.path, "family": family.id, "family_title": family.title,
        "hardware": run.hardware, "hardware_name": catalog.hardware[run.hardware].name,
        "trust": run.trust, "trust_label": TRUST_LABEL[run.trust], "trust_note": TRUST_NOTE[run.trust],
        "observed": run.observed.isoformat().replace("+00:00", "Z"),
        "protocol": run.protocol.model_dump(mode="json"),
        "source": run.source.model_dump(mode="json") if run.source else None,
        "environment": run.environment.model_dump(mode="json") if run.environment else None,
        "seed": run.seed, "notes": run.notes, "results": rows,
        "record": run.model_dump(mode="json"),
        "json_url": f"runs/{family.id}/{run.hardware}/{lr.id}.json",
        "yaml_url": f"runs/{family.id}/{run.hardware}/{lr.id}.yaml",
    }


def index_page(catalog: Catalog, entries: list[Entry]) -> list[dict]:
    rows = []
    for fid, family in sorted(catalog.families.items()):
        mine = [e for e in entries if e.family.id == fid]
        rows.append({"id": fid, "title": family.title, "tag": family.tag, "summary": family.summary,
                     "url": f"families/{fid}.html", "workloads": len(family.workloads),
                     "eligible_runs": sum(e.eligible for e in mine),
                     "hardware": sorted({e.hardware.name for e in mine}),
                     "implementations": len({e.implementation.id for e in mine})})
    return rows
