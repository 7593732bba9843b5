"""The Atom feed of new records for the whole site (feed.xml), dated from the records; the index
page shows its newest entries."""

from __future__ import annotations

import uuid

from ...derive.index import SiteIndex
from .. import urls
from ..filters import fmt_us
from ..publish import Page, SiteContext
from ..views import TRUST_LABEL, entry_url, workload_title

FEED_ID = "3c6b1f0e-6a55-5b8e-9f31-5d1e0a7b2c44"
FEED_LIMIT = 200
_NS = uuid.UUID("6f1c1a52-7d0e-4c1e-9b8e-2a4a6f0c3d11")


def publish(index: SiteIndex, site: SiteContext):
    entries = feed_entries(index)
    dates = [e["updated"] for e in entries] or [
        lr.run.observed_at.isoformat().replace("+00:00", "Z") for lr in index.catalog.runs] or ["1970-01-01T00:00:00Z"]
    yield Page(urls.FEED, "feed.xml", {"entries": entries, "updated": max(dates), "feed_id": FEED_ID})


def feed_entries(index: SiteIndex) -> list[dict]:
    """Every record set, newest first, as feed entries with stable ids."""
    out = []
    catalog = index.catalog
    for (fid, wid, hid), s in index.history.items():
        family = catalog.families[fid]
        label = workload_title(family, index.workload(fid, wid))
        hw_name = catalog.hardware[hid].name
        for p in s.records:
            e = p.entry
            proto = e.run.protocol.id
            key = f"{fid}/{wid}/{hid}/{proto}/{e.lr.id}/{e.implementation.id}"
            moment = e.run.observed_at.isoformat().replace("+00:00", "Z")
            name = e.implementation.name
            title = f"{name}: {fmt_us(e.time_us)} · {family.title} · {label} · {hw_name}"
            where = f"{family.title}, {label} on {hw_name} ({proto}, {TRUST_LABEL[e.run.trust].lower()})"
            if p.previous is not None:
                text = (f"New record for {where}: {name} at {fmt_us(e.time_us)}, "
                        f"{p.previous.time_us / e.time_us:.2f}× faster than the previous record "
                        f"({p.previous.implementation.name}, {fmt_us(p.previous.time_us)}).")
            else:
                text = f"First record for {where}: {name} at {fmt_us(e.time_us)}."
            out.append({"id": f"urn:uuid:{uuid.uuid5(_NS, key)}", "updated": moment, "title": title,
                        "summary": text, "url": entry_url(e), "history_url": urls.history(fid, wid, hid),
                        "sort": (moment, key)})
    out.sort(key=lambda x: x["sort"], reverse=True)
    return [{k: v for k, v in x.items() if k != "sort"} for x in out[:FEED_LIMIT]]
