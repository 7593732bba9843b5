"""The search index: families, implementations, workloads and hardware, as a small script.

A page opened from disk (file://) cannot fetch() a JSON file beside it, so the index is a
JavaScript file that assigns one global; the search box loads it with a script tag the first
time it opens. The same data is also written as plain JSON for other tools.
"""

from __future__ import annotations

import json
import re

from .load import Catalog
from .views import workload_label

INDEX_JS = "assets/search-index.js"
INDEX_JSON = "search-index.json"


def _plain(markdown_text: str | None, limit: int = 160) -> str:
    text = re.sub(r"[`*_\[\]()#>]", "", markdown_text or "")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def search_items(catalog: Catalog) -> list[dict]:
    """One item per thing a reader looks for: kind (k), title (t), detail (d), url (u)."""
    items = []
    for fid, f in sorted(catalog.families.items()):
        items.append({"k": "family", "t": f.title, "d": f"{f.tag} · {_plain(f.summary)}",
                      "u": f"families/{fid}.html"})
        for w in f.workloads:
            items.append({"k": "workload", "t": w.label or workload_label(f, w), "d": f"{f.title} · {w.id}",
                          "u": f"families/{fid}.html#wl-{w.id}"})
        items.append({"k": "compare", "t": f"Compare implementations of {f.title}", "d": f.tag,
                      "u": f"compare/{fid}.html"})
    for iid, i in sorted(catalog.implementations.items()):
        items.append({"k": "implementation", "t": i.name,
                      "d": f"{i.project} · {i.language} · {i.license} · {iid}", "u": f"implementations/{iid}.html"})
    for hid, h in sorted(catalog.hardware.items()):
        items.append({"k": "hardware", "t": h.name, "d": f"{h.vendor} · {hid} · {', '.join(h.device_names)}",
                      "u": f"hardware/{hid}.html"})
    items.append({"k": "page", "t": "Challenges", "d": "what is missing, with the command that fills it",
                  "u": "challenges.html"})
    items.append({"k": "page", "t": "How records are decided", "d": "methodology, protocol, floor model",
                  "u": "methodology.html"})
    return items


def search_files(catalog: Catalog) -> dict[str, bytes]:
    items = search_items(catalog)
    data = json.dumps(items, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    # "</" never appears inside a string the browser parses as a script: ids are slugs, titles are escaped.
    data = data.replace("</", "<\\/")
    return {
        INDEX_JS: f"window.KR_SEARCH={data};\n".encode(),
        INDEX_JSON: (data + "\n").encode(),
    }
