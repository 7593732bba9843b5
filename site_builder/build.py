"""The build, as a recipe: load and validate everything, compute everything, render every page
into memory, and only then write the site to a temporary folder and swap it into place."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from . import pages
from .challenges import challenges
from .compare import compare_family
from .feed import feed_xml
from .history import feed_entries, history_pages
from .profiles import hardware_profile, implementation_profile
from .search import search_files
from .check import record_warnings
from .derive import build_entries
from .errors import UserError
from .load import load_catalog
from .render import environment, render
from .schema import json_schemas

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "templates" / "assets"
PROTOCOL_CHECKS = Path(__file__).resolve().parent / "runner" / "PROTOCOL_CHECKS.md"
MARKER = ".kernel-records-site"


@dataclass
class BuildReport:
    out: Path
    pages: int
    files: int
    seconds: float
    warnings: list


def to_json(obj) -> bytes:
    text = json.dumps(_strip_svg(obj), sort_keys=True, indent=1, ensure_ascii=False, default=str)
    # Record text stays data even when a page or script inlines this JSON: no < > & in it.
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return (text + "\n").encode()


def _strip_svg(obj):
    if isinstance(obj, dict):
        return {k: _strip_svg(v) for k, v in obj.items() if k not in ("svg", "spec")}
    if isinstance(obj, list):
        return [_strip_svg(v) for v in obj]
    return obj


CSV_COLUMNS = ["family", "workload", "hardware", "protocol", "trust", "implementation", "rank", "status",
               "eligible", "time_us", "p20_us", "p80_us", "samples", "device_us", "e2e_us", "ratio_to_first",
               "speedup_vs_baseline", "floor_fraction", "measured_floor_fraction", "observed", "run_url"]


def family_csv(family_id: str, page: dict) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for lb in page["leaderboards"]:
        for cohort in lb["cohorts"]:
            for row in [*cohort["rows"], *cohort["unranked"]]:
                values = dict(row, family=family_id, rank=row.get("rank", ""))
                writer.writerow(["" if values.get(c) is None else values.get(c) for c in CSV_COLUMNS])
    return buf.getvalue().encode()


def render_site(records: Path) -> tuple[dict[str, bytes], list]:
    """Every output file as bytes, keyed by its path in the site. Raises RecordErrors."""
    catalog = load_catalog(records)
    entries = build_entries(catalog)
    catalog.warnings.extend(record_warnings(catalog, entries, records))
    env = environment()
    files: dict[str, bytes] = {}

    def page(path: str, template: str, **ctx):
        files[path] = render(env, template, path, **ctx)

    nav_families = pages.index_page(catalog, entries)
    common = {"nav_families": nav_families}
    for fid, family in sorted(catalog.families.items()):
        model = pages.family_page(catalog, family, entries)
        page(f"families/{fid}.html", "family.html", f=model, **common)
        files[f"families/{fid}.json"] = to_json(model)
        files[f"families/{fid}.csv"] = family_csv(fid, model)
        for c in compare_family(catalog, family, entries):
            page(c["url"], "compare.html", c=c, **common)
            files[c["url"].replace(".html", ".json")] = to_json(c)
    for lr in catalog.runs:
        model = pages.run_page(catalog, lr, entries)
        base = f"runs/{lr.run.family}/{lr.run.hardware}/{lr.id}"
        page(f"{base}.html", "run.html", r=model, **common)
        files[f"{base}.json"] = to_json(model["record"])
        files[f"{base}.yaml"] = (records / lr.path).read_bytes()
    kernels = Path(records).resolve().parent / "kernels"  # as `check` finds it
    history = history_pages(catalog, entries)
    for h in history:
        page(h["url"], "history.html", h=h, **common)
        files[h["url"].replace(".html", ".json")] = to_json(h)
    files["feed.xml"] = feed_xml(env, history, catalog)
    page("index.html", "index.html", families=nav_families, recent=feed_entries(history, catalog)[:8], **common)
    for iid, impl in sorted(catalog.implementations.items()):
        page(f"implementations/{iid}.html", "implementation.html",
             i=implementation_profile(catalog, impl, entries, kernels), **common)
    for hid, hw in sorted(catalog.hardware.items()):
        page(f"hardware/{hid}.html", "hardware.html", hw=hardware_profile(catalog, hw, entries), **common)
    page("challenges.html", "challenges.html",
         families=challenges(catalog, entries, kernels), **common)
    checks = PROTOCOL_CHECKS.read_text(encoding="utf-8") if PROTOCOL_CHECKS.exists() else None
    page("methodology.html", "methodology.html", protocol_checks=checks, **common)
    page("404.html", "404.html", **common)
    for name, schema in json_schemas().items():
        files[f"schema/{name}.schema.json"] = to_json(schema)
    from .importers.sources import json_schema as source_schema  # records/sources/*.yaml

    files["schema/source.schema.json"] = to_json(source_schema())
    for asset in sorted(ASSETS.rglob("*")):
        if asset.is_file():
            files[f"assets/{asset.relative_to(ASSETS).as_posix()}"] = asset.read_bytes()
    files.update(search_files(catalog, entries))
    files[MARKER] = b"generated by kernel-records; this folder is replaced on every build\n"
    files[".nojekyll"] = b""
    return files, catalog.warnings


def build(records: Path, out: Path) -> BuildReport:
    start = time.perf_counter()
    files, warnings = render_site(Path(records))
    write_site(files, Path(out))
    html = sum(p.endswith(".html") for p in files)
    return BuildReport(Path(out), html, len(files), time.perf_counter() - start, warnings)


def write_site(files: dict[str, bytes], out: Path) -> None:
    """Write into a temporary sibling folder, then swap it in; the old site stays whole on failure."""
    out = out.resolve()
    if out.exists() and any(out.iterdir()) and not (out / MARKER).exists():
        raise UserError(f"{out} exists and was not made by kernel-records; "
                        "choose an empty or new folder for --out")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.tmp-{os.getpid()}"
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        for rel, data in sorted(files.items()):
            target = tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if out.exists():
            os.replace(out, old)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old.exists() and not out.exists():
            os.replace(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)
