"""Row views shared by several pages: one result, one cohort, one workload, a cohort's floors.

Rows are plain mappings of ready-made values (templates do no arithmetic) whose keys are
documented by the TypedDicts in `models.py`; pages are the typed models there.
"""

from __future__ import annotations

import hashlib
import json

from ..derive.entries import Entry, usable
from ..derive.floors import achieved_tflops
from ..derive.index import Cohort
from ..records.kernel_hash import source_changed
from ..records.schema import DTYPE_SHORT, Family, Workload
from . import urls

TRUST_LABEL = {"measured": "Measured here", "reported": "Reported"}
TRUST_NOTE = {
    "measured": "Measured here under the published protocol, with a correctness check.",
    "reported": "Reported by source; not independently reproduced.",
}


class _ByIdentity:
    """A memo of a function of frozen record objects, keyed by their identity: the objects are
    kept with the value, so an id is never reused while its entry lives (cleared when full)."""

    def __init__(self, fn, limit: int = 10_000):
        self.fn, self.limit, self.memo = fn, limit, {}

    def __call__(self, *objs):
        key = tuple(map(id, objs))
        hit = self.memo.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], objs)):
            return hit[1]
        if len(self.memo) >= self.limit:
            self.memo.clear()
        value = self.fn(*objs)
        self.memo[key] = (objs, value)
        return value


def _names_kinds(family: Family) -> bool:
    return any(w.kind != "forward" for w in family.workloads)


_names_kinds_of = _ByIdentity(_names_kinds)


def names_kinds(family: Family) -> bool:
    """Whether pages name the workload kind: only in a family with a non-forward workload."""
    return _names_kinds_of(family)


def _workload_label(family: Family, w: Workload) -> str:
    parts = [f"{a} = {w.sizes[a]}" for a in family.semantics.axes if a in w.sizes]
    return _with_kind(family, w, " · ".join([*parts, DTYPE_SHORT.get(w.dtype, w.dtype)]))


def _workload_title(family: Family, w: Workload) -> str:
    return _with_kind(family, w, w.label) if w.label else workload_label(family, w)


_labels, _titles = _ByIdentity(_workload_label), _ByIdentity(_workload_title)


def workload_label(family: Family, w: Workload) -> str:
    """The workload's sizes and dtype; plus its kind (forward, backward, forward+backward) in a
    family that has more than forward workloads."""
    return _labels(family, w)


def workload_title(family: Family, w: Workload) -> str:
    """The workload as headings name it: its own label when it has one, else `workload_label`."""
    return _titles(family, w)


def _with_kind(family: Family, w: Workload, text: str) -> str:
    if names_kinds(family) and w.kind not in text.split(" · "):
        return f"{text} · {w.kind}"
    return text


