"""The family interface (site_builder/runner/family.py) end to end through the runner in CPU
mode, on fixture families of each shape: integer targets, a scalar loss, an integer output and
an index set, the backward and forward+backward kinds, an implementation that overwrites its
inputs (declared), and a compute-bound family with a FLOP term."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

pytest.importorskip("torch")

from site_builder.errors import UserError  # noqa: E402
from site_builder.derive.floors import bytes_moved, flops  # noqa: E402
from site_builder.records.load import load_catalog  # noqa: E402
from site_builder.runner import run_all  # noqa: E402
from site_builder.runner.families import KERNELS_ROOT, family_ids, load_family  # noqa: E402
from site_builder.runner.family import Case, Close, Exact, IndexSet  # noqa: E402

from conftest import TOY_KERNELS, TOY_RECORDS, results_by_key  # noqa: E402  (toy_records: a conftest fixture)


def test_a_loss_family_with_targets_kinds_and_an_overwriting_implementation(toy_records):
    [path] = run_all(toy_records, family="toy-loss", device="cpu", timeout=120, kernels_root=TOY_KERNELS)
    results = results_by_key(path)
    forward, fb = ["f-r4-c16-fp32", "f-r8-c32-bf16"], ["fb-r4-c16-fp32", "fb-r8-c32-bf16"]
    for w in [*forward, "b-r4-c16-fp32", *fb]:  # the baseline computes every kind
        r = results[("toy-ce-eager", w)]
        assert r["status"] == "ok" and r["correctness"]["passed"], r
    for w in forward:
        assert results[("toy-ce-reordered", w)]["status"] == "ok"  # an index set in another order
        bad = results[("toy-ce-off-by-one", w)]
        assert bad["status"] == "failed"
        assert "output predicted: 1 of" in bad["error"] and "exact match required" in bad["error"]
        # registered for forward+backward only: declined, not run, on the forward kind
        assert results[("toy-ce-inplace", w)]["status"] == "unsupported"
        assert "computes the forward+backward kind, not forward" in results[("toy-ce-inplace", w)]["error"]
    for w in fb:
        ok = results[("toy-ce-inplace", w)]
        assert ok["status"] == "ok" and ok["correctness"]["passed"], ok  # grad_logits aliases its own copy
        assert "overwrites its input logits: checked on a fresh copy" in ok["note"]
        assert "input logits was modified" in results[("toy-ce-undeclared", w)]["error"]
    catalog = load_catalog(toy_records)  # the record is valid, every kind a workload of its own
    [loaded] = catalog.runs
    assert {r.workload for r in loaded.run.results} == {w.id for w in catalog.families["toy-loss"].workloads}


def test_a_compute_bound_family_with_a_flop_term(toy_records):
    [path] = run_all(toy_records, family="toy-matmul", device="cpu", timeout=120, kernels_root=TOY_KERNELS)
    results = results_by_key(path)
    assert {r["status"] for r in results.values()} == {"ok"}
    catalog = load_catalog(toy_records)
    family = catalog.families["toy-matmul"]
    plugin = load_family(TOY_KERNELS, "toy-matmul")
    for w in family.workloads:
        case = Case.from_record(family, w)
        assert plugin.flops(case) == flops(family, w) == 2 * w.sizes["m"] * w.sizes["n"] * w.sizes["k"]
        assert plugin.tolerance(case, "c") == Close(1e-5 * w.sizes["k"], 4e-5)


def _families():
    """(kernels root, records) of every family with kernels: the fixtures and kernels/."""
    fixtures = [(TOY_KERNELS, TOY_RECORDS, f) for f in ("toy-scale", "toy-loss", "toy-matmul")]
    return fixtures + [(KERNELS_ROOT, Path("records"), f) for f in family_ids(KERNELS_ROOT)]


@pytest.mark.parametrize("root,records,family_id", _families(), ids=lambda v: v if isinstance(v, str) else "")
def test_the_plugins_floor_is_the_engines(root, records, family_id):
    """One truth: a family's bytes and flops per workload are the engine's floor terms, computed
    from the family record's declared tensors and arithmetic term."""
    from conftest import REPO

    record = load_catalog(records if records.is_absolute() else REPO / records).families[family_id]
    plugin = load_family(root, family_id)
    for w in record.workloads:
        case = Case.from_record(record, w)
        assert plugin.bytes_moved(case) == bytes_moved(record, w)
        assert plugin.flops(case) == flops(record, w)


def test_default_tolerances_by_dtype_and_kind_of_output():
    plugin = load_family(TOY_KERNELS, "toy-loss")
    catalog = load_catalog(TOY_RECORDS)
    family = catalog.families["toy-loss"]
    case = Case.from_record(family, family.workloads[1])  # bf16 logits, forward
    assert plugin.tolerance(case, "loss") == Close(1e-5, 1e-5)  # declared float32
    assert plugin.tolerance(case, "predicted") == Exact()
    assert plugin.tolerance(case, "top2") == IndexSet()
    assert case["rows"] == 8 and case["kind"] == "forward" and case.outputs["loss"].shape == ()
    assert Case.from_json(case.to_json()) == case


def test_a_record_the_run_model_refuses_is_kept_aside_not_written(tmp_path):
    from site_builder.runner import record as rec

    moment = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
    bad = {"schema_version": 1, "family": "toy-scale", "hardware": "cpu", "trust": "measured",
           "observed": "2026-01-02T03:04:05Z", "protocol": {"id": "p", "version": 1, "clock": "device",
                                                            "timing": "cpu-wall"},
           "environment": {"gpu": "cpu"},
           "results": [{"implementation": "toy-good", "workload": "r1-h8", "status": "ok"}]}
    with pytest.raises(UserError, match="failed validation") as info:
        rec.write_validated(tmp_path, bad, moment)
    [kept] = tmp_path.iterdir()
    assert kept.name.endswith(".yaml.invalid") and str(kept) in str(info.value)
    assert not list(tmp_path.glob("*.yaml"))


def test_kernels_are_imported_one_way_never_by_path_or_as_kernels():
    """families.py is the one place that imports kernels/ (as kr_kernels); no tool loads a module
    from its file path."""
    import sys

    from conftest import REPO

    load_family(KERNELS_ROOT, family_ids(KERNELS_ROOT)[0])
    assert "kernels" not in sys.modules and "kr_kernels" in sys.modules
    by_path = "spec_from_" + "file_location"  # not written whole, so this file does not match
    offenders = [str(p.relative_to(REPO)) for folder in ("site_builder", "kernels", "lab", "tests")
                 for p in (REPO / folder).rglob("*.py") if by_path in p.read_text(encoding="utf-8")]
    assert offenders == []
