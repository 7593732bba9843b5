"""Fixtures for the browser tests: Debian's Chromium driven by Playwright, the built site served
under a sub-path by a local HTTP server, and a place for screenshots.

Playwright cannot download its own browser here: it drives /usr/bin/chromium (CI installs it
with apt-get). Without Chromium the browser tests are skipped on a developer's machine and fail
in CI (CI=true), so a missing browser never passes silently there.
"""

from __future__ import annotations

import atexit
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
        import playwright.sync_api  # noqa: F401  (only: is it installed)
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


# Test modules import these fixtures; pytest then holds one copy per module, so what is
# expensive (the builds, the servers, the browser) is made once per process here and shared.
_SHARED: dict = {}


def _once(name, make):
    if name not in _SHARED:
        _SHARED[name] = make()
    return _SHARED[name]


@pytest.fixture(scope="session")
def served_site(tmp_path_factory):
    """The committed records built into <tmp>/kernel-records/, served from <tmp>/: the site
    lives under a sub-path, as on GitHub Pages. Returns (site folder, base URL)."""
    def make():
        from site_builder.build import build

        top = tmp_path_factory.mktemp("served")
        site = top / SUBPATH
        build(RECORDS, site)
        return site, f"{_serve(top).start()}/{SUBPATH}/"

    return _once("served", make)


@pytest.fixture(scope="session")
def large_site(tmp_path_factory):
    """The seed page's frozen records (tests/fixtures/seed-records) plus a synthetic measured run
    of realistic size (six implementations × every workload, two dates), built and served under a
    sub-path."""
    def make():
        from site_builder.build import build
        from synthetic import add_synthetic_runs, stable_records

        top = tmp_path_factory.mktemp("large")
        records = stable_records(top / "records")
        add_synthetic_runs(records)
        site = top / "www" / SUBPATH
        build(records, site)
        return site, f"{_serve(top / 'www').start()}/{SUBPATH}/"

    return _once("large", make)


@pytest.fixture(scope="session")
def budget_site(tmp_path_factory):
    """A realistic family page, whatever runs are committed: the seed page's frozen records, plus
    the synthetic measured run (six implementations and the baseline over every workload) on
    three GPUs, each refreshed twice more (history), as the site looks after a family has been
    measured for a while on several GPUs."""
    def make():
        from site_builder.build import build
        from synthetic import add_synthetic_hardware, add_synthetic_runs, grow_history, stable_records

        top = tmp_path_factory.mktemp("budget")
        records = stable_records(top / "records")
        for hw in add_synthetic_hardware(records, BUDGET_GPUS):
            add_synthetic_runs(records, hw)
        grow_history(records)
        site = top / "www" / SUBPATH
        build(records, site)
        return site, f"{_serve(top / 'www').start()}/{SUBPATH}/"

    return _once("budget", make)


#: how many (synthetic) GPUs the budget site's family is measured on
BUDGET_GPUS = 3


def chart_specs(site: Path, page: str) -> dict:
    """The interactive specs of a page's charts (its `<page>.specs.js`), by chart id."""
    import json

    text = (site / page).with_suffix(".specs.js").read_text(encoding="utf-8")
    prefix = "window.KR_SPECS = "
    assert text.startswith(prefix) and text.endswith(";\n"), text[:80]
    return json.loads(text[len(prefix):-2])


class _serve:
    def __init__(self, folder: Path):
        handler = functools.partial(_Quiet, directory=str(folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> str:
        """Serve until the test process ends (a daemon thread)."""
        self.thread.start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"


def _launch():
    from playwright.sync_api import sync_playwright

    driver = sync_playwright().start()
    chromium = driver.chromium.launch(executable_path=CHROMIUM, args=ARGS)

    def stop():
        chromium.close()
        driver.stop()

    atexit.register(stop)
    return chromium


@pytest.fixture(scope="session")
def browser():
    _need_browser()
    return _once("browser", _launch)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


class Watch:
    """Console errors, page errors and failed requests of one page.

    A request that Chromium aborts (net::ERR_ABORTED) because the page navigated away while it
    was in flight (a chart's Vega bundle, lazily loaded, when a test follows a link) is no
    problem of the site: it counts only if no navigation of the main frame followed its start.
    """

    def __init__(self, page):
        self._found: list[str] = []
        self._navigations = 0
        self._started: dict = {}  # request -> navigations seen when it started
        self._aborted: list[tuple[str, int]] = []
        page.on("console", lambda m: m.type == "error" and self._found.append(f"console: {m.text}"))
        page.on("pageerror", lambda e: self._found.append(f"page error: {e}"))
        page.on("request", lambda r: self._started.__setitem__(r, self._navigations))
        page.on("requestfailed", self._failed)
        page.on("response", lambda r: r.status >= 400 and self._found.append(f"HTTP {r.status}: {r.url}"))
        page.on("framenavigated", lambda f: f == page.main_frame and self._navigated())

    def _navigated(self):
        self._navigations += 1

    def _failed(self, request):
        message = f"failed request: {request.url} {request.failure}"
        if "ERR_ABORTED" in (request.failure or ""):
            self._aborted.append((message, self._started.get(request, self._navigations)))
        else:
            self._found.append(message)

    @property
    def problems(self) -> list[str]:
        return self._found + [m for m, seen in self._aborted if seen >= self._navigations]


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
