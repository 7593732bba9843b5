"""The site in a real browser (Debian's Chromium through Playwright): every page from a local
server under a sub-path and from file://, charts, keyboard, search, compare, phone layout, and
screenshots saved in test-artifacts/."""

from __future__ import annotations

import re

import pytest

from browser_fixtures import (DESKTOP, PHONE, artifacts, browser, html_pages, large_site, new_page,  # noqa: F401
                              served_site)

FAMILY = "families/fused-add-rmsnorm.html"
SETTLE_MS = 150


def _visit(page, url):
    page.goto(url, wait_until="load")
    page.wait_for_timeout(SETTLE_MS)
    # a chart already in view starts loading the chart bundle: let it finish before moving on
    page.wait_for_function("document.documentElement.dataset.charts !== 'loading'")


def _file_url(site, rel):
    return (site / rel).resolve().as_uri()


def test_every_page_loads_over_http_under_a_subpath(served_site, new_page):
    site, base = served_site
    rels = html_pages(site)
    assert len(rels) > 15 and FAMILY in rels
    page, watch = new_page()
    for rel in rels:
        if rel == "404.html":
            continue  # a server shows it at any depth; it is tested on its own below
        _visit(page, base + rel)
        assert page.title(), rel
        assert not watch.problems, f"{rel}: {watch.problems}"


def test_every_page_loads_from_file(served_site, new_page):
    site, _ = served_site
    page, watch = new_page()
    for rel in html_pages(site):
        _visit(page, _file_url(site, rel))
        assert page.title(), rel
        assert not watch.problems, f"{rel}: {watch.problems}"


def test_404_page_stands_alone_at_any_depth(served_site, new_page):
    site, base = served_site
    page, watch = new_page()
    html = (site / "404.html").read_text(encoding="utf-8")
    assert "rel=\"stylesheet\"" not in html and "<script" not in html  # served at any depth: nothing to load
    _visit(page, base + "404.html")
    assert "Page not found" in page.inner_text("h1") and not watch.problems


def test_large_site_pages_load_over_http_and_file(large_site, new_page):
    site, base = large_site
    rels = [FAMILY, "compare/fused-add-rmsnorm.html", "hardware/h200.html", "challenges.html",
            "challenges/fused-add-rmsnorm.html", "history/fused-add-rmsnorm/r2048-h1024-fp32/h200.html", "implementations/synthetic-1.html"]
    page, watch = new_page()
    for rel in rels:
        for url in (base + rel, _file_url(site, rel)):
            _visit(page, url)
            assert not watch.problems, f"{url}: {watch.problems}"


def _first_chart_point(site) -> tuple[str, str]:
    """(implementation, its first median as the page writes it) of the family page's first
    scaling chart, read from the page's JSON twin (every GPU's charts; the page shows its GPU's)."""
    import json

    from site_builder.site.filters import fmt_us

    data = json.loads((site / FAMILY.replace(".html", ".json")).read_text(encoding="utf-8"))
    gpu = data["detail_gpu"]["id"]
    chart = next(c for c in data["charts"] if c["hardware"] == gpu and "chart_kind" not in c)
    row = chart["table"]["rows"][0]
    return row["name"], fmt_us(next(v for v in row["cells"] if v is not None))


def test_scaling_chart_is_visible_and_has_its_data_table(served_site, new_page):
    site, base = served_site
    page, _ = new_page(java_script_enabled=False)
    _visit(page, base + FAMILY)
    chart = page.locator("#scaling .chart svg").first
    chart.scroll_into_view_if_needed()
    assert chart.is_visible()
    box = chart.bounding_box()
    assert box["width"] > 300 and box["height"] > 150
    name, value = _first_chart_point(site)
    table = page.locator("#scaling table.chart-data").first.inner_text()
    assert name in table and value in table


