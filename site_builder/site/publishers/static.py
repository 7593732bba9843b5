"""The pages and files that do not depend on results: methodology (with the runner's protocol
checks), 404, the JSON Schemas of the records, the assets, and the site's marker files."""

from __future__ import annotations

from pathlib import Path

from ...derive.index import SiteIndex
from ...records.schema import json_schemas
from ...records.sources import json_schema as source_schema
from .. import urls
from ..publish import Data, Page, SiteContext, to_json
from ..render import ASSETS

PROTOCOL_CHECKS = Path(__file__).resolve().parents[2] / "runner" / "PROTOCOL_CHECKS.md"


def publish(index: SiteIndex, site: SiteContext):
    checks = PROTOCOL_CHECKS.read_text(encoding="utf-8") if PROTOCOL_CHECKS.exists() else None
    yield Page(urls.METHODOLOGY, "methodology.html", {"protocol_checks": checks})
    yield Page(urls.NOT_FOUND, "404.html", {})
    for name, schema in json_schemas().items():
        yield Data(urls.schema(name), to_json(schema))
    yield Data(urls.schema("source"), to_json(source_schema()))  # records/sources/*.yaml
    for asset in sorted(ASSETS.rglob("*")):
        if asset.is_file():
            yield Data(urls.asset(asset.relative_to(ASSETS).as_posix()), asset.read_bytes())
    yield Data(urls.NOJEKYLL, b"")
