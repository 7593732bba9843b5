"""The derived index: cohorts, leaderboards, floors and history computed once, and equal to
what the pages show; workload kinds named where a family has more than forward workloads;
history and family JSON bounded. Every tree here is written by the test."""

from __future__ import annotations

from types import SimpleNamespace

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from site_builder.bench_build import write_tree
from site_builder.build import build
from site_builder.derive.index import derive
from site_builder.records.load import load_catalog
from site_builder.derive.history import beats
from site_builder.site.publishers import family as family_pub
from site_builder.site.publishers import history as history_pub

FAMILY = "bench-family-00"


@pytest.fixture(scope="module")
def forward(tmp_path_factory) -> Path:
    records = tmp_path_factory.mktemp("fwd") / "records"
    write_tree(records, families=1, impls=3, nworkloads=8, gpus=2, runs=4)
    return records


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("mixed")
    write_tree(base / "records", families=1, impls=3, nworkloads=8, gpus=1, runs=2, backward=True)
    build(base / "records", base / "site", cache=False)
    return base / "records", base / "site"


def test_cohorts_rank_eligible_results_fastest_first_and_never_mix(forward):
    index = derive(load_catalog(forward))
    assert index.cohorts
    for key, cohort in index.cohorts.items():
        assert {(e.family.id, e.workload.id, e.hardware.id, e.run.protocol.id) for e in cohort.entries} == {
            (key.family, key.workload, key.hardware, key.protocol)}
        times = [e.time_us for e in cohort.ranked]
        assert times == sorted(times) and all(e.eligible for e in cohort.ranked)
        # one ranked result per implementation: the newest; the older ones are superseded
        assert len({e.implementation.id for e in cohort.ranked}) == len(cohort.ranked) == 3
        assert all(e.superseded_by is not None for e in cohort.unranked)
    assert sum(len(c.entries) for c in index.cohorts.values()) == len(index.entries) == 3 * 8 * 2 * 4


def test_leaderboards_and_floors_on_the_page_are_the_index(forward):
    index = derive(load_catalog(forward))
    family = index.family(FAMILY)
    page = family_pub.family_page(index, family)
    for lb in page.leaderboards:
        cohorts = index.cohorts_of(FAMILY, lb["workload"]["id"])
        assert [c["key"] for c in lb["cohorts"]] == [c.key.slug for c in cohorts]
        for shown, cohort in zip(lb["cohorts"], cohorts):
            assert [(r["implementation"], r["time_us"], r["rank"]) for r in shown["rows"]] == [
                (e.implementation.id, e.time_us, i + 1) for i, e in enumerate(cohort.ranked)]
            assert shown["floor"]["datasheet_us"] == cohort.entries[0].floor.us
            assert shown["floor"]["measured_us"] == cohort.measured_floor().us
            assert shown["superseded"] == 3 * 3 and shown["unranked"] == []
    assert len(page.floors) == sum(len(index.cohorts_of(FAMILY, w.id)) for w in family.workloads)


def test_history_records_are_the_index_series(forward):
    index = derive(load_catalog(forward))
    for key, series in index.history.items():
        rows = [history_pub.row(p) for p in series.points]
        page = history_pub.history_page(index, series, rows)
        assert page.total == len(series.points) and page.shown == min(page.total, history_pub.WINDOW)
        assert [r["run_url"] for r in reversed(page.records)] == [history_pub.row(p)["run_url"] for p in series.records]
        # the record that stands is the top of the cohort's leaderboard (one definition everywhere)
        fid, wid, hid = key
        tops = sorted((c.key.protocol, c.first.time_us) for c in index.cohorts_of(fid, wid)
                      if c.key.hardware == hid and c.first is not None)
        assert [(proto, p.entry.time_us) for proto, p in series.current] == tops
        for p in series.points:  # a new record beats the record before it by more than both spreads
            if p.record_set and p.previous is not None:
                assert beats(p.entry, p.previous)
            if p.tied:
                assert not p.record_set and not beats(p.entry, p.previous)


def _entry(us, p20, p80, impl="a"):
    stat = SimpleNamespace(median=us, p20=p20, p80=p80)
    return SimpleNamespace(stat=stat, time_us=us, implementation=SimpleNamespace(id=impl))


def test_a_new_record_must_beat_both_spreads():
    old = _entry(100.0, 99.0, 101.0)  # spread 2
    assert not beats(_entry(99.85, 99.0, 100.5), old)  # 0.15 % faster, within the spreads: tied
    assert not beats(_entry(97.0, 93.0, 98.0), old)  # 3 faster, but its own spread is 5
    assert beats(_entry(97.0, 96.5, 97.5), old)  # 3 faster than both spreads (2 and 1)
    assert beats(_entry(99.0, None, None), _entry(100.0, None, None))  # no percentiles: spread 0