@pytest.mark.parametrize("where", ["http", "file"])
def test_interactive_chart_shows_exact_values_in_a_tooltip(served_site, new_page, where):
    site, base = served_site
    page, watch = new_page()
    _visit(page, base + FAMILY if where == "http" else _file_url(site, FAMILY))
    chart = page.locator("#scaling .chart").first
    chart.scroll_into_view_if_needed()
    page.wait_for_selector("#scaling .chart.interactive svg", timeout=10_000)
    assert chart.locator("svg").count() == 1  # the static SVG was swapped, not doubled
    points = chart.locator("svg .mark-symbol path")
    assert points.count() >= 6
    texts = []
    for n in range(points.count()):
        points.nth(n).hover(force=True)
        page.wait_for_timeout(60)
        tip = page.locator("#vg-tooltip-element")
        if tip.is_visible():
            texts.append(tip.inner_text())
    name, value = _first_chart_point(site)
    assert any(value in t for t in texts) and any(name in t for t in texts), (name, value, texts)
    assert not watch.problems


def test_without_javascript_nothing_is_lost(served_site, new_page):
    _, base = served_site
    page, watch = new_page(java_script_enabled=False)
    _visit(page, base + FAMILY)
    assert page.locator("#scaling .chart svg").count() >= 1
    assert not page.locator("#search-open").is_visible()  # search is an enhancement, hidden without JS
    assert re.fullmatch(r"[\d.,]+ µs", page.locator("#fastest-latency").inner_text())
    _visit(page, base + "compare/fused-add-rmsnorm.html")
    assert re.fullmatch(r".+ vs Transformers", page.inner_text("h1"))
    assert page.locator("details.pairs a").count() >= 1
    assert not watch.problems


def _tab_through(page, limit=2000):
    """Press Tab until focus comes back to the first element; return what got focus."""
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        key = page.evaluate("""() => { const a = document.activeElement;
            if (!a || a === document.body) return null;
            if (!a.dataset.kr) a.dataset.kr = String(Math.random()).slice(2);
            return a.dataset.kr; }""")
        if key is None:
            continue
        if seen and key == seen[0]:
            break
        seen.append(key)
    return set(seen)


@pytest.mark.parametrize("rel", ["index.html", FAMILY, "compare/fused-add-rmsnorm.html", "challenges.html",
                                 "runs/fused-add-rmsnorm/h100-sxm/2026-04-07-liger-v0.7.0.html",
                                 "history/fused-add-rmsnorm/r2048-h1024-fp32/h100-sxm.html",
                                 "implementations/liger-fused.html", "hardware/h200.html", "methodology.html"])
def test_keyboard_reaches_every_link(served_site, new_page, rel):
    _, base = served_site
    page, _ = new_page()
    _visit(page, base + rel)
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    page.evaluate("""() => document.querySelectorAll('a[href]').forEach((a, i) => {
        if (a.getClientRects().length) a.dataset.kr = 'link-' + i; })""")
    reached = _tab_through(page)
    links = set(page.evaluate("""() => [...document.querySelectorAll('a[href]')]
        .filter(a => a.getClientRects().length).map(a => a.dataset.kr)"""))
    assert links and links <= reached, f"not reachable by Tab: {sorted(links - reached)[:10]}"
    assert "search-open" in page.evaluate("""() => { const b = document.getElementById('search-open');
        b.focus(); return document.activeElement.id; }""")


