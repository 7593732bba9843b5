"""Implementation pages: everything on record about one implementation, per family, and the
code registered for it in kernels/."""

from __future__ import annotations

from pathlib import Path

from ...derive.entries import usable
from ...derive.index import SiteIndex
from ...records.kernel_hash import registered, sha_of
from .. import urls
from ..models import ImplementationPage
from ..publish import Page, SiteContext
from ..views import entry_view, workload_label


def publish(index: SiteIndex, site: SiteContext):
    code = {fid: registered(site.kernels, fid) for fid in sorted(index.catalog.families)} \
        if site.kernels and Path(site.kernels).is_dir() else {}
    for iid, impl in sorted(index.catalog.implementations.items()):
        yield Page(urls.implementation(iid), "implementation.html",
                   {"i": implementation_page(index, impl, code)})


def implementation_page(index: SiteIndex, impl, code: dict) -> ImplementationPage:
    catalog = index.catalog
    mine = index.by_implementation.get(impl.id, ())
    families = []
    for fid in sorted({e.family.id for e in mine}):
        family = catalog.families[fid]
        rows, firsts, cohort_count = [], 0, 0
        order = {w.id: n for n, w in enumerate(family.workloads)}
        current = [e for e in mine if e.family.id == fid and e.superseded_by is None]
        for e in sorted(current, key=lambda e: (e.hardware.id, e.run.protocol.id, order[e.workload.id])):
            group = index.cohorts[e.cohort].ranked
            rank = next((i + 1 for i, x in enumerate(group) if x is e), None)
            cohort_count += 1
            firsts += rank == 1
            rows.append(dict(entry_view(e, group[0] if group else None), rank=rank, of=len(group),
                             workload_label=workload_label(family, e.workload),
                             history_url=urls.history(fid, e.workload.id, e.hardware.id)))
        eligible_ids = {e.implementation.id for e in index.family_entries(fid) if e.eligible}
        can_compare = impl.id != family.baseline and impl.id in eligible_ids
        families.append({"id": fid, "title": family.title, "url": urls.family(fid), "rows": rows,
                         "firsts": firsts, "cohorts": cohort_count,
                         "compare_url": urls.compare_pair(fid, impl.id, family.baseline) if can_compare
                         else urls.compare_default(fid),
                         "baseline": impl.id == family.baseline})
    sources = []
    for fid, registry in code.items():
        src = registry.get(impl.id)
        if src and all(p.is_file() for p in src.sources):
            sources.append({"family": fid, "module": f"kernels/{src.module.parent.name}/{src.module.name}",
                            "sha": sha_of(src.sources), "packages": list(src.packages)})
    return ImplementationPage(record=impl.model_dump(mode="json"), id=impl.id, name=impl.name,
                              usable=usable(impl), families=families, code=sources,
                              results=sum(len(f["rows"]) for f in families),
                              superseded=sum(e.superseded_by is not None for e in mine))



