"""The build, as a recipe: load and validate every record, derive the index once, let every
publisher list its pages and files, render what changed (charts, then pages), and only then
write the site to a temporary folder and swap it into place.

With a cache (the default for `kernel-records build`), a build whose inputs did not change
writes nothing, a family's pages whose records did not change are not even modelled again
(`publish.Scope`), and a page whose inputs did not change is not rendered again: the bytes are
the same as those of a build from scratch, which `render_site` is.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

from ..derive.check import record_warnings
from ..errors import Problem
from ..derive.index import derive
from ..records.load import load_catalog
from ..site.publish import Data, Page, Scope, SiteContext
from ..site.publishers import PUBLISHERS, home
from ..site.render import TEMPLATES
from ..site.urls import MARKER
from .cache import Cache, default_cache, digest_files
from .pages import engine_digest, page_keys, render_pages, scope_key, templates_digest
from .svg import render_charts
from .write import MARKER_TEXT, REUSE, holding, write_site


@dataclass
class BuildReport:
    out: Path
    pages: int
    files: int
    seconds: float
    warnings: list
    rendered: int = 0  # templated files (pages and the feed) rendered this time; the others were unchanged
    templated: int = 0  # templated files in all
    charts: int = 0  # chart SVGs rendered this time (the others came from the cache)
    unchanged: bool = False  # nothing at all changed: nothing was written
    phases: dict = None  # seconds per step of the recipe


def kernels_beside(records: Path) -> Path:
    return Path(records).resolve().parent / "kernels"  # as `check` finds it


def jobs_default() -> int:
    return max(1, min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def fingerprint(records: Path, kernels: Path) -> str:
    """A hash of every input of the site: records, kernel sources, templates and the engine."""
    h = hashlib.sha256(engine_digest().encode())
    for folder in (Path(records), kernels, TEMPLATES):
        h.update(f"\0{folder.name}\0".encode())
        if folder.is_dir():
            digest_files((p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts),
                         folder, h)
    return h.hexdigest()


def build(records: Path, out: Path, cache: Path | None | bool = True, jobs: int | None = None) -> BuildReport:
    """Build the site from `records` into `out`. `cache`: a folder, True for the default one
    beside `out`, False/None for none (a build from scratch). A second build into the same
    `out` while this one runs is refused (UserError)."""
    with holding(out), _no_collector():
        return _build(Path(records), Path(out), cache, jobs)


@contextlib.contextmanager
def _no_collector():
    """The collector's passes over a heap of a hundred thousand results cost more than the
    build's own work (a full pass while writing the manifest took 0.3 s at 10k results); what
    the build allocates lives until it ends, so it runs without them."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _build(records: Path, out: Path, cache, jobs) -> BuildReport:
    start = time.perf_counter()
    clock = _Clock()
    store = Cache(default_cache(out) if cache is True else (cache or None))
    kernels = kernels_beside(records)
    stamp = fingerprint(records, kernels) if store.enabled else ""
    previous = _intact(store.previous(out), out)
    if store.enabled and store.manifest.get("fingerprint") == stamp and previous and \
            len(previous) == len(store.manifest.get("files", {})):
        files = store.manifest["files"]
        return BuildReport(out, sum(p.endswith(".html") for p in files), len(files),
                           time.perf_counter() - start, [Problem(*w) for w in store.manifest.get("warnings", [])],
                           unchanged=True, templated=store.manifest.get("templated", 0))
    clock("start")
    files, keys, warnings, (rendered, templated), charts = _render(records, kernels, store, previous,
                                                                   jobs or jobs_default(), clock)

    def save(stats):  # once the new site is in place (while the old one is removed, without a cache)
        clock("write")
        store.save(out, stamp, {p: {"sha": keys[p], "stat": list(stats[p])} for p in files},
                   used_records=store.used, templated=templated, scopes=store.made_scopes,
                   warnings=[[w.path, w.line, w.message, w.fix, w.severity] for w in warnings])
        clock("cache")

    write_site(files, out, meanwhile=save, spare=store.spare)
    clock("removed")
    PHASES.clear()
    PHASES.update(clock.seconds)
    html = sum(p.endswith(".html") for p in files)
    return BuildReport(out, html, len(files), time.perf_counter() - start, warnings, rendered=rendered,
                       charts=charts, templated=templated, phases=dict(PHASES))