@pytest.mark.parametrize("where", ["http", "file"])
def test_search_opens_with_slash_and_ctrl_k_and_finds_everything(served_site, new_page, where):
    site, base = served_site
    url = (lambda rel: base + rel) if where == "http" else (lambda rel: _file_url(site, rel))
    page, watch = new_page()
    _visit(page, url(FAMILY))
    page.keyboard.press("/")
    box = page.locator("#search input")
    assert box.is_visible() and page.evaluate("document.activeElement.type") == "search"
    for query, kind, href in [("h200", "hardware", "hardware/h200.html"),
                              ("liger fused", "implementation", "implementations/liger-fused.html"),
                              ("rmsnorm", "family", "families/fused-add-rmsnorm.html"),
                              ("32768 bf16", "workload", "#wl-r2048-h32768-bf16")]:
        box.fill(query)
        page.locator("#search-results a").first.wait_for()
        # the hit is among the first five (other families' records may rank beside it)
        hits = page.locator("#search-results a")
        found = [hits.nth(i) for i in range(min(hits.count(), 5))
                 if (hits.nth(i).get_attribute("href") or "").endswith(href)]
        assert found and kind in found[0].inner_text().lower(), query
    page.keyboard.press("Escape")
    assert not box.is_visible()
    page.keyboard.press("Control+k")
    assert box.is_visible()
    box.fill("h200")
    page.locator("#search-results a").first.wait_for()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"hardware/h200\.html$"))
    assert "NVIDIA H200" in page.inner_text("h1")
    assert not watch.problems


@pytest.mark.parametrize("where", ["http", "file"])
def test_compare_state_lives_in_the_url(served_site, new_page, where):
    site, base = served_site
    url = (lambda rel: base + rel) if where == "http" else (lambda rel: _file_url(site, rel))
    page, watch = new_page()
    _visit(page, url(FAMILY))
    page.click("#leaderboard a[href$='compare/fused-add-rmsnorm.html']")
    page.wait_for_url(re.compile(r"compare/fused-add-rmsnorm\.html$"))
    assert re.fullmatch(r".+ vs Transformers", page.inner_text("h1"))  # the default pair: fastest vs baseline
    assert re.fullmatch(r"\d+\.\d\d×", page.locator("#geomean").inner_text())
    form = page.locator("#compare-form")
    assert form.is_visible()
    form.locator("select[name=a]").select_option("transformers")
    form.locator("select[name=b]").select_option("liger-fused")
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"compare/fused-add-rmsnorm/transformers--liger-fused\.html$"))
    shared = page.url
    assert page.inner_text("h1") == "Transformers vs Liger fused"
    h100 = page.locator("h2", has_text="liger-benchmark-scripts")
    assert "geometric mean B ÷ A 0.38×" in h100.inner_text()  # 20.5/45.5 … 433.8/982.8
    # a shared link opens the same comparison; so does the query-string form of it
    _visit(page, shared)
    assert page.inner_text("h1").startswith("Transformers")
    page.goto(url("compare/fused-add-rmsnorm.html") + "?a=transformers&b=liger-fused")
    page.wait_for_url(re.compile(r"transformers--liger-fused\.html$"))
    assert not watch.problems


def _no_overflow(page):
    return page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")


def test_screenshots_and_phone_layout(served_site, large_site, new_page, artifacts):
    _, base = served_site
    _, large = large_site
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        for scheme in ("light", "dark"):
            page, watch = new_page(viewport=viewport, color_scheme=scheme)
            for label, url in (("index", base + "index.html"), ("family", base + FAMILY),
                               ("family-large", large + FAMILY)):
                _visit(page, url)
                suffix = "" if scheme == "light" else "-dark"
                page.screenshot(path=str(artifacts / f"{label}-{name}{suffix}.png"), full_page=True)
                if name == "phone":
                    assert _no_overflow(page), f"{url} overflows at phone width"
            assert not watch.problems
    assert (artifacts / "index-desktop.png").stat().st_size > 10_000
    assert (artifacts / "family-phone.png").stat().st_size > 10_000


def test_no_horizontal_overflow_at_phone_width_on_any_page(served_site, large_site, new_page):
    page, _ = new_page(viewport=PHONE)
    for site, base in (served_site, large_site):
        for rel in html_pages(site):
            if rel.startswith("compare/") and rel.count("/") > 1 and "liger" not in rel:
                continue  # every pair page shares one template; a few are enough
            _visit(page, base + rel)
            assert _no_overflow(page), f"{rel} overflows at {PHONE['width']} px"
