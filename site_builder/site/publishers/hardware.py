"""Hardware pages: one GPU's datasheet, its runs with their measured copy bandwidth, and the
best result per family and workload on it."""

from __future__ import annotations

from ...derive.index import SiteIndex
from .. import urls
from ..models import HardwarePage
from ..publish import Page, SiteContext
from ..views import TRUST_LABEL, entry_view, workload_title

RECENT_RUNS = 50  # runs listed on the page, newest first; each family page and history has the rest


def publish(index: SiteIndex, site: SiteContext):
    for hid, hw in sorted(index.catalog.hardware.items()):
        yield Page(urls.hardware(hid), "hardware.html", {"hw": hardware_page(index, hw)})


def hardware_page(index: SiteIndex, hw) -> HardwarePage:
    catalog = index.catalog
    mine = index.by_hardware.get(hw.id, ())
    runs = {}
    for e in mine:
        env = e.run.environment
        runs.setdefault(e.lr.path, {
            "url": urls.run_of(e.lr), "id": e.lr.id, "family": e.family.title, "trust": e.run.trust,
            "trust_label": TRUST_LABEL[e.run.trust], "observed": e.observed.date().isoformat(),
            "protocol": e.run.protocol.id, "results": len(e.run.results),
            "copy_bandwidth_gbps": env.copy_bandwidth_gbps if env else None,
            "copy_fraction": (env.copy_bandwidth_gbps / hw.memory_bandwidth_gbps)
            if env and env.copy_bandwidth_gbps else None,
            "gpu": env.gpu if env else None, "driver": env.driver if env else None,
            "cuda": env.cuda if env else None, "torch": env.torch if env else None,
        })
    best = []
    for fid in sorted({e.family.id for e in mine}):
        family = catalog.families[fid]
        rows = []
        for w in family.workloads:
            for cohort in sorted((c for c in index.cohorts_of(fid, w.id) if c.key.hardware == hw.id),
                                 key=lambda c: c.key.protocol):
                first = cohort.first
                rows.append({"workload": w.id, "workload_label": workload_title(family, w),
                             "protocol": cohort.key.protocol, "best": entry_view(first) if first else None,
                             "ranked": len(cohort.ranked), "results": len(cohort.entries),
                             "history_url": urls.history(fid, w.id, hw.id)})
        best.append({"id": fid, "title": family.title, "url": urls.family(fid), "rows": rows,
                     "gpu_url": urls.family_gpu(fid, hw.id),
                     "workloads": len(family.workloads),
                     "measured": len({r["workload"] for r in rows if r["best"]})})
    copy_bw = index.copy_bandwidths.get(hw.id)
    return HardwarePage(record=hw.model_dump(mode="json"), id=hw.id, name=hw.name,
                        copy_bandwidth_gbps=copy_bw,
                        copy_fraction=copy_bw / hw.memory_bandwidth_gbps if copy_bw else None,
                        runs=sorted(runs.values(), key=lambda r: (r["observed"], r["id"]), reverse=True)[:RECENT_RUNS],
                        runs_total=len(runs),
                        families=best)