def semantics_identity(family: Family) -> str:
    canonical = json.dumps(family.semantics.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def workload_view(family: Family, w: Workload, bytes_moved: int) -> dict:
    return {"id": w.id, "label": workload_title(family, w), "dtype": w.dtype, "kind": w.kind,
            "sizes": w.sizes, "bytes": bytes_moved}


def entry_url(e: Entry) -> str:
    return urls.anchored(_run_part(e.lr)["run_url"], e.anchor)


def _impl_part(impl) -> dict:
    return {"name": impl.name, "project": impl.project, "language": impl.language, "license": impl.license,
            "install": impl.install, "installable": bool(impl.install), "usable": usable(impl),
            "source_url": impl.source_url, "implementation_url": urls.implementation(impl.id)}


def _run_part(lr) -> dict:
    run = lr.run
    return {"protocol": run.protocol.id, "protocol_version": run.protocol.version,
            "clock": run.protocol.clock, "trust": run.trust,
            "trust_label": TRUST_LABEL[run.trust], "trust_note": TRUST_NOTE[run.trust],
            "observed": run.observed_at.date().isoformat(), "run_url": urls.run_of(lr), "run_id": lr.id}


_impl_part, _run_part = _ByIdentity(_impl_part), _ByIdentity(_run_part)


def entry_view(e: Entry, first: Entry | None = None, baseline: Entry | None = None) -> dict:
    view = _entry_view(e, first, baseline)
    if e.family.arithmetic is not None:  # a family with flops: the rate beside the time
        view["tflops"] = achieved_tflops(e.floor.flops, e.time_us)
    return view


def _entry_view(e: Entry, first: Entry | None, baseline: Entry | None) -> dict:
    r, impl = e.result, e.implementation
    stat = e.stat
    im, rn = _impl_part(impl), _run_part(e.lr)
    time_us = e.time_us
    return {
        "implementation": impl.id, "name": im["name"], "project": im["project"],
        "language": im["language"], "license": im["license"], "install": im["install"],
        "installable": im["installable"], "usable": im["usable"], "source_url": im["source_url"],
        "implementation_url": im["implementation_url"],
        "baseline": impl.id == e.family.baseline, "exact": r.exact,
        "workload": e.workload.id, "hardware": e.hardware.id, "hardware_name": e.hardware.name,
        "protocol": rn["protocol"], "protocol_version": rn["protocol_version"], "clock": rn["clock"],
        "status": r.status, "error": r.error, "note": r.note, "reasons": list(e.reasons),
        "time_us": time_us,
        "p20_us": stat.p20 if stat else None, "p80_us": stat.p80 if stat else None,
        "samples": stat.samples if stat else None,
        "device_us": r.device_us.median if r.device_us else None,
        "e2e_us": r.e2e_us.median if r.e2e_us else None,
        "trust": rn["trust"], "trust_label": rn["trust_label"], "trust_note": rn["trust_note"],
        "observed": rn["observed"],
        "run_url": urls.anchored(rn["run_url"], e.anchor), "run_id": rn["run_id"],
        "max_rel_error": r.correctness.max_rel_error if r.correctness else None,
        "ratio_to_first": (time_us / first.time_us) if (first and time_us and e.eligible) else None,
        "speedup_vs_baseline": (baseline.time_us / time_us)
        if (baseline and time_us and baseline.time_us) else None,
        "floor_fraction": (e.floor.us / time_us) if time_us else None,
        "measured_floor_fraction": (e.measured_floor.us / time_us) if (e.measured_floor and time_us) else None,
        "superseded_by": entry_url(e.superseded_by) if e.superseded_by else None,
        "eligible": e.eligible,
        "kernel_sha": r.kernel_sha,
        "source_changed": False,  # set by a publisher that knows today's code (mark_changed_sources)
    }


def floor_view(cohort: Cohort) -> dict:
    """The floors of a cohort and how far its best result sits above them."""
    e0, best = cohort.entries[0], cohort.first
    datasheet = e0.floor
    measured = cohort.measured_floor()
    view = {
        "bytes": datasheet.bytes, "datasheet_us": datasheet.us, "bandwidth_gbps": datasheet.bandwidth_gbps,
        "memory_us": datasheet.memory_us, "compute_us": datasheet.compute_us, "flops": datasheet.flops,
        "peak_tflops": datasheet.peak_tflops, "bound": datasheet.bound,
        "measured_us": measured.us if measured else None,
        "measured_bandwidth_gbps": cohort.copy_bandwidth_gbps,
        "launch_us": measured.launch_us if measured else None,  # per-launch term, measured in the run
        "measured_bound": measured.bound if measured else None,
        "record_us": best.time_us if best else None,
        "above_datasheet": (best.time_us / datasheet.us) if best else None,
        "above_measured": (best.time_us / measured.us) if (best and measured) else None,
        "arithmetic": e0.family.arithmetic is not None,
    }
    if e0.family.arithmetic is not None:  # the compute side: only families with flops show it
        view.update({
            "intensity": datasheet.intensity,  # FLOP per byte
            "ridge": datasheet.ridge,  # FLOP per byte at the datasheet peak and bandwidth
            "measured_peak_tflops": measured.measured_peak_tflops if measured else None,
            "measured_compute_us": measured.measured_compute_us if measured else None,
            "measured_ridge": measured.ridge if measured else None,
            "record_tflops": achieved_tflops(datasheet.flops, best.time_us) if best else None,
        })
    return view


def cohort_view(cohort: Cohort) -> dict:
    key, group, rows = cohort.key, cohort.entries, cohort.ranked
    family = group[0].family
    first = cohort.first
    baseline = next((e for e in rows if e.implementation.id == family.baseline), None)
    e0 = group[0]
    # the current results that do not rank; superseded ones are counted, their series is history
    unranked = [e for e in cohort.unranked if e.superseded_by is None]
    # a cohort may hold results of several versions of its protocol (older ones stay until a run
    # under the newest replaces them): the heading names the newest current one, the rows mark the
    # others (superseded results, history only, do not count)
    versions = sorted({e.run.protocol.version for e in ([*rows, *unranked] or group)})
    return {
        "key": key.slug, "hardware": key.hardware, "hardware_name": e0.hardware.name,
        "hardware_url": urls.hardware(key.hardware),
        "protocol": key.protocol, "protocol_version": versions[-1], "older_versions": versions[:-1],
        "clock": e0.run.protocol.clock, "statistic": e0.run.protocol.statistic,
        "trust": min((e.run.trust for e in group), key=lambda t: t != "measured"),
        # the record (methodology, "the record"): the top of this leaderboard, the same figure on
        # the history page, the index and the feed
        "record_us": first.time_us if first else None,
        "record_implementation": first.implementation.id if first else None,
        "rows": [dict(entry_view(e, first, baseline), rank=i + 1) for i, e in enumerate(rows)],
        "unranked": [entry_view(e, first, baseline) for e in unranked],
        "superseded": len(cohort.unranked) - len(unranked),
        "floor": floor_view(cohort),
        "history_url": urls.history(family.id, key.workload, key.hardware),
        "history_json_url": urls.history_json(family.id, key.workload, key.hardware),
        "results": len(rows),
        "last_observed": max(e.observed for e in group).date().isoformat(),
    }


def mark_changed_sources(views, current: dict[str, str]):
    """Set `source_changed` on each entry view whose recorded kernel hash is not the hash of its
    implementation's code today (`current`: implementation id -> hash; see records.kernel_hash)."""
    for view in views:
        view["source_changed"] = source_changed(view.get("kernel_sha"), current.get(view["implementation"]))
