"""Compare two implementations of a family over all its workloads and hardware.

Every ordered pair gets its own static page, `compare/<family>/<a>--<b>.html`, so a comparison
is shared by its URL and reads without JavaScript; `compare/<family>.html` shows the default
pair (the fastest usable implementation at the headline workload against the baseline) and a
form whose small script goes to the chosen pair's page (it also reads `?a=…&b=…`).
"""

from __future__ import annotations

import math
from functools import partial

from ...derive.entries import Entry, usable
from ...derive.index import SiteIndex
from ...records.load import Catalog
from ...records.schema import Family
from .. import urls
from ..models import ComparePage
from ..publish import Data, Page, Scope, SiteContext, to_json
from ..views import TRUST_LABEL, entry_url, workload_title

pair_url = urls.compare_pair


def publish(index: SiteIndex, site: SiteContext):
    for fid, family in sorted(index.catalog.families.items()):
        yield Scope(f"compare:{fid}", index.family_inputs(fid), partial(_compare_files, index, family))


def _compare_files(index: SiteIndex, family: Family):
    for c in compare_family(index, family):
        yield Page(c.url, "compare.html", {"c": c})
        yield Data(urls.twin(c.url, ".json"), to_json(c))


def _candidates(catalog: Catalog, family: Family, mine) -> list[str]:
    ids = {e.implementation.id for e in mine if e.eligible} | {family.baseline}
    return sorted(i for i in ids if i in catalog.implementations)


def default_pair(family: Family, per_workload: dict, candidates: list[str],
                 usable_ids: set[str]) -> tuple[str, str] | None:
    if len(candidates) < 2:
        return None
    headline = per_workload.get(family.headline, [])
    order = [e.implementation.id for c in headline for e in c.ranked]
    order += [i for i in candidates if i not in order]
    base = family.baseline if family.baseline in candidates else order[-1]
    others = [i for i in order if i != base and i in candidates]
    first = next((i for i in others if i in usable_ids), others[0])
    return first, base


def _cell(e: Entry | None) -> dict | None:
    if e is None:
        return None
    return {"time_us": e.time_us, "run_url": entry_url(e), "eligible": e.eligible, "status": e.result.status,
            "reasons": list(e.reasons)}


def compare_family(index: SiteIndex, family: Family) -> list[ComparePage]:
    """Page models: the default page first (url compare/<family>.html), then every ordered pair."""
    catalog = index.catalog
    mine = index.family_entries(family.id)
    per_workload = {w.id: index.cohorts_of(family.id, w.id) for w in family.workloads}
    candidates = _candidates(catalog, family, mine)
    default = default_pair(family, per_workload, candidates,
                           {i for i in candidates if usable(catalog.implementations[i])})
    if default is None:
        return [_empty(catalog, family, candidates)]
    impls = [{"id": i, "name": catalog.implementations[i].name} for i in candidates]
    pairs = [(a, b) for a in candidates for b in candidates if a != b]
    out = []
    others = [{"a": x, "b": y, "a_name": catalog.implementations[x].name,
               "b_name": catalog.implementations[y].name, "url": pair_url(family.id, x, y)}
              for x, y in pairs if x < y]
    rows = _rows(family, per_workload)
    for a, b in [default, *pairs]:
        model = _pair(catalog, family, rows, a, b)
        out.append(ComparePage(**model, impls=impls, default=(a, b) == default and not out,
                               url=urls.compare_default(family.id) if not out else pair_url(family.id, a, b),
                               default_url=urls.compare_default(family.id),
                               pair_pattern=urls.compare_pattern(family.id), others=others))
    return out


def _empty(catalog, family, candidates) -> ComparePage:
    return ComparePage(family=family.id, family_title=family.title, url=urls.compare_default(family.id),
                       a=None, b=None, groups=[], impls=[{"id": i, "name": catalog.implementations[i].name}
                                                         for i in candidates],
                       others=[], default=True, default_url=urls.compare_default(family.id),
                       pair_pattern=urls.compare_pattern(family.id), summary=None)


