"""The search index: families, implementations, workloads and hardware, as a small script.

A page opened from disk (file://) cannot fetch() a JSON file beside it, so the index is a
JavaScript file that assigns one global; the search box loads it with a script tag the first
time it opens. The same data is also written as plain JSON for other tools.
"""

from __future__ import annotations

import json
import re

from .derive import Entry, ranked
from .load import Catalog
from .render import fmt_gbps, fmt_us
from .views import copy_bandwidths, family_cohorts, workload_label

INDEX_JS = "assets/search-index.js"
INDEX_JSON = "search-index.json"


def _plain(markdown_text: str | None, limit: int = 160) -> str:
    text = re.sub(r"[`*_\[\]()#>]", "", markdown_text or "")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _best(per_workload: dict, wid: str) -> str:
    """The record of a workload in its first cohort, number first: '8.16 µs Kernel … · NVIDIA H200'."""
    for _, group in per_workload.get(wid, []):
        top = ranked(group)
        if top:
            return f"{fmt_us(top[0].time_us)} {top[0].implementation.name} · {top[0].hardware.name} · "
    return ""


def search_items(catalog: Catalog, entries: list[Entry] = ()) -> list[dict]:
    """One item per thing a reader looks for: kind (k), title (t), detail (d), url (u)."""
    items = []
    for fid, f in sorted(catalog.families.items()):
        items.append({"k": "family", "t": f.title, "d": f"{f.tag} · {_plain(f.summary)}",
                      "u": f"families/{fid}.html"})
        per_workload = family_cohorts(f, list(entries))
        for w in f.workloads:
            items.append({"k": "workload", "t": w.label or workload_label(f, w),
                          "d": f"{_best(per_workload, w.id)}{f.title} · {w.id}",
                          "u": f"families/{fid}.html#wl-{w.id}"})
        items.append({"k": "compare", "t": f"Compare implementations of {f.title}", "d": f.tag,
                      "u": f"compare/{fid}.html"})
    for iid, i in sorted(catalog.implementations.items()):
        items.append({"k": "implementation", "t": i.name,
                      "d": f"{i.project} · {i.language} · {i.license} · {iid}", "u": f"implementations/{iid}.html"})
    copy_bw = copy_bandwidths(catalog)
    for hid, h in sorted(catalog.hardware.items()):
        measured = f"copy {fmt_gbps(copy_bw[hid])} measured · " if hid in copy_bw else ""
        items.append({"k": "hardware", "t": h.name,
                      "d": f"{measured}{fmt_gbps(h.memory_bandwidth_gbps)} datasheet · {h.vendor} · {hid}",
                      "u": f"hardware/{hid}.html"})
    items.append({"k": "page", "t": "Challenges", "d": "what is missing, with the command that fills it",
                  "u": "challenges.html"})
    items.append({"k": "page", "t": "How records are decided", "d": "methodology, protocol, floor model",
                  "u": "methodology.html"})
    return items


def search_files(catalog: Catalog, entries: list[Entry] = ()) -> dict[str, bytes]:
    items = search_items(catalog, entries)
    data = json.dumps(items, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    # "</" never appears inside a string the browser parses as a script: ids are slugs, titles are escaped.
    data = data.replace("</", "<\\/")
    return {
        INDEX_JS: f"window.KR_SEARCH={data};\n".encode(),
        INDEX_JSON: (data + "\n").encode(),
    }
