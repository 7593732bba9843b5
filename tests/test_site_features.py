"""Search index, compare, record history, Atom feed, challenges, implementation and hardware
pages: the values they show, read from the built files (no browser needed)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from site_builder.build import build
from site_builder.site.publishers.challenges import challenges
from site_builder.derive.entries import build_entries
from site_builder.derive.index import derive
from site_builder.records.kernel_hash import family_dir
from site_builder.records.load import load_catalog

from conftest import write
from synthetic import add_synthetic_runs, stable_records

ATOM = "{http://www.w3.org/2005/Atom}"
FAMILY_ID = "fused-add-rmsnorm"


def soup(site: Path, rel: str) -> BeautifulSoup:
    return BeautifulSoup((site / rel).read_text(encoding="utf-8"), "html.parser")


def text(node) -> str:
    return " ".join(node.get_text(" ").split())


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    """The seed page's frozen records (no measured run), plus synthetic measured runs on two dates."""
    top = tmp_path_factory.mktemp("features")
    records = stable_records(top / "records")
    info = add_synthetic_runs(records)
    build(records, top / "site")
    return top / "site", records, info


def test_search_index_is_a_script_and_covers_every_kind(built_site):
    js = (built_site / "assets/search-index.js").read_text(encoding="utf-8")
    assert js.startswith("window.KR_SEARCH=") and js.rstrip().endswith(";")
    items = json.loads(js[len("window.KR_SEARCH="):].rstrip().rstrip(";"))
    assert items == json.loads((built_site / "search-index.json").read_text(encoding="utf-8"))
    kinds = {i["k"] for i in items}
    assert {"family", "implementation", "workload", "hardware"} <= kinds
    by_url = {i["u"]: i for i in items}
    assert by_url["hardware/h200.html"]["t"] == "NVIDIA H200"
    # a workload leads to its leaderboard on the GPU of its first cohort
    assert by_url[f"families/{FAMILY_ID}/h100-sxm.html#wl-r2048-h1024-fp32"]["t"] == "rows = 2048 · hidden = 1024 · fp32"
    for item in items:  # every target exists, and so does the element it names
        path, _, anchor = item["u"].partition("#")
        assert (built_site / path).is_file(), item
        if anchor:
            assert f'id="{anchor}"' in (built_site / path).read_text(encoding="utf-8"), item
    assert len(js) < 300 * len(items)  # compact entries, whatever the number of records


def test_every_page_has_the_search_box_but_the_404(built_site):
    page = soup(built_site, "index.html")
    assert page.find(id="search-open").has_attr("hidden")  # shown by the script only
    assert page.find("script", src="assets/search.js").has_attr("defer")
    assert soup(built_site, "404.html").find("script") is None


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    """The committed records less their measured runs: the reported H100 figures only."""
    top = tmp_path_factory.mktemp("reported")
    build(stable_records(top / "records"), top / "site")
    return top / "site"


def test_compare_default_pair_is_fastest_against_baseline(reported, built_site):
    page = soup(reported, f"compare/{FAMILY_ID}.html")
    assert text(page.find("h1")) == "Liger fused vs Transformers"
    assert text(page.find(id="geomean")) == "2.60×"
    rows = page.find("table", class_="compare").find("tbody").find_all("tr")
    first = [c.get_text(" ", strip=True) for c in rows[0].find_all(["th", "td"])]
    assert first == ["rows = 2048 · hidden = 1024 · fp32", "20.5 µs", "45.5 µs", "2.22×", "A"]
    assert "Liger fused wins 6 , Transformers wins 0" in text(page.find(class_="compare-summary"))
    swapped = soup(reported, f"compare/{FAMILY_ID}/transformers--liger-fused.html")
    assert text(swapped.find(id="geomean")) == "2.60×" and "Liger fused is" in text(swapped)
    # the default is the fastest usable at the headline workload against the baseline
    data = json.loads((built_site / f"families/{FAMILY_ID}.json").read_text(encoding="utf-8"))
    fastest = data["fastest"]["primary"]["name"]
    assert text(soup(built_site, f"compare/{FAMILY_ID}.html").find("h1")) == f"{fastest} vs Transformers"
    # reachable from the leaderboard
    family = soup(reported, f"families/{FAMILY_ID}.html")
    hrefs = [a["href"] for a in family.find(id="leaderboard").find_all("a")]
    assert f"../compare/{FAMILY_ID}.html" in hrefs
    assert f"../compare/{FAMILY_ID}/liger-fused--transformers.html" in hrefs


