"""Fixtures for the browser tests: Debian's Chromium driven by Playwright, the built site served
under a sub-path by a local HTTP server, and a place for screenshots.

Playwright cannot download its own browser here: it drives /usr/bin/chromium (CI installs it
with apt-get). Without Chromium the browser tests are skipped on a developer's machine and fail
in CI (CI=true), so a missing browser never passes silently there.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

from conftest import RECORDS, REPO

CHROMIUM = os.environ.get("KR_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = REPO / "test-artifacts"
SUBPATH = "kernel-records"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def _need_browser():
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:  # pragma: no cover
        if os.environ.get("CI"):
            pytest.fail("playwright is not installed: pip install -e '.[test]'")
        pytest.skip("playwright is not installed")
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs it with apt-get install chromium")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def served_site(tmp_path_factory):
    """The committed records built into <tmp>/kernel-records/, served from <tmp>/: the site
    lives under a sub-path, as on GitHub Pages. Yields (site folder, base URL)."""
    from site_builder.build import build

    top = tmp_path_factory.mktemp("served")
    site = top / SUBPATH
    build(RECORDS, site)
    with _serve(top) as url:
        yield site, f"{url}/{SUBPATH}/"


@pytest.fixture(scope="session")
def large_site(tmp_path_factory):
    """The committed records plus a synthetic measured run of realistic size (six
    implementations × every workload, two dates), built and served under a sub-path."""
    from site_builder.build import build
    from synthetic import add_synthetic_runs

    top = tmp_path_factory.mktemp("large")
    records = top / "records"
    shutil.copytree(RECORDS, records)
    add_synthetic_runs(records)
    site = top / "www" / SUBPATH
    build(records, site)
    with _serve(top / "www") as url:
        yield site, f"{url}/{SUBPATH}/"


class _serve:
    def __init__(self, folder: Path):
        handler = functools.partial(_Quiet, directory=str(folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def browser():
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


class Watch:
    """Console errors, page errors and failed requests of one page."""

    def __init__(self, page):
        self.problems: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"))
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: self.problems.append(f"failed request: {r.url} {r.failure}"))
        page.on("response", lambda r: r.status >= 400 and self.problems.append(f"HTTP {r.status}: {r.url}"))


@pytest.fixture
def new_page(browser):
    """A factory of pages (viewport, colour scheme) with a Watch; every context is closed after."""
    contexts = []

    def make(viewport=DESKTOP, color_scheme="light", java_script_enabled=True):
        ctx = browser.new_context(viewport=viewport, color_scheme=color_scheme,
                                  java_script_enabled=java_script_enabled)
        contexts.append(ctx)
        page = ctx.new_page()
        return page, Watch(page)

    yield make
    for ctx in contexts:
        ctx.close()


def html_pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
