"""The search index: families, implementations, workloads and hardware, as a small script.

A page opened from disk (file://) cannot fetch() a JSON file beside it, so the index is a
JavaScript file that assigns one global; the search box loads it with a script tag the first
time it opens. The same data is also written as plain JSON for other tools.
"""

from __future__ import annotations

import json
import re

from ...derive.index import SiteIndex
from .. import urls
from ..filters import fmt_gbps, fmt_us
from ..publish import Data, SiteContext
from ..views import workload_title


def publish(index: SiteIndex, site: SiteContext):
    for path, data in search_files(index).items():
        yield Data(path, data)


def _plain(markdown_text: str | None, limit: int = 160) -> str:
    text = re.sub(r"[`*_\[\]()#>]", "", markdown_text or "")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _best(index: SiteIndex, fid: str, wid: str) -> tuple[str, str]:
    """The record of a workload in its leading cohort, number first ('8.16 µs Kernel … · NVIDIA
    H200 · '), and where its leaderboard is: that cohort's GPU page of the family (the family page
    ranks the headline workload only), else the family's table of current records."""
    cohort = index.leading_cohort(fid, wid)
    if cohort is None:
        return "", urls.family(fid) + "#records"
    url = urls.workload_on(fid, wid, cohort.key.hardware)
    top = cohort.first
    return (f"{fmt_us(top.time_us)} {top.implementation.name} · {top.hardware.name} · " if top else ""), url


def search_items(index: SiteIndex) -> list[dict]:
    """One item per thing a reader looks for: kind (k), title (t), detail (d), url (u)."""
    catalog = index.catalog
    items = []
    for fid, f in sorted(catalog.families.items()):
        items.append({"k": "family", "t": f.title, "d": f"{f.tag} · {_plain(f.summary)}",
                      "u": urls.family(fid)})
        for w in f.workloads:
            best, url = _best(index, fid, w.id)
            items.append({"k": "workload", "t": workload_title(f, w), "d": f"{best}{f.title} · {w.id}",
                          "u": url})
        items.append({"k": "compare", "t": f"Compare implementations of {f.title}", "d": f.tag,
                      "u": urls.compare_default(fid)})
    for iid, i in sorted(catalog.implementations.items()):
        items.append({"k": "implementation", "t": i.name,
                      "d": f"{i.project} · {i.language} · {i.license} · {iid}", "u": urls.implementation(iid)})
    copy_bw = index.copy_bandwidths
    for hid, h in sorted(catalog.hardware.items()):
        measured = f"copy {fmt_gbps(copy_bw[hid])} measured · " if hid in copy_bw else ""
        items.append({"k": "hardware", "t": h.name,
                      "d": f"{measured}{fmt_gbps(h.memory_bandwidth_gbps)} datasheet · {h.vendor} · {hid}",
                      "u": urls.hardware(hid)})
    items.append({"k": "page", "t": "Challenges", "d": "what is missing, with the command that fills it",
                  "u": urls.CHALLENGES})
    items.append({"k": "page", "t": "How records are decided", "d": "methodology, protocol, floor model",
                  "u": urls.METHODOLOGY})
    return items


def search_files(index: SiteIndex) -> dict[str, bytes]:
    items = search_items(index)
    data = json.dumps(items, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    # "</" never appears inside a string the browser parses as a script: ids are slugs, titles are escaped.
    data = data.replace("</", "<\\/")
    return {
        urls.SEARCH_JS: f"window.KR_SEARCH={data};\n".encode(),
        urls.SEARCH_JSON: (data + "\n").encode(),
    }
