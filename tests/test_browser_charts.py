"""Charts as a reader sees them in Chromium at 1280 and 390 px, on a fixture family written here
(tests/fixtures/second-family plus decode sizes declared as a second scaling axis and two more
runs): the drawing made for the width, its labels at a readable size as displayed, the chart
over rows (here `m`) present, the spread band on the history chart, and the live chart (JS)
drawn with the same y ticks as the static one. Screenshots go to test-artifacts/."""

from __future__ import annotations

import shutil

import pytest
import yaml

from browser_fixtures import DESKTOP, PHONE, SUBPATH, _once, _serve, artifacts, browser, new_page  # noqa: F401
from conftest import SECOND, write

VIEWPORTS = {"desktop": DESKTOP, "phone": PHONE}
FAMILY = "families/grouped-matvec.html"
HISTORY = "history/grouped-matvec/m4096-k4096-fp16/test-gpu.html"
MIN_PX = 10  # the smallest label as displayed


def _run(observed: str, results: list[tuple[str, str, float]]) -> str:
    lines = ["schema_version: 1", "family: grouped-matvec", "hardware: test-gpu", "trust: measured",
             f"observed: {observed}",
             "protocol: {id: fixture-device, version: 1, clock: device, l2: cold, timing: cuda-graph, statistic: median}",
             "environment: {gpu: Test GPU 1000, copy_bandwidth_gbps: 820}", "seed: 9", "results:"]
    for impl, wl, us in results:
        lines += [f"  - implementation: {impl}", f"    workload: {wl}",
                  "    correctness: {max_abs_error: 0.001, atol: 0.01, rtol: 0.01, passed: true}",
                  f"    device_us: {{median: {us}, p20: {round(us * 0.97, 3)}, p80: {round(us * 1.05, 3)}, samples: 50}}"]
    return "\n".join(lines) + "\n"


def decode_records(dest):
    """The second-family fixture, with decode sizes (m = 1, 16, 128) declared as a chart over m."""
    shutil.copytree(SECOND, dest)
    path = dest / "families" / "grouped-matvec.yaml"
    family = yaml.safe_load(path.read_text(encoding="utf-8"))
    family["scaling"] = {"axis": "k", "also": [{"axis": "m", "title": "decode sizes up to prefill"}]}
    family["workloads"] += [{"id": f"m{m}-k4096-fp16", "m": m, "k": 4096, "dtype": "float16"} for m in (1, 16, 128)]
    path.write_text(yaml.safe_dump(family, sort_keys=False), encoding="utf-8")
    sizes = [("m1-k4096-fp16", 3.0), ("m16-k4096-fp16", 4.0), ("m128-k4096-fp16", 30.0),
             ("m4096-k4096-fp16", 700.0), ("m4096-k1024-fp16", 200.0), ("m4096-k2048-fp16", 380.0)]
    write(dest, "runs/grouped-matvec/test-gpu/2026-03-01-decode.yaml",
          _run("2026-03-01T10:00:00Z", [(i, w, us * f) for w, us in sizes for i, f in (("tiled", 1.0), ("naive", 1.3))]))
    write(dest, "runs/grouped-matvec/test-gpu/2026-04-01-again.yaml",
          _run("2026-04-01T10:00:00Z", [("naive", "m4096-k4096-fp16", 950.0)]))
    return dest


@pytest.fixture(scope="session")
def decode_site(tmp_path_factory):
    def make():
        from site_builder.build import build

        top = tmp_path_factory.mktemp("decode")
        records = decode_records(top / "records")
        site = top / "www" / SUBPATH
        build(records, site)
        return site, f"{_serve(top / 'www').start()}/{SUBPATH}/"

    return _once("decode", make)


SHOWN = "el => getComputedStyle(el).display !== 'none' && el.getBoundingClientRect().width > 0"

def _label_px(svg):
    """Font size as displayed, in CSS px: the font size times the drawing's scale on screen."""
    return svg.evaluate("""svg => {
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return [...svg.querySelectorAll('text')].map(t => ({text: t.textContent,
            px: scale * parseFloat(getComputedStyle(t).fontSize)})); }""")


def _open(page, url):
    page.goto(url, wait_until="load")
    page.wait_for_timeout(100)


def _drawing(block):
    """The one drawing of a chart shown at this width (the other is display: none)."""
    svgs = block.locator(".chart > svg")
    shown = [svgs.nth(i) for i in range(svgs.count()) if svgs.nth(i).evaluate(SHOWN)]
    assert len(shown) == 1, f"{len(shown)} drawings shown"
    return shown[0]


