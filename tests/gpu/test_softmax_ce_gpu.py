"""GPU tests of kernels/softmax/kr_triton.py and kernels/cross_entropy/kr_triton.py (skipped
without CUDA): bf16, fp16 and fp32; odd and prime sizes; even sizes off a 16-byte multiple (wider
accesses); rows 0 and 1; strided views; very large and −inf logits; every target ignored; another
ignore_index; CUDA-graph capture of the split layout; run-to-run bit identity.

    python -m pytest -q tests/gpu/test_softmax_ce_gpu.py
"""

import math
from pathlib import Path

import pytest
from triton_mode import triton_in_mode

torch = pytest.importorskip("torch")
F = torch.nn.functional

ROOT = Path(__file__).resolve().parents[2]

if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

triton = pytest.importorskip("triton")
_IN_SUBPROCESS, test_gpu_suite_in_fresh_process, _only_subprocess_runner_here = triton_in_mode(
    __file__, interpreted=False, timeout=1800)



def _load(family):
    from site_builder.runner.families import import_module

    return import_module(family, "kr_triton")


sm = _load("softmax") if not _IN_SUBPROCESS else None
ce = _load("cross-entropy") if not _IN_SUBPROCESS else None

# relative error of the whole tensor (norm) and of every element, per output dtype
NORM_TOL = {torch.float32: 1e-6, torch.bfloat16: 4e-3, torch.float16: 5e-4}
ELEM_RTOL = {torch.float32: 1e-5, torch.bfloat16: 8e-3, torch.float16: 1e-3}
# bf16 and fp32 on every shape, fp16 on two (each layout and dtype is a separate compile)
CASES_DT = [torch.bfloat16, torch.float32]
# (rows, cols): whole rows and split rows; prime cols 1021, 32003, 131071; the vocabularies; even
# cols off a 16-byte multiple, moved G elements at a time (kr_triton.access_granularity): 23162
# (G = 2; the backward split), 32008 (bf16 G = 8, not a multiple of 16), 4100 (G = 4)
SM_SHAPES = [(1, 1021), (37, 32003), (1, 131071), (3, 128256), (64, 151936), (2, 262144), (300, 4096),
             (4096, 1024), (130, 32000), (64, 23162), (17, 32008), (9, 4100)]
CE_SHAPES = [(1, 32003), (300, 32000), (5, 131071), (257, 128256), (64, 151936), (3, 262144), (1024, 1021)]
_NAMES = {torch.bfloat16: "bf16", torch.float32: "fp32", torch.float16: "fp16"}


def _cases(shapes, extra):
    combos = [(d, r, c) for d in CASES_DT for r, c in shapes] + extra
    return [pytest.param(d, r, c, id=f"{_NAMES[d]}-{r}x{c}") for d, r, c in combos]


SM_CASES = _cases(SM_SHAPES, [(torch.float16, 37, 32003), (torch.float16, 3, 128256)])
CE_CASES = _cases(CE_SHAPES, [(torch.float16, 300, 32000), (torch.float16, 5, 131071)])


def relerr(a, b):
    return ((a.double() - b).norm() / b.norm().clamp_min(1e-300)).item()


#: fp16's subnormal spacing: probabilities of about 1/cols and gradients of about
#: 1/(vocab · n_valid) fall below fp16's smallest normal (6.1e-5), where the dtype itself has an
#: absolute resolution of 2^-24; bf16 and fp32 keep full relative precision down to 1e-38.
SUBNORMAL = {torch.float16: 2.0**-24, torch.bfloat16: 0.0, torch.float32: 0.0}


def elem_ok(out, ref, dtype, atol):
    atol = atol + SUBNORMAL[dtype]
    return bool(((out.double() - ref).abs() <= atol + ELEM_RTOL[dtype] * ref.abs()).all())


def norm_ok(out, ref, dtype, factor=1.0):
    """The whole tensor's relative error (not for fp16, whose subnormals dominate it)."""
    return dtype == torch.float16 or relerr(out, ref) < factor * NORM_TOL[dtype]


