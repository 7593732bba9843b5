"""Accessibility: axe-core (bundled by axe-playwright-python) finds no serious or critical
violation on any page kind, in the light and the dark theme (the reader's system preference)."""

from __future__ import annotations

import pytest

from browser_fixtures import PHONE, browser, large_site, new_page, served_site  # noqa: F401

PAGE_KINDS = {
    "index": "index.html",
    "family": "families/fused-add-rmsnorm.html",
    "run": "runs/fused-add-rmsnorm/h100-sxm/2026-04-07-liger-v0.7.0.html",
    "history": "history/fused-add-rmsnorm/r2048-h1024-fp32/h100-sxm.html",
    "implementation": "implementations/liger-fused.html",
    "hardware": "hardware/h100-sxm.html",
    "compare": "compare/fused-add-rmsnorm.html",
    "challenges": "challenges.html",
    "challenges (family)": "challenges/fused-add-rmsnorm.html",
    "methodology": "methodology.html",
    "404": "404.html",
}
LARGE = {"family (large)": "families/fused-add-rmsnorm.html",
         "history (large)": "history/fused-add-rmsnorm/r2048-h1024-fp32/h200.html",
         "hardware (large)": "hardware/h200.html"}


def _serious(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    found = []
    for v in results.response["violations"]:
        if v["impact"] in ("serious", "critical"):
            targets = [", ".join(n["target"]) + ": " + n.get("failureSummary", "").replace("\n", " ")
                       for n in v["nodes"][:5]]
            found.append(f"{v['id']} ({v['impact']}): {v['help']} — {targets}")
    return found


def _open_everything(page):
    """Collapsed sections count too: open them so axe sees every table and link."""
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")


@pytest.mark.parametrize("scheme,width", [("light", "desktop"), ("dark", "desktop"), ("light", "phone")])
def test_no_serious_violation_on_any_page_kind(served_site, large_site, new_page, scheme, width):
    problems = {}
    page, _ = new_page(color_scheme=scheme, **({"viewport": PHONE} if width == "phone" else {}))
    for base, kinds in ((served_site[1], PAGE_KINDS), (large_site[1], LARGE)):
        for kind, rel in kinds.items():
            page.goto(base + rel, wait_until="load")
            _open_everything(page)
            found = _serious(page)
            if found:
                problems[kind] = found
    assert not problems, problems


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_interactive_chart_and_search_keep_contrast(served_site, new_page, scheme):
    _, base = served_site
    page, _ = new_page(color_scheme=scheme)
    page.goto(base + PAGE_KINDS["family"], wait_until="load")
    page.locator("#scaling .chart").first.scroll_into_view_if_needed()
    page.wait_for_selector("#scaling .chart.interactive svg", timeout=10_000)
    page.keyboard.press("/")
    page.locator("#search input").fill("h")
    page.locator("#search-results a").first.wait_for()
    assert not _serious(page)


def test_dark_theme_follows_the_system(served_site, new_page):
    _, base = served_site
    colours = {}
    for scheme in ("light", "dark"):
        page, _ = new_page(color_scheme=scheme)
        page.goto(base + PAGE_KINDS["family"], wait_until="load")
        colours[scheme] = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert colours["light"] == "rgb(255, 255, 255)" and colours["dark"] == "rgb(13, 17, 23)"


def test_charts_have_a_text_alternative(served_site, new_page):
    """Each chart is hidden from assistive technology and followed by its data as a table."""
    _, base = served_site
    page, _ = new_page()
    page.goto(base + PAGE_KINDS["family"], wait_until="load")
    blocks = page.locator("#scaling figure.chart-block")
    assert blocks.count() >= 1
    for n in range(blocks.count()):
        block = blocks.nth(n)
        assert block.locator(".chart").get_attribute("aria-hidden") == "true"
        assert block.locator("table.chart-data tbody tr").count() >= 2