def test_compare_pages_exist_for_every_ordered_pair(large):
    site, _, info = large
    ids = sorted([*info["implementations"], "liger-fused", "transformers"])
    for a in ids:
        for b in ids:
            if a != b:
                assert (site / f"compare/{FAMILY_ID}/{a}--{b}.html").is_file(), (a, b)
    page = soup(site, f"compare/{FAMILY_ID}/synthetic-1--synthetic-2.html")
    groups = [text(h) for h in page.find_all("h2")]
    assert groups and groups[0].startswith("NVIDIA H200 · kernel-records-device")


def test_history_marks_when_each_record_was_set_and_by_whom(large):
    site, _, _ = large
    page = soup(site, f"history/{FAMILY_ID}/r2048-h1024-fp32/h200.html")
    events = page.find(id="record-events").find("tbody").find_all("tr")
    cells = [[c.get_text(" ", strip=True) for c in tr.find_all("td")] for tr in events]
    assert [c[0] for c in cells] == ["2026-11-28 10:00 UTC", "2026-11-20 10:00 UTC"]  # newest first
    assert cells[0][1] == "Synthetic kernel 1" and cells[0][4].endswith("×") and cells[1][4] == "first"
    assert cells[0][5].startswith("Synthetic kernel 1 ·")  # the record it beat
    assert page.find(id="current").find(class_="big").get_text() == cells[0][3]
    stars = [tr for tr in page.find(id="history").find_all("tr") if "new record" in tr.get_text()]
    assert len(stars) == 2
    assert page.find(class_="chart").find("svg") is not None
    assert page.find("script", id="history-spec")["type"] == "application/json"


def test_atom_feed_lists_new_records_dated_from_the_records(large, reported, built_site):
    site, _, _ = large
    feed = ET.parse(site / "feed.xml").getroot()
    assert feed.tag == f"{ATOM}feed"
    entries = feed.findall(f"{ATOM}entry")
    assert entries and len({e.find(f"{ATOM}id").text for e in entries}) == len(entries)
    dates = [e.find(f"{ATOM}updated").text for e in entries]
    assert dates == sorted(dates, reverse=True)
    assert set(dates) <= {"2026-11-28T10:00:00Z", "2026-11-20T10:00:00Z", "2026-04-07T00:00:00Z"}
    assert feed.find(f"{ATOM}updated").text == "2026-11-28T10:00:00Z"
    for e in entries:
        href = e.find(f"{ATOM}link").get("href")
        assert (site / href.split("#")[0]).is_file(), href
    # the reported figures alone: one first record per workload with a ranked result
    small = ET.parse(reported / "feed.xml").getroot().findall(f"{ATOM}entry")
    assert len(small) == 6 and all("First record" in e.find(f"{ATOM}summary").text for e in small)
    assert soup(built_site, "index.html").find("link", type="application/atom+xml")["href"] == "feed.xml"