def logits(rows, cols, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = 2 * torch.randn(rows, cols, device="cuda", generator=g)
    x += 20 * torch.rand(rows, 1, device="cuda", generator=g) - 10
    return x.to(dtype), g


@pytest.mark.parametrize("dtype,rows,cols", SM_CASES)
def test_softmax_vs_float64_and_torch(dtype, rows, cols):
    x, g = logits(rows, cols, dtype, rows * 31 + cols)
    x[0, 3] = -math.inf
    xc = x.clone()
    y = sm.softmax_forward(x)
    torch.cuda.synchronize()
    assert torch.equal(x, xc) and y.dtype == dtype and torch.isfinite(y).all()
    ref = torch.softmax(x.double(), -1)
    assert norm_ok(y, ref, dtype) and elem_ok(y, ref, dtype, 1e-4 / cols)
    assert y[0, 3] == 0
    # against the PyTorch built-in: the same single rounding of a float32 result, so in bf16 and
    # fp16 bit-identical almost everywhere, in fp32 within float32 rounding
    yt = torch.softmax(x, -1)
    if dtype == torch.float32:
        torch.testing.assert_close(y, yt, rtol=1e-5, atol=1e-7 / cols)
    else:
        assert (y != yt).float().mean().item() < 0.05
    dy = torch.randn(rows, cols, device="cuda", generator=g).to(dtype)
    yc, dyc = y.clone(), dy.clone()
    dx = sm.softmax_backward(y, dy)
    assert torch.equal(y, yc) and torch.equal(dy, dyc)
    yd = y.double()
    dref = yd * (dy.double() - (yd * dy.double()).sum(-1, keepdim=True))
    assert norm_ok(dx, dref, dtype, 4.0) and elem_ok(dx, dref, dtype, 1e-3 / cols)
    assert torch.equal(sm.softmax_forward(x), y) and torch.equal(sm.softmax_backward(y, dy), dx)  # bit identical


def test_softmax_rows_0_1_strided_and_edge_values():
    assert sm.softmax_forward(torch.empty(0, 128256, device="cuda", dtype=torch.bfloat16)).shape == (0, 128256)
    base, _ = logits(6, 140000, torch.bfloat16, 5)
    view = base[::2, 1000:129256]  # strided rows, offset start: 3 x 128256
    assert relerr(sm.softmax_forward(view), torch.softmax(view.double(), -1)) < NORM_TOL[torch.bfloat16]
    one = base[:1, :32000]
    assert relerr(sm.softmax_forward(one), torch.softmax(one.double(), -1)) < NORM_TOL[torch.bfloat16]
    x = torch.full((3, 131071), -math.inf, device="cuda")
    x[1, 99] = 5.0
    x[2, :] = 3e38
    x[2, 7] = -3e38
    y = sm.softmax_forward(x)
    yt = torch.softmax(x, -1)
    assert torch.isnan(y[0]).all() and torch.isnan(yt[0]).all()  # an all -inf row: NaN, as torch
    assert torch.equal(y[1], yt[1])
    torch.testing.assert_close(y[2], yt[2])


def test_softmax_split_layout_in_a_cuda_graph():
    x, g = logits(2, 262144, torch.bfloat16, 9)
    assert sm.plan(262144, 2)["SPLIT"] > 1
    ref = sm.softmax_forward(x)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        sm.softmax_forward(x)  # warm-up
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            y = sm.softmax_forward(x)
    for _ in range(5):
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(y, ref)


# the one-read long-row layout (kr_triton.LONG, 2026-12-02): prime and vocabulary widths
LONG_CASES = [pytest.param(d, c, id=f"{_NAMES[d]}-{c}") for d in (torch.bfloat16, torch.float32)
              for c in (32003, 131071, 151936, 262144)]


@pytest.mark.parametrize("dtype,cols", LONG_CASES)
def test_softmax_long_rows_float64_and_bits_independent_of_row_count(dtype, cols):
    """Forward and backward of long rows: float64 reference (with -inf entries and a whole
    exchange part of -inf), and the same bits for a row alone, among 16 and among 1500 rows."""
    rows = 1500
    x, g = logits(rows, cols, dtype, cols + 7)
    x[0, ::101] = -math.inf
    x[1, 8192:16384] = -math.inf  # a whole part at every long-row layout of bf16 and fp32
    fwd = sm.plan(cols, rows, sm._sm_count(x.device), sm.MAX_ROW, x.element_size(), "forward")
    y = sm.softmax_forward(x)
    torch.cuda.synchronize()
    ref = torch.softmax(x[:8].double(), -1)
    assert norm_ok(y[:8], ref, dtype) and elem_ok(y[:8], ref, dtype, 1e-4 / cols)
    assert (y[0, ::101] == 0).all() and (y[1, 8192:16384] == 0).all()
    for lo, hi in ((0, 1), (1, 2), (5, 21), (rows - 1, rows)):
        assert torch.equal(sm.softmax_forward(x[lo:hi].clone()), y[lo:hi]), (lo, hi, fwd)
    dy = torch.randn(rows, cols, device="cuda", generator=g).to(dtype)
    dx = sm.softmax_backward(y, dy)
    yd = y[:8].double()
    dref = yd * (dy[:8].double() - (yd * dy[:8].double()).sum(-1, keepdim=True))
    assert norm_ok(dx[:8], dref, dtype, 4.0) and elem_ok(dx[:8], dref, dtype, 1e-3 / cols)
    for lo, hi in ((0, 1), (3, 19), (rows - 1, rows)):
        assert torch.equal(sm.softmax_backward(y[lo:hi].clone(), dy[lo:hi].clone()), dx[lo:hi])
    assert torch.equal(sm.softmax_forward(x), y) and torch.equal(sm.softmax_backward(y, dy), dx)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32], ids=["bf16", "fp32"])
