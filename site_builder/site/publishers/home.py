"""The index page: every family with its counts, and the newest records set."""

from __future__ import annotations

from ...derive.index import SiteIndex
from .. import urls
from ..publish import Page, SiteContext
from .feed import feed_entries

RECENT = 8


def families(index: SiteIndex) -> list[dict]:
    rows = []
    for fid, family in sorted(index.catalog.families.items()):
        mine = index.family_entries(fid)
        rows.append({"id": fid, "title": family.title, "tag": family.tag, "summary": family.summary,
                     "url": urls.family(fid), "workloads": len(family.workloads),
                     "eligible_results": sum(e.eligible for e in mine),
                     "eligible_runs": len({e.lr.path for e in mine if e.eligible}),
                     "hardware": sorted({e.hardware.name for e in mine}),
                     "implementations": len({e.implementation.id for e in mine})})
    return rows


def nav(index: SiteIndex) -> tuple[dict, ...]:
    """What every page's navigation shows: each family's title and page."""
    return tuple({"title": f.title, "url": urls.family(fid)} for fid, f in sorted(index.catalog.families.items()))


def publish(index: SiteIndex, site: SiteContext):
    yield Page(urls.INDEX, "index.html", {"families": families(index), "recent": feed_entries(index)[:RECENT]})