def test_history_page_is_bounded_and_the_json_holds_every_result(tmp_path):
    records = tmp_path / "records"
    write_tree(records, families=1, impls=2, nworkloads=3, gpus=1, runs=history_pub.WINDOW)  # 120 per series
    site = tmp_path / "site"
    build(records, site, cache=False)
    rel = f"history/{FAMILY}/" + load_catalog(records).families[FAMILY].workloads[0].id + "/bench-gpu-0"
    page = BeautifulSoup((site / f"{rel}.html").read_text(encoding="utf-8"), "html.parser")
    assert len(page.find(id="history").find("tbody").find_all("tr")) == history_pub.WINDOW
    assert "All 120 results" in page.find(id="summary").get_text()
    data = json.loads((site / f"{rel}.json").read_text(encoding="utf-8"))
    assert len(data["rows"]) == 120 and data["total"] == 120
    assert len((site / f"{rel}.csv").read_text(encoding="utf-8").splitlines()) == 121
    family = json.loads((site / f"families/{FAMILY}.json").read_text(encoding="utf-8"))
    cohort = family["leaderboards"][0]["cohorts"][0]
    assert cohort["unranked"] == [] and cohort["superseded"] == 2 * (history_pub.WINDOW - 1)
    assert (site / cohort["history_json_url"]).is_file()


def test_a_forward_only_family_does_not_name_kinds(forward, tmp_path):
    site = tmp_path / "site"
    build(forward, site, cache=False)
    html = (site / f"families/{FAMILY}.html").read_text(encoding="utf-8")
    assert "forward" not in html and "backward" not in html


def test_kinds_are_named_and_never_mixed(mixed):
    records, site = mixed
    page = BeautifulSoup((site / f"families/{FAMILY}.html").read_text(encoding="utf-8"), "html.parser")
    gpu_page = BeautifulSoup((site / f"families/{FAMILY}/bench-gpu-0.html").read_text(encoding="utf-8"),
                             "html.parser")
    headings = [s.get_text(" ", strip=True) for s in gpu_page.select("details.workload > summary")]
    assert sum("· forward" in h for h in headings) == 8 and sum("· backward" in h for h in headings) == 8
    matrix = [th.get_text(" ", strip=True) for th in page.find(id="records").select("tbody th")]
    assert sum(t.endswith("forward") for t in matrix) == 8 and sum(t.endswith("backward") for t in matrix) == 8
    charts = [c.get_text(" ", strip=True) for c in page.select("#scaling figcaption strong")]
    assert any(t.endswith("· forward") for t in charts) and any(t.endswith("· backward") for t in charts)
    index = derive(load_catalog(records))
    for cohort in index.cohorts.values():
        assert len({e.workload.kind for e in cohort.entries}) == 1
    run = next((site / f"runs/{FAMILY}/bench-gpu-0").glob("*.html"))
    groups = [th.get_text(" ", strip=True) for th in
              BeautifulSoup(run.read_text(encoding="utf-8"), "html.parser").select("#results tr.group th")]
    assert sum("backward" in g for g in groups) == 8 and sum("forward" in g for g in groups) == 8


def test_chart_specs_from_templates_are_what_altair_makes():
    from site_builder.site import charts

    data = [{"x": x, "us": 1.5 * x, "impl": f"I{x % 3}", "median": "—"} for x in (1, 4, 16)]
    assert charts.scaling_spec(data, [1, 4, 16], "rows") == charts.altair_scaling_spec(data, [1, 4, 16], "rows")
    points = [{"date": f"2024-01-0{d}T08:00:00Z", "when": "x", "us": 10.0 - d, "impl": "I", "protocol": "p",
               "median": "—", "record": "new record"} for d in (1, 2)]
    for one_day in (True, False):
        assert charts.history_spec(points, points[:1], one_day) == charts.altair_history_spec(points, points[:1], one_day)


def test_the_kept_vega_templates_are_what_the_installed_altair_makes():
    """vega_templates.py (so a build never imports altair) is altair's output: if this fails after
    an altair upgrade, run `python -m site_builder.site.charts` and commit the file."""
    import json

    from site_builder.site import charts
    from site_builder.site.vega_templates import TEMPLATES

    assert {k: json.loads(v) for k, v in TEMPLATES.items()} == charts.altair_templates()
    for xs in ([8, 16, 32, 64, 128, 256, 512, 1024, 4096], [2 ** i for i in range(30)]):  # turned labels; thinned
        data = [{"x": x, "us": 1.0 + i, "impl": "I", "median": "—"} for i, x in enumerate(xs)]
        for relative in (False, True):
            make = charts.relative_spec if relative else charts.scaling_spec
            assert make(data, xs, "n") == charts.altair_scaling_spec(data, xs, "n", relative=relative)
