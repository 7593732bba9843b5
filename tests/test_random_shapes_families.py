"""The `sample_shapes` hooks of softmax, cross-entropy, swiglu, swiglu-fused and rope (their
kernels/<family>/shapes.py, on the shared sampler): reproducible from the seed, within the
ranges their docstrings state, accepted by the family as the bench builds them (the ad-hoc
workloads of a record copy, `bench.plan_groups`, then `Case.from_record`, `make_inputs` on
the CPU, the float64 reference), and `kernel-records bench --random` end to end on the CPU
with the eager baseline."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

torch = pytest.importorskip("torch")

from conftest import REPO  # noqa: E402
from site_builder.cli import main  # noqa: E402
from site_builder.records.load import load_catalog  # noqa: E402
from site_builder.runner.bench import plan_groups, shape_id  # noqa: E402
from site_builder.runner.families import KERNELS_ROOT, import_module, load_family  # noqa: E402
from site_builder.runner.family import Case  # noqa: E402
from site_builder.runner.measure import dtype_name  # noqa: E402

FAMILIES = ("softmax", "cross-entropy", "swiglu", "swiglu-fused", "rope")
FIXTURES = Path(__file__).resolve().parent / "fixtures"
N = 60


@pytest.fixture(autouse=True)
def _no_env_cap(monkeypatch):
    monkeypatch.delenv("KR_BENCH_MAX_ELEMENTS", raising=False)


def _shapes(family, n=N, seed=3):
    return load_family(KERNELS_ROOT, family).sample_shapes(n, seed)


@pytest.mark.parametrize("family", FAMILIES)
def test_draws_are_reproducible_from_the_seed(family):
    a = _shapes(family)
    assert a == _shapes(family) and a != _shapes(family, seed=4)
    assert _shapes(family, 7) == a[:7]
    assert all(s.tensors == {} for s in a)
    record = load_catalog(REPO / "records").families[family]
    variable = {n for n, ax in record.semantics.axes.items() if ax.kind == "variable"}
    assert all(set(s.sizes) == variable for s in a)


def test_softmax_ranges():
    mod = import_module("softmax", "shapes")
    a = _shapes("softmax")
    for s in a:
        rows, cols = s.sizes["rows"], s.sizes["cols"]
        assert 1 <= rows <= 32768 and 1024 <= cols <= 262144 and rows * cols <= 2**30
    assert {s.dtype for s in a} == {"bfloat16", "float32"} and {s.kind for s in a} == {"forward", "backward"}
    cols = [s.sizes["cols"] for s in a]
    assert all(c in mod.VOCABS for c in cols[::3]) and {c for c in cols[::3]} == set(mod.VOCABS)
    assert all(c % 64 == 0 for c in cols[1::3]) and any(c % 64 for c in cols[2::3])
    assert any(s.sizes["rows"] < 64 for s in a) and any(s.sizes["rows"] > 4096 for s in a)


def test_cross_entropy_ranges():
    a = _shapes("cross-entropy")
    for s in a:
        t, v = s.sizes["tokens"], s.sizes["vocab"]
        assert 2 <= t <= 32768 and 32000 <= v <= 262144 and t * v <= 2**30
        assert s.sizes["valid_pct"] in (100, 90, 75, 50)
    assert {s.dtype for s in a} == {"bfloat16", "float32"}
    assert {s.kind for s in a} == {"forward", "forward+backward"}
    assert {s.sizes["valid_pct"] for s in a} == {100, 90, 75, 50}
    # a draw the cap did not cut keeps tokens ≥ 1024, a multiple of 1024 on even draws
    uncut = [(i, s) for i, s in enumerate(a) if s.sizes["tokens"] * s.sizes["vocab"] <= 2**30 - s.sizes["vocab"]]
    assert len(uncut) > N // 2 and all(s.sizes["tokens"] >= 1024 for _, s in uncut)
    assert all(s.sizes["tokens"] % 1024 == 0 for i, s in uncut if i % 2 == 0)
    assert any(s.sizes["tokens"] % 1024 for i, s in uncut if i % 2)
    assert any(s.sizes["vocab"] % 64 for s in a)  # arbitrary vocabularies
    assert {32000, 128256, 151936, 262144} <= {s.sizes["vocab"] for s in a}


@pytest.mark.parametrize("family,cap", [("swiglu", 2**30), ("swiglu-fused", 2**29)])
def test_swiglu_ranges(family, cap):
    a = _shapes(family)
    for i, s in enumerate(a):
        t, m = s.sizes["tokens"], s.sizes["intermediate"]
        assert 1 <= t <= 32768 and 1024 <= m <= 32768 and t * m <= cap and s.dtype == "bfloat16"
        if i % 2 == 0:
            assert m % 64 == 0
    assert any(s.sizes["intermediate"] % 64 for s in a)
    assert {s.kind for s in a} == {"forward", "backward"}
    assert any(s.sizes["tokens"] <= 8 for s in a) and any(s.sizes["tokens"] >= 4096 for s in a)
    assert _shapes("swiglu") != _shapes("swiglu-fused")  # each family seeds its own draws


def test_rope_ranges_and_head_layouts():
    a = _shapes("rope")
    for i, s in enumerate(a):
        z = s.sizes
        assert z["heads_q"] % z["heads_kv"] == 0 and z["head_dim"] in (64, 128, 256) and s.dtype == "bfloat16"
        assert z["batch"] * z["seq"] * z["heads_q"] * z["head_dim"] <= 2**28
        if i % 2:  # decode: one token per sequence, each at its own position, forward only
            assert z["seq"] == 1 and z["pos_batch"] == z["batch"] and 1 <= z["batch"] <= 256
            assert s.kind == "forward"
        else:  # prefill: one chunk per sequence
            assert z["pos_batch"] == 1 and 1 <= z["batch"] <= 16 and 1 <= z["seq"] <= 16384
    prefill = a[::2]
    assert {s.kind for s in prefill} == {"forward", "backward"}
    # i % 4 == 0: seq a multiple of 128 unless the cap cut it (then q holds nearly 2^28 elements)
    q = [s.sizes["batch"] * s.sizes["seq"] * s.sizes["heads_q"] * s.sizes["head_dim"] for s in a]
    assert all(s.sizes["seq"] % 128 == 0 or q[i] > 2**28 - s.sizes["batch"] * s.sizes["heads_q"] * s.sizes["head_dim"]
               for i, s in enumerate(a) if i % 4 == 0)
    assert any(s.sizes["seq"] % 128 for s in a[2::4])
    assert len({(s.sizes["heads_q"], s.sizes["heads_kv"]) for s in a}) >= 8
    assert {s.sizes["head_dim"] for s in a} == {64, 128, 256}


@pytest.mark.parametrize("family", FAMILIES)
def test_the_family_accepts_its_draws_as_the_bench_builds_them(family, monkeypatch):
    """Tiny draws (KR_BENCH_MAX_ELEMENTS=4096) as ad-hoc workloads of a record copy: the ids
    are valid slugs, and each case's inputs have the declared dtypes and shapes and a float64
    reference of the declared outputs."""
    monkeypatch.setenv("KR_BENCH_MAX_ELEMENTS", "4096")
    plugin = load_family(KERNELS_ROOT, family)
    record = load_catalog(REPO / "records").families[family]
    shapes = plugin.sample_shapes(8, 11)
    groups = plan_groups(record, [], [("random-11", s.to_json()) for s in shapes])
    assert len(groups) == 1
    variant = groups[0]["family"]
    by_id = {w.id: w for w in variant.workloads}
    ids = groups[0]["ids"]
    assert {shape_id(record, s.to_json()) for s in shapes} >= {i for i in ids if i.startswith("x-")}
    for wid in ids:
        case = Case.from_record(variant, by_id[wid])
        inputs = plugin.make_inputs(case, 5, "cpu")
        assert sorted(inputs) == sorted(case.inputs)
        for name, spec in case.inputs.items():
            assert dtype_name(inputs[name].dtype) == spec.dtype and tuple(inputs[name].shape) == spec.shape, name
        ref = plugin.reference(case, inputs)
        assert sorted(ref) == sorted(case.outputs)
        for name, spec in case.outputs.items():
            assert tuple(ref[name].shape) == spec.shape, name
            assert bool(torch.isfinite(ref[name]).all()), (wid, name)
            plugin.tolerance(case, name)
        assert case.floor_bytes > 0


def _records_with_cpu(tmp_path) -> Path:
    """The family, implementation and hardware records with the CPU hardware of the runner
    fixtures (no runs), as lab/fused_add_rmsnorm/device_issue14.sh's DRY mode makes them."""
    dest = tmp_path / "records"
    shutil.copytree(REPO / "records", dest, ignore=shutil.ignore_patterns("runs"))
    (dest / "runs").mkdir()
    shutil.copy(FIXTURES / "runner-records" / "hardware" / "cpu.yaml", dest / "hardware" / "cpu.yaml")
    return dest


