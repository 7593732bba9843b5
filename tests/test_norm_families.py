"""The rmsnorm and layernorm families on the CPU: every CPU-capable implementation against the
float64 reference on the family's test sizes (every dtype and kind of the record), the
interface's checks, and both families through the runner in CPU mode on workloads this test
writes into a copy of the records."""

from __future__ import annotations

import pytest
import yaml

from conftest import CPU_HARDWARE, write

torch = pytest.importorskip("torch")

from site_builder.runner.families import KERNELS_ROOT, load_family  # noqa: E402
from site_builder.runner.family import Close, test_cases  # noqa: E402
from site_builder.records.schema import Family  # noqa: E402

FAMILIES = {
    "rmsnorm": ["torch-f-rms-norm", "liger-rms-norm", "kr-triton-rmsnorm", "quack-rmsnorm", "flashinfer-rmsnorm",
                "rmsnorm-torch-compile", "rmsnorm-eager"],
    "layernorm": ["torch-f-layer-norm", "liger-layer-norm", "kr-triton-layernorm", "quack-layernorm",
                  "flashinfer-layernorm", "layernorm-torch-compile", "layernorm-eager"],
}
FORWARD_ONLY = {"flashinfer-rmsnorm", "flashinfer-layernorm"}  # an inference library: no backward
CPU_IMPLS = {"rmsnorm": ["rmsnorm-eager", "torch-f-rms-norm"], "layernorm": ["layernorm-eager", "torch-f-layer-norm"]}

# a family record as a test writes it: the committed semantics, workloads of the test's own
FWD_BWD = [{"id": "t-r3-h111-fp32", "rows": 3, "hidden": 111, "dtype": "float32"},
           {"id": "t-r37-h128-bf16", "rows": 37, "hidden": 128, "dtype": "bfloat16"},
           {"id": "t-bwd-r3-h111-fp32", "kind": "backward", "rows": 3, "hidden": 111, "dtype": "float32"},
           {"id": "t-bwd-r37-h128-bf16", "kind": "backward", "rows": 37, "hidden": 128, "dtype": "bfloat16"}]


def _record(family_id: str, records=None) -> Family:
    from conftest import REPO

    root = records or (REPO / "records")
    data = yaml.safe_load((root / "families" / f"{family_id}.yaml").read_text())
    data["workloads"] = FWD_BWD
    data["headline"] = FWD_BWD[0]["id"]
    return Family.model_validate(data)


def _check(plugin, case, out, ref):
    for name in case.outputs:
        o, r = out[name], ref[name]
        assert str(o.dtype) == "torch." + case.outputs[name].dtype, (name, o.dtype)
        tol = plugin.tolerance(case, name)
        assert isinstance(tol, Close)
        err = (o.double() - r).abs()
        assert bool((err <= tol.atol + tol.rtol * r.abs()).all()), f"{case.id} {name}: max error {float(err.max())}"


@pytest.mark.parametrize("family_id", sorted(FAMILIES))
def test_registry_and_interface(family_id):
    plugin = load_family(KERNELS_ROOT, family_id)
    assert plugin.check() == []
    assert plugin.implementations() == FAMILIES[family_id]
    assert plugin.baseline() == FAMILIES[family_id][-1]
    for impl in plugin.registry.items.values():
        assert set(impl.kinds) == ({"forward"} if impl.id in FORWARD_ONLY else {"forward", "backward"}), impl.id
        if impl.id in FORWARD_ONLY:
            assert "computes the forward kind, not backward" in impl.declines("backward")


@pytest.mark.parametrize("family_id", sorted(FAMILIES))
def test_cpu_implementations_match_the_reference_on_the_test_sizes(family_id):
    plugin = load_family(KERNELS_ROOT, family_id)
    cases = test_cases(plugin, _record(family_id))
    assert {c.kind for c in cases} == {"forward", "backward"} and {c.dtype for c in cases} == {"float32", "bfloat16"}
    for case in cases:
        inputs = plugin.make_inputs(case, 1234, "cpu")
        assert sorted(inputs) == sorted(case.inputs)
        ref = plugin.reference(case, inputs)
        assert all(t.dtype == torch.float64 for t in ref.values())
        for impl_id in CPU_IMPLS[family_id]:
            snap = {k: v.clone() for k, v in inputs.items()}
            out = plugin.registry[impl_id].factory(inputs, case)()
            out = dict(zip(case.outputs, out)) if isinstance(out, tuple) else {next(iter(case.outputs)): out}
            _check(plugin, case, out, ref)
            assert all(torch.equal(inputs[k], snap[k]) for k in inputs), impl_id


@pytest.mark.parametrize("family_id", sorted(FAMILIES))
def test_the_bf16_tolerance_refuses_a_wrong_row_and_admits_one_rounding(family_id):
    plugin = load_family(KERNELS_ROOT, family_id)
    case = [c for c in test_cases(plugin, _record(family_id)) if c.dtype == "bfloat16" and c.kind == "backward"][0]
    inputs = plugin.make_inputs(case, 3, "cpu")
    ref = plugin.reference(case, inputs)
    rounded = {k: v.to(torch.bfloat16) for k, v in ref.items()}
    _check(plugin, case, rounded, ref)
    wrong = dict(rounded)
    wrong["dx"] = rounded["dx"].clone()
    wrong["dx"][-1] *= 1.1  # a row 10 % off
    with pytest.raises(AssertionError):
        _check(plugin, case, wrong, ref)
    wrong = dict(rounded)
    wrong["dweight"] = rounded["dweight"] * 1.05
    with pytest.raises(AssertionError):
        _check(plugin, case, wrong, ref)


@pytest.mark.parametrize("family_id", sorted(FAMILIES))
def test_family_through_the_runner_on_cpu(records_copy, family_id):
    """Both kinds through `run_all` in CPU mode: the eager baseline and the built-in pass, the
    GPU-only implementations are recorded unsupported, and the record renders."""
    from site_builder.build import render_site
    from site_builder.runner import run_all

    # the test's own small workloads, added to the family's (whose committed runs stay valid)
    data = yaml.safe_load((records_copy / "families" / f"{family_id}.yaml").read_text())
    data["workloads"] = list(data["workloads"]) + FWD_BWD
    (records_copy / "families" / f"{family_id}.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    write(records_copy, "hardware/cpu.yaml", CPU_HARDWARE)
    impls = CPU_IMPLS[family_id] + [FAMILIES[family_id][2]]
    [path] = run_all(records_copy, family=family_id, timeout=300, device="cpu", implementations=impls,
                     workloads=[w["id"] for w in FWD_BWD])
    run = yaml.safe_load(path.read_text())
    got = {(r["implementation"], r["workload"]): r for r in run["results"]}
    for impl in CPU_IMPLS[family_id]:
        for w in FWD_BWD:
            r = got[(impl, w["id"])]
            assert r["status"] == "ok", r
            assert r["correctness"]["passed"]
    for w in FWD_BWD:
        assert got[(FAMILIES[family_id][2], w["id"])]["status"] == "unsupported"
    files, _ = render_site(records_copy)
    assert any(p.startswith("runs/") and path.stem in p for p in files)

