"""CPU tests of the rmsnorm and layernorm families: the float64 references against eager
PyTorch and autograd in float64, and our Triton kernels (kernels/{rmsnorm,layernorm}/kr_triton.py)
under the Triton interpreter in float32 on small odd shapes, forward and backward.

TRITON_INTERPRET=1 is set here, before triton is imported; if another test module imported
the GPU build first, the tests run again in a fresh process, so the kernels are interpreted.
"""

import os
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"

import pytest  # noqa: E402
from triton_mode import triton_in_mode  # noqa: E402

torch = pytest.importorskip("torch")
triton = pytest.importorskip("triton")
pytest.importorskip("numpy")  # the Triton interpreter needs it

ROOT = Path(__file__).resolve().parents[1]
_IN_SUBPROCESS, test_cpu_suite_in_fresh_process, _only_subprocess_runner_here = triton_in_mode(
    __file__, interpreted=True, timeout=900)



def _mod(family, name):
    from site_builder.runner.families import import_module

    return import_module(family, name)


if not _IN_SUBPROCESS:
    rms = _mod("rmsnorm", "kr_triton")
    ln = _mod("layernorm", "kr_triton")
    rms_pkg = _mod("rmsnorm", None)
    ln_pkg = _mod("layernorm", None)
    rms_ref = _mod("rmsnorm", "reference")
    ln_ref = _mod("layernorm", "reference")
    rms_eager = _mod("rmsnorm", "eager")
    ln_eager = _mod("layernorm", "eager")
    parts = _mod("rmsnorm", "kr_parts")


def _case(pkg, kind, rows, hidden, dtype="float32"):
    from site_builder.runner.family import Case, Tensor

    f = {"rows": rows, "hidden": hidden}
    if pkg is rms_pkg:
        ins = {"x": ("float", ["rows", "hidden"]), "weight": ("float", ["hidden"])}
        outs = {"y": ("float", ["rows", "hidden"])}
        if kind == "backward":
            ins = {"dy": ("float", ["rows", "hidden"]), "x": ("float", ["rows", "hidden"]),
                   "weight": ("float", ["hidden"]), "rstd": ("float32", ["rows"])}
            outs = {"dx": ("float", ["rows", "hidden"]), "dweight": ("float", ["hidden"])}
        params = {"eps": 1e-6}
    else:
        ins = {"x": ("float", ["rows", "hidden"]), "weight": ("float", ["hidden"]), "bias": ("float", ["hidden"])}
        outs = {"y": ("float", ["rows", "hidden"])}
        if kind == "backward":
            ins = {"dy": ("float", ["rows", "hidden"]), "x": ("float", ["rows", "hidden"]),
                   "weight": ("float", ["hidden"]), "mean": ("float32", ["rows"]), "rstd": ("float32", ["rows"])}
            outs = {"dx": ("float", ["rows", "hidden"]), "dweight": ("float", ["hidden"]),
                    "dbias": ("float", ["hidden"])}
        params = {"eps": 1e-5}

    def res(group):
        return {k: Tensor(dtype if d == "float" else d, tuple(f[a] for a in s)) for k, (d, s) in group.items()}

    return Case(id=f"t-{kind}-{rows}-{hidden}", dtype=dtype, kind=kind, sizes=f, params=params,
                inputs=res(ins), outputs=res(outs))


# --- the references against eager PyTorch and autograd, in float64 ---------------------------

SHAPES = [(1, 8), (3, 111), (37, 128), (5, 257), (2, 4097)]