@pytest.mark.parametrize("family,baseline", [("softmax", "softmax-eager"), ("cross-entropy", "ce-eager"),
                                             ("swiglu", "swiglu-eager"), ("rope", "rope-eager")])
def test_bench_random_runs_end_to_end_on_the_cpu(family, baseline, tmp_path, monkeypatch):
    monkeypatch.setenv("KR_BENCH_MAX_ELEMENTS", "65536")  # the subprocesses inherit it
    records = _records_with_cpu(tmp_path)
    out = tmp_path / "b.json"
    result = CliRunner().invoke(main, ["bench", "--records", str(records), "--family", family, "--random", "2",
                                       "--seed", "1", "--device", "cpu", "--impls", baseline, "--timeout", "300",
                                       "--json", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = json.loads(out.read_text())["rows"]
    drawn = load_family(KERNELS_ROOT, family).sample_shapes(2, 1)
    record = load_catalog(records).families[family]
    known = {(tuple(sorted(w.sizes.items())), w.dtype, w.kind): w.id for w in record.workloads}
    want = [known.get((tuple(sorted(s.sizes.items())), s.dtype, s.kind)) or shape_id(record, s.to_json())
            for s in drawn]
    assert [r["workload"] for r in rows] == want
    for r in rows:
        assert r["implementation"] == baseline and r["status"] == "ok", r
        assert r["sets"] == ["random-1"] and r["x_floor"] > 0
    assert not list((records / "runs").rglob("*.yaml"))
