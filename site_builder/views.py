"""Page models: plain dicts of ready-made values, shared by the HTML templates and the JSON twins.

Templates do no arithmetic: every ratio, rank and floor is computed here.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict

from .derive import (CohortKey, Entry, cohort_priority, cohorts, ranked, usable)
from .load import Catalog
from .floors import floor
from .schema import DTYPE_SHORT, Family, Workload

TRUST_LABEL = {"measured": "Measured here", "reported": "Reported"}
TRUST_NOTE = {
    "measured": "Measured here under the published protocol, with a correctness check.",
    "reported": "Reported by source; not independently reproduced.",
}


def run_url(lr) -> str:
    return f"runs/{lr.run.family}/{lr.run.hardware}/{lr.id}.html"


def history_url(family: str, workload: str, hardware: str) -> str:
    return f"history/{family}/{workload}/{hardware}.html"


def workload_label(family: Family, w: Workload) -> str:
    parts = [f"{a} = {w.sizes[a]}" for a in family.semantics.axes if a in w.sizes]
    return " · ".join([*parts, DTYPE_SHORT.get(w.dtype, w.dtype), *([w.kind] if w.kind != "forward" else [])])


def semantics_identity(family: Family) -> str:
    canonical = json.dumps(family.semantics.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def workload_view(family: Family, w: Workload, bytes_moved: int) -> dict:
    return {"id": w.id, "label": w.label or workload_label(family, w), "dtype": w.dtype,
            "sizes": w.sizes, "bytes": bytes_moved}


def entry_view(e: Entry, first: Entry | None = None, baseline: Entry | None = None) -> dict:
    r, impl = e.result, e.implementation
    stat = e.stat
    return {
        "implementation": impl.id, "name": impl.name, "project": impl.project,
        "language": impl.language, "license": impl.license, "install": impl.install,
        "installable": bool(impl.install), "usable": usable(impl), "source_url": impl.source_url,
        "implementation_url": f"implementations/{impl.id}.html",
        "baseline": impl.id == e.family.baseline, "exact": r.exact,
        "workload": e.workload.id, "hardware": e.hardware.id, "hardware_name": e.hardware.name,
        "protocol": e.run.protocol.id, "clock": e.run.protocol.clock,
        "status": r.status, "error": r.error, "note": r.note, "reasons": list(e.reasons),
        "time_us": e.time_us,
        "p20_us": stat.p20 if stat else None, "p80_us": stat.p80 if stat else None,
        "samples": stat.samples if stat else None,
        "device_us": r.device_us.median if r.device_us else None,
        "e2e_us": r.e2e_us.median if r.e2e_us else None,
        "trust": e.run.trust, "trust_label": TRUST_LABEL[e.run.trust], "trust_note": TRUST_NOTE[e.run.trust],
        "observed": e.observed.date().isoformat(),
        "run_url": f"{run_url(e.lr)}#{e.anchor}", "run_id": e.lr.id,
        "max_rel_error": r.correctness.max_rel_error if r.correctness else None,
        "ratio_to_first": (e.time_us / first.time_us) if (first and e.time_us and e.eligible) else None,
        "speedup_vs_baseline": (baseline.time_us / e.time_us)
        if (baseline and e.time_us and baseline.time_us) else None,
        "floor_fraction": (e.floor.us / e.time_us) if e.time_us else None,
        "measured_floor_fraction": (e.measured_floor.us / e.time_us) if (e.measured_floor and e.time_us) else None,
        "superseded_by": f"{run_url(e.superseded_by.lr)}#{e.superseded_by.anchor}" if e.superseded_by else None,
        "eligible": e.eligible,
    }


def floor_view(e0: Entry, best: Entry | None, measured_bw: float | None) -> dict:
    """The floors of a cohort (any entry `e0` of it) and how far its best result sits above them."""
    datasheet = e0.floor
    measured = floor(e0.family, e0.workload, e0.hardware, measured_bw) if measured_bw else None
    return {
        "bytes": datasheet.bytes, "datasheet_us": datasheet.us, "bandwidth_gbps": datasheet.bandwidth_gbps,
        "memory_us": datasheet.memory_us, "compute_us": datasheet.compute_us, "flops": datasheet.flops,
        "peak_tflops": datasheet.peak_tflops, "bound": datasheet.bound,
        "measured_us": measured.us if measured else None,
        "measured_bandwidth_gbps": measured_bw,
        "record_us": best.time_us if best else None,
        "above_datasheet": (best.time_us / datasheet.us) if best else None,
        "above_measured": (best.time_us / measured.us) if (best and measured) else None,
        "arithmetic": e0.family.arithmetic is not None,
    }


def copy_bandwidths(catalog: Catalog) -> dict[str, float]:
    """The newest measured copy bandwidth per hardware id (runs are sorted oldest first)."""
    out = {}
    for lr in catalog.runs:
        env = lr.run.environment
        if env and env.copy_bandwidth_gbps:
            out[lr.run.hardware] = env.copy_bandwidth_gbps
    return out


def cohort_view(key: CohortKey, group: list[Entry], family: Family, copy_bw: dict) -> dict:
    rows = ranked(group)
    first = rows[0] if rows else None
    baseline = next((e for e in rows if e.implementation.id == family.baseline), None)
    e0 = group[0]
    own_bw = next((e.run.environment.copy_bandwidth_gbps for e in rows
                   if e.run.environment and e.run.environment.copy_bandwidth_gbps), None)
    return {
        "key": key.slug, "hardware": key.hardware, "hardware_name": e0.hardware.name,
        "hardware_url": f"hardware/{key.hardware}.html",
        "protocol": key.protocol, "protocol_version": e0.run.protocol.version,
        "clock": e0.run.protocol.clock, "statistic": e0.run.protocol.statistic,
        "trust": min((e.run.trust for e in group), key=lambda t: t != "measured"),
        "rows": [dict(entry_view(e, first, baseline), rank=i + 1) for i, e in enumerate(rows)],
        "unranked": [entry_view(e, first, baseline) for e in group if not e.eligible],
        "floor": floor_view(e0, first, own_bw or copy_bw.get(key.hardware)),
        "history_url": history_url(family.id, key.workload, key.hardware),
        "results": len(rows),
        "last_observed": max(e.observed for e in group).date().isoformat(),
    }


def family_cohorts(family: Family, entries: list[Entry]) -> dict[str, list[tuple[CohortKey, list[Entry]]]]:
    """Per workload id, its cohorts in priority order."""
    per_workload: dict[str, list] = defaultdict(list)
    for key, group in cohorts([e for e in entries if e.family.id == family.id]).items():
        per_workload[key.workload].append((key, group))
    for items in per_workload.values():
        items.sort(key=lambda kg: cohort_priority(*kg))
    return per_workload