@pytest.mark.parametrize("rows,hidden", SHAPES)
def test_rmsnorm_reference_matches_eager_and_autograd_in_float64(rows, hidden):
    case = _case(rms_pkg, "forward", rows, hidden, "float32")
    inp = {k: v.double() for k, v in rms_pkg.family.make_inputs(case, 7, "cpu").items()}
    y = rms_ref.reference(case, inp)["y"]
    torch.testing.assert_close(y, rms_eager.eager_rmsnorm(inp["x"], inp["weight"], 1e-6, torch.float64),
                               rtol=1e-12, atol=1e-12)
    bcase = _case(rms_pkg, "backward", rows, hidden, "float32")
    b = {k: v.double() for k, v in rms_pkg.family.make_inputs(bcase, 7, "cpu").items()}
    ref = rms_ref.reference(bcase, b)
    x = b["x"].clone().requires_grad_(True)
    w = b["weight"].clone().requires_grad_(True)
    out = w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6))
    dx, dw = torch.autograd.grad(out, (x, w), b["dy"])
    torch.testing.assert_close(ref["dx"], dx, rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(ref["dweight"], dw, rtol=1e-10, atol=1e-10)
    # the eager backward formula (the baseline), run in float64, is the same gradient
    rstd = torch.rsqrt(b["x"].pow(2).mean(-1) + 1e-6)
    edx, edw = rms_eager.eager_rmsnorm_backward(b["dy"], b["x"], b["weight"], rstd, torch.float64)
    torch.testing.assert_close(edx, dx, rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(edw, dw, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("rows,hidden", SHAPES)
def test_layernorm_reference_matches_eager_and_autograd_in_float64(rows, hidden):
    case = _case(ln_pkg, "forward", rows, hidden, "float32")
    inp = {k: v.double() for k, v in ln_pkg.family.make_inputs(case, 7, "cpu").items()}
    y = ln_ref.reference(case, inp)["y"]
    torch.testing.assert_close(y, ln_eager.eager_layernorm(inp["x"], inp["weight"], inp["bias"], 1e-5, torch.float64),
                               rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(y, torch.nn.functional.layer_norm(inp["x"], (hidden,), inp["weight"], inp["bias"],
                                                                 1e-5), rtol=1e-10, atol=1e-10)
    bcase = _case(ln_pkg, "backward", rows, hidden, "float32")
    b = {k: v.double() for k, v in ln_pkg.family.make_inputs(bcase, 7, "cpu").items()}
    ref = ln_ref.reference(bcase, b)
    x = b["x"].clone().requires_grad_(True)
    w = b["weight"].clone().requires_grad_(True)
    bias = torch.zeros_like(b["weight"]).requires_grad_(True)
    out = torch.nn.functional.layer_norm(x, (hidden,), w, bias, 1e-5)
    dx, dw, db = torch.autograd.grad(out, (x, w, bias), b["dy"])
    torch.testing.assert_close(ref["dx"], dx, rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(ref["dweight"], dw, rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(ref["dbias"], db, rtol=1e-9, atol=1e-9)
    xd = b["x"]
    mean = xd.mean(-1)
    rstd = torch.rsqrt((xd - mean[:, None]).pow(2).mean(-1) + 1e-5)
    edx, edw, edb = ln_eager.eager_layernorm_backward(b["dy"], xd, b["weight"], mean, rstd, torch.float64)
    torch.testing.assert_close(edx, dx, rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(edw, dw, rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(edb, db, rtol=1e-9, atol=1e-9)


def test_inputs_are_seeded_never_zero_and_statistics_match_x():
    for pkg in (rms_pkg, ln_pkg):
        case = _case(pkg, "backward", 9, 33, "bfloat16")
        a = pkg.family.make_inputs(case, 3, "cpu")
        b = pkg.family.make_inputs(case, 3, "cpu")
        c = pkg.family.make_inputs(case, 4, "cpu")
        for k in a:
            assert torch.equal(a[k], b[k]), k
            assert not torch.equal(a[k], c[k]), k
            assert bool((a[k] != 0).any()), k
            assert tuple(a[k].shape) == case.inputs[k].shape and str(a[k].dtype) == "torch." + case.inputs[k].dtype
        assert bool((a["weight"].float() >= 0.5).all())
        xd = a["x"].double()
        if pkg is rms_pkg:
            torch.testing.assert_close(a["rstd"].double(), torch.rsqrt(xd.pow(2).mean(-1) + 1e-6), rtol=1e-7, atol=0)
        else:
            torch.testing.assert_close(a["mean"].double(), xd.mean(-1), rtol=1e-6, atol=1e-7)


def test_dweight_tolerance_grows_with_sqrt_rows():
    small = rms_ref.tolerance(_case(rms_pkg, "backward", 4, 64, "bfloat16"), "dweight")
    big = rms_ref.tolerance(_case(rms_pkg, "backward", 40000, 64, "bfloat16"), "dweight")
    assert big.atol == pytest.approx(small.atol * 100)
    assert rms_ref.tolerance(_case(rms_pkg, "backward", 4, 64, "bfloat16"), "dx").atol == 2e-2
    assert ln_ref.tolerance(_case(ln_pkg, "backward", 16, 64, "float32"), "dbias").atol == pytest.approx(4e-5)


# --- our Triton kernels under the interpreter, float32 ---------------------------------------

KSHAPES = [(1, 8), (3, 111), (37, 128), (5, 257), (2, 4097), (17, 96), (0, 64)]


def _rms64(x, w, eps=1e-6):
    xd = x.double()
    r = torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + eps)
    return w.double() * xd * r, r.squeeze(-1)


def _ln64(x, w, b, eps=1e-5):
    xd = x.double()
    m = xd.mean(-1, keepdim=True)
    r = torch.rsqrt((xd - m).pow(2).mean(-1, keepdim=True) + eps)
    return (xd - m) * r * w.double() + b.double(), m.squeeze(-1), r.squeeze(-1)


def _close(out, ref, tol):
    assert out.shape == ref.shape
    assert bool(torch.isfinite(out).all())
    err = (out.double() - ref).abs()
    bound = tol + tol * ref.abs()
    assert bool((err <= bound).all()), f"max error {float(err.max())}"


@pytest.mark.parametrize("rows,hidden", KSHAPES)
def test_kr_rmsnorm_forward_float32(rows, hidden):
    g = torch.Generator().manual_seed(rows * 1000 + hidden)
    x = torch.randn(rows, hidden, generator=g)
    w = torch.rand(hidden, generator=g) + 0.5
    xc, wc = x.clone(), w.clone()
    y, rstd = rms.rmsnorm(x, w, 1e-6, return_rstd=True)
    yr, rr = _rms64(x, w)
    _close(y, yr, 1e-5)
    _close(rstd, rr, 1e-6)
    assert y.dtype == torch.float32 and torch.equal(x, xc) and torch.equal(w, wc)
    _close(rms.rmsnorm(x, w, 1e-6), yr, 1e-5)


@pytest.mark.parametrize("rows,hidden", KSHAPES)
def test_kr_layernorm_forward_float32(rows, hidden):
    g = torch.Generator().manual_seed(rows * 1000 + hidden)
    x = torch.randn(rows, hidden, generator=g) + 3.0
    w = torch.rand(hidden, generator=g) + 0.5
    b = torch.randn(hidden, generator=g)
    y, mean, rstd = ln.layernorm(x, w, b, 1e-5, return_stats=True)
    yr, mr, rr = _ln64(x, w, b)
    _close(y, yr, 1e-5)
    _close(mean, mr, 1e-6)
    _close(rstd, rr, 1e-5)
    _close(ln.layernorm(x, w, b, 1e-5), yr, 1e-5)


@pytest.mark.parametrize("rows,hidden", KSHAPES)
@pytest.mark.parametrize("programs,prefetch", [(None, None), (1, True), (3, False), (3, True)])
def test_kr_rmsnorm_backward_float32(rows, hidden, programs, prefetch):
    g = torch.Generator().manual_seed(rows * 7 + hidden)
    x = torch.randn(rows, hidden, generator=g)
    dy = torch.randn(rows, hidden, generator=g)
    w = torch.rand(hidden, generator=g) + 0.5
    case = _case(rms_pkg, "backward", rows, hidden)
    ref = rms_ref.reference(case, {"dy": dy, "x": x, "weight": w})
    _, rstd = _rms64(x, w)
    copies = [t.clone() for t in (dy, x, w)]
    for given in (rstd.float(), None):
        dx, dw = rms.rmsnorm_backward(dy, x, w, given, 1e-6, programs=programs, prefetch=prefetch)
        _close(dx, ref["dx"], 1e-5)
        _close(dw, ref["dweight"], 1e-5 * max(1, rows) ** 0.5)
    assert all(torch.equal(a, b) for a, b in zip(copies, (dy, x, w)))


@pytest.mark.parametrize("rows,hidden", KSHAPES)
@pytest.mark.parametrize("programs,prefetch", [(None, None), (1, True), (3, False), (3, True)])
def test_kr_layernorm_backward_float32(rows, hidden, programs, prefetch):
    g = torch.Generator().manual_seed(rows * 7 + hidden)
    x = torch.randn(rows, hidden, generator=g) + 0.5
    dy = torch.randn(rows, hidden, generator=g)
    w = torch.rand(hidden, generator=g) + 0.5
    case = _case(ln_pkg, "backward", rows, hidden)
    ref = ln_ref.reference(case, {"dy": dy, "x": x, "weight": w})
    _, mean, rstd = _ln64(x, w, torch.zeros_like(w))
    for stats in ((mean.float(), rstd.float()), (None, None)):
        dx, dw, db = ln.layernorm_backward(dy, x, w, *stats, 1e-5, programs=programs, prefetch=prefetch)
        _close(dx, ref["dx"], 1e-5)
        _close(dw, ref["dweight"], 1e-5 * max(1, rows) ** 0.5)
        _close(db, ref["dbias"], 1e-5 * max(1, rows) ** 0.5)


def test_strided_views_3d_inputs_and_zero_rows():
    g = torch.Generator().manual_seed(5)
    big = torch.randn(6, 200, generator=g)
    x = big[:, 10:139]  # row stride 200, 129 columns
    w = torch.rand(129, generator=g) + 0.5
    b = torch.randn(129, generator=g)
    _close(rms.rmsnorm(x, w), _rms64(x, w)[0], 1e-5)
    _close(ln.layernorm(x, w, b), _ln64(x, w, b)[0], 1e-5)
    dy = torch.randn(6, 300, generator=g)[:, 5:134]
    ref = rms_ref.reference(_case(rms_pkg, "backward", 6, 129), {"dy": dy, "x": x, "weight": w})
    dx, dw = rms.rmsnorm_backward(dy, x, w)
    _close(dx, ref["dx"], 1e-5)
    _close(dw, ref["dweight"], 1e-5 * 6 ** 0.5)
    x3 = torch.randn(2, 3, 40, generator=g)
    w3 = torch.rand(40, generator=g) + 0.5
    _close(rms.rmsnorm(x3, w3), _rms64(x3, w3)[0], 1e-5)
    # an all-zero row: y = 0 (LayerNorm: y = bias), no NaN; its dx = rstd * g, finite
    z = torch.randn(4, 64, generator=g)
    z[2] = 0
    wz = torch.rand(64, generator=g) + 0.5
    bz = torch.randn(64, generator=g)
    y = rms.rmsnorm(z, wz)
    assert bool(torch.isfinite(y).all()) and bool((y[2] == 0).all())
    yl = ln.layernorm(z, wz, bz)
    assert bool(torch.isfinite(yl).all())
    _close(yl[2], bz.double(), 1e-6)
    dyz = torch.randn(4, 64, generator=g)
    dx, dw = rms.rmsnorm_backward(dyz, z, wz)
    refz = rms_ref.reference(_case(rms_pkg, "backward", 4, 64), {"dy": dyz, "x": z, "weight": wz})
    assert bool(torch.isfinite(dx).all())
    _close(dx, refz["dx"], 1e-5)


def test_rows_are_independent_of_the_batch():
    """A row's y and dx are bit-identical alone or among others (the configuration depends on
    hidden and dtype only)."""
    g = torch.Generator().manual_seed(11)
    x = torch.randn(70, 96, generator=g)
    dy = torch.randn(70, 96, generator=g)
    w = torch.rand(96, generator=g) + 0.5
    b = torch.randn(96, generator=g)
    assert torch.equal(rms.rmsnorm(x, w)[33], rms.rmsnorm(x[33:34], w)[0])
    assert torch.equal(ln.layernorm(x, w, b)[33], ln.layernorm(x[33:34], w, b)[0])
    assert torch.equal(rms.rmsnorm_backward(dy, x, w)[0][33], rms.rmsnorm_backward(dy[33:34], x[33:34], w)[0][0])
    assert torch.equal(ln.layernorm_backward(dy, x, w)[0][33], ln.layernorm_backward(dy[33:34], x[33:34], w)[0][0])


def test_long_rows_use_the_chunked_forward_and_the_long_backward():
    """Rows beyond 32768: the chunked forward and, under the interpreter (whose programs run one
    after another, so the parts backward's programs could never wait for each other), the long
    backward in place of the parts rule, against float64."""
    g = torch.Generator().manual_seed(2)
    x = torch.randn(2, 32771, generator=g)
    dy = torch.randn(2, 32771, generator=g)
    w = torch.rand(32771, generator=g) + 0.5
    b = torch.randn(32771, generator=g)
    assert rms.fwd_config(32771, 4)["kind"] == "chunked"
    assert rms.bwd_config(32771, 4)["kind"] == "parts" and ln.bwd_config(32771, 2)["kind"] == "parts"
    assert not parts.possible(x.device, rms.bwd_config(32771, 4)["PARTS"])
    _close(rms.rmsnorm(x, w), _rms64(x, w)[0], 1e-5)
    _close(ln.layernorm(x, w, b), _ln64(x, w, b)[0], 1e-5)
    ref = rms_ref.reference(_case(rms_pkg, "backward", 2, 32771), {"dy": dy, "x": x, "weight": w})
    dx, dw = rms.rmsnorm_backward(dy, x, w)
    _close(dx, ref["dx"], 1e-5)
    _close(dw, ref["dweight"], 1e-5 * 2 ** 0.5)
    lref = ln_ref.reference(_case(ln_pkg, "backward", 2, 32771), {"dy": dy, "x": x, "weight": w})
    dx, dw, db = ln.layernorm_backward(dy, x, w)
    _close(dx, lref["dx"], 1e-5)
    _close(dw, lref["dweight"], 1e-5 * 2 ** 0.5)
    _close(db, lref["dbias"], 1e-5 * 2 ** 0.5)


@pytest.fixture
def override():
    """Sets kr_triton.OVERRIDE entries for one test (both families) and clears them after."""
    set_ = []

    def put(mod, key, cfg):
        mod.OVERRIDE[key] = cfg
        set_.append((mod, key))

    yield put
    for mod, key in set_:
        mod.OVERRIDE.pop(key, None)


# a long-kind configuration with small chunks, so that the interpreter runs several chunks
# and a masked tail on small rows
LONG_SMALL = {"kind": "long", "BLOCK": 64, "ROWS": 1, "MASK_COLS": True, "num_warps": 4, "num_stages": 1,
              "CTAS": None}


def _long_rule(n, es):
    """The long backward's rule configuration (bwd_config above _BWD_REG_ROW) for a row of n."""
    return {"kind": "long", "BLOCK": 16384 // es, "ROWS": 1, "MASK_COLS": n % (16384 // es) != 0, "num_warps": 32,
            "num_stages": 1, "CTAS": None}


@pytest.mark.parametrize("rows,hidden", [(1, 300), (7, 300), (13, 256), (5, 9000)])
@pytest.mark.parametrize("programs", [None, 1, 3, 100])
def test_long_backward_vs_float64_deterministic_and_row_independent(override, rows, hidden, programs):
    for mod in (rms, ln):
        if hidden <= 8192:
            override(mod, ("bwd", hidden, 4), LONG_SMALL)
        elif hidden <= mod._BWD_REG_ROW:  # rmsnorm keeps 9000 in registers: its long rule, forced
            assert mod.bwd_config(hidden, 4)["kind"] == "rows"
            override(mod, ("bwd", hidden, 4), _long_rule(hidden, 4))
        else:  # the parts rule, which the interpreter runs as the long kernel (long_config)
            assert mod.bwd_config(hidden, 4)["kind"] == "parts"
            assert mod.long_config(hidden, 4) == _long_rule(hidden, 4)
    g = torch.Generator().manual_seed(rows * 31 + hidden)
    x = torch.randn(rows, hidden, generator=g) + 0.25
    dy = torch.randn(rows, hidden, generator=g)
    w = torch.rand(hidden, generator=g) + 0.5
    copies = [t.clone() for t in (dy, x, w)]
    ref = rms_ref.reference(_case(rms_pkg, "backward", rows, hidden), {"dy": dy, "x": x, "weight": w})
    _, rstd = _rms64(x, w)
    for given in (rstd.float(), None):
        dx, dw = rms.rmsnorm_backward(dy, x, w, given, 1e-6, programs=programs)
        _close(dx, ref["dx"], 1e-5)
        _close(dw, ref["dweight"], 1e-5 * rows ** 0.5)
        dx2, dw2 = rms.rmsnorm_backward(dy, x, w, given, 1e-6, programs=programs)
        assert torch.equal(dx, dx2) and torch.equal(dw, dw2)  # deterministic
        r = rows // 2
        one = rms.rmsnorm_backward(dy[r:r + 1], x[r:r + 1], w, None if given is None else given[r:r + 1], 1e-6)[0]
        assert torch.equal(one[0], dx[r])  # a row's dx does not depend on the rows beside it
    lref = ln_ref.reference(_case(ln_pkg, "backward", rows, hidden), {"dy": dy, "x": x, "weight": w})
    _, mean, lrstd = _ln64(x, w, torch.zeros_like(w))
    for stats in ((mean.float(), lrstd.float()), (None, None)):
        dx, dw, db = ln.layernorm_backward(dy, x, w, *stats, 1e-5, programs=programs)
        _close(dx, lref["dx"], 1e-5)
        _close(dw, lref["dweight"], 1e-5 * rows ** 0.5)
        _close(db, lref["dbias"], 1e-5 * rows ** 0.5)
        again = ln.layernorm_backward(dy, x, w, *stats, 1e-5, programs=programs)
        assert all(torch.equal(a, b) for a, b in zip((dx, dw, db), again))
        r = rows // 2
        st = tuple(None if t is None else t[r:r + 1] for t in stats)
        assert torch.equal(ln.layernorm_backward(dy[r:r + 1], x[r:r + 1], w, *st, 1e-5)[0][0], dx[r])
    assert all(torch.equal(a, b) for a, b in zip(copies, (dy, x, w)))


def test_long_backward_matches_the_register_backward(override):
    """The two backward kinds agree to float32 rounding on the same rows."""
    g = torch.Generator().manual_seed(8)
    x = torch.randn(9, 500, generator=g)
    dy = torch.randn(9, 500, generator=g)
    w = torch.rand(500, generator=g) + 0.5
    reg = rms.rmsnorm_backward(dy, x, w)
    lreg = ln.layernorm_backward(dy, x, w)
    override(rms, ("bwd", 500, 4), LONG_SMALL)
    override(ln, ("bwd", 500, 4), LONG_SMALL)
    for a, b in zip(rms.rmsnorm_backward(dy, x, w), reg):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    for a, b in zip(ln.layernorm_backward(dy, x, w), lreg):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


def test_long_backward_refusals_are_clear(override):
    x = torch.randn(2, 40000)
    w = torch.ones(40000)
    override(rms, ("bwd", 40000, 4), {"kind": "rows", "BLOCK": 65536, "ROWS": 1, "MASK_COLS": True,
                                      "num_warps": 32, "CTAS": 1})
    override(ln, ("bwd", 40000, 4), {"kind": "rows", "BLOCK": 65536, "ROWS": 1, "MASK_COLS": True,
                                     "num_warps": 32, "CTAS": 1})
    with pytest.raises(ValueError, match="hidden 40000 > 32768 needs kind 'long'"):
        rms.rmsnorm_backward(x, x, w)
    with pytest.raises(ValueError, match="hidden 40000 > 32768 needs kind 'long'"):
        ln.layernorm_backward(x, x, w)
    y = torch.randn(2, 300)
    override(rms, ("bwd", 300, 4), {**LONG_SMALL, "BLOCK": 48})
    override(ln, ("bwd", 300, 4), {**LONG_SMALL, "BLOCK": 48})
    with pytest.raises(ValueError, match="BLOCK must be a power of two >= 16, got 48"):
        rms.rmsnorm_backward(y, y, torch.ones(300))
    with pytest.raises(ValueError, match="BLOCK must be a power of two >= 16, got 48"):
        ln.layernorm_backward(y, y, torch.ones(300))
    with pytest.raises(ValueError, match="programs must be a positive int, got 0"):
        rms.rmsnorm_backward(y, y, torch.ones(300), programs=0)
    with pytest.raises(ValueError, match="programs must be a positive int, got 0"):
        ln.layernorm_backward(y, y, torch.ones(300), programs=0)


@pytest.mark.parametrize("rows,hidden,kind", [(3, 5120, "chunked"), (2, 7168, "chunked"), (5, 768, "split"),
                                              (3, 9000, "masked"), (4, 4097, "chunked"), (70, 600, "masked"),
                                              (3, 3072, "split"), (14, 2496, "masked"), (9, 1252, "masked")])
def test_non_power_of_two_forward_vs_float64_and_row_independent(override, rows, hidden, kind):
    """Rows that are not a power of two, whose masked block would waste more than an eighth:
    held as two power-of-two pieces where they are two (kind "split"), as the masked block
    where a third, masked piece would be needed (sweeps 6-7), between 4096 and 8192 for 2-byte
    types the masked block of 8192 for even rows (sweeps 11-13) and the aligned loop for odd ones
    (RMSNorm in 4096-element chunks, LayerNorm in 2048), the masked block for float32 (sweep 8); the result matches
    float64, the masked-block kernel to rounding, and a row alone bit for bit."""
    for cfg, es, mod in ((rms.fwd_config(hidden, 4), 4, rms), (ln.fwd_config(hidden, 4), 4, ln),
                         (ln.fwd_config(hidden, 2), 2, ln), (rms.fwd_config(hidden, 2), 2, rms)):
        if kind == "masked" or (kind == "chunked" and (es == 4 or hidden % 2 == 0)):
            assert cfg["kind"] == "rows" and cfg["MASK_COLS"]
        else:
            assert cfg["kind"] == kind
    if kind == "split":
        b1, b2, b3 = rms.split_pieces(hidden)
        assert b1 + b2 == hidden and b3 == 0 and all(v & (v - 1) == 0 for v in (b1, b2))
    g = torch.Generator().manual_seed(rows + hidden)
    x = torch.randn(rows, hidden, generator=g) + 1.0
    w = torch.rand(hidden, generator=g) + 0.5
    b = torch.randn(hidden, generator=g)
    y, rstd = rms.rmsnorm(x, w, 1e-6, return_rstd=True)
    yr, rr = _rms64(x, w)
    _close(y, yr, 1e-5)
    _close(rstd, rr, 1e-6)
    yl, mean, lrstd = ln.layernorm(x, w, b, 1e-5, return_stats=True)
    ylr, mr, lrr = _ln64(x, w, b)
    _close(yl, ylr, 1e-5)
    _close(mean, mr, 1e-6)
    _close(lrstd, lrr, 1e-5)
    r = rows // 2
    assert torch.equal(rms.rmsnorm(x[r:r + 1], w)[0], y[r])
    assert torch.equal(ln.layernorm(x[r:r + 1], w, b)[0], yl[r])
    masked = {"kind": "rows", "BLOCK": 1 << (hidden - 1).bit_length(), "ROWS": 1, "MASK_COLS": True, "num_warps": 8,
              "LATE_W": False}
    override(rms, ("fwd", hidden, 4), masked)
    override(ln, ("fwd", hidden, 4), masked)
    torch.testing.assert_close(rms.rmsnorm(x, w), y, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(ln.layernorm(x, w, b), yl, rtol=1e-6, atol=1e-6)


def test_bad_input_gets_a_clear_message():
    x = torch.randn(3, 8)
    with pytest.raises(ValueError, match="weight must be 1-D of size hidden=8"):
        rms.rmsnorm(x, torch.ones(7))
    with pytest.raises(ValueError, match="dy must match x"):
        rms.rmsnorm_backward(torch.randn(3, 9), x, torch.ones(8))
    with pytest.raises(ValueError, match="give both mean and rstd"):
        ln.layernorm_backward(x, x, torch.ones(8), torch.zeros(3), None)
    with pytest.raises(ValueError, match="unsupported dtype"):
        rms.rmsnorm(x.double(), torch.ones(8))


def test_launch_configuration_follows_rules_not_a_table():
    """Every (hidden, element size) gets a configuration from the size-class rules; tiles stay
    around 4096 (forward) / 2048 (backward) elements, warps a power of two <= 32; split rows
    are exact power-of-two pieces; rows above _BWD_REG_ROW (12288 in both families) take the
    parts backward, 4 kB of each input a program on 4 warps; forward rows from 16384 to 32768 the
    chunked kernel (lab/norms/NOTES.md, sweeps 2-5); rows off 16-byte multiples the aligned loop
    where sweeps 9 and 10 measured it faster; 2-byte rows of two pieces above 8192 the chunked
    loop (sweep 10); LayerNorm's odd 2-byte rows between 4096 and 8192 the aligned loop in
    2048-element chunks; the even split-class ones there the masked block of 8192 on 8 warps
    (LayerNorm sweeps 11-12, RMSNorm sweeps 11 and 13)."""
    assert rms._BWD_REG_ROW == 12288 and ln._BWD_REG_ROW == 12288
    for n in (1, 7, 64, 128, 111, 512, 768, 1000, 2048, 3584, 4097, 4299, 4544, 5120, 5182, 5725, 7168, 7500, 7883,
              8192, 9000, 9216,
              10240, 10496, 12288, 12345, 16384, 20000, 28397, 32768, 40000, 40001):
        for es in (2, 4):
            for mod in (rms, ln):
                f = mod.fwd_config(n, es)
                bcfg = mod.bwd_config(n, es)
                assert 1 <= f["num_warps"] <= 32 and f["num_warps"] & (f["num_warps"] - 1) == 0
                split_class = n >= 512 and n & (n - 1) and ((1 << (n - 1).bit_length()) - n) * 8 > n
                odd = n % (16 // es) != 0
                if f.get("ALIGN"):
                    # rows off 16-byte multiples: the aligned loop (sweeps 9, 10) at 2 bytes, RMSNorm
                    # from 4096, LayerNorm above 8192; both families above 16384 at any type;
                    # 4096-element chunks on 8 warps below 16384
                    assert f["kind"] == "chunked" and odd
                    ln_odd = mod is ln and n % 2 and 4096 < n < 8192  # sweep 12
                    assert n > 16384 or (es == 2 and (n >= 4096 if mod is rms else (n > 8192 or ln_odd)))
                    want = (8192, 16) if n > 16384 else (2048, 8) if ln_odd else (4096, 8)
                    assert (f["BLOCK"], f["num_warps"]) == want
                    # unrolled: LayerNorm's 2-byte loops up to 16384 (sweep 15), by hidden and type
                    assert bool(f.get("UNROLL")) == (mod is ln and n <= 16384)
                elif f["kind"] == "chunked":
                    assert not (odd and n > 16384)
                    two_pieces = split_class and mod.split_pieces(n)[2] == 0
                    assert n > 16384 or (es == 2 and n > 8192 and two_pieces)
                    assert not f.get("UNROLL")  # no rule takes it (LayerNorm's did until sweeps 11-12)
                    if 8192 < n <= 16384:  # the split loop (sweep 10)
                        assert (f["BLOCK"], f["num_warps"]) == ((8192, 16) if mod is rms else (4096, 8))
                    elif n > 32768 or n < 8192:
                        assert f["BLOCK"] * es == (4096 if n < 8192 else 16384)
                        assert f["num_warps"] == (8 if n < 8192 else 16)
                    elif mod is rms:  # the whole row one chunk (sweep 5)
                        assert f["BLOCK"] == 1 << (n - 1).bit_length() and f["num_warps"] == 32
                    else:  # LayerNorm: 32 kB chunks
                        assert f["BLOCK"] * es == 32768 and f["num_warps"] == 16
                else:
                    assert f["BLOCK"] >= n and f["BLOCK"] & (f["BLOCK"] - 1) == 0
                    assert f["ROWS"] * f["BLOCK"] <= max(4096, f["BLOCK"])
                if f["kind"] == "split":
                    assert (f["B1"], f["B2"], f["B3"]) == mod.split_pieces(n)
                    assert f["B1"] + f["B2"] == n and f["B3"] == 0 and not f["MASK_COLS"]
                    assert n >= 512 and (f["BLOCK"] - n) * 8 > n
                    assert not 4096 < n < 8192 and not (es == 2 and n > 8192)
                elif f["kind"] == "rows":
                    # a third piece, or float32 between 4096 and 8192 (sweep 8), or the even 2-byte
                    # rows there (LayerNorm sweeps 11-12, RMSNorm 11 and 13: 8192 on 8 warps): the masked block
                    between = es == 2 and 4096 < n < 8192 and split_class
                    assert not split_class or mod.split_pieces(n)[2] != 0 or (es == 4 and 4096 < n < 8192) or between
                    # LayerNorm: 2 kB of a 2-byte tile per warp (1 kB for a lone row under 16 kB), 1 kB of
                    # float32; RMSNorm 1 kB; counted over the real row in the split class
                    lone_short = f["ROWS"] == 1 and f["BLOCK"] * es < 16384
                    per_warp = 2048 if (mod is ln and es == 2 and not lone_short) else 1024
                    real = n if split_class else f["BLOCK"]
                    # LayerNorm's float32 masked block of 16384: at most 16 warps (sweep 9)
                    cap = 16 if (es == 2 or (mod is ln and split_class and f["BLOCK"] == 16384)) else 32
                    want = max(1, min(cap, f["ROWS"] * real * es // per_warp))
                    if between:
                        assert (f["BLOCK"], f["ROWS"], f["num_warps"]) == (8192, 1, 8) and n % 2 == 0
                    else:
                        assert f["num_warps"] == 1 << (want.bit_length() - 1)
                    assert f["LATE_W"] is (mod is ln or (f["BLOCK"] in (4096, 8192) and not split_class))
                assert bcfg["kind"] == ("parts" if n > mod._BWD_REG_ROW else "rows")
                if bcfg["kind"] == "rows":
                    # one row a tile from 512 columns, 512-element tiles at 256, 1024 below (sweeps 6-7)
                    tile = bcfg["BLOCK"] if bcfg["BLOCK"] >= 512 else (512 if bcfg["BLOCK"] >= 256 else 1024)
                    tile = min(tile, 64 * bcfg["BLOCK"])  # at most 64 rows a tile
                    assert bcfg["ROWS"] * bcfg["BLOCK"] == tile
                    assert bcfg["num_warps"] == max(2, min(32, tile // 256))
                    assert mod.bwd_programs(10**6, bcfg, 132) <= 132 * 4
                    assert mod.bwd_programs(1, bcfg, 132) == 1
                else:
                    assert bcfg["BLOCK"] * es == 4096 and bcfg["num_warps"] == 4
                    assert bcfg["PARTS"] == -(-n // bcfg["BLOCK"]) and bcfg["MASK_COLS"] == (n % bcfg["BLOCK"] != 0)
                    lc = mod.long_config(n, es)
                    assert lc["BLOCK"] * es == 16384 and lc["num_warps"] * 32 * 16 == lc["BLOCK"] * es
                    c = mod.long_ctas(n, es, 132)
                    assert c in (1, 2, 4)
                    assert c == 1 or 132 * c * n * (4 + 2 * es) <= 24 * 2**20
    assert rms.split_pieces(5120) == (4096, 1024, 0) and rms.split_pieces(7168) == (4096, 2048, 1024)
    assert ln.split_pieces(768) == (512, 256, 0)


def test_sample_shapes_are_seeded_in_range_and_of_both_kinds():
    for pkg in (rms_pkg, ln_pkg):
        a = pkg.family.sample_shapes(40, 21)
        assert a == pkg.family.sample_shapes(40, 21) and a != pkg.family.sample_shapes(40, 22)
        assert {s.kind for s in a} == {"forward", "backward"}
        assert {s.dtype for s in a} == {"bfloat16", "float16", "float32"}
        for s in a:
            assert 1 <= s.sizes["rows"] <= 32768 and 128 <= s.sizes["hidden"] <= 32768
            assert s.sizes["rows"] * s.sizes["hidden"] <= 2**26
        assert any(s.sizes["hidden"] % 64 for s in a) and any(s.sizes["hidden"] % 64 == 0 for s in a)


@pytest.mark.parametrize("rows,hidden", [(3, 4096), (37, 128), (5, 100), (2, 8192)])
def test_late_weight_loads_change_no_bit(override, rows, hidden):
    """LATE_W (weight, and bias, loaded after the reductions) is the same arithmetic: bit for
    bit the result of the early loads, in both families."""
    g = torch.Generator().manual_seed(rows + 3 * hidden)
    x = torch.randn(rows, hidden, generator=g) + 0.5
    w = torch.rand(hidden, generator=g) + 0.5
    b = torch.randn(hidden, generator=g)
    for mod, call in ((rms, lambda: rms.rmsnorm(x, w)), (ln, lambda: ln.layernorm(x, w, b))):
        rule = mod.fwd_config(hidden, 4)
        assert rule["kind"] == "rows" and rule["LATE_W"] is (mod is ln or hidden in (4096, 8192))
        outs = []
        for late in (False, True):
            override(mod, ("fwd", hidden, 4), {**rule, "LATE_W": late})
            outs.append(call())
        assert torch.equal(outs[0], outs[1])
    _close(outs[1], _ln64(x, w, b)[0], 1e-5)


def test_layernorm_decode_rows_load_weight_early(override, monkeypatch):
    """LayerNorm's forward loads weight and bias with x at _EARLY_W_ROWS rows or fewer (LATE_W
    off) for rows of _EARLY_W_MIN elements or more, and at _EARLY_W_ROWS_LONG rows or fewer from
    _EARLY_W_LONG_MIN elements, after the reductions otherwise; an override is taken as it is;
    the bits do not move."""
    for n, es in ((5440, 2), (11200, 4), (4096, 2), (4100, 4), (1856, 2), (1024, 4)):
        rule = ln.fwd_config(n, es)
        assert rule["kind"] == "rows" and rule["LATE_W"] is True
        assert ln._fwd_cfg(n, es, 1)["LATE_W"] is False
        assert ln._fwd_cfg(n, es, ln._EARLY_W_ROWS) == {**rule, "LATE_W": False}
        assert ln._fwd_cfg(n, es) == rule
        long = n >= ln._EARLY_W_LONG_MIN
        few = ln._EARLY_W_ROWS_LONG if long else ln._EARLY_W_ROWS
        assert ln._fwd_cfg(n, es, ln._EARLY_W_ROWS + 1) == ({**rule, "LATE_W": False} if long else rule)
        assert ln._fwd_cfg(n, es, few)["LATE_W"] is False
        assert ln._fwd_cfg(n, es, few + 1) == rule
    # rows shorter than _EARLY_W_MIN (not measured) and other kinds keep the rule
    for n, es in ((100, 4), (1023, 2), (32768, 2)):
        assert ln._fwd_cfg(n, es, 1) == ln.fwd_config(n, es)
    assert ln.fwd_config(32768, 2)["kind"] != "rows"
    forced = {**ln.fwd_config(5440, 2), "LATE_W": True}
    override(ln, ("fwd", 5440, 2), forced)
    assert ln._fwd_cfg(5440, 2, 1) == forced
    seen = []
    real = ln._fwd_cfg
    monkeypatch.setattr(ln, "_fwd_cfg", lambda *a: seen.append(real(*a)) or seen[-1])
    g = torch.Generator().manual_seed(5)
    w, b = torch.rand(4100, generator=g) + 0.5, torch.randn(4100, generator=g)
    x = torch.randn(ln._EARLY_W_ROWS_LONG + 1, 4100, generator=g)
    many, some, few = ln.layernorm(x, w, b), ln.layernorm(x[:40], w, b), ln.layernorm(x[:3], w, b)
    assert [c["LATE_W"] for c in seen] == [True, False, False]
    assert torch.equal(many[:40], some) and torch.equal(many[:3], few)
    _close(few, _ln64(x[:3], w, b)[0], 1e-5)



def test_short_two_byte_rows_take_four_rows_a_program(override):
    """2-byte rows of 129-255 elements (a masked block of 256) take _SHORT_ROWS_2B rows a program
    on a quarter of the 16-row tile's warps, in both families; 128, 256, 257 and float32 rows keep
    the 4096-element tile. The 4-row tile computes the same rows correctly (float32 rows forced to
    it: the interpreter's 2-byte arithmetic is not reliable)."""
    # warps from the tile's bytes: 1 kB a warp in RMSNorm (8 for 16 rows), 2 kB in LayerNorm (4)
    for mod, warps in ((rms, 2), (ln, 1)):
        for n in (129, 213, 255):
            cfg = mod.fwd_config(n, 2)
            assert cfg["ROWS"] == mod._SHORT_ROWS_2B == 4 and cfg["BLOCK"] == 256 and cfg["MASK_COLS"]
            assert cfg["num_warps"] == warps
            # RMSNorm's load the weight after the reduction (LayerNorm's always do in "rows")
            assert cfg["LATE_W"] is True
            assert mod.fwd_config(n, 4)["ROWS"] == 16
        for n in (128, 256, 257):
            assert mod.fwd_config(n, 2)["ROWS"] == 4096 // mod.fwd_config(n, 2)["BLOCK"]
    assert rms.fwd_config(213, 4)["LATE_W"] is False and rms.fwd_config(448, 2)["LATE_W"] is False
    g = torch.Generator().manual_seed(11)
    x = torch.randn(9, 213, generator=g)
    w, b = torch.rand(213, generator=g) + 0.5, torch.randn(213, generator=g)
    override(rms, ("fwd", 213, 4), rms.fwd_config(213, 2))
    override(ln, ("fwd", 213, 4), ln.fwd_config(213, 2))
    _close(rms.rmsnorm(x, w), _rms64(x, w)[0], 1e-5)
    _close(ln.layernorm(x, w, b), _ln64(x, w, b)[0], 1e-5)

# the aligned forwards: `_fwd_chunked_aligned` (a chunked configuration's ALIGN) on small chunks,
# so that the interpreter runs full chunks, a ragged last one, tails and heads of every size;
# `_fwd_aligned` (kind "aligned") with several rows a program and a block wider than the row
ALIGNED_SMALL = {"kind": "chunked", "BLOCK": 64, "num_warps": 2, "ALIGN": 1}
ALIGNED_ROWS = {"kind": "aligned", "BLOCK": 512, "ROWS": 4, "num_warps": 4}


@pytest.mark.parametrize("cfg", [ALIGNED_SMALL, ALIGNED_ROWS], ids=["chunked", "rows"])
@pytest.mark.parametrize("rows,hidden", [(9, 301), (5, 257), (6, 3), (4, 66), (3, 128)])
def test_rmsnorm_aligned_forward(override, cfg, rows, hidden):
    override(rms, ("fwd", hidden, 4), cfg)
    g = torch.Generator().manual_seed(rows * 7 + hidden)
    x = torch.randn(rows, hidden, generator=g) + 0.25
    w = torch.rand(hidden, generator=g) + 0.5
    copies = (x.clone(), w.clone())
    y, rstd = rms.rmsnorm(x, w, 1e-6, return_rstd=True)
    ref, rref = _rms64(x, w)
    _close(y, ref, 1e-5)
    _close(rstd, rref, 1e-5)
    assert torch.equal(x, copies[0]) and torch.equal(w, copies[1])
    # whether the aligned kernel ran: only where rows do not all start on a 16-byte boundary
    assert rms._aligned_ok(x, y, hidden) == (hidden % 4 != 0)
    # a row's bits follow its position's head, not the number of rows after it
    r = rows - 2
    assert torch.equal(rms.rmsnorm(x[:r + 1], w, 1e-6)[r], y[r])
    # a strided view (row stride != hidden) takes the plain chunked kernel: same values
    wide = torch.randn(rows, hidden + 5, generator=g)
    view = wide[:, :hidden]
    assert not rms._aligned_ok(view, torch.empty(rows, hidden), hidden) or hidden + 5 == hidden
    _close(rms.rmsnorm(view, w, 1e-6), _rms64(view, w)[0], 1e-5)


@pytest.mark.parametrize("cfg", [ALIGNED_SMALL, ALIGNED_ROWS], ids=["chunked", "rows"])
@pytest.mark.parametrize("rows,hidden", [(9, 301), (5, 257), (6, 3), (4, 66), (3, 128)])
def test_layernorm_aligned_forward(override, cfg, rows, hidden):
    override(ln, ("fwd", hidden, 4), cfg)
    g = torch.Generator().manual_seed(rows * 11 + hidden)
    x = torch.randn(rows, hidden, generator=g) * 3 + 1.5
    w = torch.rand(hidden, generator=g) + 0.5
    b = torch.randn(hidden, generator=g)
    copies = (x.clone(), w.clone(), b.clone())
    y, mean, rstd = ln.layernorm(x, w, b, 1e-5, return_stats=True)
    ref, mref, rref = _ln64(x, w, b)
    _close(y, ref, 1e-5)
    _close(mean, mref, 1e-5)
    _close(rstd, rref, 1e-5)
    assert all(torch.equal(a, c) for a, c in zip((x, w, b), copies))
    assert ln._aligned_ok(x, y, hidden) == (hidden % 4 != 0)
    r = rows - 2
    assert torch.equal(ln.layernorm(x[:r + 1], w, b, 1e-5)[r], y[r])
    view = torch.randn(rows, hidden + 5, generator=g)[:, :hidden]
    _close(ln.layernorm(view, w, b, 1e-5), _ln64(view, w, b)[0], 1e-5)



@pytest.mark.parametrize("mod", ["rms", "ln"])
@pytest.mark.parametrize("hidden,block", [(300, 64), (256, 64), (70, 32)])
def test_unrolled_loop_gives_the_loops_bits(override, mod, hidden, block):
    """A chunked configuration's UNROLL unrolls the loops at compile time: the same operations in
    the same order, so under the interpreter y (and the statistics) bit for bit the loop's, against
    float64 too. On a GPU LayerNorm's may differ in the last bit (tests/gpu/test_norms_gpu.py)."""
    m = rms if mod == "rms" else ln
    g = torch.Generator().manual_seed(hidden + block)
    x = torch.randn(5, hidden, generator=g) * 2 + 0.5
    w = torch.rand(hidden, generator=g) + 0.5
    b = torch.randn(hidden, generator=g)

    def run():
        return m.rmsnorm(x, w, return_rstd=True) if m is rms else m.layernorm(x, w, b, 1e-5, return_stats=True)

    loop = {"kind": "chunked", "BLOCK": block, "num_warps": 2}
    override(m, ("fwd", hidden, 4), loop)
    base = run()
    override(m, ("fwd", hidden, 4), {**loop, "UNROLL": True})
    unrolled = run()
    assert all(torch.equal(u, v) for u, v in zip(base, unrolled))
    _close(unrolled[0], (_rms64(x, w) if m is rms else _ln64(x, w, b))[0], 1e-5)



@pytest.mark.parametrize("mod", ["rms", "ln"])
@pytest.mark.parametrize("hidden,block", [(301, 64), (257, 64), (70, 32), (63, 64)])
def test_unrolled_aligned_loop_gives_the_loops_bits(override, monkeypatch, mod, hidden, block):
    """The aligned loop with UNROLL (every chunk masked to the row's body, no branch) gives the
    rolled loop's bits and statistics under the interpreter, for rows of every head (their
    starts modulo 16 bytes), and takes the aligned kernel; against float64 too. (On a GPU
    LayerNorm's may differ in the last bit: tests/gpu/test_norms_gpu.py.)"""
    m = rms if mod == "rms" else ln
    g = torch.Generator().manual_seed(hidden * 3 + block)
    x = torch.randn(7, hidden, generator=g) * 2 + 0.5
    w = torch.rand(hidden, generator=g) + 0.5
    b = torch.randn(hidden, generator=g)

    def run():
        return m.rmsnorm(x, w, return_rstd=True) if m is rms else m.layernorm(x, w, b, 1e-5, return_stats=True)

    launched = _spy_aligned_loop(m, monkeypatch)
    loop = {"kind": "chunked", "BLOCK": block, "num_warps": 2, "ALIGN": 1}
    override(m, ("fwd", hidden, 4), loop)
    base = run()
    override(m, ("fwd", hidden, 4), {**loop, "UNROLL": True})
    unrolled = run()
    assert len(launched) == 2
    assert all(torch.equal(u, v) for u, v in zip(base, unrolled))
    _close(unrolled[0], (_rms64(x, w) if m is rms else _ln64(x, w, b))[0], 1e-5)


def _spy_aligned_loop(m, monkeypatch) -> list:
    """`m._fwd_chunked_aligned` wrapped so that each launch is recorded (its grid, in the list
    returned), then made."""
    launched = []
    real = m._fwd_chunked_aligned

    class Spy:
        def __getitem__(self, grid):
            launched.append(grid)
            return real[grid]

    monkeypatch.setattr(m, "_fwd_chunked_aligned", Spy())
    return launched


def _odd_rows(mod, seed, monkeypatch):
    """Three float32 rows of 16387 (off 16-byte multiples, above 16384: the rule's aligned loop),
    the family's call on them, its float64 reference, and the list of the aligned loop's launches
    (`_fwd_chunked_aligned` wrapped so that each launch is recorded, then made)."""
    m = rms if mod == "rms" else ln
    hidden = 16387
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(3, hidden, generator=g) * 2 + 0.5
    w = torch.rand(hidden, generator=g) + 0.5
    b = torch.randn(hidden, generator=g)

    def run(t):
        return m.rmsnorm(t, w) if m is rms else m.layernorm(t, w, b, 1e-5)

    launched = _spy_aligned_loop(m, monkeypatch)
    return m, x, run, (_rms64(x, w) if m is rms else _ln64(x, w, b))[0], launched


@pytest.mark.parametrize("mod", ["rms", "ln"])
def test_odd_rows_take_the_aligned_loop(mod, monkeypatch):
    """The rule's aligned loop for a row off 16-byte multiples (float32 16387: above 16384), against
    float64 and independent of the row count."""
    m, x, run, ref, launched = _odd_rows(mod, 5, monkeypatch)
    assert m.fwd_config(x.shape[1], 4).get("ALIGN") and not m.OVERRIDE
    y = run(x)
    _close(y, ref, 1e-5)
    assert launched, "the rule's ALIGN did not reach the aligned loop"
    assert torch.equal(run(x[:2])[1], y[1])  # row count


@pytest.mark.parametrize("mod", ["rms", "ln"])
def test_batch_invariant_mode_takes_the_plain_loop(mod, monkeypatch):
    """With BATCH_INVARIANT, rows off 16-byte multiples take the plain loop: a row alone (another
    offset modulo 16 bytes) has the same bits as inside the batch, and stays correct."""
    m, x, run, ref, launched = _odd_rows(mod, 6, monkeypatch)
    monkeypatch.setattr(m, "BATCH_INVARIANT", True)
    inv = run(x)
    _close(inv, ref, 1e-5)
    assert not launched
    assert torch.equal(run(x[1:2])[0], inv[1])  # the row alone, 16387 x 4 bytes off: the same bits
