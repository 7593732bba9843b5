"""The swiglu, swiglu-fused and rope families on the family interface: each reference against
its eager baseline in float64 (forward and backward, the families' test_sizes), the inputs'
layouts and seeds, and each family through the runner in CPU mode on one small forward and
one small backward workload of its committed record (eager runs and passes; the GPU-only
implementations are recorded `unsupported` or `not-installed`, not failed)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

torch = pytest.importorskip("torch")

from site_builder.records.load import load_catalog  # noqa: E402
from site_builder.runner import run_all  # noqa: E402
from site_builder.runner.families import KERNELS_ROOT, load_family  # noqa: E402
from site_builder.runner.family import Case  # noqa: E402
from site_builder.records.schema import Workload  # noqa: E402

from conftest import CPU_HARDWARE  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FAMILIES = {"swiglu": "swiglu-eager", "swiglu-fused": "swiglu-eager", "rope": "rope-eager"}

@pytest.fixture(scope="module")
def catalog():
    return load_catalog(REPO / "records")


def _outputs(out, names):
    if isinstance(out, torch.Tensor):
        out = (out,)
    return dict(zip(names, out)) if not isinstance(out, dict) else out


@pytest.mark.parametrize("family_id", list(FAMILIES))
@pytest.mark.parametrize("kind", ["forward", "backward"])
def test_reference_is_the_eager_baseline_in_float64(catalog, family_id, kind):
    plugin = load_family(KERNELS_ROOT, family_id)
    record = catalog.families[family_id]
    assert plugin.baseline() == FAMILIES[family_id]
    for sizes in plugin.test_sizes:
        case = Case.from_record(record, Workload(id=f"t-{kind}", dtype="float64", kind=kind, **sizes))
        inputs = plugin.make_inputs(case, 7, torch.device("cpu"))
        assert sorted(inputs) == sorted(case.inputs)
        ref = plugin.reference(case, inputs)
        assert sorted(ref) == sorted(case.outputs)
        out = _outputs(plugin.registry[FAMILIES[family_id]].factory(inputs, case)(), list(case.outputs))
        for name, r in ref.items():
            assert r.dtype == torch.float64 and out[name].shape == r.shape
            torch.testing.assert_close(out[name], r, rtol=1e-12, atol=1e-12, msg=f"{family_id} {kind} {name}")
            assert bool(r.abs().sum() > 0), "a reference of all zeros would hide bugs"


@pytest.mark.parametrize("family_id", list(FAMILIES))
def test_inputs_are_seeded_never_zero_and_in_the_declared_layout(catalog, family_id):
    plugin = load_family(KERNELS_ROOT, family_id)
    record = catalog.families[family_id]
    sizes = plugin.test_sizes[-1]
    for kind in ("forward", "backward"):
        case = Case.from_record(record, Workload(id=f"t-{kind}", dtype="bfloat16", kind=kind, **sizes))
        a = plugin.make_inputs(case, 11, torch.device("cpu"))
        b = plugin.make_inputs(case, 11, torch.device("cpu"))
        c = plugin.make_inputs(case, 12, torch.device("cpu"))
        for name, t in a.items():
            assert torch.equal(t, b[name]), name
            assert t.dtype == torch.bfloat16 and bool((t != 0).any()), name
            assert t.numel() == case.inputs[name].numel, name
        assert any(not torch.equal(t, c[n]) for n, t in a.items() if n not in ("cos", "sin"))
        if family_id == "rope":  # q, k, dq_embed, dk_embed: [b, h, s, d] views of [b, s, h, d] memory
            big = "q" if kind == "forward" else "dq_embed"
            t = a[big]
            assert tuple(t.shape) == case.inputs[big].shape and t.transpose(1, 2).is_contiguous()
        if family_id == "swiglu-fused":
            gu = a["gate_up"]
            assert gu.is_contiguous() and gu.shape == (sizes["tokens"], 2, sizes["intermediate"])


def test_rope_decode_positions_differ_per_sequence(catalog):
    plugin = load_family(KERNELS_ROOT, "rope")
    record = catalog.families["rope"]
    case = Case.from_record(record, Workload(id="d", dtype="float32", batch=4, heads_q=2, heads_kv=1, seq=1,
                                             head_dim=8, pos_batch=4))
    ins = plugin.make_inputs(case, 3, torch.device("cpu"))
    assert ins["cos"].shape == (4, 1, 8)
    assert len({tuple(r.flatten().tolist()) for r in ins["cos"]}) == 4, "each sequence at its own position"
    assert torch.allclose(ins["cos"] ** 2 + ins["sin"] ** 2, torch.ones(4, 1, 8), atol=1e-5)
    bad = Case.from_record(record, Workload(id="d", dtype="float32", batch=4, heads_q=2, heads_kv=1, seq=1,
                                            head_dim=8, pos_batch=3))
    with pytest.raises(ValueError, match="pos_batch must be 1 or batch"):
        plugin.make_inputs(bad, 3, torch.device("cpu"))


SMALL = {"swiglu": ["t1-i14336-bf16", "bwd-t128-i2048-bf16"],
         "swiglu-fused": ["t128-i2048-bf16", "bwd-t128-i2048-bf16"],
         "rope": ["llama3-8b-decode-b1-bf16", "deepseek-v3-decode-b16-bf16"]}
OURS = {"swiglu": ["kr-triton-swiglu", "liger-swiglu"], "swiglu-fused": ["kr-triton-swiglu", "liger-swiglu"],
        "rope": ["kr-triton-rope", "liger-rope"]}


@pytest.mark.parametrize("family_id", list(FAMILIES))
def test_family_through_the_runner_on_cpu(records_copy, family_id):
    (records_copy / "hardware" / "cpu.yaml").write_text(CPU_HARDWARE)
    workloads = list(SMALL[family_id])
    if family_id == "rope":  # a backward workload small enough for a CPU: added to the copy only
        fam_path = records_copy / "families" / "rope.yaml"
        text = fam_path.read_text().rstrip("\n") + (
            "\n  - {id: bwd-tiny-b2-s16-bf16, kind: backward, batch: 2, seq: 16, heads_q: 4, heads_kv: 2, "
            "head_dim: 64, pos_batch: 1, dtype: bfloat16}\n")
        fam_path.write_text(text)
        workloads.append("bwd-tiny-b2-s16-bf16")
    [path] = run_all(records_copy, family=family_id, workloads=workloads, timeout=300, device="cpu",
                     implementations=[FAMILIES[family_id], *OURS[family_id]])
    data = yaml.safe_load(path.read_text())
    results = {(r["implementation"], r["workload"]): r for r in data["results"]}
    kinds = {w.id: w.kind for w in load_catalog(records_copy).families[family_id].workloads}
    assert {kinds[w] for w in workloads} == {"forward", "backward"}
    for w in workloads:
        r = results[(FAMILIES[family_id], w)]
        assert r["status"] == "ok" and r["correctness"]["passed"], r
        ours = results[(OURS[family_id][0], w)]
        assert ours["status"] == "unsupported" and "CUDA" in ours["error"], ours
        liger = results[(OURS[family_id][1], w)]  # Liger: GPU-only, or not installed here
        assert liger["status"] in ("unsupported", "not-installed"), liger
