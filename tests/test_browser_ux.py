"""What a reader sees after following a link, in Chromium at 1280 and 390 px: the number, its
workload, GPU and trust in the viewport and highlighted; a <details> named in the URL open; a
phone leaderboard as one card per result. Screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest

from browser_fixtures import (DESKTOP, PHONE, artifacts, browser, chart_specs, large_site, new_page,  # noqa: F401
                              served_site)

FAMILY = "families/fused-add-rmsnorm.html"
VIEWPORTS = {"desktop": DESKTOP, "phone": PHONE}

IN_VIEW = """el => { const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0
         && r.bottom <= innerHeight && r.right <= innerWidth; }"""


def _open(page, url):
    page.goto(url, wait_until="load")
    page.wait_for_timeout(150)


@pytest.mark.parametrize("where", VIEWPORTS)
def test_a_leaderboard_number_lands_in_view_with_its_context(large_site, new_page, artifacts, where):
    _, base = large_site
    page, watch = new_page(viewport=VIEWPORTS[where])
    _open(page, base + FAMILY)
    link = page.locator("details.workload[open] table.lb tbody tr").first.locator("td.c-lat a")
    number = link.inner_text()
    impl = page.locator("details.workload[open] table.lb tbody tr").first.locator("td.c-impl a").first.inner_text()
    gpu = page.locator("details.workload[open] h3").first.inner_text().split(" · ")[0]
    link.click()
    page.wait_for_load_state("load")
    page.wait_for_timeout(150)
    target = page.locator(":target")
    assert target.count() == 1 and target.evaluate("el => el.tagName") == "TR"
    latency = target.locator("td").nth(1)
    assert latency.inner_text().split("\n")[0] == number  # the same number, in the first columns
    for cell in (target.locator("td").first, latency, target.locator(".ctx")):
        assert cell.evaluate(IN_VIEW), f"{cell} is not in the viewport at {where}"
    context = target.locator(".ctx").inner_text()
    assert gpu in context and ("Measured here" in context or "Reported" in context)
    assert impl in target.locator("td").first.inner_text()
    colour = latency.evaluate("el => getComputedStyle(el).backgroundColor")
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent")  # highlighted as the target
    page.screenshot(path=str(artifacts / f"run-followed-link-{where}.png"))
    assert not watch.problems


@pytest.mark.parametrize("where", VIEWPORTS)
def test_a_details_named_in_the_url_opens_in_view(large_site, new_page, where):
    _, base = large_site
    page, watch = new_page(viewport=VIEWPORTS[where])
    _open(page, base + FAMILY)
    # the family page ranks its headline workload; the GPU's page, which it links, every workload
    assert page.locator("details.workload").count() == 1
    gpu_page = page.locator("#more-leaderboards a").first.evaluate("a => a.href").split("#")[0]
    _open(page, gpu_page)
    closed = page.locator("details.workload:not([open])").first
    wid = closed.get_attribute("id")
    inner = closed.locator("h3").first.get_attribute("id")
    for anchor in (wid, inner):  # the <details> itself, and an element inside a closed one
        _open(page, gpu_page + "#" + anchor)
        assert page.locator(f"#{wid}").evaluate("d => d.open"), anchor
        shown = page.locator(f"#{anchor}")
        assert shown.evaluate(IN_VIEW) or shown.locator("summary").evaluate(IN_VIEW), anchor
        page.goto("about:blank")
    assert not watch.problems


def test_phone_leaderboard_is_one_card_per_result(large_site, new_page, artifacts):
    _, base = large_site
    page, watch = new_page(viewport=PHONE)
    _open(page, base + FAMILY)
    board = page.locator("details.workload[open] table.lb").first
    board.scroll_into_view_if_needed()
    rows = board.locator("tbody tr")
    assert rows.count() >= 2
    for i in range(min(rows.count(), 6)):
        card = rows.nth(i).bounding_box()
        assert card["x"] >= 0 and card["x"] + card["width"] <= PHONE["width"]
        for cls in ("c-rank", "c-impl", "c-lat", "c-trust"):  # together, on the card, on screen
            box = rows.nth(i).locator(f"td.{cls}").bounding_box()
            assert box["x"] >= card["x"] - 1 and box["x"] + box["width"] <= card["x"] + card["width"] + 1, cls
            assert box["y"] + box["height"] <= card["y"] + card["height"] + 1, cls
        lat = rows.nth(i).locator("td.c-lat").bounding_box()
        trust = rows.nth(i).locator("td.c-trust").bounding_box()
        assert trust["y"] - lat["y"] < 80  # the trust sits right under the number
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        board.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"phone-leaderboard{'' if scheme == 'light' else '-dark'}.png"))
    assert not watch.problems


@pytest.mark.parametrize("where", VIEWPORTS)
def test_the_relative_chart_opens_from_its_link_with_every_size_labelled(large_site, new_page, artifacts, where):
    site, base = large_site
    page, watch = new_page(viewport=VIEWPORTS[where])
    _open(page, base + FAMILY + "#relative-1")
    assert page.locator("#relative-1").evaluate("d => d.open")
    svg = page.locator("#relative-1 .chart svg")
    assert svg.count() == 1 and svg.evaluate("el => el.getBoundingClientRect().height > 100")
    # the relative view ships as SVG only (its interactive spec would push the page over budget);
    # it shares the absolute chart's x axis and palette, read from that chart's spec
    spec = chart_specs(site, FAMILY)["spec-1"]
    xs = spec["encoding"]["x"]["axis"]["values"]
    labels = set(svg.evaluate("el => [...el.querySelectorAll('text')].map(t => t.textContent)"))
    label = lambda x: f"{x // 1024}k" if x >= 8192 and x % 1024 == 0 else str(x)
    # the smallest and largest sizes are labelled, and most between them (labels that would
    # collide are thinned, as on the absolute chart)
    assert label(xs[0]) in labels and label(xs[-1]) in labels, (xs, labels)
    assert sum(label(x) in labels for x in xs) >= len(xs) / 2, (xs, labels)
    assert any(t.strip().startswith("1") for t in labels)  # the fastest at each size sits at 1
    colours = spec["encoding"]["color"]["scale"]["range"]
    assert len(set(colours)) == len(colours)  # no colour repeats among the lines drawn
    page.locator("#relative-1").screenshot(path=str(artifacts / f"relative-chart-{where}.png"))
    assert not watch.problems


def test_the_palette_stays_distinct_for_twelve_and_a_baseline():
    from site_builder.site.charts import styles

    names = [f"impl {i:02d}" for i in range(12)] + ["base"]
    look = styles(names, "base")
    assert look["domain"][-1] == "base" and len(set(look["colours"])) == 13
    assert len({str(d) for d in look["dashes"]}) == 13 and len(set(look["shapes"])) == 13

    def grey(hex_):  # relative luminance, as a greyscale print shows it
        r, g, b = (int(hex_[i:i + 2], 16) / 255 for i in (1, 3, 5))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    # dashes and shapes tell lines apart in grey; colours alone span a wide range of lightness
    greys = sorted(grey(c) for c in look["colours"])
    assert greys[-1] - greys[0] > 0.3


def _nearest(rows, want, axes):
    from site_builder.site.publishers.finder import distance

    return sorted({(round(distance(want, r["sizes"], axes), 6), r["label"]) for r in rows})


@pytest.mark.parametrize("where", VIEWPORTS)
def test_the_shape_finder_answers_from_the_url_and_without_javascript(served_site, new_page, artifacts, where):
    import json

    site, base = served_site
    page, watch = new_page(viewport=VIEWPORTS[where])
    _open(page, base + "shape.html")
    listed = json.loads(page.locator("#finder-data").text_content())  # the families; their data loads on demand
    data = [json.loads((site / f["json_url"]).read_text(encoding="utf-8")) for f in listed]
    assert [f["id"] for f in data] == [f["id"] for f in listed]
    fam = next(f for f in data if len(f["rows"]) >= 3)
    dtype = fam["rows"][0]["dtype"]
    # a family measured in several passes answers for one of them: the first (forward) unless named
    kind = fam["kinds"][0] if len(fam["kinds"]) > 1 else None
    rows = [r for r in fam["rows"] if r["dtype"] == dtype and r["kind"] in (kind or r["kind"],)]
    want = {a: max(1, int(v * 1.3)) for a, v in rows[0]["sizes"].items()}  # a shape nobody measured
    query = "&".join([f"family={fam['id']}", f"dtype={dtype}", *(f"{a}={v}" for a, v in want.items()), "k=3"])
    _open(page, base + "shape.html?" + query)
    page.wait_for_selector("#finder-table")  # after the family's data has loaded
    table = page.locator("#finder-table")
    assert table.count() == 1
    shown = page.locator("#finder-table tbody tr td:first-child").all_inner_texts()
    expect = [label for _, label in _nearest(rows, want, fam["axes"])][:3]
    assert list(dict.fromkeys(s.split("\n")[0] for s in shown)) == expect  # the three nearest, nearest first
    sizes = {r["label"]: " · ".join(f"{a} {r['sizes'][a]}" for a in fam["axes"]) for r in rows}
    assert all(s.split("\n")[1] == sizes[s.split("\n")[0]] for s in shown), shown  # each with its sizes
    assert page.locator("#finder-verdicts li").count() >= 1
    assert {li.get_attribute("data-holds") for li in page.locator("#finder-verdicts li").all()} <= {"yes", "no"}
    # the form shows the state it was given; submitting keeps the state in the URL
    assert page.locator(f"input[name='axis-{fam['axes'][0]}']").input_value() == str(want[fam["axes"][0]])
    page.locator("#finder button[type=submit]").click()
    page.wait_for_timeout(100)
    assert f"family={fam['id']}" in page.url and "k=3" in page.url
    assert (f"kind={kind}" in page.url.replace("%2B", "+")) if kind else "kind=" not in page.url
    page.locator("#finder-h").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"shape-finder-{where}.png"))
    assert not watch.problems
    # choosing another family loads its data and offers its axes
    other = next((f for f in data if f["id"] != fam["id"]), None)
    if other is not None:
        page.locator("#finder select[name=family]").select_option(other["id"])
        page.wait_for_function(f"document.querySelectorAll('#finder-axes input').length === {len(other['axes'])}")
    # the pass and the GPU narrow the answer: only that pass's workloads on that GPU are listed
    multi = next((f for f in data if len(f["kinds"]) > 1 and f["gpus"]), None)
    if multi is not None:
        kind, gpu = multi["kinds"][-1], multi["gpus"][-1]
        rows = [r for r in multi["rows"] if r["kind"] == kind and r["hardware"] == gpu["id"]]
        dtype, want = rows[0]["dtype"], rows[0]["sizes"]
        rows = [r for r in rows if r["dtype"] == dtype]
        query = "&".join([f"family={multi['id']}", f"dtype={dtype}", f"kind={kind.replace('+', '%2B')}",
                          *(f"{a}={v}" for a, v in want.items()), f"gpu={gpu['id']}", "k=2"])
        _open(page, base + "shape.html?" + query)
        page.wait_for_selector("#finder-table")
        assert page.locator("#finder select[name=kind]").input_value() == kind
        assert page.locator("#finder select[name=gpu]").input_value() == gpu["id"]
        gpus = set(t.split(" · ")[0] for t in page.locator("#finder-table tbody tr td:nth-child(3)").all_inner_texts())
        assert gpus == {gpu["name"]}
        shown = page.locator("#finder-table tbody tr td:first-child").all_inner_texts()
        assert list(dict.fromkeys(s.split("\n")[0] for s in shown)) == [label for _, label in _nearest(rows, want, multi["axes"])][:2]
    # without JavaScript: the finder page links every family's table of per-shape winners (a page
    # of its own, so the finder stays small), and the CSV exists
    page, _ = new_page(viewport=VIEWPORTS[where], java_script_enabled=False)
    _open(page, base + "shape.html")
    assert page.locator("#finder").is_hidden()
    link = page.locator(f"#winners-{fam['id']} a[href$='{fam['url']}']")
    assert link.count() == 1
    link.click()
    page.wait_for_load_state()
    assert page.url.endswith(fam["url"])
    table = page.locator(f"#winners-{fam['id']} table.winners tbody tr")
    assert table.count() == len(fam["rows"])
    csv_link = page.locator("a[href$='.csv']").first.get_attribute("href")
    assert (site / fam["url"]).parent.joinpath(csv_link).resolve().is_file()


def test_the_404_page_is_styled_and_its_links_work_at_any_depth(served_site, new_page):
    from site_builder.site import urls

    site, base = served_site
    assert urls.SITE_BASE == "/kernel-records/"  # the browser fixtures serve the site there too
    html = (site / "404.html").read_text(encoding="utf-8")
    page, watch = new_page()
    deep = base + "no/such/deep/page.html"
    # the host answers a missing address at any depth with the 404 page, as GitHub Pages does
    page.route(deep, lambda route: route.fulfill(status=404, body=html, content_type="text/html"))
    page.goto(deep, wait_until="load")
    assert page.inner_text("h1") == "Page not found"
    look = "el => { const s = getComputedStyle(el); return [s.fontFamily, s.padding, s.borderBottom, s.maxWidth]; }"
    styled = page.locator("header.site").evaluate(look), page.locator("main").evaluate(look)
    for link in page.locator("main a, header a").all()[:6]:
        href = link.get_attribute("href")
        assert href.startswith(urls.SITE_BASE), href
    page.locator("#home").click()
    page.wait_for_load_state("load")
    assert page.url == base + "index.html" and page.inner_text("h1")
    # the site's own stylesheet: header and main look as on every other page
    assert (page.locator("header.site").evaluate(look), page.locator("main").evaluate(look)) == styled
    page.unroute(deep)
    assert [p for p in watch.problems if "404" not in p] == []  # only the deep address itself is a 404


def test_phone_floor_table_is_one_card_per_workload(large_site, new_page, artifacts):
    _, base = large_site
    page, watch = new_page(viewport=PHONE)
    _open(page, base + FAMILY + "#floor")
    rows = page.locator("#floor-table tbody tr")
    assert rows.count() >= 2
    for i in range(min(rows.count(), 4)):
        rows.nth(i).scroll_into_view_if_needed()
        card = rows.nth(i).bounding_box()
        assert card["x"] >= 0 and card["x"] + card["width"] <= PHONE["width"]
        for cell in rows.nth(i).locator("td").all():  # every column on the card, on screen, labelled
            box = cell.bounding_box()
            assert box["x"] >= card["x"] - 1 and box["x"] + box["width"] <= card["x"] + card["width"] + 1
        record = rows.nth(i).locator("td.c-rec").first
        assert record.evaluate(IN_VIEW)
        label = record.evaluate("el => getComputedStyle(el, '::before').content")
        assert "Record" in label
    page.screenshot(path=str(artifacts / "phone-floor-table.png"))
    assert not watch.problems
