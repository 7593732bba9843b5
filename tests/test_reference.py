"""The fused add + RMSNorm reference against the eager implementations, on the CPU."""

from __future__ import annotations

import sys

import pytest

torch = pytest.importorskip("torch")

from site_builder.runner.families import KERNELS_ROOT, load_family  # noqa: E402
from site_builder.runner.family import Case, Tensor  # noqa: E402

plugin = load_family(KERNELS_ROOT, "fused-add-rmsnorm")
PARAMS = {"eps": 1e-6}


class fam:  # the family's hooks as these tests call them (a workload dict and the parameters)
    registry = plugin.registry

    @staticmethod
    def make_inputs(w, seed, device):
        return plugin.make_inputs(case(w), seed, device)

    @staticmethod
    def reference(inputs, params):
        return plugin.reference(case({"id": "any", "rows": 1, "hidden": 1, "dtype": "float32"}), inputs)

    @staticmethod
    def tolerance(dtype):
        c = plugin.tolerance(case({"id": "any", "rows": 1, "hidden": 1, "dtype": dtype}), "y")
        return c.atol, c.rtol


def case(w: dict) -> Case:
    rows, hidden, dtype = w["rows"], w["hidden"], w["dtype"]
    t = Tensor(dtype, (rows, hidden))
    return Case(id=w["id"], dtype=dtype, sizes={"rows": rows, "hidden": hidden}, params=PARAMS,
                inputs={"x": t, "residual": t, "weight": Tensor(dtype, (hidden,))},
                outputs={"y": t, "residual_out": t})
DTYPES = ["float32", "bfloat16", "float16"]
SHAPES = [(1, 8), (3, 111), (16, 4096), (2, 4097), (5, 5120)]


def workload(rows, hidden, dtype):
    return {"id": f"r{rows}-h{hidden}-{dtype}", "rows": rows, "hidden": hidden, "dtype": dtype}


def within(out, ref, dtype):
    atol, rtol = fam.tolerance(dtype)
    return bool(((out.double() - ref).abs() <= atol + rtol * ref.abs()).all())


def test_loaded_under_a_private_name_never_as_kernels():
    assert "kr_kernels.fused_add_rmsnorm" in sys.modules
    assert "kernels" not in sys.modules and "kernels.fused_add_rmsnorm" not in sys.modules


def test_registry_names_every_implementation_once_with_one_baseline():
    ids = fam.registry.ids()
    assert ids == ["transformers", "torch-rms-norm", "liger-fused", "quack", "flashinfer-fused-add-rmsnorm", "kr-triton",
                   "torch-compile"]
    assert [i for i in ids if fam.registry[i].baseline] == ["transformers"]
    assert [p.name for p in fam.registry["kr-triton"].sources] == [
        "impl_kr_triton.py", "kr_triton.py", "kr_triton_kernels.py", "kr_triton_config.py", "kr_triton_tuned.json"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,hidden", SHAPES)
def test_eager_implementations_match_the_reference(rows, hidden, dtype):
    inputs = fam.make_inputs(workload(rows, hidden, dtype), 7, "cpu")
    ref = fam.reference(inputs, PARAMS)
    for impl in ("transformers", "torch-rms-norm"):
        y, h = fam.registry[impl].factory(inputs, case(workload(rows, hidden, dtype)))()
        assert torch.equal(h.double(), ref["residual_out"]), impl  # the rounded sum, exactly
        assert within(y, ref["y"], dtype), impl


def test_reference_is_float64_and_follows_the_rounded_h_convention():
    inputs = fam.make_inputs(workload(4, 64, "bfloat16"), 1, "cpu")
    ref = fam.reference(inputs, PARAMS)
    assert ref["y"].dtype == ref["residual_out"].dtype == torch.float64
    h = (inputs["x"] + inputs["residual"]).double()  # bf16 add rounds once, like the reference
    assert torch.equal(ref["residual_out"], h)
    rstd = torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
    assert torch.allclose(ref["y"], inputs["weight"].double() * h * rstd, rtol=0, atol=1e-12)


def test_an_all_zero_row_gives_zeros_not_nan():
    inputs = fam.make_inputs(workload(3, 32, "float32"), 1, "cpu")
    inputs["x"][1] = 0
    inputs["residual"][1] = 0
    ref = fam.reference(inputs, PARAMS)
    assert torch.isfinite(ref["y"]).all() and (ref["y"][1] == 0).all()


def test_a_rows_output_does_not_depend_on_the_number_of_rows():
    inputs = fam.make_inputs(workload(8, 256, "float32"), 3, "cpu")
    full = fam.reference(inputs, PARAMS)["y"]
    part = fam.reference({k: (v[:3] if v.dim() == 2 else v) for k, v in inputs.items()}, PARAMS)["y"]
    assert torch.equal(full[:3], part)


def test_inputs_are_random_nonzero_reproducible_and_fresh_per_workload():
    a = fam.make_inputs(workload(4, 64, "float32"), 5, "cpu")
    b = fam.make_inputs(workload(4, 64, "float32"), 5, "cpu")
    c = fam.make_inputs(workload(4, 64, "float32"), 6, "cpu")
    d = fam.make_inputs({**workload(4, 64, "float32"), "id": "other"}, 5, "cpu")
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not torch.equal(a["x"], c["x"]) and not torch.equal(a["x"], d["x"])
    assert all((v != 0).float().mean() > 0.99 for v in a.values())
    assert (a["weight"] >= 0.5).all() and (a["weight"] <= 1.5).all()


def test_bf16_tolerance_admits_the_unrounded_sum_convention_but_not_a_wrong_row():
    """QuACK's convention (norm of the unrounded fp32 sum) passes; a row off by 2 % does not."""
    inputs = fam.make_inputs(workload(64, 4096, "bfloat16"), 11, "cpu")
    ref = fam.reference(inputs, PARAMS)
    h32 = inputs["x"].float() + inputs["residual"].float()
    rstd = torch.rsqrt(h32.pow(2).mean(-1, keepdim=True) + 1e-6)
    y = (h32 * rstd * inputs["weight"].float()).to(torch.bfloat16)
    assert within(y, ref["y"], "bfloat16")
    y[5] *= 1.02
    assert not within(y, ref["y"], "bfloat16")
