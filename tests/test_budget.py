"""Budget: a family page at realistic size (six implementations or more measured over every
workload on three GPUs beside the reported cohort, with history: see `budget_site`) weighs under
300 KB without the optional chart bundle, and headless Chromium renders it in under a second from
a local server; so does the family's page on each GPU."""

from __future__ import annotations

import re
import statistics

import pytest

from browser_fixtures import browser, budget_site, large_site, new_page  # noqa: F401

FAMILY = "families/fused-add-rmsnorm.html"
WEIGHT_LIMIT = 300_000
TIME_LIMIT_MS = 1000
OPTIONAL = "/assets/vendor/"


def test_family_page_is_realistically_large(budget_site):
    """The family page ranks its headline workload and links its primary GPU's page, which ranks
    every workload: a row per implementation and workload, with history behind them."""
    site, _ = budget_site
    html = (site / FAMILY).read_text(encoding="utf-8")
    assert 6 <= html.count("<tr data-impl=") < 6 * 2  # one workload's leaderboard
    assert html.count('<details class="workload"') == 1
    gpu = (site / _primary(site)).read_text(encoding="utf-8")
    assert gpu.count("<tr data-impl=") >= 6 * 24
    assert gpu.count("superseded") >= 24


def test_each_gpu_has_its_page_and_the_family_page_links_them(budget_site):
    site, _ = budget_site
    family = (site / FAMILY).read_text(encoding="utf-8")
    pages = sorted((site / FAMILY.removesuffix(".html")).glob("*.html"))
    assert len(pages) >= 3
    for page in pages:
        assert f'href="../families/fused-add-rmsnorm/{page.name}"' in family
        html = page.read_text(encoding="utf-8")
        assert len(html.encode()) < WEIGHT_LIMIT, (page.name, len(html.encode()))


def _primary(site) -> str:
    """The primary GPU's page, as the family page's leaderboard section links it first."""
    html = (site / FAMILY).read_text(encoding="utf-8")
    href = re.search(r'<p id="more-leaderboards">.*?<a href="\.\./([^"#]+)#leaderboard"', html).group(1)
    assert href.startswith("families/fused-add-rmsnorm/")
    return href


@pytest.mark.parametrize("path", [FAMILY, "primary", "families/fused-add-rmsnorm/h100-sxm.html"])
def test_family_page_weighs_under_300_kb_and_renders_under_a_second(budget_site, new_page, path):
    site, base = budget_site
    path = _primary(site) if path == "primary" else path
    loads = []
    for _ in range(3):
        page, watch = new_page()
        sizes: dict[str, int] = {}
        page.on("requestfinished", lambda r: sizes.__setitem__(r.url, r.sizes()["responseBodySize"]))
        page.goto(base + path, wait_until="load")
        page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length > 0",
                               timeout=5000)
        timing = page.evaluate("""() => {
            const nav = performance.getEntriesByType('navigation')[0];
            const paint = performance.getEntriesByName('first-contentful-paint')[0];
            return {load: nav.loadEventEnd, fcp: paint ? paint.startTime : null}; }""")
        page.wait_for_timeout(100)
        assert not watch.problems
        loads.append((timing, dict(sizes)))
    _, sizes = loads[0]
    needed = {u: n for u, n in sizes.items() if OPTIONAL not in u}
    weight = sum(needed.values())
    assert weight < WEIGHT_LIMIT, f"{weight:,} bytes: {sorted(needed.items(), key=lambda kv: -kv[1])[:5]}"
    assert any(u.endswith(path) for u in needed) and any(u.endswith("style.css") for u in needed)
    load_ms = statistics.median(t["load"] for t, _ in loads)
    fcp_ms = statistics.median(t["fcp"] for t, _ in loads)
    assert load_ms < TIME_LIMIT_MS and fcp_ms < TIME_LIMIT_MS, (load_ms, fcp_ms)


def test_chart_bundle_is_optional_and_loaded_only_when_a_chart_is_seen(large_site, new_page):
    _, base = large_site
    page, watch = new_page()
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(base + FAMILY, wait_until="load")
    page.wait_for_timeout(200)
    assert not [u for u in requested if OPTIONAL in u]  # the chart sits below the fold
    page.locator("#scaling .chart").first.scroll_into_view_if_needed()
    page.wait_for_selector("#scaling .chart.interactive", timeout=10_000)
    assert [u for u in requested if OPTIONAL in u]
    page.goto(base + "methodology.html", wait_until="load")
    assert page.locator("script[src$='charts.js']").count() == 0  # pages without charts do not load it
    assert not watch.problems