def _newest(group: list[Entry], impl: str) -> Entry | None:
    """The implementation's ranked result in the cohort, else its newest unranked one."""
    own = [e for e in group if e.implementation.id == impl]
    eligible = [e for e in own if e.eligible]
    if eligible:
        return eligible[0]
    current = [e for e in own if e.superseded_by is None]
    return current[0] if current else None


def _rows(family: Family, per_workload: dict) -> list[tuple]:
    """Per workload and cohort, in page order: what every pair's row is made from (each
    implementation's cell), computed once for all the family's pairs."""
    out = []
    for w in family.workloads:
        label = workload_title(family, w)
        for cohort in per_workload.get(w.id, ()):
            key, group = cohort.key, cohort.entries
            cells = {i: _cell(_newest(group, i)) for i in sorted({e.implementation.id for e in group})}
            head = {"hardware": key.hardware, "hardware_name": group[0].hardware.name, "protocol": key.protocol,
                    "clock": group[0].run.protocol.clock, "trust_label": TRUST_LABEL[group[0].run.trust]}
            out.append((w.id, label, key, head, cells, urls.history(family.id, w.id, key.hardware)))
    return out


def _pair(catalog: Catalog, family: Family, rows: list[tuple], a: str, b: str) -> dict:
    ia, ib = catalog.implementations[a], catalog.implementations[b]
    groups: dict[tuple, dict] = {}
    for wid, label, key, head, cells, history_url in rows:
        ca, cb = cells.get(a), cells.get(b)
        if ca is None and cb is None:
            continue
        g = groups.setdefault((key.hardware, key.protocol), dict(head, rows=[]))
        both = bool(ca and cb and ca["eligible"] and cb["eligible"])
        ratio = cb["time_us"] / ca["time_us"] if both else None
        g["rows"].append({
            "workload": wid, "workload_label": label, "a": ca, "b": cb,
            "ratio": ratio, "winner": None if ratio is None else ("a" if ratio > 1 else "b" if ratio < 1 else "tie"),
            "history_url": history_url,
        })
    out_groups = []
    for g in groups.values():
        ratios = [r["ratio"] for r in g["rows"] if r["ratio"]]
        g.update(_tally(ratios, g["rows"]))
        out_groups.append(g)
    out_groups.sort(key=lambda g: (-g["both"], g["hardware"], g["protocol"]))
    all_ratios = [r["ratio"] for g in out_groups for r in g["rows"] if r["ratio"]]
    return {
        "family": family.id, "family_title": family.title,
        "a": {"id": a, "name": ia.name, "project": ia.project, "language": ia.language, "license": ia.license,
              "url": urls.implementation(a), "baseline": a == family.baseline},
        "b": {"id": b, "name": ib.name, "project": ib.project, "language": ib.language, "license": ib.license,
              "url": urls.implementation(b), "baseline": b == family.baseline},
        "groups": out_groups,
        "summary": _tally(all_ratios, [r for g in out_groups for r in g["rows"]]),
        "swap_url": pair_url(family.id, b, a),
    }


def _tally(ratios: list[float], rows: list[dict]) -> dict:
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else None
    return {
        "both": len(ratios),
        "geomean": geomean,
        "leader": None if geomean is None else ("a" if geomean >= 1 else "b"),
        "lead_ratio": None if geomean is None else max(geomean, 1 / geomean),
        "a_wins": sum(r > 1 for r in ratios), "b_wins": sum(r < 1 for r in ratios),
        "ties": sum(r == 1 for r in ratios),
        "only_a": sum(1 for r in rows if r["ratio"] is None and r["a"] and r["a"]["eligible"]),
        "only_b": sum(1 for r in rows if r["ratio"] is None and r["b"] and r["b"]["eligible"]),
    }
