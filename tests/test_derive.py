"""Derivation: floors, cohorts, eligibility, leaderboard order and ratios."""

from __future__ import annotations

import pytest

from site_builder.derive.entries import build_entries, cohorts
from site_builder.derive.index import derive
from site_builder.derive.floors import bytes_moved, floor
from site_builder.records.load import load_catalog
from site_builder.site.publishers.family import family_page

from conftest import SECOND


@pytest.fixture(scope="module")
def seed(seed_records):
    catalog = load_catalog(seed_records)
    return catalog, build_entries(catalog)


@pytest.fixture(scope="module")
def full(frozen):
    """conftest's `frozen` records: the committed ones with every measured H200 run replaced by
    the two frozen runs of tests/fixtures/measured-h200."""
    catalog = load_catalog(frozen)
    return catalog, build_entries(catalog)


@pytest.fixture(scope="module")
def second():
    catalog = load_catalog(SECOND)
    return catalog, build_entries(catalog)


def test_floor_of_the_seed_headline_counts_four_byte_floats(seed):
    catalog, _ = seed
    family = catalog.families["fused-add-rmsnorm"]
    w = next(w for w in family.workloads if w.id == "r2048-h1024-fp32")
    # x, residual, y, residual_out: 4 × 2048 × 1024 × 4 B, plus the 1024-float weight
    assert bytes_moved(family, w) == 4 * 2048 * 1024 * 4 + 1024 * 4
    f = floor(family, w, catalog.hardware["h100-sxm"])
    assert f.us == pytest.approx(33_558_528 / 3350e3)
    assert round(f.us, 1) == 10.0
    assert f.bound == "bandwidth" and f.compute_us is None


def test_floor_follows_the_workload_dtype(seed):
    catalog, _ = seed
    family = catalog.families["fused-add-rmsnorm"]
    w = next(w for w in family.workloads if w.id == "r2048-h1024-bf16")
    assert bytes_moved(family, w) == 4 * 2048 * 1024 * 2 + 1024 * 2


def test_floor_with_fixed_axis_mixed_dtypes_and_arithmetic(second):
    catalog, _ = second
    family = catalog.families["grouped-matvec"]
    w = family.workloads[0]  # groups 4 (fixed) × m 4096 × k 1024, fp16; v is float32
    nbytes = 4 * 4096 * 1024 * 2 + 1024 * 4 + 4 * 4096 * 2
    assert bytes_moved(family, w) == nbytes
    f = floor(family, w, catalog.hardware["test-gpu"])
    assert f.memory_us == pytest.approx(nbytes / 1000e3)
    assert f.compute_us == pytest.approx(2 * 4 * 4096 * 1024 / 0.5e6)
    assert f.bound == "compute" and f.us == f.compute_us
    measured = floor(family, w, catalog.hardware["test-gpu"], 820)
    assert measured.memory_us == pytest.approx(nbytes / 820e3)


def test_leaderboard_order_ratios_and_speedup(seed):
    catalog, entries = seed
    page = family_page(derive(catalog, entries), catalog.families["fused-add-rmsnorm"])
    lb = next(lb for lb in page.leaderboards if lb["workload"]["id"] == "r2048-h1024-fp32")
    (cohort,) = lb["cohorts"]
    assert cohort["protocol"] == "liger-benchmark-scripts" and cohort["hardware"] == "h100-sxm"
    rows = cohort["rows"]
    assert [r["implementation"] for r in rows] == ["liger-fused", "transformers"]
    assert [r["rank"] for r in rows] == [1, 2]
    assert rows[0]["ratio_to_first"] == 1.0
    assert rows[1]["ratio_to_first"] == pytest.approx(45.5 / 20.5)
    assert rows[0]["speedup_vs_baseline"] == pytest.approx(2.2195, abs=1e-4)
    assert page.fastest["primary"]["implementation"] == "liger-fused"
    assert cohort["floor"]["above_datasheet"] == pytest.approx(20.5 / (33_558_528 / 3350e3))


def test_eligibility_superseded_failed_and_below_floor(second):
    catalog, entries = second
    groups = cohorts(entries)
    by = {(e.cohort.workload, e.implementation.id, e.lr.id): e for e in entries}
    old = by[("m4096-k1024-fp16", "naive", "2026-01-01-first")]
    new = by[("m4096-k1024-fp16", "naive", "2026-02-01-second")]
    assert old.superseded_by is new and not old.eligible and new.eligible
    failed = by[("m4096-k2048-fp16", "tiled", "2026-02-01-second")]
    assert not failed.eligible and failed.reasons == ["status: failed"]
    impossible = by[("m64-k64-fp16", "tiled", "2026-02-01-second")]
    assert not impossible.eligible
    assert impossible.reasons[0].startswith("faster than the physical floor")
    # the newest naive (280) now beats the older tiled (250)? no: tiled 250 < naive 280
    key = next(k for k in groups if k.workload == "m4096-k1024-fp16")
    ranked_ids = [e.implementation.id for e in groups[key] if e.eligible]
    assert ranked_ids == ["tiled", "naive"]


