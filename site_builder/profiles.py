"""Page models for one implementation and for one GPU: everything on record about each."""

from __future__ import annotations

from pathlib import Path

from .compare import pair_url
from .derive import Entry, cohorts, ranked, usable
from .kernel_hash import registered, sha_of
from .load import Catalog
from .views import TRUST_LABEL, copy_bandwidths, entry_view, history_url, run_url, workload_label


def implementation_profile(catalog: Catalog, impl, entries: list[Entry], kernels: Path | None = None) -> dict:
    mine = [e for e in entries if e.implementation.id == impl.id]
    groups = cohorts(entries)
    families = []
    for fid in sorted({e.family.id for e in mine}):
        family = catalog.families[fid]
        rows, firsts, cohort_count = [], 0, 0
        order = {w.id: n for n, w in enumerate(family.workloads)}
        current = [e for e in mine if e.family.id == fid and e.superseded_by is None]
        for e in sorted(current, key=lambda e: (e.hardware.id, e.run.protocol.id, order[e.workload.id])):
            group = ranked(groups[e.cohort])
            rank = next((i + 1 for i, x in enumerate(group) if x is e), None)
            cohort_count += 1
            firsts += rank == 1
            rows.append(dict(entry_view(e, group[0] if group else None), rank=rank, of=len(group),
                             workload_label=workload_label(family, e.workload),
                             history_url=history_url(fid, e.workload.id, e.hardware.id)))
        eligible_ids = {e.implementation.id for e in entries if e.family.id == fid and e.eligible}
        can_compare = impl.id != family.baseline and impl.id in eligible_ids
        families.append({"id": fid, "title": family.title, "url": f"families/{fid}.html", "rows": rows,
                         "firsts": firsts, "cohorts": cohort_count,
                         "compare_url": pair_url(fid, impl.id, family.baseline) if can_compare
                         else f"compare/{fid}.html",
                         "baseline": impl.id == family.baseline})
    code = []
    if kernels and Path(kernels).is_dir():
        for fid in sorted(catalog.families):
            src = registered(kernels, fid).get(impl.id)
            if src and all(p.is_file() for p in src.sources):
                code.append({"family": fid, "module": f"kernels/{src.module.parent.name}/{src.module.name}",
                             "sha": sha_of(src.sources), "packages": list(src.packages)})
    record = impl.model_dump(mode="json")
    return {"record": record, "id": impl.id, "name": impl.name, "usable": usable(impl), "families": families,
            "code": code, "results": sum(len(f["rows"]) for f in families),
            "superseded": sum(e.superseded_by is not None for e in mine)}


def hardware_profile(catalog: Catalog, hw, entries: list[Entry]) -> dict:
    mine = [e for e in entries if e.hardware.id == hw.id]
    runs = {}
    for e in mine:
        env = e.run.environment
        runs.setdefault(e.lr.path, {
            "url": run_url(e.lr), "id": e.lr.id, "family": e.family.title, "trust": e.run.trust,
            "trust_label": TRUST_LABEL[e.run.trust], "observed": e.observed.date().isoformat(),
            "protocol": e.run.protocol.id, "results": len(e.run.results),
            "copy_bandwidth_gbps": env.copy_bandwidth_gbps if env else None,
            "copy_fraction": (env.copy_bandwidth_gbps / hw.memory_bandwidth_gbps)
            if env and env.copy_bandwidth_gbps else None,
            "gpu": env.gpu if env else None, "driver": env.driver if env else None,
            "cuda": env.cuda if env else None, "torch": env.torch if env else None,
        })
    best = []
    groups = cohorts(mine)
    for fid in sorted({e.family.id for e in mine}):
        family = catalog.families[fid]
        rows = []
        for w in family.workloads:
            for key, group in sorted(((k, g) for k, g in groups.items() if k.family == fid and k.workload == w.id),
                                     key=lambda kg: kg[0].protocol):
                top = ranked(group)
                first = top[0] if top else None
                view = entry_view(first) if first else None
                rows.append({"workload": w.id, "workload_label": w.label or workload_label(family, w),
                             "protocol": key.protocol, "best": view, "ranked": len(top),
                             "results": len(group), "history_url": history_url(fid, w.id, hw.id)})
        best.append({"id": fid, "title": family.title, "url": f"families/{fid}.html", "rows": rows,
                     "workloads": len(family.workloads),
                     "measured": len({r["workload"] for r in rows if r["best"]})})
    copy_bw = copy_bandwidths(catalog).get(hw.id)
    return {"record": hw.model_dump(mode="json"), "id": hw.id, "name": hw.name,
            "copy_bandwidth_gbps": copy_bw,
            "copy_fraction": copy_bw / hw.memory_bandwidth_gbps if copy_bw else None,
            "runs": sorted(runs.values(), key=lambda r: (r["observed"], r["id"]), reverse=True),
            "families": best}