def render_site(records: Path, jobs: int = 1) -> tuple[dict[str, bytes], list]:
    """Every output file as bytes, keyed by its path in the site, with no cache. Raises RecordErrors."""
    records = Path(records)
    files, _, warnings, _, _ = _render(records, kernels_beside(records), Cache(None), {}, jobs, _Clock())
    return files, warnings


def _render(records: Path, kernels: Path, store: Cache, previous: dict, jobs: int, clock: "_Clock"):
    with _no_collector():
        return _render_all(records, kernels, store, previous, jobs, clock)


def _render_all(records: Path, kernels: Path, store: Cache, previous: dict, jobs: int, clock: "_Clock"):
    catalog = load_catalog(records, parsed=store.parsed if store.enabled else None)
    clock("load")
    store.used = set(catalog.parsed_keys)
    index = derive(catalog)
    warnings = [*catalog.warnings, *record_warnings(catalog, list(index.entries), records)]
    site = SiteContext(records, kernels if kernels.is_dir() else None, home.nav(index))
    clock("derive")
    templates = templates_digest()
    files: dict[str, object] = {}
    keys: dict[str, str] = {}
    keyed = store.enabled  # the keys are for the cache's manifest: a build without one needs none
    outputs, scopes, kept_pages = _outputs(index, site, store.manifest.get("scopes", {}) if keyed else None,
                                           previous, templates, files, keys)
    store.made_scopes = scopes
    clock("models")
    todo: list[Page] = []
    pages = [item for item in outputs if isinstance(item, Page)]
    page_sha = dict(zip((p.path for p in pages), page_keys(pages, site.nav, templates, jobs))) if keyed else {}
    for item in outputs:
        if not keyed:
            key = ""
        elif isinstance(item, Data):
            key = hashlib.sha256(item.data).hexdigest()
        else:
            key = page_sha[item.path]
        keys[item.path] = key
        if key and previous.get(item.path, {}).get("sha") == key:
            files[item.path] = REUSE
        elif isinstance(item, Data):
            files[item.path] = item.data
        else:
            todo.append(item)
    clock("keys")
    charts = render_charts([c for page in todo for c in page.charts], store.charts, jobs)
    clock("charts")
    for page, data in zip(todo, render_pages(todo, site.nav, jobs)):
        files[page.path] = data
    clock("pages")
    files[MARKER] = MARKER_TEXT
    keys[MARKER] = hashlib.sha256(MARKER_TEXT).hexdigest()
    templated = sum(isinstance(item, Page) for item in outputs) + kept_pages
    return files, keys, warnings, (len(todo), templated), charts


def _outputs(index, site: SiteContext, kept: dict | None, previous: dict, templates: str, files: dict, keys: dict):
    """Every publisher's pages and files. A `Scope` whose key (its inputs, the navigation, the
    templates and the engine) is the one the last build recorded, and whose files are all still
    in the site as written, is not made again: its files are taken as they are (into `files`
    and `keys`). `kept` None: no cache, every scope is made. Returns the outputs made, every
    scope's record for the manifest and the number of pages kept."""
    outputs: list = []
    scopes: dict[str, dict] = {}
    kept_pages = 0
    for publisher in PUBLISHERS:
        for item in publisher.publish(index, site):
            if not isinstance(item, Scope):
                outputs.append(item)
                continue
            key = scope_key(item, site.nav, templates) if kept is not None and item.inputs is not None else None
            last = kept.get(item.name) if key else None
            if key and last and last.get("key") == key and all(p in previous for p in last["files"]):
                for p in last["files"]:
                    files[p], keys[p] = REUSE, previous[p]["sha"]
                kept_pages += last["pages"]
                scopes[item.name] = last
                continue
            made = list(item.make())
            outputs.extend(made)
            if key:
                scopes[item.name] = {"key": key, "files": sorted(m.path for m in made),
                                     "pages": sum(isinstance(m, Page) for m in made)}
    return outputs, scopes, kept_pages


PHASES: dict[str, float] = {}  # the last build's seconds per step


class _Clock:
    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.last = time.perf_counter()

    def __call__(self, step: str) -> None:
        now = time.perf_counter()
        self.seconds[step] = round(now - self.last, 3)
        self.last = now


def _intact(previous: dict, out: Path) -> dict:
    """The files of the last build that are still in `out` as it wrote them (size and time)."""
    intact = {}
    for rel, info in previous.items():
        try:
            st = os.stat(out / rel)
        except OSError:
            continue
        if [st.st_size, st.st_mtime_ns] == info.get("stat"):
            intact[rel] = info
    return intact