def test_ranking_never_mixes_protocols_or_hardware(seed, second):
    for catalog, entries in (seed, second):
        for key, group in cohorts(entries).items():
            assert {(e.workload.id, e.hardware.id, e.run.protocol.id) for e in group} == {
                (key.workload, key.hardware, key.protocol)}


def test_matrix_notes_unmeasured_hardware(seed):
    catalog, entries = seed
    page = family_page(derive(catalog, entries), catalog.families["fused-add-rmsnorm"])
    headline = next(r for r in page.matrix["rows"] if r["workload"]["id"] == "r2048-h1024-fp32")
    cells = {c["hardware"]: c for c in headline["cells"]}
    assert cells["h100-sxm"]["missing"] is False and cells["h100-sxm"]["name"] == "Liger fused"
    ranked = {e.hardware.id for e in entries if e.family.id == "fused-add-rmsnorm" and e.eligible}
    assert {c["hardware"] for c in headline["cells"]} == ranked  # GPUs with no result at all: no column
    assert page.matrix["empty_hardware"] == sorted(catalog.hardware[h].name for h in set(catalog.hardware) - ranked)


def test_measured_cohort_ranks_the_newest_run_by_device_time(full):
    """On two frozen H200 runs: each implementation's newest ok result ranks, ordered by
    its device-time median; older results of the same implementation are superseded."""
    catalog, entries = full
    measured = [e for e in entries if e.run.trust == "measured" and e.family.id == "fused-add-rmsnorm"
                and e.workload.id == "r2048-h4096-bf16" and e.hardware.id == "h200"]
    assert measured, "the frozen fixture holds measured H200 runs"
    newest: dict[str, object] = {}
    for e in sorted(measured, key=lambda e: (e.observed, e.lr.path)):
        newest[e.implementation.id] = e
    expected = sorted((e for e in newest.values() if e.result.status == "ok" and e.result.correctness.passed),
                      key=lambda e: (e.result.device_us.median, e.implementation.id))
    group = cohorts(entries)[expected[0].cohort]
    ranked = [e for e in group if e.eligible]
    assert [e.implementation.id for e in ranked] == [e.implementation.id for e in expected]
    assert [e.time_us for e in ranked] == [e.result.device_us.median for e in expected]
    for e in measured:
        if e is not newest[e.implementation.id]:
            assert e.superseded_by is not None and not e.eligible
        assert e.measured_floor is not None
        assert e.measured_floor.bandwidth_gbps == e.run.environment.copy_bandwidth_gbps


def test_failed_and_unsupported_measured_results_are_not_ranked(full):
    catalog, entries = full
    bad = [e for e in entries if e.run.trust == "measured" and e.result.status != "ok"]
    assert bad and all(not e.eligible for e in bad)


def test_a_not_run_result_never_replaces_a_measured_one(tmp_path):
    """A run whose budget ended before a workload records it `not-run`: that says nothing about
    the code, so the earlier measured result stays current and ranked; with no earlier result the
    not-run one is current (and not ranked), and a later measured result replaces it."""
    import shutil

    root = tmp_path / "records"
    shutil.copytree(SECOND, root)
    runs = root / "runs" / "grouped-matvec" / "test-gpu"
    head = (runs / "2026-02-01-second.yaml").read_text().split("results:")[0].replace(
        "2026-02-01T10:00:00Z", "2026-03-01T10:00:00Z")
    not_run = "status: not-run\n    error: \"not run: the run's time budget was spent\""
    (runs / "2026-03-01-third.yaml").write_text(head + f"""results:
  - implementation: naive
    workload: m4096-k1024-fp16
    {not_run}
  - implementation: naive
    workload: m64-k64-fp16
    {not_run}
""")
    entries = build_entries(load_catalog(root))
    by = {(e.cohort.workload, e.implementation.id, e.lr.id): e for e in entries}
    measured = by[("m4096-k1024-fp16", "naive", "2026-02-01-second")]
    skipped = by[("m4096-k1024-fp16", "naive", "2026-03-01-third")]
    assert measured.superseded_by is None and measured.eligible
    assert skipped.superseded_by is measured and not skipped.eligible
    # no earlier naive result at m64-k64 (the fixture has only tiled there): the not-run one is current
    [alone] = [e for e in entries if e.cohort.workload == "m64-k64-fp16" and e.implementation.id == "naive"]
    assert alone.superseded_by is None and not alone.eligible and alone.reasons == ["status: not-run"]


@pytest.mark.parametrize("status,error,extra", [
    ("failed", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 GiB.", True),
    ("crashed", "RuntimeError: CUDA error: out of memory", True),
    ("failed", "output y: 3 of 143 elements outside tolerance", False),
    ("failed", None, False),
    ("not-run", "not run: the run's time budget was spent", False),
])
def test_a_result_that_ran_out_of_memory_says_so_beside_its_status(status, error, extra):
    """An out-of-memory failure is not ranked, like any failure, and its reasons say it was the
    GPU's memory, so a reader does not take it for a wrong result."""
    from types import SimpleNamespace

    from site_builder.derive.entries import _ineligible

    reasons = _ineligible(SimpleNamespace(result=SimpleNamespace(status=status, error=error)))
    assert reasons[0] == f"status: {status}"
    assert reasons[1:] == (["out of GPU memory in this run (a memory limit, not a wrong result)"] if extra else [])