def test_softmax_whole_rows_bits_independent_of_row_count(dtype):
    """Rows within the whole-row limit (forward 32768, backward 16384), which until 2026-12-02
    split across programs when the rows were few: the same bits alone, among 7 and 64 rows as
    among 4096, forward and backward (the layout is a function of cols, dtype and kind only)."""
    for cols in (4097, 9000, 16383, 32003):
        x, g = logits(4096, cols, dtype, cols)
        dy = torch.randn(4096, cols, device="cuda", generator=g).to(dtype)
        y = sm.softmax_forward(x)
        dx = sm.softmax_backward(y, dy)
        for lo, hi in ((0, 1), (9, 16), (100, 164), (4095, 4096)):
            assert torch.equal(sm.softmax_forward(x[lo:hi].clone()), y[lo:hi]), (cols, lo, hi)
            assert torch.equal(sm.softmax_backward(y[lo:hi].clone(), dy[lo:hi].clone()), dx[lo:hi]), (cols, lo, hi)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32], ids=["bf16", "fp32"])
def test_softmax_even_rows_bits_independent_of_row_count_and_views(dtype):
    """Even lengths off a 16-byte multiple, moved G elements at a time (G = 2 at 23162, 8 or 4 at
    32008, 4 at 4100): a row's bits are the same alone, among others, as a copy and as a view of
    some of the rows, whose base (x + lo rows) Triton may not see as 16-byte aligned (at 23162
    bf16 an odd lo is 4 bytes off one): the width follows G, which the view keeps."""
    for cols in (23162, 32008, 4100):
        x, g = logits(64, cols, dtype, cols + 1)
        dy = torch.randn(64, cols, device="cuda", generator=g).to(dtype)
        assert sm.access_granularity(cols, (cols, cols), (x, x[1:])) == (2 if cols == 23162 else 4 if cols == 4100
                                                                         else 16 // x.element_size())
        y = sm.softmax_forward(x)
        dx = sm.softmax_backward(y, dy)
        for lo, hi in ((0, 1), (1, 2), (5, 21), (63, 64)):
            assert torch.equal(sm.softmax_forward(x[lo:hi]), y[lo:hi]), (cols, lo, hi)
            assert torch.equal(sm.softmax_forward(x[lo:hi].clone()), y[lo:hi]), (cols, lo, hi)
            assert torch.equal(sm.softmax_backward(y[lo:hi], dy[lo:hi]), dx[lo:hi]), (cols, lo, hi)
            assert torch.equal(sm.softmax_backward(y[lo:hi].clone(), dy[lo:hi].clone()), dx[lo:hi]), (cols, lo, hi)


def test_softmax_long_rows_many_rows_complete_and_replay_in_a_cuda_graph():
    """4096 x 262144 bf16 (the workload furthest from the floor; 32 parts a row, 131072
    programs) completes; a graph of forward + backward over 1024 x 131071 replays bit-identical
    to the eager calls (the workspace is zero again after every call)."""
    big, _ = logits(4096, 262144, torch.bfloat16, 11)
    yb = sm.softmax_forward(big)
    torch.cuda.synchronize()
    idx = torch.tensor([0, 1, 2047, 4095], device="cuda")
    ref = torch.softmax(big[idx].double(), -1)
    assert norm_ok(yb[idx], ref, torch.bfloat16) and elem_ok(yb[idx], ref, torch.bfloat16, 1e-4 / 262144)
    del big, yb
    x, g = logits(1024, 131071, torch.bfloat16, 12)
    dy = torch.randn(1024, 131071, device="cuda", generator=g).to(torch.bfloat16)
    y_ref = sm.softmax_forward(x)
    dx_ref = sm.softmax_backward(y_ref, dy)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        sm.softmax_backward(sm.softmax_forward(x), dy)  # warm-up
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            y = sm.softmax_forward(x)
            dx = sm.softmax_backward(y, dy)
    for _ in range(5):
        y.fill_(float("nan"))
        dx.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(y, y_ref) and torch.equal(dx, dx_ref)
    assert torch.equal(sm.softmax_forward(x), y_ref)  # eager again after the replays


def ce_ref(x, t, ii=-100):
    xg = x.double().clone().requires_grad_(True)
    loss = F.cross_entropy(xg, t, ignore_index=ii)
    (gr,) = torch.autograd.grad(loss, xg)
    return loss.detach(), gr


@pytest.mark.parametrize("dtype,rows,vocab", CE_CASES)
def test_cross_entropy_vs_float64_and_torch(dtype, rows, vocab):
    x, g = logits(rows, vocab, dtype, rows * 17 + vocab)
    t = torch.randint(0, vocab, (rows,), device="cuda", generator=g)
    if rows > 4:
        t[torch.randperm(rows, device="cuda", generator=g)[: rows // 4]] = -100
    x[0, (int(t[0]) + 1) % vocab] = -math.inf
    xc, tc = x.clone(), t.clone()
    loss_ref, g_ref = ce_ref(x, t)
    loss = ce.cross_entropy(x, t)
    loss2, dx = ce.cross_entropy_fwd_bwd(x, t)
    torch.cuda.synchronize()
    assert torch.equal(x, xc) and torch.equal(t, tc)
    assert loss.dtype == dtype and loss.shape == () and dx.dtype == dtype
    lt = 1e-5 if dtype == torch.float32 else 4e-3  # one rounding of the loss to the dtype
    assert abs(loss.item() - loss_ref.item()) <= lt * abs(loss_ref.item())
    assert abs(loss2.item() - loss_ref.item()) <= lt * abs(loss_ref.item())
    n_valid = int((t != -100).sum())
    assert norm_ok(dx, g_ref, dtype) and elem_ok(dx, g_ref, dtype, 1e-4 / (vocab * n_valid))
    assert torch.equal(dx[t == -100], torch.zeros_like(dx[t == -100]))
    lt_, = (F.cross_entropy(x, t),)
    assert abs(lt_.item() - loss_ref.item()) <= 2e-2 * abs(loss_ref.item())  # PyTorch's own, for scale
    l3, dx3 = ce.cross_entropy_fwd_bwd(x, t)
    assert torch.equal(l3, loss2) and torch.equal(dx3, dx) and torch.equal(ce.cross_entropy(x, t), loss)


def test_cross_entropy_all_ignored_matches_pytorch():
    x, _ = logits(300, 128256, torch.bfloat16, 3)
    t = torch.full((300,), -100, device="cuda")
    xg = x.clone().requires_grad_(True)
    lt = F.cross_entropy(xg, t)
    (gt,) = torch.autograd.grad(lt, xg)
    loss, dx = ce.cross_entropy_fwd_bwd(x, t)
    assert math.isnan(lt.item()) and math.isnan(loss.item()) and math.isnan(ce.cross_entropy(x, t).item())
    assert torch.equal(dx, gt) and not dx.any()


def test_cross_entropy_rows_0_1_strided_ignore_index_and_edge_values():
    e = torch.empty(0, 32000, device="cuda", dtype=torch.bfloat16)
    te = torch.empty(0, dtype=torch.int64, device="cuda")
    assert math.isnan(ce.cross_entropy(e, te).item()) and math.isnan(F.cross_entropy(e, te).item())
    assert ce.cross_entropy_fwd_bwd(e, te)[1].shape == (0, 32000)
    base, g = logits(8, 140000, torch.bfloat16, 4)
    view = base[::2, :128256]  # strided rows
    t = torch.tensor([0, 128255, 5, -1], device="cuda")
    loss_ref, g_ref = ce_ref(view, t, ii=-1)
    loss, dx = ce.cross_entropy_fwd_bwd(view, t, ignore_index=-1)
    assert abs(loss.item() - loss_ref.item()) <= 4e-3 * loss_ref.item()
    assert relerr(dx, g_ref) < NORM_TOL[torch.bfloat16]
    assert abs(ce.cross_entropy(view, t, ignore_index=-1).item() - loss_ref.item()) <= 4e-3 * loss_ref.item()
    one = base[:1, :151936]
    t1 = torch.tensor([77], device="cuda")
    assert abs(ce.cross_entropy(one, t1).item() - ce_ref(one, t1)[0].item()) <= 4e-3 * ce_ref(one, t1)[0].item()
    x = torch.randn(4, 262144, device="cuda")
    x[0, 11] = 3e38  # very large logits: finite loss, no overflow (fp32 accumulation)
    x[1, :] = -1e30
    x[2, 100:] = -math.inf
    t = torch.tensor([11, 5, 50, 7], device="cuda")
    loss_ref, g_ref = ce_ref(x, t)
    loss, dx = ce.cross_entropy_fwd_bwd(x, t)
    assert torch.isfinite(loss) and abs(loss.item() - loss_ref.item()) <= 1e-5 * abs(loss_ref.item())
    assert relerr(dx, g_ref) < 1e-6
    assert abs(ce.cross_entropy(x, t).item() - loss_ref.item()) <= 1e-5 * abs(loss_ref.item())


def test_cross_entropy_split_layout_in_a_cuda_graph():
    x, g = logits(3, 262144, torch.bfloat16, 9)
    t = torch.tensor([1, -100, 262143], device="cuda")
    ref = ce.cross_entropy_fwd_bwd(x, t)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        ce.cross_entropy_fwd_bwd(x, t)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            out = ce.cross_entropy_fwd_bwd(x, t)
    for _ in range(5):
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out[0], ref[0]) and torch.equal(out[1], ref[1])


# every fwd+bwd path of lab/cross_entropy/sweep.py (forced through FWDBWD_FORCE), on a GPU
CE_PATHS = {
    "exchange-v1": {"path": "exchange", "pair": 0, "block": 8192, "warps": 16},
    "exchange-2k": {"path": "exchange", "pair": 1, "block": 2048, "warps": 4},
    "twopass": {"path": "twopass"},
    "twopass-evict": {"path": "twopass", "evict": 1, "reverse": 0, "gblock": 8192},
    "rowloop": {"path": "rowloop"},
    "rowloop-ev": {"path": "rowloop", "revict": 1},
    # the persistent pipeline: chunks held (the rule's), or read again; fp32 151937: the row loop
    "pipe": {"path": "pipe"},
    "pipe-reread-4k": {"path": "pipe", "pblock": 4096, "pwarps": 4, "pper": 4, "phold": 0},
    "pipe-exp": {"path": "pipe", "phold": 2},
    "exchange-exp1": {"path": "exchange", "pair": 1, "block": 4096, "warps": 4, "xexp": 1},
    "exchange-r64": {"path": "exchange", "pair": 1, "block": 4096, "warps": 4, "xregs": 64},
}


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_cross_entropy_exchange_register_cap_keeps_the_bits(dtype, monkeypatch):
    """`xregs` caps the exchange's registers (ptxas .maxnreg): the same loss and gradient bits as
    the uncapped launch, at 4096-column parts of a 262144 vocabulary and of an odd one."""
    for rows, vocab in ((64, 262144), (9, 131071)):
        x, g = logits(rows, vocab, dtype, rows * 7 + vocab)
        t = torch.randint(0, vocab, (rows,), device="cuda", generator=g)
        t[1] = -100
        out = []
        for cap in (0, 64):
            monkeypatch.setattr(ce, "FWDBWD_FORCE", {"path": "exchange", "block": 4096, "warps": 4, "xregs": cap})
            assert ce.plan_fwd_bwd(vocab, rows, elem_size=x.element_size())["MAXNREG"] == cap
            out.append(ce.cross_entropy_fwd_bwd(x, t))
        assert torch.equal(out[0][0], out[1][0]) and torch.equal(out[0][1], out[1][1]), (dtype, rows, vocab)


@pytest.mark.parametrize("name", sorted(CE_PATHS))
@pytest.mark.parametrize("dtype,rows,vocab", [(torch.bfloat16, 300, 128256), (torch.float32, 7, 151937),
                                              (torch.bfloat16, 140, 32000)])
def test_cross_entropy_fwd_bwd_paths(name, dtype, rows, vocab, monkeypatch):
    monkeypatch.setattr(ce, "FWDBWD_FORCE", dict(CE_PATHS[name]))
    x, g = logits(rows, vocab, dtype, rows + vocab)
    t = torch.randint(0, vocab, (rows,), device="cuda", generator=g)
    t[1] = -100
    t[-1] = vocab - 1
    x[0, (int(t[0]) + 1) % vocab] = -math.inf
    x[2, :8192] = -math.inf  # whole parts and tiles of -inf beside finite ones (no 0 * inf)
    t[2] = vocab - 2
    loss_ref, g_ref = ce_ref(x, t)
    loss, dx = ce.cross_entropy_fwd_bwd(x, t)
    lt = 1e-5 if dtype == torch.float32 else 4e-3
    assert abs(loss.item() - loss_ref.item()) <= lt * abs(loss_ref.item())
    n_valid = int((t != -100).sum())
    assert norm_ok(dx, g_ref, dtype) and elem_ok(dx, g_ref, dtype, 1e-4 / (vocab * n_valid))
    assert not dx[1].any()
    l2, dx2 = ce.cross_entropy_fwd_bwd(x, t)  # deterministic, workspace left clean
    assert torch.equal(l2, loss) and torch.equal(dx2, dx)
    if name.startswith("pipe") and rows > 5 and vocab % (16 // x.element_size()) == 0:
        # a row's bits do not depend on the row count (the grid, min(per SM x SMs, tiles),
        # differs): one counted row alone or among ignored ones. (An odd vocabulary takes the
        # row loop, whose bits follow a row's start modulo 16 bytes: `_aligned_rowloop`.)
        l1, dx1 = ce.cross_entropy_fwd_bwd(x[5:6].clone(), t[5:6].clone())
        l2, dx2 = ce.cross_entropy_fwd_bwd(x[:6].clone(), torch.cat([torch.full((5,), -100, device="cuda"), t[5:6]]))
        assert torch.equal(dx2[5], dx1[0]) and torch.equal(l2, l1)
    t[:] = -100
    l3, dx3 = ce.cross_entropy_fwd_bwd(x, t)
    assert math.isnan(l3.item()) and not dx3.any()


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("cols", [4097, 23163, 71107, 131071])
def test_softmax_odd_rows_aligned_forward_bits_in_views(dtype, cols):
    """2-byte rows of odd length run `_fwd_aligned` (whole vectors from each row's first 16-byte
    boundary, the sum in fixed point): float64 agreement, and a row's bits the same in the batch,
    alone, in a view whose base is off 16 bytes (Y's rows then start elsewhere: element stores),
    in a strided view, and in a batch of 3000 rows."""
    x, _ = logits(3000, cols, dtype, cols + 11)
    x[2, ::13] = -math.inf
    y = sm.softmax_forward(x)
    torch.cuda.synchronize()
    ref = torch.softmax(x[:8].double(), -1)
    assert norm_ok(y[:8], ref, dtype) and elem_ok(y[:8], ref, dtype, 1e-4 / cols)
    assert (y[2, ::13] == 0).all()
    for lo, hi in ((0, 1), (1, 2), (3, 20), (2999, 3000)):
        assert torch.equal(sm.softmax_forward(x[lo:hi].clone()), y[lo:hi]), (lo, hi)
    assert torch.equal(sm.softmax_forward(x[1:40]), y[1:40])
    wide = torch.zeros(40, cols + 5, device="cuda", dtype=dtype)
    wide[:, 3:cols + 3] = x[:40]
    assert torch.equal(sm.softmax_forward(wide[:, 3:cols + 3]), y[:40])
