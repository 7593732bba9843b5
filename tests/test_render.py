"""Rendering: parse the generated pages and assert on the values they show."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from site_builder.site import urls
from bs4 import BeautifulSoup

from site_builder.build import build

from conftest import REPO, RECORDS

FAMILY = "families/fused-add-rmsnorm.html"
SECTIONS = ["fastest", "by-language", "records", "source-native", "floor", "leaderboard", "scaling",
            "implementations", "semantics", "sources"]


def soup(site: Path, rel: str) -> BeautifulSoup:
    return BeautifulSoup((site / rel).read_text(encoding="utf-8"), "html.parser")


def text(node) -> str:
    return " ".join(node.get_text(" ").split())


def test_every_seed_section_is_on_the_family_page(built_site):
    page = soup(built_site, FAMILY)
    for section in SECTIONS:
        assert page.find(id=section) is not None, section
    assert text(page.find("h1")).startswith("Fused add + RMSNorm rmsnorm")
    assert re.match(r"12 eligible results from \d+ runs? \(", text(page.find(id="eligible-runs")))


def test_fastest_usable_today_shows_the_speedup_over_the_baseline(built_site):
    fastest = soup(built_site, FAMILY).find(id="fastest")
    assert text(fastest.find(id="fastest-latency")) == "20.5 µs"
    assert text(fastest.find(id="fastest-speedup")) == "2.22×"
    body = text(fastest)
    assert "Liger fused" in body and "Liger-Kernel" in body and "BSD-2-Clause" in body and "triton" in body
    assert "Reported evidence · last observed 2026-04-07" in body
    assert 'pip install "liger-kernel==0.8.5"' in body
    links = {a.get_text(strip=True): a["href"] for a in fastest.find_all("a")}
    assert links["Run detail →"].startswith("../runs/fused-add-rmsnorm/h100-sxm/2026-04-07-liger-v0.7.0.html#r")


def test_fastest_by_language(built_site):
    rows = soup(built_site, FAMILY).find(id="by-language").find("tbody").find_all("tr")
    assert [[td.get_text(" ", strip=True) for td in r.find_all("td")] for r in rows] == [
        ["triton", "Liger fused", "20.5 µs", "1.00×", "#1"],
        ["python", "Transformers baseline", "45.5 µs", "2.22×", "#2"],
    ]


def test_floor_table_shows_the_datasheet_floor_and_distance(built_site):
    row = soup(built_site, FAMILY).find("tr", attrs={
        "data-workload": "r2048-h1024-fp32", "data-cohort": "r2048-h1024-fp32--h100-sxm--liger-benchmark-scripts"})
    cells = [td.get_text(" ", strip=True) for td in row.find_all("td")]
    assert cells[2] == "33.6 MB"
    assert cells[3] == "10.0 µs"
    assert cells[5] == "20.5 µs"
    assert cells[6] == "2.05×"


def test_leaderboard_rows(built_site):
    table = soup(built_site, FAMILY).find("table", attrs={"data-cohort":
                                                          "r2048-h1024-fp32--h100-sxm--liger-benchmark-scripts"})
    rows = table.find("tbody").find_all("tr")
    first = [td.get_text(" ", strip=True) for td in rows[0].find_all("td")]
    second = [td.get_text(" ", strip=True) for td in rows[1].find_all("td")]
    assert first[0] == "1" and first[1].startswith("Liger fused") and first[2].startswith("20.5 µs")
    assert first[3] == "1.00×" and first[4] == "2.22×" and "Reported" in first[7] and first[8] == "2026-04-07"
    assert "BSD-2-Clause" in first[9] and "installable" in first[9]
    assert second[0] == "2" and "baseline" in second[1] and second[3] == "2.22×" and second[4] == "1.00×"
    assert first[10] == "exact"  # measured exactly the asked workload (else a "near" badge)


def test_scaling_chart_is_inline_svg_with_a_data_table(built_site):
    scaling = soup(built_site, FAMILY).find(id="scaling")
    svg = scaling.find("svg")
    assert svg is not None
    labels = {t.get_text() for t in svg.find_all("text")}
    assert {"1024", "32k", "Liger fused", "Transformers"} <= labels
    table = scaling.find("table", class_="chart-data")
    assert "982.8 µs" in text(table)
    # the chart is drawn at build time: no script is needed to see it
    assert svg.find_parent("noscript") is None


def test_semantics_and_identity(built_site):
    sem = soup(built_site, FAMILY).find(id="semantics")
    body = text(sem)
    for item in ["x input float [rows, hidden]", "weight input float [hidden]", "residual_out output float [rows, hidden]",
                 "rows variable", "hidden variable", "determinism deterministic", "no mutation of inputs"]:
        assert item in body, item
    assert re.fullmatch(r"[0-9a-f]{64}", text(sem.find(id="identity")))


def test_json_and_csv_twins(built_site):
    data = json.loads((built_site / "families/fused-add-rmsnorm.json").read_text())
    assert data["fastest"]["primary"]["speedup_vs_baseline"] == pytest.approx(45.5 / 20.5)
    assert data["eligible_results"] == 12 and data["eligible_runs"] >= 1 and len(data["semantics"]["identity"]) == 64
    rows = list(csv.DictReader(io.StringIO((built_site / "families/fused-add-rmsnorm.csv").read_text())))
    assert len(rows) == 12
    assert {r["implementation"] for r in rows} == {"liger-fused", "transformers"}
    run = json.loads((built_site / "runs/fused-add-rmsnorm/h100-sxm/2026-04-07-liger-v0.7.0.json").read_text())
    assert run["source"]["license"] == "BSD-2-Clause" and len(run["results"]) == 12


def test_run_page_shows_every_field(built_site):
    page = soup(built_site, "runs/fused-add-rmsnorm/h100-sxm/2026-04-07-liger-v0.7.0.html")
    body = text(page)
    for item in ["trust reported", "observed 2026-04-07", "liger-benchmark-scripts", "clock end-to-end",
                 "statistic median", "Liger-Kernel benchmark data", "BSD-2-Clause", "citation Liger-Kernel v0.7.0"]:
        assert item in body, item
    assert len(page.find(id="results").find_all("tr", id=True)) == 12  # one row per result, grouped by workload


def test_measured_run_page_shows_environment_floor_and_correctness(built_second):
    page = soup(built_second, "runs/grouped-matvec/test-gpu/2026-02-01-second.html")
    body = text(page)
    assert "copy_bandwidth_gbps 820.0" in body and "seed 8" in body
    assert "timing_cpu" not in body  # fields a run did not record are left out, not shown as "—"
    assert "FAILED" in body and "max abs 3.2" in body
    assert "faster than the physical floor" in body


def test_second_family_renders_with_its_own_axes(built_second):
    page = soup(built_second, "families/grouped-matvec.html")
    body = text(page)
    assert "a input float [groups, m, k]" in body and "v input float32 [k]" in body
    assert "groups fixed (4)" in body
    assert page.find(id="scaling").find("svg") is not None
    row = page.find("tr", attrs={"data-workload": "m4096-k1024-fp16"})
    cells = [td.get_text(" ", strip=True) for td in row.find_all("td")]
    heads = [th.get_text(strip=True) for th in page.select("#floor-table thead th")]
    col = lambda name: cells[heads.index(name)]
    assert col("Datasheet floor") == "67.1 µs"  # compute-bound: 2 × 4 × 4096 × 1024 flops at 0.5 TFLOP/s
    assert col("FLOPs") == "33.6 MFLOP" and col("Bound") == "compute"  # a family with flops shows them
    assert col("Intensity") == "0.999 FLOP/B"  # 33.6 MFLOP over 4 × 4096 × 1024 × 2 + 4 × 1024 + 4 × 4096 × 2 bytes
    assert "Other GPU" in text(page.find(id="records"))
    assert "not measured" in text(page.find(id="records"))


def test_methodology_and_404(built_site):
    body = text(soup(built_site, "methodology.html"))
    for heading in ["Cohorts", "Eligibility", "Statistics", "The floor model", "Trust levels"]:
        assert heading in body
    assert "Page not found" in text(soup(built_site, "404.html"))


def _targets(site: Path):
    for page in sorted(site.rglob("*.html")):
        html = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for tag in html.find_all(["a", "link", "img", "script"]):
            ref = tag.get("href") or tag.get("src")
            if ref:
                yield page, ref, tag


@pytest.mark.parametrize("site_fixture", ["built_site", "built_second", "built_full"])
def test_every_internal_link_resolves(site_fixture, request):
    site = request.getfixturevalue(site_fixture)
    ids: dict[Path, set] = {}
    checked = 0
    for page, ref, tag in _targets(site):
        parts = urlsplit(ref)
        if parts.scheme in ("http", "https") or (ref == "data:," and "icon" in (tag.get("rel") or [])):
            continue
        if page == site / urls.NOT_FOUND and not ref.startswith("#"):  # served at any depth: its links start at the site's base
            assert ref.startswith(urls.SITE_BASE), f"404.html: link {ref} not from {urls.SITE_BASE}"
            parts = urlsplit(ref[len(urls.SITE_BASE):])
            target = (site / parts.path).resolve()
        else:
            assert not parts.scheme and not ref.startswith("/"), f"{page}: absolute link {ref}"
            target = (page.parent / parts.path).resolve() if parts.path else page
        assert target.is_file(), f"{page.relative_to(site)}: broken link {ref}"
        assert site.resolve() in target.parents
        if parts.fragment and target.suffix == ".html":
            if target not in ids:
                ids[target] = {t["id"] for t in BeautifulSoup(target.read_text(), "html.parser").find_all(id=True)}
            assert parts.fragment in ids[target], f"{page.relative_to(site)}: missing anchor {ref}"
        checked += 1
    assert checked > 100


def test_measured_results_show_trust_floor_clocks_and_spread(frozen, built_frozen):
    """The frozen measured H200 runs (conftest's `frozen`) on the family page: measured-here
    cohort first, both clocks, the spread, and each result's fraction of the measured-copy floor."""
    from site_builder.records.load import load_catalog

    catalog = load_catalog(frozen)
    # the newest measured H200 run of this family (other families' and GPUs' runs may be newer)
    newest = [lr for lr in catalog.runs if lr.run.trust == "measured" and lr.run.family == "fused-add-rmsnorm"
              and lr.run.hardware == "h200"][-1]
    result = next(r for r in newest.run.results
                  if r.workload == "r2048-h4096-bf16" and r.implementation == "kr-triton")
    page = soup(built_frozen, FAMILY)
    # the family page ranks the headline workload; the GPU's page ranks every workload
    assert page.find("table", attrs={"data-cohort": "r2048-h4096-bf16--h200--kr-device-cold-l2"}) is None
    more = page.find(id="more-leaderboards")
    assert "families/fused-add-rmsnorm/h200.html#leaderboard" in [a["href"].lstrip("./") for a in more.find_all("a")]
    table = soup(built_frozen, "families/fused-add-rmsnorm/h200.html").find(
        "table", attrs={"data-cohort": "r2048-h4096-bf16--h200--kr-device-cold-l2"})
    row = table.find("tr", attrs={"data-impl": "kr-triton"})
    body = text(row)
    from site_builder.site.filters import fmt_us
    assert fmt_us(result.device_us.median) in body
    assert fmt_us(result.e2e_us.median) in body
    assert "Measured here" in body and "of copy" in body
    assert f"{fmt_us(result.device_us.p20)}–{fmt_us(result.device_us.p80)}" in body
    assert text(page.find(id="source-native").find("p")).startswith("GPU NVIDIA H200")
    run_page = text(soup(built_frozen, f"runs/fused-add-rmsnorm/h200/{newest.id}.html"))
    for item in ["gpu NVIDIA H200", "copy_bandwidth_gbps", "package liger-kernel", "passed", "seed 1234"]:
        assert item in run_page, item


def test_same_records_build_identical_bytes(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    build(RECORDS, a)
    build(RECORDS, b)
    files_a = {p.relative_to(a): p.read_bytes() for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b): p.read_bytes() for p in b.rglob("*") if p.is_file()}
    assert files_a.keys() == files_b.keys() and files_a == files_b


def test_engine_has_no_family_specific_code():
    for path in (REPO / "site_builder").rglob("*.py"):
        source = path.read_text(encoding="utf-8").lower()
        for word in ("rmsnorm", "rms_norm", '"hidden"', "'hidden'"):
            assert word not in source, f"{path.name} mentions {word!r}"


def test_fastest_usable_names_a_faster_result_without_install_recipe(built_full):
    """When the cohort's #1 has no install command, the card shows the fastest installable one
    and names the faster one beside it, so no number is hidden."""
    from site_builder.derive.entries import build_entries, cohorts
    from site_builder.records.load import load_catalog

    catalog = load_catalog(RECORDS)
    entries = build_entries(catalog)
    page = soup(built_full, FAMILY).find(id="fastest")
    headline = catalog.families["fused-add-rmsnorm"].headline
    group = [e for k, g in cohorts(entries).items() if k.workload == headline and k.hardware == "h200"
             for e in g if e.eligible]
    first = group[0]
    usable = next(e for e in group if e.implementation.install)
    assert usable.implementation.name in text(page.find(class_="card"))
    note = page.find(id="fastest-not-installable")
    if first is usable:
        assert note is None
    else:
        assert first.implementation.name in text(note)


def test_lead_is_the_first_sentence_outside_brackets_and_code():
    from site_builder.site.filters import lead

    assert lead("One sentence only.") == "One sentence only."
    assert lead("First part (e.g. 8 x 4096. Still inside) ends here. Second one.") == \
        "First part (e.g. 8 x 4096. Still inside) ends here."
    assert lead("Code `a. B` stays whole. Next.") == "Code `a. B` stays whole."
    assert lead("Values vs. baselines are kept together. Next.") == "Values vs. baselines are kept together."
    long_first = "A loss: " + "word " * 60 + "; the rest of a very long first sentence. Second."
    assert lead(long_first) == "A loss: " + " ".join(["word"] * 60) + "."
    assert lead("no end here at all") == "no end here at all"
    assert lead("") == "" and lead(None) == ""


def test_index_shows_each_family_lead_and_the_family_page_its_whole_summary(second_copy, tmp_path):
    family = second_copy / "families" / "grouped-matvec.yaml"
    whole = ("A fixture family with a fixed axis. It also has mixed dtypes (bf16. fp32) and an "
             "arithmetic term. A third sentence the index leaves out.")
    text = family.read_text(encoding="utf-8")
    family.write_text(text.replace(
        "summary: A fixture family with a fixed axis, mixed dtypes and an arithmetic term.",
        f"summary: {whole}"), encoding="utf-8")
    out = tmp_path / "site"
    build(second_copy, out)
    index = BeautifulSoup((out / "index.html").read_text(encoding="utf-8"), "html.parser")
    row = next(tr for tr in index.select("tbody tr") if tr.find("a", string="Grouped mat-vec") or
               "grouped-matvec" in tr.find("a")["href"])
    assert " ".join(row.find(class_="note").get_text(" ").split()) == "A fixture family with a fixed axis."
    page = (out / "families" / "grouped-matvec.html").read_text(encoding="utf-8")
    assert "A third sentence the index leaves out." in page and "mixed dtypes (bf16. fp32)" in page


def _synthetic_v2_run(tmp_path):
    """Synthetic records (tests/synthetic.py) and, to edit and write beside them, a copy of the
    newest fused-add-rmsnorm run observed a day later under protocol version 2: (records folder,
    hardware id, that run's folder, the run)."""
    import yaml

    from synthetic import add_synthetic_runs, stable_records

    records = stable_records(tmp_path / "records")
    made = add_synthetic_runs(records)
    newest = max((p for p in made["runs"] if "/fused-add-rmsnorm/" in p.as_posix()), key=lambda p: p.name)
    run = yaml.safe_load(newest.read_text(encoding="utf-8"))
    run["observed"] = "2026-11-29T10:00:00Z"
    run["protocol"]["version"] = 2
    return records, made["hardware"], newest, run


def test_a_cohort_mixing_protocol_versions_names_the_newest_and_marks_the_rest(tmp_path):
    """A run under a newer protocol version replaces only the results it holds: the leaderboard's
    heading names the newest version and the older ones it holds, and each older row says its
    version; a cohort of one version shows neither."""
    import yaml

    records, hw, newest, run = _synthetic_v2_run(tmp_path)
    mixed = run["results"][0]["workload"]
    run["results"] = [r for r in run["results"]  # one of six implementations, on one workload
                      if r["implementation"] == "synthetic-1" and r["workload"] == mixed]
    (newest.parent / "2026-11-29-synthetic-v2.yaml").write_text(yaml.safe_dump(run, sort_keys=False), encoding="utf-8")
    site = tmp_path / "site"

    def built():  # the GPU page's leaderboards, and the mixed workload's
        build(records, site)
        page = soup(site, urls.family_gpu("fused-add-rmsnorm", hw))
        tables = page.find_all("table", attrs={"data-cohort": re.compile(r"--kernel-records-device$")})
        return tables, next(t for t in tables if t["data-cohort"].startswith(f"{mixed}--"))

    tables, table = built()
    heading = text(table.find_previous("h3"))
    assert "kernel-records-device v2 (" in heading and heading.endswith(" · with results of v1, marked)"), heading
    rows = {tr["data-impl"]: [td.get_text(" ", strip=True) for td in tr.find_all("td")]
            for tr in table.find("tbody").find_all("tr")}
    observed = {impl: cells[8] for impl, cells in rows.items()}
    assert observed["synthetic-1"] == "2026-11-29", observed  # the newest version: no mark
    assert all(date == "2026-11-28 protocol v1" for impl, date in observed.items() if impl != "synthetic-1"), observed
    # a run under the newest version of every result of a workload: the older, now superseded,
    # results are history, and the heading no longer speaks of them
    every = yaml.safe_load(newest.read_text(encoding="utf-8"))
    every.update(observed="2026-11-30T10:00:00Z", protocol=dict(every["protocol"], version=2))
    every["results"] = [r for r in every["results"] if r["workload"] == mixed]
    (newest.parent / "2026-11-30-synthetic-v2.yaml").write_text(yaml.safe_dump(every, sort_keys=False), encoding="utf-8")
    _, table2 = built()
    heading2 = text(table2.find_previous("h3"))
    assert "kernel-records-device v2 (" in heading2 and "with results of" not in heading2, heading2
    assert "protocol v" not in text(table2)
    others = [t for t in tables if t is not table]
    assert others  # the other workloads' cohorts hold one version: no marks
    for other in others:
        assert " v1 " in text(other.find_previous("h3")) + " " and "with results of" not in text(other.find_previous("h3"))
        assert "protocol v" not in text(other)


def test_a_cohort_with_nothing_ranked_says_so_and_opens_its_reasons(tmp_path):
    """A workload whose every result on a GPU failed (out of memory, say) has no leaderboard
    rows: the page says nothing is ranked there instead of an empty table, and the not-ranked
    list, with each failure's error, is open."""
    import yaml

    records, hw, newest, run = _synthetic_v2_run(tmp_path)
    lost = run["results"][0]["workload"]
    run["results"] = [{"implementation": r["implementation"], "workload": lost, "status": "failed",
                       "error": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 GiB."}
                      for r in run["results"] if r["workload"] == lost]
    assert len(run["results"]) > 1
    (newest.parent / "2026-11-29-synthetic-oom.yaml").write_text(yaml.safe_dump(run, sort_keys=False), encoding="utf-8")
    site = tmp_path / "site"
    build(records, site)
    page = soup(site, urls.family_gpu("fused-add-rmsnorm", hw))
    cohort = f"{lost}--{hw}--kernel-records-device"
    assert page.find("table", attrs={"data-cohort": cohort}) is None  # no empty leaderboard
    empty = page.find("p", attrs={"data-cohort": cohort})
    assert empty is not None and text(empty).startswith("Nothing ranked on "), empty
    reasons = empty.find_next("details")
    assert reasons.has_attr("open") and text(reasons.find("summary")).startswith(f"{len(run['results'])} not ranked")
    assert text(reasons).count("CUDA out of memory") == len(run["results"])
    # a cohort with ranked rows keeps its table and a closed list
    ranked = page.find_all("table", attrs={"data-cohort": re.compile(r"--kernel-records-device$")})
    assert ranked and all(t.find("tbody").find("tr") for t in ranked)