def test_challenges_list_gaps_failures_never_measured_and_stale_kernels(large, tmp_path):
    site, records, _ = large
    summary = soup(site, "challenges.html").find(id=FAMILY_ID)
    assert summary.find("a")["href"] == f"challenges/{FAMILY_ID}.html"
    page = soup(site, f"challenges/{FAMILY_ID}.html")
    body = text(page.find(id=FAMILY_ID))
    rows = lambda part: len(page.find(id=f"{FAMILY_ID}-{part}").find_next("table").find("tbody").find_all("tr"))
    # the summary's counts are the family page's lists: 18 workloads missing on the H100, ...
    assert [text(td) for td in summary.find_all("td")] == ["18", str(rows("never")), str(rows("failed")), "0"]
    assert "NVIDIA H100 SXM : 18 of 24 workloads" in body
    assert "kernel-records run --family fused-add-rmsnorm --workload r2048-h1024-bf16" in body
    failed = page.find(id=f"{FAMILY_ID}-failed").find_next("table")
    assert "kernel-records run --family fused-add-rmsnorm --implementation synthetic-5 --workload" in text(failed)
    never = text(page.find(id=f"{FAMILY_ID}-never").find_next("table"))
    assert "Liger fused" in never and "only reported numbers" in never

    # a registered kernel whose source no longer hashes to the recorded kernel_sha is stale
    kernels = tmp_path / "kernels"
    folder = family_dir(kernels, FAMILY_ID)
    write(folder, "__init__.py", "")
    write(folder, "impl_one.py", """
        from .registry import register

        @register("synthetic-1")
        def make(inputs):
            return lambda: None
    """)
    catalog = load_catalog(records)
    model = challenges(derive(catalog), kernels)[0]
    stale = model["stale"]
    assert [s["implementation"] for s in stale] == ["synthetic-1"]
    assert stale[0]["results"] == 24 and stale[0]["command"].endswith("--implementation synthetic-1")
    assert "synthetic-1" not in {n["id"] for n in model["never_measured"]}

    # the family page marks the same results "earlier code", and only those
    from site_builder.records.kernel_hash import current_shas
    from site_builder.site.publishers.family import family_page

    index = derive(catalog)
    current = current_shas(kernels, FAMILY_ID)
    rows = [r for lb in family_page(index, catalog.families[FAMILY_ID], current).leaderboards
            for c in lb["cohorts"] for r in [*c["rows"], *c["unranked"]]]
    marked = {r["implementation"] for r in rows if r["source_changed"]}
    assert marked == {"synthetic-1"}
    assert sum(r["source_changed"] for r in rows) == sum(r["implementation"] == "synthetic-1" and bool(r["kernel_sha"])
                                                          for r in rows) > 0
    recorded = {r["kernel_sha"] for r in rows if r["implementation"] == "synthetic-1"} - {None}
    assert len(recorded) == 1  # the code as it was measured: nothing is marked
    same = family_page(index, catalog.families[FAMILY_ID], {"synthetic-1": recorded.pop()})
    assert not any(r["source_changed"] for lb in same.leaderboards for c in lb["cohorts"]
                   for r in [*c["rows"], *c["unranked"]])
    # and the rendered page shows the badge in those leaderboard rows, and only there
    from site_builder.site.publishers import family as family_pub
    from site_builder.site.publishers.home import nav
    from site_builder.site.render import environment, render

    # the GPUs' pages, which rank every workload (the family page: the headline one)
    gpu_pages = [p for p in family_pub._family_files(index, catalog.families[FAMILY_ID], current)
                 if p.path.endswith(".html")][1:]
    badged = []
    for page in gpu_pages:
        html = BeautifulSoup(render(environment(), page.template, page.path, nav_families=nav(index),
                                    **page.context).decode("utf-8"), "html.parser")
        badged += [tr for tr in html.select("table.leaderboard tbody tr") if tr.select_one(".badge.changed")]
    assert badged and {tr["data-impl"] for tr in badged} == {"synthetic-1"}
    assert len(badged) == sum(r["source_changed"] for lb in family_page(index, catalog.families[FAMILY_ID],
                                                                        current).leaderboards
                              for c in lb["cohorts"] for r in c["rows"])
    assert all(text(tr.select_one(".badge.changed")) == "earlier code" for tr in badged)
    # the fastest card: "<trust> evidence", then the badge when its code changed since
    fastest = family_page(index, catalog.families[FAMILY_ID], current).fastest["primary"]
    for code, after in (({}, " · last observed"), ({fastest["implementation"]: "f" * 16}, " earlier code ·")):
        page = next(iter(family_pub._family_files(index, catalog.families[FAMILY_ID], code)))
        card = BeautifulSoup(render(environment(), page.template, page.path, nav_families=nav(index),
                                    **page.context).decode("utf-8"), "html.parser").select_one(".card.primary p.note")
        assert text(card).startswith(f"{fastest['trust_label']} evidence{after}"), text(card)
    # not-ranked rows (synthetic-5's failures) carry the badge too when their code changed since
    unranked = []
    for page in family_pub._family_files(index, catalog.families[FAMILY_ID], {"synthetic-5": "f" * 16}):
        if page.path.endswith(".html"):
            html = BeautifulSoup(render(environment(), page.template, page.path, nav_families=nav(index),
                                        **page.context).decode("utf-8"), "html.parser")
            unranked += [tr for d in html.select("details") if "not ranked" in text(d.find("summary") or d)
                         for tr in d.select("tbody tr")]
    failing = [tr for tr in unranked if "synthetic-5" in str(tr)]
    assert failing and all(tr.select_one(".badge.changed") for tr in failing)
    assert not any(tr.select_one(".badge.changed") for tr in unranked if tr not in failing)
    # the shape finder's winners say the same: JSON flag, CSV column, badge in the winners table
    from site_builder.site.publishers import finder

    fam = next(f for f in finder.winners(index, lambda fid: current_shas(kernels, fid)) if f["id"] == FAMILY_ID)
    flagged = [r for r in fam["rows"] if r["earlier_code"]]
    assert flagged and {r["winner_id"] for r in flagged} == {"synthetic-1"}
    assert not any(r["earlier_code"] for r in next(f for f in finder.winners(index, None)
                                                    if f["id"] == FAMILY_ID)["rows"])
    table = BeautifulSoup(render(environment(), "shape_family.html", fam["url"], nav_families=nav(index),
                                 fam=fam).decode("utf-8"), "html.parser")
    assert len(table.select("tbody .badge.changed")) == len(flagged)


