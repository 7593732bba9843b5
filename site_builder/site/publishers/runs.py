"""Run pages: one per run file, its results grouped by workload (implementations fastest
first within each), with the record as JSON and the YAML file as it was committed."""

from __future__ import annotations

from functools import partial

from ...derive.index import SiteIndex
from .. import urls
from ..models import RunPage
from ..publish import Data, Page, Scope, SiteContext, to_json
from ..views import TRUST_LABEL, TRUST_NOTE, entry_view, workload_label


def publish(index: SiteIndex, site: SiteContext):
    by_family: dict[str, list] = {}
    for lr in index.catalog.runs:
        by_family.setdefault(lr.run.family, []).append(lr)
    for fid, runs in sorted(by_family.items()):  # a run page shows what its family's runs decide
        yield Scope(f"runs:{fid}", index.family_inputs(fid), partial(_run_files, index, site, runs))


def _run_files(index: SiteIndex, site: SiteContext, runs: list):
    for lr in runs:
        record = lr.run.model_dump(mode="json")  # the record as its JSON twin holds it
        yield Page(urls.run_of(lr), "run.html", {"r": run_page(index, lr, record)})
        yield Data(urls.run_json(lr.run.family, lr.run.hardware, lr.id), to_json(record))
        yield Data(urls.run_yaml(lr.run.family, lr.run.hardware, lr.id), (site.records / lr.path).read_bytes())


def run_page(index: SiteIndex, lr, record: dict | None = None) -> RunPage:
    run = lr.run
    record = record if record is not None else run.model_dump(mode="json")
    catalog = index.catalog
    family = catalog.families[run.family]
    order = {w.id: n for n, w in enumerate(family.workloads)}
    groups: dict[str, dict] = {}
    for e in index.run_entries(lr):
        view = entry_view(e)
        r = e.result
        dumped = record["results"][e.index]  # the result's measurements, as plain values
        view.update({
            "anchor": e.anchor, "workload_label": workload_label(family, e.workload),
            "kernel_sha": r.kernel_sha, "correctness": dumped.get("correctness"),
            "device": dumped.get("device_us"), "e2e": dumped.get("e2e_us"),
            "floor_us": e.floor.us, "measured_floor_us": e.measured_floor.us if e.measured_floor else None,
            "history_url": urls.history(family.id, e.workload.id, e.hardware.id),
        })
        group = groups.setdefault(e.workload.id, {
            "workload": e.workload.id, "label": view["workload_label"], "kind": e.workload.kind,
            "history_url": view["history_url"], "rows": []})
        group["rows"].append(view)
    for g in groups.values():  # fastest first; results without a time after, in record order
        g["rows"].sort(key=lambda x: (x["time_us"] is None, x["time_us"] or 0))
    ordered = sorted(groups.values(), key=lambda g: order[g["workload"]])
    return RunPage(
        id=lr.id, path=lr.path, family=family.id, family_title=family.title,
        hardware=run.hardware, hardware_name=catalog.hardware[run.hardware].name,
        trust=run.trust, trust_label=TRUST_LABEL[run.trust], trust_note=TRUST_NOTE[run.trust],
        observed=run.observed.isoformat().replace("+00:00", "Z"),
        protocol=run.protocol.model_dump(mode="json"),
        source=run.source.model_dump(mode="json") if run.source else None,
        environment=run.environment.model_dump(mode="json") if run.environment else None,
        seed=run.seed, notes=run.notes, groups=ordered, results=len(run.results),
        implementations=sorted({r.implementation for r in run.results}),
        json_url=urls.run_json(family.id, run.hardware, lr.id),
        yaml_url=urls.run_yaml(family.id, run.hardware, lr.id),
    )
