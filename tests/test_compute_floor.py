"""The compute floor, a generic engine feature: a family's declared flops at the datasheet peak
and at the measured peak (the best compute-bound rate of the same run), the memory term, which
bound applies, the arithmetic intensity and ridge point, the achieved TFLOP/s on the page, and
the roofline chart kind. Every tree here is written by the test (a toy GEMM on a toy GPU whose
numbers make the arithmetic easy to follow)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup

from site_builder.build import build
from site_builder.derive.floors import achieved_tflops, floor, ridge_point
from site_builder.derive.index import derive
from site_builder.records.load import load_catalog
from site_builder.records.schema import Family
from site_builder.site import charts
from site_builder.site.views import entry_view, floor_view

REPO = Path(__file__).resolve().parents[1]

# toy GPU: 1000 GB/s and 100 TFLOP/s bf16, so the ridge is at 100 FLOP/byte
HARDWARE = {"schema_version": 1, "id": "toy-gpu", "name": "Toy GPU", "vendor": "Fixture", "memory_gb": 16,
            "memory_bandwidth_gbps": 1000, "peak_tflops": {"bf16_tensor": 100, "fp32": 10},
            "datasheet_url": "https://example.org/toy-gpu"}
WORKLOADS = [  # (id, m, n, k)
    ("m1", 1, 1024, 1024),  # intensity ~1: memory-bound
    ("m256", 256, 4096, 4096),  # intensity ~228: compute-bound
    ("m4096", 4096, 4096, 4096),  # intensity ~1365: compute-bound
]


def _family(measured_peak="best-in-run", chart_kinds=("roofline",)) -> dict:
    return {
        "schema_version": 1, "id": "toy-gemm", "title": "Toy GEMM", "tag": "gemm", "summary": "A fixture GEMM.",
        "semantics": {"axes": {"m": "variable", "n": "variable", "k": "variable"},
                      "inputs": {"a": {"dtype": "float", "shape": ["m", "k"]}, "b": {"dtype": "float", "shape": ["n", "k"]}},
                      "outputs": {"c": {"dtype": "float", "shape": ["m", "n"]}},
                      "definition": "c = a @ b.T"},
        "arithmetic": {"flops_per_point": 2, "over": ["m", "n", "k"], "peak": "bf16_tensor",
                       "peak_by_dtype": {"float32": "fp32"}, "measured_peak": measured_peak},
        "charts": list(chart_kinds),
        "baseline": "slow", "headline": "m4096", "scaling": {"axis": "m"},
        "workloads": [{"id": w, "m": m, "n": n, "k": k, "dtype": "bfloat16"} for w, m, n, k in WORKLOADS]
        + [{"id": "m4096-fp32", "m": 4096, "n": 4096, "k": 4096, "dtype": "float32"}],
    }


def _impl(iid: str) -> dict:
    return {"schema_version": 1, "id": iid, "name": f"Impl {iid}", "project": "Fixture", "language": "triton",
            "license": "MIT", "source_url": f"https://example.org/{iid}", "install": f"pip install {iid}"}


def _result(impl, workload, us):
    return {"implementation": impl, "workload": workload,
            "correctness": {"max_abs_error": 0.001, "atol": 0.01, "rtol": 0.01, "passed": True},
            "device_us": {"median": us, "p20": us * 0.99, "p80": us * 1.01, "samples": 20}}


# fast at m4096: 2·4096³ / 2000 µs = 68.7 TFLOP/s, the run's best compute-bound rate
TIMES = {("fast", "m1"): 5.0, ("slow", "m1"): 8.0, ("fast", "m256"): 150.0, ("slow", "m256"): 200.0,
         ("fast", "m4096"): 2000.0, ("slow", "m4096"): 2500.0,
         ("impossible", "m4096"): 1000.0}  # below the datasheet floor (1374 µs): not ranked, not a peak


def _tree(root: Path, family: dict | None = None, times: dict | None = None) -> Path:
    records = root / "records"
    for sub in ("families", "implementations", "hardware", "runs/toy-gemm/toy-gpu"):
        (records / sub).mkdir(parents=True, exist_ok=True)
    dump = lambda p, d: p.write_text(yaml.safe_dump(d, sort_keys=False, allow_unicode=True), encoding="utf-8")
    dump(records / "families/toy-gemm.yaml", family or _family())
    dump(records / "hardware/toy-gpu.yaml", HARDWARE)
    for iid in ("fast", "slow", "impossible"):
        dump(records / f"implementations/{iid}.yaml", _impl(iid))
    run = {"schema_version": 1, "family": "toy-gemm", "hardware": "toy-gpu", "trust": "measured",
           "observed": "2026-01-01T10:00:00Z",
           "protocol": {"id": "fixture-device", "version": 1, "clock": "device", "l2": "cold", "timing": "cuda-graph"},
           "environment": {"gpu": "Toy GPU", "copy_bandwidth_gbps": 800}, "seed": 7,
           "results": [_result(i, w, us) for (i, w), us in sorted((times or TIMES).items())]}
    dump(records / "runs/toy-gemm/toy-gpu/2026-01-01-run.yaml", run)
    return records


def _bytes(m, n, k):
    return 2 * (m * k + n * k + m * n)


def test_floor_terms_bound_intensity_and_ridge(tmp_path):
    cat = load_catalog(_tree(tmp_path))
    fam, hw = cat.families["toy-gemm"], cat.hardware["toy-gpu"]
    w = {x.id: x for x in fam.workloads}
    assert ridge_point(100, 1000) == pytest.approx(100.0)
    small = floor(fam, w["m1"], hw)
    assert small.bytes == _bytes(1, 1024, 1024) and small.flops == 2 * 1024 * 1024
    assert small.memory_us == pytest.approx(_bytes(1, 1024, 1024) / 1e6)  # 1000 GB/s = 1e3 bytes per ns
    assert small.compute_us == pytest.approx(2 * 1024 * 1024 / 100e6)
    assert small.bound == "bandwidth" and small.us == small.memory_us
    assert small.intensity == pytest.approx(2 * 1024 * 1024 / _bytes(1, 1024, 1024)) and small.intensity < small.ridge
    big = floor(fam, w["m4096"], hw)
    assert big.bound == "compute" and big.us == pytest.approx(2 * 4096 ** 3 / 100e6)
    assert big.intensity == pytest.approx(2 * 4096 ** 3 / _bytes(4096, 4096, 4096))
    assert big.ridge == pytest.approx(100) and big.intensity > big.ridge
    # a workload just above the ridge is compute-bound, its memory term the smaller one
    mid = floor(fam, w["m256"], hw)
    assert mid.intensity > 100 and mid.bound == "compute" and mid.memory_us < mid.compute_us
    # peak_by_dtype: float32 workloads use the fp32 peak (10 TFLOP/s), so the ridge moves to 10 FLOP/byte
    f32 = floor(fam, w["m4096-fp32"], hw)
    assert f32.peak_tflops == 10 and f32.ridge == pytest.approx(10.0)
    assert f32.bytes == 2 * _bytes(4096, 4096, 4096)  # 4-byte elements


def test_measured_peak_is_the_best_compute_bound_rate_of_the_run(tmp_path):
    index = derive(load_catalog(_tree(tmp_path)))
    peak = 2 * 4096 ** 3 / 2000e6  # fast at m4096, TFLOP/s; impossible's 1000 µs does not count
    by = {(e.implementation.id, e.workload.id): e for e in index.entries}
    for e in index.entries:
        assert e.measured_floor.measured_peak_tflops == pytest.approx(peak)
    assert not by[("impossible", "m4096")].eligible
    fast = by[("fast", "m4096")]
    assert fast.measured_floor.us == pytest.approx(2000.0) and fast.measured_floor.bound == "compute"
    assert entry_view(fast)["measured_floor_fraction"] == pytest.approx(1.0)
    assert entry_view(fast)["tflops"] == pytest.approx(achieved_tflops(2 * 4096 ** 3, 2000.0)) == pytest.approx(peak)
    assert fast.floor.us == pytest.approx(2 * 4096 ** 3 / 100e6)  # the datasheet floor (eligibility) is unchanged
    # the memory-bound workload keeps its memory term at the copy bandwidth: the peak does not set it
    m1 = by[("fast", "m1")].measured_floor
    assert m1.bound == "bandwidth" and m1.us == pytest.approx(_bytes(1, 1024, 1024) / 0.8e6)
    cohort = next(c for k, c in index.cohorts.items() if k.workload == "m256")
    view = floor_view(cohort)
    assert view["measured_peak_tflops"] == pytest.approx(peak)
    assert view["measured_us"] == pytest.approx(2 * 256 * 4096 * 4096 / (peak * 1e6))
    assert view["bound"] == "compute" and view["intensity"] > view["ridge"]
    assert view["record_tflops"] == pytest.approx(2 * 256 * 4096 * 4096 / 150e6)


def test_without_measured_peak_the_measured_floor_is_copy_and_datasheet(tmp_path):
    index = derive(load_catalog(_tree(tmp_path, _family(measured_peak="none"))))
    fast = next(e for e in index.entries if (e.implementation.id, e.workload.id) == ("fast", "m4096"))
    assert fast.measured_floor.measured_peak_tflops is None
    assert fast.measured_floor.us == pytest.approx(2 * 4096 ** 3 / 100e6)  # datasheet compute term


def test_a_run_with_no_compute_bound_result_has_no_measured_peak(tmp_path):
    times = {k: v for k, v in TIMES.items() if k[1] == "m1"}
    index = derive(load_catalog(_tree(tmp_path, times=times)))
    assert all(e.measured_floor.measured_peak_tflops is None for e in index.entries)


def test_families_without_flops_get_no_compute_keys(second_copy):
    index = derive(load_catalog(second_copy))
    plain = next(e for e in index.entries if e.family.arithmetic is not None)
    assert "tflops" in entry_view(plain)  # the fixture family declares an arithmetic term
    fam = plain.family.model_copy(update={"arithmetic": None})
    entry = type(plain)(**{**plain.__dict__, "family": fam})
    assert "tflops" not in entry_view(entry)


def test_roofline_needs_flops_and_is_listed_once():
    data = _family()
    data.pop("arithmetic")
    with pytest.raises(ValueError, match="roofline chart needs the family's flops"):
        Family.model_validate(data)
    with pytest.raises(ValueError, match="listed twice"):
        Family.model_validate(_family(chart_kinds=("roofline", "roofline")))
    with pytest.raises(ValueError):
        Family.model_validate(_family(chart_kinds=("pie",)))


def test_roofline_spec_has_both_roofs_and_one_mark_per_result(tmp_path):
    index = derive(load_catalog(_tree(tmp_path)))
    fam = index.family("toy-gemm")
    (ch,) = charts.roofline_charts(fam, index.family_entries("toy-gemm"))
    assert ch["chart_kind"] == "roofline"
    roofs = {r["roof"]: r for r in ch["roofs"]}
    assert roofs["datasheet"]["ridge"] == pytest.approx(100.0)
    peak = 2 * 4096 ** 3 / 2000e6
    assert roofs["measured"]["peak_tflops"] == pytest.approx(peak) and roofs["measured"]["peak_measured"]
    assert roofs["measured"]["ridge"] == pytest.approx(peak * 1e3 / 800)
    spec = ch["chart"].ensure_spec()
    lines, points = spec["layer"]
    assert lines["encoding"]["x"]["scale"]["type"] == "log" and lines["encoding"]["y"]["scale"]["type"] == "log"
    # 6 eligible results (fast and slow on three bf16 workloads; impossible is not eligible)
    assert sorted((p["impl"], p["workload"]) for p in points["data"]["values"]) == sorted(
        (f"Impl {i}", w) for i in ("fast", "slow") for w in ("m1", "m256", "m4096"))
    for p in points["data"]["values"]:
        assert p["y"] == p["tflops"] and p["x"] > 0
    # each roof: the bandwidth slope up to its ridge, then flat at its peak
    for name, roof in roofs.items():
        verts = [v for v in lines["data"]["values"] if v["roof"] == f"{name} roof"]
        assert [v["x"] for v in verts] == sorted(v["x"] for v in verts) and len(verts) == 3
        lo, ridge, hi = verts
        assert ridge["x"] == pytest.approx(roof["ridge"]) and ridge["y"] == pytest.approx(roof["peak_tflops"], rel=1e-5)
        assert hi["y"] == pytest.approx(roof["peak_tflops"], rel=1e-5)
        assert lo["y"] == pytest.approx(roof["bandwidth_gbps"] * lo["x"] / 1e3, rel=1e-5)
    json.dumps(spec)  # plain data, ready for vl-convert


def test_roofline_is_drawn_here_with_both_roofs_and_every_implementation(tmp_path):
    import re

    index = derive(load_catalog(_tree(tmp_path)))
    (ch,) = charts.roofline_charts(index.family("toy-gemm"), index.family_entries("toy-gemm"))
    svg = ch["chart"].draw()  # the site's own SVG writer, not vl-convert
    assert re.findall(r'<svg[^>]* class="(\w+)"', svg) == ["wide", "narrow"]
    for name in ("datasheet roof", "measured roof", "Impl fast", "Impl slow"):
        assert svg.count(f">{name}</text>") == 2, name  # in each drawing's legend
    assert svg.count('stroke-dasharray="6,3"') >= 2  # the measured roof, dashed, in both drawings


def test_no_roofline_unless_declared(tmp_path):
    index = derive(load_catalog(_tree(tmp_path, _family(chart_kinds=()))))
    assert charts.roofline_charts(index.family("toy-gemm"), index.family_entries("toy-gemm")) == []


def test_the_family_page_shows_bound_intensity_rate_and_roofline(tmp_path):
    site = tmp_path / "site"
    build(_tree(tmp_path), site, cache=False)
    page = BeautifulSoup((site / "families/toy-gemm.html").read_text(encoding="utf-8"), "html.parser")
    table = page.find(id="floor-table")
    heads = [th.get_text(strip=True) for th in table.select("thead th")]
    assert {"FLOPs", "Intensity", "Bound", "Record rate"} <= set(heads)
    rows = {tr["data-workload"]: [td.get_text(" ", strip=True) for td in tr.find_all("td")] for tr in table.select("tbody tr")}
    bound = heads.index("Bound")
    assert rows["m1"][bound] == "bandwidth" and rows["m4096"][bound] == "compute"
    assert "FLOP/B" in rows["m4096"][heads.index("Intensity")]
    assert "68.7 TFLOP/s measured peak" in " ".join(rows["m4096"])
    lb = page.select_one("#leaderboard table")
    assert "TFLOP/s" in [th.get_text(strip=True) for th in lb.select("thead th")]
    roof = page.find(id="roofline")
    assert roof is not None and roof.find("svg") is not None
    assert len(roof.select("table.chart-data tbody tr")) == 6
    # the family JSON carries the compute side of each floor
    data = json.loads((site / "families/toy-gemm.json").read_text(encoding="utf-8"))
    assert data["semantics"]["charts"] == ["roofline"]
    fl = next(f for f in data["floors"] if f["workload"]["id"] == "m4096")
    assert fl["bound"] == "compute" and math.isclose(fl["ridge"], 100.0)


def test_the_gemm_family_record_loads_and_renders(tmp_path):
    """The committed gemm family definition in a tree of the test's own (its hardware, a run
    with made-up fixture times): it validates, declares a roofline, and its page renders one."""
    records = tmp_path / "records"
    (records / "families").mkdir(parents=True)
    (records / "implementations").mkdir()
    shutil.copy(REPO / "records/families/gemm.yaml", records / "families/gemm.yaml")
    fam = yaml.safe_load((records / "families/gemm.yaml").read_text(encoding="utf-8"))
    for iid in ("torch-f-linear", "kr-triton-gemm"):
        shutil.copy(REPO / f"records/implementations/{iid}.yaml", records / f"implementations/{iid}.yaml")
    (records / "hardware").mkdir()
    (records / "hardware/toy-gpu.yaml").write_text(yaml.safe_dump(HARDWARE), encoding="utf-8")
    wids = [w["id"] for w in fam["workloads"]][:6]  # one shape at every M
    run = {"schema_version": 1, "family": "gemm", "hardware": "toy-gpu", "trust": "measured",
           "observed": "2026-01-01T10:00:00Z",
           "protocol": {"id": "fixture-device", "version": 1, "clock": "device", "l2": "cold", "timing": "cuda-graph"},
           "environment": {"gpu": "Toy GPU", "copy_bandwidth_gbps": 800}, "seed": 7,
           "results": [_result(i, w, 1e4 * (j + 1) * (1.5 if i == "kr-triton-gemm" else 1.0))
                       for j, w in enumerate(wids) for i in ("torch-f-linear", "kr-triton-gemm")]}
    (records / "runs/gemm/toy-gpu").mkdir(parents=True)
    (records / "runs/gemm/toy-gpu/2026-01-01-fixture.yaml").write_text(yaml.safe_dump(run), encoding="utf-8")
    site = tmp_path / "site"
    build(records, site, cache=False)
    page = BeautifulSoup((site / "families/gemm.html").read_text(encoding="utf-8"), "html.parser")
    assert page.find(id="roofline").find("svg") is not None
    assert len(page.select("#roofline table.chart-data tbody tr")) == 12
    bounds = {tr["data-workload"]: tr for tr in page.select("#floor-table tbody tr")}
    assert set(bounds) == set(wids)