def test_implementation_page_shows_availability_numerics_and_results(reported):
    page = soup(reported, "implementations/liger-fused.html")
    body = text(page)
    for item in ["BSD-2-Clause", 'pip install "liger-kernel==0.8.5"', "Llama convention", "usable today",
                 "#1 in 6 of 6"]:
        assert item in body, item
    rows = page.find("table", class_="impl-results").find("tbody").find_all("tr")
    first = [c.get_text(" ", strip=True) for c in rows[0].find_all("td")]
    assert first[:5] == ["rows = 2048 · hidden = 1024 · fp32", "NVIDIA H100 SXM · liger-benchmark-scripts",
                         "20.5 µs", "#1 of 2", "1.00×"]


def test_hardware_page_shows_datasheet_copy_bandwidth_and_what_was_measured(large, reported):
    site, _, _ = large
    page = soup(site, "hardware/h200.html")
    sheet = text(page.find(id="datasheet"))
    assert "bandwidth 4,800 GB/s" in sheet and "SMs 132" in sheet and "peak fp8 tensor 1979 TFLOP/s" in sheet
    measured = text(page.find(id="measured"))
    assert re.search(r"copy bandwidth 4,224 GB/s 88 % of the datasheet", measured), measured
    best = page.find("table", class_="hw-best").find("tbody").find_all("tr")
    assert len(best) == 24
    assert "Synthetic kernel 1" in text(best[0])
    h100 = text(soup(reported, "hardware/h100-sxm.html").find(id="measured"))
    assert "not measured yet" in h100


def test_within_one_run_only_the_fastest_sets_a_record(reported):
    page = soup(reported, f"history/{FAMILY_ID}/r2048-h1024-fp32/h100-sxm.html")
    events = page.find(id="record-events").find("tbody").find_all("tr")
    assert [[c.get_text(" ", strip=True) for c in tr.find_all("td")][1] for tr in events] == ["Liger fused"]
    rows = page.find(id="history").find("tbody").find_all("tr")
    assert len(rows) == 2 and sum("new record" in tr.get_text() for tr in rows) == 1


def test_a_family_page_draws_its_first_scaling_charts_and_links_the_rest(large, monkeypatch):
    """A family with many held-constant groups (GEMM: one chart per (N, K) shape) would carry
    every drawing on its family page: the page draws the first FAMILY_PAGE_CHARTS of its GPU and
    links that GPU's page, which draws them all; chart kinds the family declares stay."""
    from dataclasses import replace

    from site_builder.site.publishers import family as family_pub
    from site_builder.site.publishers.home import nav
    from site_builder.site.render import environment, render

    _, records, _ = large
    catalog = load_catalog(records)
    index = derive(catalog)
    real = family_pub.family_page(index, catalog.families[FAMILY_ID])
    gpu = real.detail_gpu["id"]
    first = next(c for c in real.charts if c["hardware"] == gpu and "chart_kind" not in c)
    extra = [dict(first, title=f"{first['title']} · copy {i}") for i in range(family_pub.FAMILY_PAGE_CHARTS + 2)]
    roofline = dict(first, chart_kind="roofline", title="a declared chart kind")
    many = replace(real, charts=[*real.charts, *extra, roofline])
    monkeypatch.setattr(family_pub, "family_page", lambda *a, **k: many)
    drawn = {}
    for page in family_pub._family_files(index, catalog.families[FAMILY_ID]):
        if page.path.endswith(".html"):
            html = BeautifulSoup(render(environment(), page.template, page.path, nav_families=nav(index),
                                        **page.context).decode("utf-8"), "html.parser")
            drawn[page.path] = (html, page.context["f"])
    total = sum(c["hardware"] == gpu and "chart_kind" not in c for c in many.charts)
    assert total > family_pub.FAMILY_PAGE_CHARTS
    html, view = drawn["families/fused-add-rmsnorm.html"]
    assert len(html.select("#scaling figure.chart-block")) == family_pub.FAMILY_PAGE_CHARTS
    assert view.charts_elsewhere == total - family_pub.FAMILY_PAGE_CHARTS
    assert any(c.get("chart_kind") == "roofline" for c in view.charts)
    more = html.find(id="more-charts")
    assert text(more).startswith(f"This page draws the first {family_pub.FAMILY_PAGE_CHARTS} of {total} scaling charts")
    assert more.find("a")["href"] == f"../{real.detail_gpu['url']}#scaling"
    html, view = drawn[real.detail_gpu["url"]]  # the GPU's page: every chart, no note
    assert len(html.select("#scaling figure.chart-block")) == total and view.charts_elsewhere == 0
    assert html.find(id="more-charts") is None
