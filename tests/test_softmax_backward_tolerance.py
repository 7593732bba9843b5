"""Softmax backward in bf16 and fp16: the element-wise allowance for rounded intermediates
(kernels/softmax/reference.py, `backward_allowance`) through the timing core's own check
(measure.check), on the CPU. Implementations emulated in torch that round one or two
intermediates to the dtype pass; wrong ones (a missing or wrong Σ y·dy, 5 % off at the large
elements) fail; and the rounding PyTorch's CUDA backward does fails without the allowance."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from site_builder.runner import measure  # noqa: E402
from site_builder.runner.families import KERNELS_ROOT, import_module, load_family  # noqa: E402
from site_builder.runner.family import Case, Tensor  # noqa: E402

FAMILY = load_family(KERNELS_ROOT, "softmax")
REF = import_module("softmax", "reference")
DT = {"bfloat16": torch.bfloat16, "float16": torch.float16}
SHAPES = [(512, 1024), (32, 8192), (2, 65536)]
SEED = 1234


def _case(rows: int, cols: int, dtype: str) -> Case:
    t = Tensor(dtype, (rows, cols))
    return Case(id=f"bwd-r{rows}-c{cols}-{dtype}", dtype=dtype, kind="backward", sizes={"rows": rows, "cols": cols},
                inputs={"y": t, "dy": t}, outputs={"dx": t})


def _rounded(dt):
    return lambda t: t.to(dt).float()


def _s(yf, dyf):
    return (yf * dyf).sum(-1, keepdim=True)


def _torch_cuda_like(y, dy, r):
    """y·dy rounded to the dtype (an elementwise product before the kernel), its float32 sum,
    dx = y·dy − y·s in float32, rounded once."""
    yf, dyf = y.float(), dy.float()
    p = r(yf * dyf)
    return p - yf * p.sum(-1, keepdim=True)


CORRECT = {
    "float32 formula": lambda y, dy, r: y.float() * (dy.float() - _s(y.float(), dy.float())),
    "s rounded": lambda y, dy, r: y.float() * (dy.float() - r(_s(y.float(), dy.float()))),
    "dy - s rounded": lambda y, dy, r: y.float() * r(dy.float() - _s(y.float(), dy.float())),
    "y*s rounded": lambda y, dy, r: y.float() * dy.float() - r(y.float() * _s(y.float(), dy.float())),
    "s and dy - s rounded": lambda y, dy, r: y.float() * r(dy.float() - r(_s(y.float(), dy.float()))),
    "y*dy rounded before the sum": _torch_cuda_like,
    "torch built-in (CPU)": lambda y, dy, r: torch._softmax_backward_data(dy, y, -1, y.dtype),
}


def _five_percent_at_the_large(y, dy, r):
    ref = REF.backward(y, dy)
    large = ref.abs() >= ref.abs().flatten().kthvalue(int(0.99 * ref.numel())).values
    return torch.where(large, 1.05 * ref, ref)


WRONG = {
    "no s": lambda y, dy, r: y.float() * dy.float(),
    "s of the next row": lambda y, dy, r: y.float() * (dy.float() - _s(y.float(), dy.float()).roll(1, 0)),
    "s with its sign flipped": lambda y, dy, r: y.float() * (dy.float() + _s(y.float(), dy.float())),
    "s over half the row": lambda y, dy, r: y.float() * (dy.float() - 2 * _s(y.float()[:, ::2], dy.float()[:, ::2])),
    "5% off at the largest 1%": _five_percent_at_the_large,
}


def _check(formula, rows, cols, dtype):
    case = _case(rows, cols, dtype)
    r = _rounded(DT[dtype])
    impl = SimpleNamespace(factory=lambda inputs, case: lambda: formula(inputs["y"], inputs["dy"], r).to(DT[dtype]),
                           destroys=())
    _, correctness, problems, _ = measure.check(FAMILY, impl, case, SEED, "cpu")
    return correctness, problems


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("rows,cols", SHAPES)
@pytest.mark.parametrize("name", list(CORRECT))
def test_implementations_that_round_intermediates_pass(name, rows, cols, dtype):
    correctness, problems = _check(CORRECT[name], rows, cols, dtype)
    assert problems == [] and correctness["passed"], problems


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("rows,cols", SHAPES)
@pytest.mark.parametrize("name", list(WRONG))
def test_wrong_implementations_fail(name, rows, cols, dtype):
    correctness, [problem] = _check(WRONG[name], rows, cols, dtype)
    assert not correctness["passed"]
    assert problem.startswith("output dx: ") and "elements outside tolerance; furthest outside" in problem
    assert "+ allowance " in problem


def test_the_rounding_torchs_cuda_backward_does_fails_without_the_allowance():
    """What the H200 run of 2026-12-02 recorded for torch-softmax: the same emulation under the
    scalar (atol, rtol) alone fails, under the allowance it passes (above)."""
    case = _case(512, 1024, "bfloat16")
    inputs = FAMILY.make_inputs(case, SEED, "cpu")
    ref = FAMILY.reference(case, inputs)
    out = _torch_cuda_like(inputs["y"], inputs["dy"], _rounded(torch.bfloat16)).to(torch.bfloat16)
    tol = {"dx": FAMILY.tolerance(case, "dx")}
    _, problems = measure.verify({"dx": out}, ref, {}, {}, tol)
    assert problems and "elements outside tolerance" in problems[0]
    allowance = measure.checked_allowances(FAMILY, case, inputs, ref, tol)
    _, problems = measure.verify({"dx": out}, ref, {}, {}, tol, allowances=allowance)
    assert problems == []


def test_the_allowance_is_the_documented_formula_in_slices(monkeypatch):
    gen = torch.Generator().manual_seed(5)
    y = torch.softmax(torch.randn(9, 50, generator=gen), -1).to(torch.bfloat16)
    dy = torch.randn(9, 50, generator=gen).to(torch.bfloat16)
    yd, dyd = y.double(), dy.double()
    want = 2 * 2.0**-8 * yd * (dyd.abs() + (yd * dyd).abs().sum(-1, keepdim=True))
    whole = REF.backward_allowance(y, dy, "bfloat16")
    assert torch.allclose(whole, want, rtol=1e-15, atol=0)
    monkeypatch.setattr(REF, "_SLICE", 100)  # two rows per slice
    assert torch.equal(REF.backward_allowance(y, dy, "bfloat16"), whole)
    half = REF.backward_allowance(y.half(), dy.half(), "float16")
    yh, dyh = y.half().double(), dy.half().double()
    eta = 2.0**-25
    want16 = 2 * (2.0**-11 * yh * (dyh.abs() + (yh * dyh).abs().sum(-1, keepdim=True)) + eta * (1 + 50 * yh))
    assert torch.allclose(half, want16, rtol=1e-15, atol=0)


def test_only_bf16_and_fp16_backward_get_an_allowance_and_their_results_say_so():
    for dtype, kind, expected in [("bfloat16", "backward", True), ("float16", "backward", True),
                                  ("float32", "backward", False), ("bfloat16", "forward", False)]:
        t = Tensor(dtype, (2, 8))
        ins = {"y": t, "dy": t} if kind == "backward" else {"x": t}
        case = Case(id="w", dtype=dtype, kind=kind, sizes={"rows": 2, "cols": 8}, inputs=ins,
                    outputs={"dx" if kind == "backward" else "y": t})
        inputs = FAMILY.make_inputs(case, SEED, "cpu")
        given = FAMILY.allowance(case, inputs, FAMILY.reference(case, inputs))
        assert bool(given) is expected, (dtype, kind)
        assert (FAMILY.notes(case) is not None) is expected
