"""The "which kernel for my shape" page and the per-family, per-GPU winner maps (CSV).

For every family and measured workload, the winner of each cohort that ranks (the record, see
the methodology page), its runner-up and margin, and the floor. The page holds these as a table
(readable without JavaScript) and as JSON; assets/finder.js reads the JSON, takes a family,
dtype and shape from the form (the state lives in the URL's query), finds the nearest measured
workloads by distance over the family's axes in log space, and says whether the winner of the
nearest holds across those neighbours."""

from __future__ import annotations

import math

from ...derive.index import SiteIndex
from .. import urls
from ..publish import Data, Page, SiteContext, to_csv
from ..views import TRUST_LABEL, entry_url, workload_title

CSV_COLUMNS = ["workload", "dtype", "kind", "sizes", "hardware", "protocol", "trust", "winner", "winner_id",
               "time_us", "runner_up", "runner_up_us", "margin", "floor_us", "above_floor", "run_url"]


def winners(index: SiteIndex) -> list[dict]:
    """Per family: its axes and, per measured workload, the winner of every ranking cohort."""
    out = []
    for fid, family in sorted(index.catalog.families.items()):
        axes = sorted({a for w in family.workloads for a in w.sizes})
        rows = []
        for w in family.workloads:
            for c in index.cohorts_of(fid, w.id):
                if not c.ranked:
                    continue
                first = c.ranked[0]
                second = c.ranked[1] if len(c.ranked) > 1 else None
                fl = first.floor
                rows.append({
                    "workload": w.id, "label": workload_title(family, w), "dtype": w.dtype, "kind": w.kind,
                    "sizes": {a: w.sizes[a] for a in axes if a in w.sizes},
                    "hardware": c.key.hardware, "hardware_name": first.hardware.name,
                    "protocol": c.key.protocol, "trust": first.run.trust, "trust_label": TRUST_LABEL[first.run.trust],
                    "winner": first.implementation.name, "winner_id": first.implementation.id,
                    "time_us": first.time_us, "runner_up": second.implementation.name if second else None,
                    "runner_up_us": second.time_us if second else None,
                    "margin": round(second.time_us / first.time_us, 4) if second else None,
                    "floor_us": fl.us, "above_floor": round(first.time_us / fl.us, 2) if fl.us else None,
                    "run_url": entry_url(first),
                    "history_url": urls.history(fid, w.id, c.key.hardware),
                })
        dtypes = sorted({w.dtype for w in family.workloads})
        out.append({"id": fid, "title": family.title, "axes": axes, "dtypes": dtypes, "rows": rows,
                    "csv": [{"hardware": h, "hardware_name": next(r["hardware_name"] for r in rows if r["hardware"] == h),
                             "url": urls.winner_map_csv(fid, h)}
                            for h in sorted({r["hardware"] for r in rows})]})
    return out


def publish(index: SiteIndex, site: SiteContext):
    data = winners(index)
    yield Page(urls.SHAPE_FINDER, "shape.html", {"families": data})
    for fam in data:
        for link in fam["csv"]:
            rows = [dict(r, sizes=" ".join(f"{a}={v}" for a, v in r["sizes"].items()))
                    for r in fam["rows"] if r["hardware"] == link["hardware"]]
            yield Data(link["url"], to_csv(CSV_COLUMNS, rows))


def distance(a: dict, b: dict, axes: list[str]) -> float:
    """Distance between two shapes over the axes both give, in log2 space (what finder.js does)."""
    common = [x for x in axes if x in a and x in b and a[x] > 0 and b[x] > 0]
    return math.sqrt(sum((math.log2(a[x]) - math.log2(b[x])) ** 2 for x in common)) if common else math.inf
