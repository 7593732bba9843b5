"""The Atom feed of new records for the whole site (feed.xml), dated from the records."""

from __future__ import annotations

import jinja2

from .history import feed_entries
from .load import Catalog

FEED_ID = "3c6b1f0e-6a55-5b8e-9f31-5d1e0a7b2c44"


def feed_xml(env: jinja2.Environment, history: list[dict], catalog: Catalog) -> bytes:
    entries = feed_entries(history, catalog)
    dates = [e["updated"] for e in entries] or [
        lr.run.observed_at.isoformat().replace("+00:00", "Z") for lr in catalog.runs] or ["1970-01-01T00:00:00Z"]
    xml = env.get_template("feed.xml").render(entries=entries, updated=max(dates), feed_id=FEED_ID)
    return xml.encode("utf-8")
