"""What the records do not cover yet, per family, each gap with the command that would fill it.

- workloads with no eligible result on some GPU;
- implementations never measured here: with only reported numbers, or registered in
  `kernels/<family>/` but absent from every run;
- current results that did not pass (failed, crashed, timed out, failed correctness, no check);
- measured results whose kernel source changed since (`kernel_sha` is not the hash of the
  code in `kernels/` now: the number is stale until it is measured again).
"""

from __future__ import annotations

from pathlib import Path

from ...derive.entries import Entry
from ...derive.index import SiteIndex
from ...records.kernel_hash import family_dir, registered, shas_of, source_changed
from ...records.load import Catalog
from .. import urls
from ..publish import Page, SiteContext
from ..views import entry_view, workload_label, workload_title

RUN = "kernel-records run"


def _command(fid: str, impls=(), workloads=()) -> str:
    parts = [RUN, f"--family {fid}", *(f"--implementation {i}" for i in impls),
             *(f"--workload {w}" for w in workloads)]
    return " ".join(parts)


def publish(index: SiteIndex, site: SiteContext):
    """A summary page of every family's counts, and one page per family with its gaps (the
    lists grow with families × workloads × GPUs: one page for all of them would not stay small)."""
    families = challenges(index, site.kernels)
    yield Page(urls.CHALLENGES, "challenges.html", {"families": [_summary(f) for f in families]})
    for fam in families:
        yield Page(urls.challenges(fam["id"]), "challenges_family.html", {"fam": fam})


def _summary(fam: dict) -> dict:
    return {"id": fam["id"], "title": fam["title"], "url": fam["url"], "page": fam["page"], "gaps": fam["gaps"],
            "never_measured": len(fam["never_measured"]), "failed": len(fam["failed"]), "stale": len(fam["stale"]),
            "runnable": fam["runnable"]}


def challenges(index: SiteIndex, kernels: Path | None = None) -> list[dict]:
    catalog = index.catalog
    out = []
    for fid, family in sorted(catalog.families.items()):
        mine = index.family_entries(fid)
        code = registered(kernels, fid) if kernels and Path(kernels).is_dir() else {}
        # `run --family F` is offered only where kernels/<F>/ is a package (unknown without kernels/)
        runnable = not (kernels and Path(kernels).is_dir()) or (family_dir(kernels, fid) / "__init__.py").is_file()
        fam = {
            "id": fid, "title": family.title, "url": urls.family(fid), "page": urls.challenges(fid),
            "missing": _missing(catalog, family, mine),
            "never_measured": _never_measured(catalog, family, mine, code),
            "failed": _failed(family, mine),
            "stale": _stale(family, mine, code),
            "registered": sorted(code),
            "runnable": runnable, "package": family_dir(Path("kernels"), fid).as_posix(),
        }
        if not runnable:
            for row in [*fam["missing"], *(w for g in fam["missing"] for w in g["workloads"]), *fam["never_measured"],
                        *fam["failed"], *fam["stale"]]:
                row["command"] = None
        out.append(fam)
    for f in out:
        f["gaps"] = sum(len(g["workloads"]) for g in f["missing"])
    return out


def _missing(catalog: Catalog, family, mine: list[Entry]) -> list[dict]:
    have = {(e.workload.id, e.hardware.id) for e in mine if e.eligible}
    groups = []
    for hid, hw in sorted(catalog.hardware.items()):
        gaps = [w for w in family.workloads if (w.id, hid) not in have]
        if not gaps:
            continue
        groups.append({
            "hardware": hid, "hardware_name": hw.name, "hardware_url": urls.hardware(hid),
            "of": len(family.workloads),
            "workloads": [{"id": w.id, "label": workload_title(family, w),
                           "command": _command(family.id, workloads=[w.id])} for w in gaps],
            "command": _command(family.id) if len(gaps) == len(family.workloads)
            else _command(family.id, workloads=[w.id for w in gaps]),
        })
    return groups


def _never_measured(catalog: Catalog, family, mine: list[Entry], code: dict) -> list[dict]:
    measured = {e.implementation.id for e in mine if e.run.trust == "measured"}
    reported = {e.implementation.id for e in mine if e.run.trust == "reported"}
    ids = sorted((reported | set(code) | {family.baseline}) - measured)
    rows = []
    for iid in ids:
        impl = catalog.implementations.get(iid)
        why = ("only reported numbers" if iid in reported else "registered in kernels/, no run on record"
               if iid in code else "the family's baseline, no result on record")
        rows.append({"id": iid, "name": impl.name if impl else iid,
                     "url": urls.implementation(iid) if impl else None,
                     "why": why, "runnable": iid in code,
                     "command": _command(family.id, impls=[iid])})
    return rows


def _failed(family, mine: list[Entry]) -> list[dict]:
    rows = []
    for e in mine:
        if e.superseded_by is not None or e.eligible:
            continue
        rows.append(dict(entry_view(e), workload_label=workload_label(family, e.workload),
                         why="; ".join(e.reasons) or e.result.status,
                         command=_command(family.id, impls=[e.implementation.id], workloads=[e.workload.id])))
    rows.sort(key=lambda r: (r["implementation"], r["hardware"], r["workload"]))
    return rows


def _stale(family, mine: list[Entry], code: dict) -> list[dict]:
    """Current measured results whose recorded kernel hash is not the hash of today's source."""
    current = shas_of(code)
    stale: dict[tuple, dict] = {}
    for e in mine:
        r = e.result
        if e.superseded_by is not None or e.run.trust != "measured":
            continue
        now = current.get(r.implementation)
        if not source_changed(r.kernel_sha, now):
            continue
        key = (r.implementation, e.hardware.id, e.lr.path)
        row = stale.setdefault(key, {
            "implementation": r.implementation, "name": e.implementation.name,
            "implementation_url": urls.implementation(r.implementation),
            "hardware_name": e.hardware.name, "shas": set(), "current_sha": now,
            "results": 0, "run_url": entry_view(e)["run_url"], "observed": e.observed.date().isoformat(),
            "command": _command(family.id, impls=[r.implementation]),
        })
        row["shas"].add(r.kernel_sha)
        row["results"] += 1
    for row in stale.values():
        shas = sorted(row.pop("shas"))
        row["recorded_sha"] = shas[0] if len(shas) == 1 else f"{shas[0]} (+{len(shas) - 1} more)"
    return sorted(stale.values(), key=lambda r: (r["implementation"], r["hardware_name"], r["observed"]))
