"""Pages into bytes: the key of each page's inputs (so an unchanged page is not rendered again)
and rendering, on both cores when there are many pages (forked workers: Jinja is plain Python)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import os
from functools import lru_cache
from pathlib import Path

from ..site.charts import Chart
from ..site.render import environment, render, templates_digest

POOL_FROM = 150  # pages below this are rendered here


@lru_cache(maxsize=1)
def engine_digest() -> str:
    """A hash of the engine's own code: another engine may render the same inputs differently."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _key_default(obj):
    """What `plain(obj, charts=True)` makes of a value json cannot write, one level at a time:
    the C encoder walks the dicts and lists, this only sees models and charts."""
    if isinstance(obj, Chart):
        return obj.key
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    return str(obj)


_KEY_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=_key_default)


def page_key(page, nav, templates: str) -> str:
    """The hash of a page's inputs: the same text as json.dumps of `plain(context, charts=True)`."""
    data = [engine_digest(), templates, page.template, page.path, page.context, nav]
    return hashlib.sha256(_KEY_ENCODER.encode(data).encode()).hexdigest()


def scope_key(scope, nav, templates: str) -> str:
    """The key of a `Scope`'s inputs: what it names, plus what every page reads (the engine, the
    templates and the navigation)."""
    data = [engine_digest(), templates, scope.name, scope.inputs, nav]
    return hashlib.sha256(_KEY_ENCODER.encode(data).encode()).hexdigest()


def page_keys(pages: list, nav, templates: str, jobs: int) -> list[str]:
    """`page_key` of every page; on both cores when there are many (forked workers)."""
    global _KEYS
    _KEYS = (pages, nav, templates)
    try:
        return _in_pool(_key_one, len(pages), jobs)
    finally:
        _KEYS = None


_KEYS: tuple | None = None  # (pages, nav, templates) for forked workers


def _key_one(i: int) -> str:
    pages, nav, templates = _KEYS
    return page_key(pages[i], nav, templates)


def _in_pool(work, n: int, jobs: int) -> list:
    """[work(i) for i in range(n)], in forked workers when it pays (they see this process's data)."""
    fork = "fork" in multiprocessing.get_all_start_methods()
    if jobs > 1 and fork and n >= POOL_FROM:
        with multiprocessing.get_context("fork").Pool(min(jobs, os.cpu_count() or 1)) as pool:
            return pool.map(work, range(n), chunksize=max(1, n // (8 * jobs)))
    return [work(i) for i in range(n)]


_JOB: tuple | None = None  # (env, pages, nav) for forked workers


def _render_one(i: int) -> bytes:
    env, pages, nav = _JOB
    page = pages[i]
    return render(env, page.template, page.path, nav_families=nav, **page.context)


def render_pages(pages: list, nav, jobs: int) -> list[bytes]:
    global _JOB
    env = environment()
    _JOB = (env, pages, nav)
    try:
        if jobs > 1 and len(pages) >= POOL_FROM:
            for name in env.list_templates(filter_func=lambda n: n.endswith((".html", ".xml"))):
                env.get_template(name)  # compiled once here, not once in every worker
        return _in_pool(_render_one, len(pages), jobs)
    finally:
        _JOB = None


def current_templates() -> str:
    return templates_digest()