@pytest.mark.parametrize("where", VIEWPORTS)
def test_chart_labels_are_readable_at_the_width_they_are_shown(decode_site, new_page, artifacts, where):
    _, base = decode_site
    page, watch = new_page(viewport=VIEWPORTS[where], java_script_enabled=False)
    _open(page, base + FAMILY)
    blocks = page.locator("#scaling figure.chart-block")
    assert blocks.count() >= 2
    for i in range(blocks.count()):
        block = blocks.nth(i)
        block.scroll_into_view_if_needed()
        svg = _drawing(block)
        assert svg.get_attribute("class") == ("wide" if where == "desktop" else "narrow")
        box = svg.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= VIEWPORTS[where]["width"]  # all of it on screen
        labels = _label_px(svg)
        assert len(labels) >= 8
        small = [lab for lab in labels if lab["px"] < MIN_PX]
        assert not small, f"labels under {MIN_PX} px at {where}: {small[:5]}"
    page.locator("#scaling").screenshot(path=str(artifacts / f"charts-scaling-{where}.png"))
    assert not watch.problems


@pytest.mark.parametrize("where", VIEWPORTS)
def test_the_rows_chart_is_there_for_a_family_with_decode_sizes(decode_site, new_page, artifacts, where):
    _, base = decode_site
    page, watch = new_page(viewport=VIEWPORTS[where], java_script_enabled=False)
    _open(page, base + FAMILY)
    block = page.locator("#scaling figure.chart-block[data-axis='m']").first
    assert block.count() == 1
    block.scroll_into_view_if_needed()
    assert "decode sizes up to prefill" in block.locator("figcaption").inner_text()
    svg = _drawing(block)
    texts = {lab["text"] for lab in _label_px(svg)}
    assert {"1", "16", "128", "4096", "m →"} <= texts, texts
    top = svg.evaluate("el => el.getBoundingClientRect().top")
    assert 0 <= top < VIEWPORTS[where]["height"]  # in view after scrolling to it
    rows = block.locator("table.chart-data tbody tr")
    assert rows.count() == 2 and "3.0" in block.locator("table.chart-data").inner_text()
    block.screenshot(path=str(artifacts / f"chart-rows-{where}.png"))
    assert not watch.problems


@pytest.mark.parametrize("where", VIEWPORTS)
def test_the_history_chart_shows_the_spread_band(decode_site, new_page, artifacts, where):
    _, base = decode_site
    page, watch = new_page(viewport=VIEWPORTS[where], java_script_enabled=False)
    _open(page, base + HISTORY)
    block = page.locator("figure.chart-block").first
    block.scroll_into_view_if_needed()
    svg = _drawing(block)
    band = svg.locator("path.band")
    assert band.count() >= 1
    box = band.first.bounding_box()
    assert box["width"] > 20 and box["height"] >= 1  # a band across time, with a height
    rules = svg.locator("path.spread").evaluate_all("ps => ps.map(p => p.getAttribute('d').split('M').length - 1)")
    assert sum(rules) == 3  # a rule for each result with a p20-p80 (the three of the fixture runs written here)
    assert all(lab["px"] >= MIN_PX for lab in _label_px(svg))
    block.screenshot(path=str(artifacts / f"chart-history-{where}.png"))
    assert not watch.problems


def test_the_live_chart_has_the_static_charts_ticks_and_band(decode_site, new_page, artifacts):
    _, base = decode_site
    page, watch = new_page(viewport=DESKTOP)
    still, _ = new_page(viewport=DESKTOP, java_script_enabled=False)
    for rel in (FAMILY, HISTORY):
        _open(still, base + rel)
        static = still.locator(".chart[data-spec]").first.locator("svg.wide").evaluate(
            "el => [...el.querySelectorAll('g.ink text')].map(t => t.textContent)")
        _open(page, base + rel)
        box = page.locator(".chart[data-spec]").first
        box.scroll_into_view_if_needed()
        page.wait_for_selector(".chart.interactive svg", timeout=10_000)
        assert box.locator("svg").count() == 1  # both static drawings were swapped for the live one
        live = box.locator("svg").evaluate("el => [...el.querySelectorAll('text')].map(t => t.textContent)")
        y_ticks = [t for t in static if t.replace(",", "").replace(".", "").isdigit()]
        assert y_ticks and set(y_ticks) <= set(live), (y_ticks, live)  # the same labelled ticks
        if rel == HISTORY:
            assert box.locator("svg .mark-area path").count() >= 1  # the band, live
            box.screenshot(path=str(artifacts / "chart-history-live.png"))
    assert not watch.problems


def test_on_a_phone_the_static_drawing_stays(decode_site, new_page):
    _, base = decode_site
    page, watch = new_page(viewport=PHONE)
    _open(page, base + FAMILY)
    box = page.locator(".chart[data-spec]").first
    box.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    assert "interactive" not in (box.get_attribute("class") or "")
    assert _drawing(page.locator("#scaling figure.chart-block").first).get_attribute("class") == "narrow"
    assert not watch.problems
