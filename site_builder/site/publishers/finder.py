"""The "which kernel for my shape" page and the per-family, per-GPU winner maps (CSV).

For every family and measured workload, the winner of each cohort that ranks (the record, see
the methodology page), its runner-up and margin, and the floor. Each family's winners are a
page of their own (a table, readable without JavaScript), JSON, and the same JSON as a script;
the finder page lists the families, and assets/finder.js loads the chosen family's script, takes
a dtype and shape from the form (the state lives in the URL's query), finds the nearest measured
workloads by distance over the family's axes in log space, and says whether the winner of the
nearest holds across those neighbours. So the finder page stays small however many families
and workloads the index holds."""

from __future__ import annotations

import json
import math

from ...derive.index import SiteIndex
from ...records.kernel_hash import source_changed
from ...records.schema import WORKLOAD_KINDS
from .. import urls
from ..publish import Data, Page, SiteContext, to_csv, to_json
from ..views import TRUST_LABEL, entry_url, workload_title

CSV_COLUMNS = ["workload", "dtype", "kind", "sizes", "hardware", "protocol", "trust", "winner", "winner_id",
               "time_us", "earlier_code", "runner_up", "runner_up_us", "margin", "floor_us", "above_floor", "run_url"]


def winners(index: SiteIndex, current_of=None) -> list[dict]:
    """Per family: its axes and, per measured workload, the winner of every ranking cohort;
    `earlier_code` marks a winner measured on kernel source that has changed since (as the family
    page's "earlier code" badge: `current_of(family id)` gives today's source hashes, as
    SiteContext.current_shas does; None: nothing is marked)."""
    out = []
    for fid, family in sorted(index.catalog.families.items()):
        current = current_of(fid) if current_of else {}
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
                    "time_us": first.time_us,
                    "earlier_code": source_changed(first.result.kernel_sha, current.get(first.implementation.id)),
                    "runner_up": second.implementation.name if second else None,
                    "runner_up_us": second.time_us if second else None,
                    "margin": round(second.time_us / first.time_us, 4) if second else None,
                    "floor_us": fl.us, "above_floor": round(first.time_us / fl.us, 2) if fl.us else None,
                    "run_url": entry_url(first),
                    "history_url": urls.history(fid, w.id, c.key.hardware),
                })
        dtypes = sorted({w.dtype for w in family.workloads})
        # the passes (workload kinds) and GPUs a reader can narrow the answer to
        kinds = [k for k in WORKLOAD_KINDS if any(r["kind"] == k for r in rows)]
        gpus = sorted({(r["hardware_name"], r["hardware"]) for r in rows})
        out.append({"id": fid, "title": family.title, "axes": axes, "dtypes": dtypes, "rows": rows,
                    "kinds": kinds, "gpus": [{"id": h, "name": name} for name, h in gpus],
                    "url": urls.shape_family(fid), "json_url": urls.shape_data(fid),
                    "script_url": urls.shape_script(fid), "family_url": urls.family(fid),
                    "csv": [{"hardware": h, "hardware_name": next(r["hardware_name"] for r in rows if r["hardware"] == h),
                             "url": urls.winner_map_csv(fid, h)}
                            for h in sorted({r["hardware"] for r in rows})]})
    return out


def publish(index: SiteIndex, site: SiteContext):
    data = winners(index, site.current_shas)
    listed = [{k: fam[k] for k in ("id", "title", "url", "json_url", "script_url", "csv")} | {"shapes": len(fam["rows"])}
              for fam in data]
    yield Page(urls.SHAPE_FINDER, "shape.html", {"families": listed})
    for fam in data:
        yield Page(fam["url"], "shape_family.html", {"fam": fam})
        text = to_json(fam)
        yield Data(fam["json_url"], text)
        yield Data(fam["script_url"], script(fam["id"], text))
        for link in fam["csv"]:
            rows = [dict(r, sizes=" ".join(f"{a}={v}" for a, v in r["sizes"].items()))
                    for r in fam["rows"] if r["hardware"] == link["hardware"]]
            yield Data(link["url"], to_csv(CSV_COLUMNS, rows))


def script(fid: str, data: bytes) -> bytes:
    """A family's finder JSON as a script that files it under `window.KR_FINDER[fid]`."""
    return b"(window.KR_FINDER = window.KR_FINDER || {})[%s] = %s;\n" % (json.dumps(fid).encode(), data.rstrip(b"\n"))


def distance(a: dict, b: dict, axes: list[str]) -> float:
    """Distance between two shapes over the axes both give, in log2 space (what finder.js does)."""
    common = [x for x in axes if x in a and x in b and a[x] > 0 and b[x] > 0]
    return math.sqrt(sum((math.log2(a[x]) - math.log2(b[x])) ** 2 for x in common)) if common else math.inf
