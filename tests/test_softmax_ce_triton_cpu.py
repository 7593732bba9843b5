"""CPU tests of kernels/softmax/kr_triton.py and kernels/cross_entropy/kr_triton.py under the
Triton interpreter (float32, small odd shapes, both layouts: whole rows and split rows).

TRITON_INTERPRET=1 is set before triton is imported, and private copies of the modules are
loaded by path; if another test module imported Triton compiled first, this file runs itself
again in a fresh process (as tests/test_kr_triton_cpu.py does).
"""

import math
import os
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"

import pytest  # noqa: E402
from triton_mode import triton_in_mode  # noqa: E402

torch = pytest.importorskip("torch")
triton = pytest.importorskip("triton")
pytest.importorskip("numpy")
F = torch.nn.functional

ROOT = Path(__file__).resolve().parents[1]
_IN_SUBPROCESS, test_cpu_suite_in_fresh_process, _only_subprocess_runner_here = triton_in_mode(
    __file__, interpreted=True, timeout=900)



def _load(family):
    from site_builder.runner.families import import_module

    return import_module(family, "kr_triton")


sm = _load("softmax") if not _IN_SUBPROCESS else None
ce = _load("cross-entropy") if not _IN_SUBPROCESS else None

# (rows, cols): whole rows (>= 132 rows, or short rows), and split rows (long rows, or few rows)
SHAPES = [(3, 1001), (140, 333), (5, 4097), (1, 40000), (2, 70001), (1, 9000), (133, 5000)]


def _rel(a, b):
    return ((a.double() - b).abs().max() / b.abs().max().clamp_min(1e-300)).item()


@pytest.mark.parametrize("rows,cols", SHAPES)
def test_softmax_forward_and_backward_match_float64(rows, cols):
    g = torch.Generator().manual_seed(rows * 100003 + cols)
    x = torch.randn(rows, cols, generator=g) * 3 + 5
    x[0, cols // 2] = -math.inf
    x0 = x.clone()
    y = sm.softmax_forward(x)
    assert torch.equal(x, x0) and y.dtype == x.dtype and y.shape == x.shape
    ref = torch.softmax(x.double(), -1)
    assert _rel(y, ref) < 1e-6
    assert y[0, cols // 2] == 0
    dy = torch.randn(rows, cols, generator=g)
    y0, dy0 = y.clone(), dy.clone()
    dx = sm.softmax_backward(y, dy)
    assert torch.equal(y, y0) and torch.equal(dy, dy0)
    yd = y.double()
    dref = yd * (dy.double() - (yd * dy.double()).sum(-1, keepdim=True))
    assert _rel(dx, dref) < 1e-5


def test_softmax_plan_splits_long_rows_only():
    assert sm.plan(1024, 32768)["SPLIT"] == 1
    assert sm.plan(32000, 4096)["SPLIT"] == 1
    assert sm.plan(32000, 4096, max_row=sm.MAX_ROW_BWD)["SPLIT"] == 4  # the backward holds two rows
    big = sm.plan(262144, 4096)
    assert big["SPLIT"] > 1 and big["BLOCK"] * big["SPLIT"] >= 262144 and big["BLOCK"] <= sm.SPLIT_BLOCK
    assert sm.plan(8192, 1)["SPLIT"] == 1  # a short row stays whole even alone (bits, not row count)
    for n, rows in [(128256, 8192), (151936, 64), (32000, 1), (4097, 5)]:
        p = sm.plan(n, rows)
        assert (p["SPLIT"] - 1) * p["BLOCK"] < n <= p["SPLIT"] * p["BLOCK"]  # no empty part
        assert p["SPLIT_P2"] >= p["SPLIT"] and p["num_warps"] in (1, 2, 4, 8, 16, 32)


@pytest.mark.parametrize("kind,max_row", [("forward", "MAX_ROW"), ("backward", "MAX_ROW_BWD")])
@pytest.mark.parametrize("elem", [2, 4])
def test_softmax_long_row_layout_follows_cols_only(kind, max_row, elem):
    """The one-read long-row layout: chosen exactly for rows over max_row, the same for every
    row count (a row's bits do not depend on the row count), parts of LONG[kind, elem]
    columns, SPLIT never above the SM count (the exchange's progress condition)."""
    limit = getattr(sm, max_row)
    block, warps = sm.LONG[(kind, elem)]
    for n in (limit + 1, 32000, 128256, 131071, 151936, 262144, 1 << 20, 3_000_001):
        cfgs = [sm.plan(n, rows, 132, None, elem, kind) for rows in (1, 2, 16, 64, 131, 4096, 10**6)]
        if n <= limit:  # whole rows (split only when the rows are too few): not this rule's
            assert cfgs[-1]["SPLIT"] == 1
            continue
        assert all(c == cfgs[0] for c in cfgs), (n, cfgs)
        c = cfgs[0]
        assert 1 < c["SPLIT"] <= 132 and c["SPLIT_P2"] >= c["SPLIT"]
        assert (c["SPLIT"] - 1) * c["BLOCK"] < n <= c["SPLIT"] * c["BLOCK"]
        if -(-n // block) <= 132:
            assert (c["BLOCK"], c["num_warps"]) == (min(block, triton.next_power_of_2(n)), warps)
    # fewer SMs: bigger parts, never more parts than SMs
    for sms in (1, 8, 16, 78):
        c = sm.plan(262144, 4096, sms, None, elem, kind)
        assert c["SPLIT"] <= max(sms, 1) and c["SPLIT"] * c["BLOCK"] >= 262144
    # rows at or below max_row with enough rows: one program per row, never the split
    for n in (1024, 8192, limit):
        assert sm.plan(n, 4096, 132, None, elem, kind)["SPLIT"] == 1


def test_softmax_narrow_rows_take_short_parts():
    """2-byte rows that move one element an access (g = 1) take LONG_NARROW's parts, forward and
    backward, the same for every row count; g 2 / 4 / 8, fp32 and an unknown g keep LONG's."""
    for kind, limit in (("forward", sm.MAX_ROW), ("backward", sm.MAX_ROW_BWD)):
        block, warps = sm.LONG_NARROW[(kind, 2)]
        for n in (limit + 1, 71107, 113819, 262143):
            cfgs = [sm.plan(n, rows, 132, None, 2, kind, 1) for rows in (1, 16, 4096)]
            assert all(c == cfgs[0] for c in cfgs)
            assert (cfgs[0]["BLOCK"], cfgs[0]["num_warps"]) == (block, warps), (kind, n)
            assert (cfgs[0]["SPLIT"] - 1) * block < n <= cfgs[0]["SPLIT"] * block
            for g in (None, 2, 4, 8):
                p = sm.plan(n, 16, 132, None, 2, kind, g)
                assert (p["BLOCK"], p["num_warps"]) == sm.LONG[(kind, 2)], (kind, n, g)
            assert sm.plan(n, 16, 132, None, 4, kind, 1) == sm.plan(n, 16, 132, None, 4, kind)
        assert sm.plan(limit, 16, 132, None, 2, kind, 1)["SPLIT"] == 1  # whole rows: unchanged


def test_softmax_narrow_long_row_float64_and_row_bits():
    """An odd fp16 row over both whole-row limits (G = 1, LONG_NARROW's parts) under the
    interpreter: forward and backward against float64, and a row's bits alone as in the batch."""
    n = 32771
    assert sm.access_granularity(n, (n,), (torch.empty(1, n, dtype=torch.float16),)) == 1
    assert sm.plan(n, 3, 132, None, 2, "forward", 1)["BLOCK"] == sm.LONG_NARROW[("forward", 2)][0]
    g = torch.Generator().manual_seed(11)
    x = (torch.randn(3, n, generator=g) * 3).to(torch.float16)
    y = sm.softmax_forward(x)
    ref = torch.softmax(x.double(), -1)
    assert ((y.double() - ref).norm() / ref.norm()).item() < 2e-3
    assert torch.equal(sm.softmax_forward(x[1:2].clone()), y[1:2])
    dy = torch.randn(3, n, generator=g).to(torch.float16)
    dx = sm.softmax_backward(y, dy)
    yd, dyd = y.double(), dy.double()
    dref = yd * (dyd - (yd * dyd).sum(-1, keepdim=True))
    assert ((dx.double() - dref).norm() / dref.norm()).item() < 2e-3
    assert torch.equal(sm.softmax_backward(y[2:].clone(), dy[2:].clone()), dx[2:])


def test_softmax_one_element_rows_split_past_the_g1_limit(monkeypatch):
    """Rows read one element an access (G = 1) by `_fwd` / `_bwd` stay whole up to MAX_ROW_G1
    and split past it (the whole-row layouts spill there): an odd fp32 row of 9001 columns splits
    forward and backward (the aligned 2-byte forward keeps MAX_ROW), matches float64, and a row's
    bits are the same alone as in the batch; at G = 4 the same length stays whole."""
    seen = []
    orig = sm.plan
    monkeypatch.setattr(sm, "plan", lambda *a, **k: seen.append(orig(*a, **k)) or seen[-1])
    n = 9001
    assert sm.MAX_ROW_G1 < n <= sm.MAX_ROW_BWD
    g = torch.Generator().manual_seed(12)
    x = torch.randn(3, n, generator=g) * 4
    y = sm.softmax_forward(x)
    dy = torch.randn(3, n, generator=g)
    dx = sm.softmax_backward(y, dy)
    assert [c["SPLIT"] > 1 for c in seen] == [True, True]
    ref = torch.softmax(x.double(), -1)
    assert ((y.double() - ref).norm() / ref.norm()).item() < 1e-6
    yd, dyd = y.double(), dy.double()
    dref = yd * (dyd - (yd * dyd).sum(-1, keepdim=True))
    assert ((dx.double() - dref).norm() / dref.norm()).item() < 1e-6
    assert torch.equal(sm.softmax_forward(x[1:2].clone()), y[1:2])
    assert torch.equal(sm.softmax_backward(y[2:].clone(), dy[2:].clone()), dx[2:])
    seen.clear()
    sm.softmax_forward(torch.randn(2, 9004, generator=g))  # 16-byte rows: G = 4, whole
    sm.softmax_forward(torch.randn(2, 9001, generator=g).half())  # the aligned forward: whole
    assert [c["SPLIT"] for c in seen] == [1, 1]


@pytest.mark.parametrize("n", [1001, 40001])  # a whole row and a split one (over MAX_ROW)
def test_softmax_aligned_forward_bits_follow_the_values_only(n):
    """2-byte rows at G = 1 take `_fwd_aligned` (whole vectors from each row's first 16-byte
    boundary, the sum in fixed point): float64 agreement, -inf entries exact zeros, an all -inf
    row NaN, and one row's bits the same in the batch, alone, in a view whose base is off 16
    bytes, in a strided view and as the plain one-element-an-access forward's values."""
    g = torch.Generator().manual_seed(n)
    x = (torch.randn(6, n, generator=g) * 4).to(torch.float16)
    x[1, ::7] = -math.inf
    x[2] = -math.inf
    x[4, n // 2] = math.nan  # a NaN or a +inf: the whole row NaN, as torch.softmax
    x[5, n - 1] = math.inf
    y = sm.softmax_forward(x)
    assert torch.isnan(y[4]).all() and torch.isnan(y[5]).all()
    assert torch.isnan(torch.softmax(x[4:6].float(), -1)).all()
    ref = torch.softmax(x[[0, 1, 3]].double(), -1)
    got = y[[0, 1, 3]].double()
    assert ((got - ref).norm() / ref.norm()).item() < 2e-3
    assert (y[1, ::7] == 0).all() and torch.isnan(y[2]).all()
    def bits(t):  # NaN rows compare too
        return t.contiguous().view(torch.int16)

    for r in range(6):
        assert torch.equal(bits(sm.softmax_forward(x[r:r + 1].clone())), bits(y[r:r + 1])), r
    assert torch.equal(bits(sm.softmax_forward(x[1:])), bits(y[1:]))  # base 2n bytes on: Y's rows start elsewhere
    wide = torch.zeros(6, n + 3, dtype=torch.float16)
    wide[:, 1:n + 1] = x
    assert torch.equal(bits(sm.softmax_forward(wide[:, 1:n + 1])), bits(y))  # stride n + 3
    sm.ALIGNED_FWD = False
    try:
        plain = sm.softmax_forward(x)
    finally:
        sm.ALIGNED_FWD = True
    assert torch.allclose(plain[[0, 1, 3]].float(), y[[0, 1, 3]].float(), rtol=2e-3, atol=1e-6)


def test_fixed_scale_keeps_the_flag_bit_free():
    """n terms of at most scale + 1/2 stay below bit 62 (the exchange's flag)."""
    for n in (1, 2, 3, 1000, 32769, 1 << 18, (1 << 18) + 1, 3_000_001):
        s = sm._fixed_scale(n)
        assert n * (s + 0.5) < 2 ** 62 and s >= 2 ** 61 / (2 * n), n


PLAN_COLS = (1, 2, 100, 1021, 2048, 4097, 8192, 9000, 16383, 16384, 16385, 32000, 32003, 32768,
             32769, 65521, 128256, 131071, 151936, 262144, 1 << 20, 3_000_001)


@pytest.mark.parametrize("kind", ["forward", "backward"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_softmax_plan_does_not_depend_on_row_count(kind, dtype):
    """The layout (hence the reduction order, hence the bits of a row) is a function of
    (cols, dtype, kind, SM count): the same at 1, 7, 64, 4096 and 65536 rows, for whole rows
    and split rows alike, on the H200's 132 SMs and on smaller parts."""
    elem = torch.empty(0, dtype=dtype).element_size()
    limit = sm.MAX_ROW if kind == "forward" else sm.MAX_ROW_BWD
    for sms in (132, 78, 16):
        for n in PLAN_COLS:
            cfgs = [sm.plan(n, rows, sms, None, elem, kind) for rows in (1, 7, 64, 4096, 65536)]
            assert all(c == cfgs[0] for c in cfgs), (kind, dtype, sms, n, cfgs)
            assert sm.plan(n, sms=sms, elem_size=elem, kind=kind) == cfgs[0]  # rows not needed
            c = cfgs[0]
            assert (c["SPLIT"] == 1) == (n <= limit or c["BLOCK"] >= n), (n, c)
            assert (c["SPLIT"] - 1) * c["BLOCK"] < n <= c["SPLIT"] * c["BLOCK"]
            assert c["SPLIT"] <= sms and c["SPLIT_P2"] >= c["SPLIT"]


@pytest.mark.parametrize("cols", [4097, 9000])
def test_softmax_whole_rows_bits_do_not_depend_on_row_count(cols):
    """fp32 rows within the whole-row limit (which until 2026-12-02 split when the rows were
    few): the same bits alone, among 7 and among 140 rows, forward and backward."""
    g = torch.Generator().manual_seed(cols)
    x = torch.randn(140, cols, generator=g) * 4 - 3
    x[0, ::97] = -math.inf
    dy = torch.randn(140, cols, generator=g)
    y = sm.softmax_forward(x)
    assert _rel(y, torch.softmax(x.double(), -1)) < 1e-6
    dx = sm.softmax_backward(y, dy)
    for lo, hi in ((0, 1), (3, 10), (139, 140)):
        assert torch.equal(sm.softmax_forward(x[lo:hi].clone()), y[lo:hi]), (cols, lo, hi)
        assert torch.equal(sm.softmax_backward(y[lo:hi].clone(), dy[lo:hi].clone()), dx[lo:hi])


def test_softmax_long_rows_bits_do_not_depend_on_row_count():
    """The split layout (here the interpreter's two-phase form of it) gives a row the same bits
    alone and among others, and matches float64, with -inf entries, a part all -inf and an all
    -inf row."""
    n = sm.MAX_ROW + 7 * 1000 + 3  # 39771: 5 parts of 8192 (fp32: 10 of 4096)
    g = torch.Generator().manual_seed(31)
    x = torch.randn(4, n, generator=g) * 4 - 3
    x[0, ::97] = -math.inf
    x[1, 4096:8192] = -math.inf  # a whole part (fp32 4096-column parts) of -inf: its s_i is 0
    x[3] = -math.inf
    y = sm.softmax_forward(x)
    ref = torch.softmax(x[:3].double(), -1)
    assert _rel(y[:3], ref) < 1e-6
    assert (y[0, ::97] == 0).all() and (y[1, 4096:8192] == 0).all()
    assert torch.isnan(y[3]).all()
    for r in range(3):
        assert torch.equal(sm.softmax_forward(x[r:r + 1].clone()), y[r:r + 1])
    assert torch.equal(sm.softmax_forward(x[:2].clone()), y[:2])
    dy = torch.randn(3, n, generator=g)
    yy = y[:3].contiguous()
    dx = sm.softmax_backward(yy, dy)
    yd = yy.double()
    assert _rel(dx, yd * (dy.double() - (yd * dy.double()).sum(-1, keepdim=True))) < 1e-5
    assert torch.equal(sm.softmax_backward(yy[1:2].clone(), dy[1:2].clone()), dx[1:2])


def test_softmax_pair_slot_keeps_both_floats():
    """The forward's packed exchange word round-trips m_i (any float: -inf, negative, NaN)
    and s_i (+0, positive, NaN), and a published word is never the workspace's zero."""
    vals_m = torch.tensor([-math.inf, -3.5, 0.0, 7.25, 3e38, math.nan, -0.0, 1e-40])
    vals_s = torch.tensor([0.0, 1.0, 8191.99, 2.5e-30, 1e-42, math.nan, 4096.0, 1.0])
    mb = vals_m.view(torch.int32).to(torch.int64) << 32
    sb = (vals_s.view(torch.int32).to(torch.int64) & 0x7FFFFFFF) | 0x80000000
    word = mb | sb
    assert (word != 0).all() and ((word >> 31) & 1 == 1).all()
    back_m = (word >> 32).to(torch.int32).view(torch.float32)
    back_s = (word & 0x7FFFFFFF).to(torch.int32).view(torch.float32)
    assert torch.equal(back_m.view(torch.int32), vals_m.view(torch.int32))
    assert torch.equal(back_s[~vals_s.isnan()], vals_s[~vals_s.isnan()]) and back_s[vals_s.isnan()].isnan().all()


def test_softmax_edge_cases():
    assert sm.softmax_forward(torch.empty(0, 77)).shape == (0, 77)
    x = torch.full((2, 5000), -math.inf)
    x[1, 7] = 0.0
    y = sm.softmax_forward(x)
    ref = torch.softmax(x, -1)
    assert torch.isnan(y[0]).all() and torch.isnan(ref[0]).all()  # as torch: an all -inf row is NaN
    assert torch.equal(y[1], ref[1])
    big = torch.tensor([[3e38, 0.0, -3e38, 1e30]])  # very large logits stay finite
    assert torch.equal(sm.softmax_forward(big), torch.tensor([[1.0, 0.0, 0.0, 0.0]]))
    base = torch.randn(3, 2, 900)  # 3-D and strided rows
    view = base[:, :, :777]
    assert _rel(sm.softmax_forward(view), torch.softmax(view.double(), -1)) < 1e-6
    y = torch.softmax(view, -1)
    dy = torch.randn(3, 2, 777)
    yd = y.double()
    assert _rel(sm.softmax_backward(y, dy), yd * (dy - (yd * dy).sum(-1, keepdim=True))) < 1e-5
    with pytest.raises(ValueError, match="shapes differ"):
        sm.softmax_backward(torch.ones(2, 3), torch.ones(2, 4))
    with pytest.raises(ValueError, match="dtype"):
        sm.softmax_forward(torch.ones(2, 3, dtype=torch.float64))



def test_softmax_access_granularity():
    """G (kr_triton.access_granularity): the largest power of two up to a 16-byte vector that
    divides the row length and the strides, the base pointers aligned to it; the same for a
    view of some of the rows (a function of length, strides and pointers, not of the rows)."""
    g = sm.access_granularity
    for n, bf16, fp32 in ((23162, 2, 2), (23163, 1, 1), (32008, 8, 4), (4100, 4, 4), (4096, 8, 4),
                          (6, 2, 2), (1, 1, 1)):
        for dtype, want in ((torch.bfloat16, bf16), (torch.float32, fp32)):
            x = torch.empty(5, n, dtype=dtype)
            y = torch.empty(5, n, dtype=dtype)
            assert g(n, (n, n), (x, y)) == want, (n, dtype)
            for lo, hi in ((0, 1), (1, 2), (3, 5)):  # views of some rows: same G
                assert g(n, (n, n), (x[lo:hi], y)) == want, (n, dtype, lo, hi)
    x = torch.empty(4, 23170, dtype=torch.bfloat16)
    assert g(23160, (23170,), (x[:, :23160],)) == 2  # the stride limits it: 23170 = 2 * 11585
    assert g(23160, (23168,), (x[:, 8:23168],)) == 8
    assert g(23160, (23168,), (x[:, 2:23162],)) == 2  # a base 4 bytes off a 16-byte boundary
    assert g(23160, (23168,), (x[:, 1:23161],)) == 1  # one element off
    y, dy = torch.empty(3, 4100), torch.empty(3, 4100, dtype=torch.bfloat16)
    assert g(4100, (4100, 4100), (y, dy)) == 4  # mixed dtypes: up to the narrowest's vector


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
@pytest.mark.parametrize("rows,cols", [(3, 4100), (2, 23162), (4, 4098)])
def test_softmax_even_lengths_match_float64_at_every_access_width(dtype, rows, cols):
    """Even lengths that are not a multiple of a 16-byte vector (G = 2 or 4; 23162's backward is
    split), as contiguous rows, as a strided view (G = 2) and as one whose base is one element
    off (G = 1): float64 from each, and the same bits for a view of some of the rows."""
    g = torch.Generator().manual_seed(cols + rows)
    base = (torch.randn(rows, cols + 10, generator=g) * 3).to(dtype)
    x = base[:, 8:cols + 8].contiguous()
    dy = torch.randn(rows, cols, generator=g).to(dtype)
    tol = 1e-6 if dtype == torch.float32 else 8e-3
    views = {"contig": x, "strided": base[:, 8:cols + 8], "off-by-one": base[:, 1:cols + 1]}
    assert sm.access_granularity(cols, (cols,), (x,)) >= 2
    assert sm.access_granularity(cols, (cols + 10,), (views["strided"],)) == 2
    assert sm.access_granularity(cols, (cols + 10,), (views["off-by-one"],)) == 1
    for name, v in views.items():
        want = torch.softmax(v.double(), -1)
        y = sm.softmax_forward(v)
        assert _rel(y, want) < tol, name
        yd = y.double()
        dx = sm.softmax_backward(y, dy)
        assert _rel(dx, yd * (dy.double() - (yd * dy.double()).sum(-1, keepdim=True))) < 10 * tol, name
    y = sm.softmax_forward(x)
    assert torch.equal(sm.softmax_forward(x[1:]), y[1:])  # a view of some rows (not a copy): its G
    dx = sm.softmax_backward(y, dy)
    assert torch.equal(sm.softmax_backward(y[1:], dy[1:]), dx[1:])


def _ce_ref(x, t, ii=-100):
    xg = x.double().clone().requires_grad_(True)
    loss = F.cross_entropy(xg, t, ignore_index=ii)
    (g,) = torch.autograd.grad(loss, xg)
    return loss.detach(), g


@pytest.mark.parametrize("rows,cols", SHAPES)
def test_cross_entropy_matches_float64(rows, cols):
    g = torch.Generator().manual_seed(rows * 7919 + cols)
    x = torch.randn(rows, cols, generator=g) * 2 - 4
    t = torch.randint(0, cols, (rows,), generator=g)
    if rows > 2:
        t[1] = -100
    x[0, (int(t[0]) + 1) % cols] = -math.inf
    x0, t0 = x.clone(), t.clone()
    loss_ref, g_ref = _ce_ref(x, t)
    loss = ce.cross_entropy(x, t)
    assert loss.shape == () and loss.dtype == x.dtype
    assert abs(loss.item() - loss_ref.item()) <= 1e-5 * abs(loss_ref.item())
    loss2, dx = ce.cross_entropy_fwd_bwd(x, t)
    assert torch.equal(x, x0) and torch.equal(t, t0), "inputs modified"
    assert abs(loss2.item() - loss_ref.item()) <= 1e-5 * abs(loss_ref.item())
    assert dx.dtype == x.dtype and _rel(dx, g_ref) < 1e-5
    if rows > 2:
        assert torch.equal(dx[1], torch.zeros(cols))


def test_cross_entropy_plans():
    assert ce.plan_forward(128256, 8192)["SPLIT"] == 1
    few = ce.plan_forward(262144, 4)
    assert few["SPLIT"] > 1 and few["PART"] * few["SPLIT"] >= 262144
    try:
        ce.FWDBWD_FORCE = {"path": "exchange"}  # the exchange path, whatever the default
        block = ce.fwd_bwd_rule(2)["block"]
        assert ce.plan_fwd_bwd(16384, 8192)["SPLIT"] == 1
        assert ce.plan_fwd_bwd(32000, 8192)["SPLIT"] == -(-32000 // block)
        p = ce.plan_fwd_bwd(151936, 4096)
        assert p["SPLIT"] > 1 and (p["SPLIT"] - 1) * p["BLOCK"] < 151936 <= p["SPLIT"] * p["BLOCK"]
        ce.FWDBWD_FORCE = {"path": "rowloop"}  # one program a row, at any row count
        rblock = ce.fwd_bwd_rule(2)["rblock"]
        for rows in (1, 7, 4096):
            q = ce.plan_fwd_bwd(151936, rows)
            assert q["PATH"] == "rowloop" and q["SPLIT"] == 1 and q["BLOCK"] == rblock
    finally:
        ce.FWDBWD_FORCE = None


def test_cross_entropy_alt_path_by_vocab(monkeypatch):
    """`alt_from`: rows of at least that many columns take `alt_path`; a forced path holds at every
    vocabulary unless alt_from is forced with it."""
    rule = dict(ce.FWDBWD_RULE[2], path="rowloop", alt_path="exchange", alt_from=100000)
    monkeypatch.setitem(ce.FWDBWD_RULE, 2, rule)
    assert ce.plan_fwd_bwd(99999, 4096)["PATH"] == "rowloop"
    assert ce.plan_fwd_bwd(100000, 4096)["PATH"] == "exchange"
    assert ce.plan_fwd_bwd(262144, 4096, elem_size=2)["SPLIT"] > 1
    assert ce.plan_fwd_bwd(262144, 4096, path="rowloop")["PATH"] == "rowloop"
    try:
        ce.FWDBWD_FORCE = {"path": "rowloop"}
        assert ce.plan_fwd_bwd(262144, 4096)["PATH"] == "rowloop"
        ce.FWDBWD_FORCE = {"path": "rowloop", "alt_from": 5000}
        assert ce.plan_fwd_bwd(4999, 64)["PATH"] == "rowloop"
        assert ce.plan_fwd_bwd(5000, 64)["PATH"] == "exchange"
    finally:
        ce.FWDBWD_FORCE = None


def test_cross_entropy_exchange_register_cap(monkeypatch):
    """`xregs`: the exchange's launch carries ptxas' register cap (MAXNREG), which moves no
    arithmetic: the same loss and gradient bits as without it, against float64 too."""
    g = torch.Generator().manual_seed(4)
    x = torch.randn(3, 5000, generator=g) * 4
    t = torch.tensor([7, -100, 4999])
    try:
        ce.FWDBWD_FORCE = {"path": "exchange", "block": 1024, "max_row": 1024}
        plan = ce.plan_fwd_bwd(5000, 3, elem_size=4)
        assert plan["SPLIT"] > 1 and plan["MAXNREG"] == 0
        base = ce.cross_entropy_fwd_bwd(x, t)
        ce.FWDBWD_FORCE = {"path": "exchange", "block": 1024, "max_row": 1024, "xregs": 64}
        assert ce.plan_fwd_bwd(5000, 3, elem_size=4)["MAXNREG"] == 64
        capped = ce.cross_entropy_fwd_bwd(x, t)
    finally:
        ce.FWDBWD_FORCE = None
    assert torch.equal(base[0], capped[0]) and torch.equal(base[1], capped[1])
    loss_ref, g_ref = _ce_ref(x, t)
    assert abs(capped[0].item() - loss_ref.item()) < 1e-5 * abs(loss_ref.item()) and _rel(capped[1], g_ref) < 1e-5


def test_cross_entropy_register_cap_from_a_vocabulary(monkeypatch):
    """`xregs_from`: the rule's cap only on rows of at least that many columns; a forced `xregs`
    without a forced `xregs_from` applies at every vocabulary (as a forced path does)."""
    monkeypatch.setitem(ce.FWDBWD_RULE, 4, {**ce.FWDBWD_RULE[4], "path": "exchange", "block": 1024,
                                            "max_row": 1024, "xregs": 64, "xregs_from": 5000})
    assert ce.plan_fwd_bwd(4999, 3, elem_size=4)["MAXNREG"] == 0
    assert ce.plan_fwd_bwd(5000, 3, elem_size=4)["MAXNREG"] == 64
    try:
        ce.FWDBWD_FORCE = {"xregs": 72}
        assert ce.plan_fwd_bwd(2000, 3, elem_size=4)["MAXNREG"] == 72
        ce.FWDBWD_FORCE = {"xregs": 72, "xregs_from": 3000}
        assert ce.plan_fwd_bwd(2000, 3, elem_size=4)["MAXNREG"] == 0
    finally:
        ce.FWDBWD_FORCE = None


def test_cross_entropy_edge_cases():
    x = torch.randn(6, 3001)
    t = torch.full((6,), -100)
    loss, dx = ce.cross_entropy_fwd_bwd(x, t)  # every target ignored: as PyTorch, NaN and zeros
    loss_ref, g_ref = _ce_ref(x, t)
    assert math.isnan(loss.item()) and math.isnan(loss_ref.item()) and math.isnan(ce.cross_entropy(x, t).item())
    assert torch.equal(dx, torch.zeros_like(x)) and torch.equal(g_ref, torch.zeros_like(g_ref))
    t = torch.tensor([0, -1, 5, -1, 3000, 2])  # another ignore_index
    loss_ref, g_ref = _ce_ref(x, t, ii=-1)
    loss, dx = ce.cross_entropy_fwd_bwd(x, t, ignore_index=-1)
    assert abs(loss.item() - loss_ref.item()) < 1e-5 * loss_ref.item() and _rel(dx, g_ref) < 1e-5
    assert abs(ce.cross_entropy(x, t, ignore_index=-1).item() - loss_ref.item()) < 1e-5 * loss_ref.item()
    wide = torch.randn(5, 4000)  # strided rows: row stride 4000, vocab 3333
    view = wide[:, :3333]
    t = torch.tensor([1, 2, 3, 3332, 0])
    loss_ref, g_ref = _ce_ref(view, t)
    loss, dx = ce.cross_entropy_fwd_bwd(view, t)
    assert abs(loss.item() - loss_ref.item()) < 1e-5 * loss_ref.item() and _rel(dx, g_ref) < 1e-5
    assert dx.is_contiguous()
    x = torch.randn(3, 2000)
    x[0, 5] = 1e30  # very large logits: the row's loss is exact, no overflow
    x[2, :] = -1e30  # logits that dwarf log(vocab): the row's loss is still log(2000)
    t = torch.tensor([5, 7, 9])
    loss_ref, g_ref = _ce_ref(x, t)
    loss, dx = ce.cross_entropy_fwd_bwd(x, t)
    assert torch.isfinite(loss) and abs(loss.item() - loss_ref.item()) < 1e-5 * loss_ref.item()
    assert math.isnan(ce.cross_entropy(torch.empty(0, 10), torch.empty(0, dtype=torch.int64)).item())
    with pytest.raises(ValueError, match="int64"):
        ce.cross_entropy(x, t.int())


# fwd+bwd paths (issue 16): each forced candidate of lab/cross_entropy/sweep.py's kind, small
# enough for the interpreter (parts of 2048 / 1024 columns so that 5000-9000 columns split)
CE_PATHS = {
    "exchange-v1": {"path": "exchange", "pair": 0, "block": 8192, "warps": 16},
    "exchange-pair": {"path": "exchange", "pair": 1, "block": 2048, "warps": 4, "max_row": 2048},
    "exchange-exp1": {"path": "exchange", "pair": 1, "block": 2048, "warps": 4, "max_row": 2048, "xexp": 1},
    "twopass": {"path": "twopass", "lse_part": 2048, "lse_block": 1024, "gblock": 1024},
    "twopass-evict-fwd": {"path": "twopass", "lse_part": 4096, "gblock": 2048, "evict": 1, "reverse": 0},
    "rowloop": {"path": "rowloop", "rblock": 1024},
    "rowloop-ev": {"path": "rowloop", "rblock": 1024, "revict": 1},
    # rows on 16-byte boundaries (300 columns of fp32); others fall back to the row loop
    "pipe": {"path": "pipe", "pblock": 1024},
}


@pytest.fixture(params=sorted(CE_PATHS))
def ce_path(request, monkeypatch):
    monkeypatch.setattr(ce, "FWDBWD_FORCE", dict(CE_PATHS[request.param]))
    return request.param


@pytest.mark.parametrize("rows,cols", [(3, 1001), (5, 4097), (3, 9001), (133, 300)])
def test_cross_entropy_fwd_bwd_paths_match_float64(ce_path, rows, cols):
    g = torch.Generator().manual_seed(rows * 31 + cols)
    x = torch.randn(rows, cols, generator=g) * 3 - 2
    t = torch.randint(0, cols, (rows,), generator=g)
    t[1] = -100
    t[-1] = cols - 1  # the last column (a ragged last tile or chunk)
    x[0, (int(t[0]) + 1) % cols] = -math.inf
    x0, t0 = x.clone(), t.clone()
    loss_ref, g_ref = _ce_ref(x, t)
    loss, dx = ce.cross_entropy_fwd_bwd(x, t)
    assert torch.equal(x, x0) and torch.equal(t, t0), "inputs modified"
    assert loss.dtype == x.dtype and abs(loss.item() - loss_ref.item()) <= 1e-5 * abs(loss_ref.item())
    assert dx.dtype == x.dtype and _rel(dx, g_ref) < 1e-5
    assert torch.equal(dx[1], torch.zeros(cols)) and not torch.isnan(dx).any()


def test_cross_entropy_fwd_bwd_paths_edge_cases(ce_path):
    x = torch.randn(4, 5003)
    t = torch.full((4,), -100)
    loss, dx = ce.cross_entropy_fwd_bwd(x, t)  # all ignored: NaN loss, zero gradient
    assert math.isnan(loss.item()) and torch.equal(dx, torch.zeros_like(x))
    x = torch.randn(4, 5003)
    x[0, 17] = 1e30  # huge logit at the target: loss 0 there, gradient 0 there
    x[1, :] = -1e30  # every logit tiny: uniform softmax
    x[2, 4000] = 3e38  # near float32's largest, off target
    x[3, :2500] = -math.inf
    t = torch.tensor([17, 9, 5, 4999])
    loss_ref, g_ref = _ce_ref(x, t)
    loss, dx = ce.cross_entropy_fwd_bwd(x, t)
    assert torch.isfinite(loss) and abs(loss.item() - loss_ref.item()) <= 1e-5 * abs(loss_ref.item())
    assert _rel(dx, g_ref) < 1e-5 and torch.equal(dx[3, :2500], torch.zeros(2500))
    wide = torch.randn(3, 6000)  # strided rows, another ignore_index
    view = wide[:, :5001]
    t = torch.tensor([5000, -1, 0])
    loss_ref, g_ref = _ce_ref(view, t, ii=-1)
    loss, dx = ce.cross_entropy_fwd_bwd(view, t, ignore_index=-1)
    assert abs(loss.item() - loss_ref.item()) <= 1e-5 * loss_ref.item() and _rel(dx, g_ref) < 1e-5
    loss, dx = ce.cross_entropy_fwd_bwd(torch.empty(0, 7), torch.empty(0, dtype=torch.int64))
    assert math.isnan(loss.item()) and dx.shape == (0, 7)
    # the workspace is left zeroed: a second call gives the same bits
    x = torch.randn(3, 9001)
    t = torch.tensor([1, -100, 9000])
    a = ce.cross_entropy_fwd_bwd(x, t)
    b = ce.cross_entropy_fwd_bwd(x, t)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])


@pytest.mark.parametrize("name", ["twopass", "rowloop", "rowloop-ev", "pipe"])
def test_cross_entropy_stream_paths_bits_do_not_depend_on_row_count(name, monkeypatch):
    monkeypatch.setattr(ce, "FWDBWD_FORCE", dict(CE_PATHS[name]))
    plans = {tuple(sorted(ce.plan_fwd_bwd(150000, r).items())) for r in (1, 7, 132, 4096, 32768)}
    assert len(plans) == 1
    g = torch.Generator().manual_seed(5)
    x = torch.randn(9, 6007, generator=g)
    t = torch.full((9,), -100)
    t[4] = 77  # one counted row either way: the same divisor, so the same bits are expected
    loss9, dx9 = ce.cross_entropy_fwd_bwd(x, t)
    loss1, dx1 = ce.cross_entropy_fwd_bwd(x[4:5].clone(), t[4:5].clone())
    assert torch.equal(dx9[4], dx1[0]) and torch.equal(loss9, loss1)


def _count_pipe(monkeypatch):
    calls = []
    real = ce._pipe_launch
    monkeypatch.setattr(ce, "_pipe_launch", lambda *a, **k: (calls.append(a[0].shape), real(*a, **k))[1])
    return calls


@pytest.mark.parametrize("rows,cols", [(3, 5000), (9, 9000), (40, 2048), (1, 4)])
def test_cross_entropy_pipe_matches_float64(rows, cols, monkeypatch):
    """Path "pipe" on rows that start on 16-byte boundaries: several tiles a row (a ragged last
    one at 5000 and 9000 columns), ignored rows, -inf logits, huge logits, a strided view."""
    monkeypatch.setattr(ce, "FWDBWD_FORCE", {"path": "pipe", "pblock": 1024})
    calls = _count_pipe(monkeypatch)
    g = torch.Generator().manual_seed(rows + cols)
    x = torch.randn(rows, cols, generator=g) * 3
    t = torch.randint(0, cols, (rows,), generator=g)
    t[-1] = cols - 1
    if rows > 2:
        t[1] = -100
        x[0, :cols // 2] = -math.inf
        t[0] = cols - 2  # a finite target logit
        x[2, 3] = 3e38
    x0 = x.clone()
    loss_ref, g_ref = _ce_ref(x, t)
    loss, dx = ce.cross_entropy_fwd_bwd(x, t)
    assert calls == [(rows, cols)] and torch.equal(x, x0)
    assert abs(loss.item() - loss_ref.item()) <= 1e-5 * abs(loss_ref.item()) and _rel(dx, g_ref) < 1e-5
    assert not torch.isnan(dx).any()
    if rows > 2:
        assert not dx[1].any() and not dx[0, :cols // 2].any()
    wide = torch.randn(rows, cols + 64, generator=g)  # a row stride of cols + 64: still aligned
    view = wide[:, :cols]
    loss_ref, g_ref = _ce_ref(view, t)
    loss, dx = ce.cross_entropy_fwd_bwd(view, t)
    assert len(calls) == 2 and abs(loss.item() - loss_ref.item()) <= 1e-5 * abs(loss_ref.item())
    assert _rel(dx, g_ref) < 1e-5


@pytest.mark.parametrize("hold", [1, 2])
def test_cross_entropy_pipe_held_chunks_match_float64(hold, monkeypatch):
    """One tile a row (the interpreter's grid holds a chunk only then): the chunk held in
    registers (phold 1) or its exp (phold 2, one exp an element), an ignored row, a row of -1e30
    and a row of -inf but its target (the GPU test has tiles of -inf only beside finite ones)."""
    monkeypatch.setattr(ce, "FWDBWD_FORCE", {"path": "pipe", "pblock": 1024, "phold": hold})
    calls = _count_pipe(monkeypatch)
    g = torch.Generator().manual_seed(hold)
    x = torch.randn(6, 1000, generator=g) * 5
    t = torch.randint(0, 1000, (6,), generator=g)
    t[2] = -100
    x[3] = -1e30
    x[4, :999] = -math.inf
    t[4] = 999
    loss_ref, g_ref = _ce_ref(x, t)
    loss, dx = ce.cross_entropy_fwd_bwd(x, t)
    assert calls == [(6, 1000)] and ce.plan_fwd_bwd(1000, 6)["HOLD"] == hold
    assert abs(loss.item() - loss_ref.item()) <= 1e-5 * abs(loss_ref.item()) and _rel(dx, g_ref) < 1e-5
    assert not torch.isnan(dx).any() and not dx[2].any()


def test_cross_entropy_pipe_falls_back_on_unaligned_rows(monkeypatch):
    """Rows off a 16-byte boundary (an odd vocabulary, an odd row stride, an odd base) take the
    row loop, with the same results as forcing it."""
    monkeypatch.setattr(ce, "FWDBWD_FORCE", {"path": "pipe", "pblock": 1024})
    calls = _count_pipe(monkeypatch)
    g = torch.Generator().manual_seed(3)
    base = torch.randn(4 * 3001 + 1, generator=g)
    t = torch.tensor([5, -100, 2999, 0])
    for x in (base[:4 * 3001].view(4, 3001), base[1:4 * 3000 + 1].view(4, 3000),
              torch.randn(4, 3004, generator=g)[:, :3000].contiguous()[:, :2999]):
        got = ce.cross_entropy_fwd_bwd(x, t)
        monkeypatch.setattr(ce, "FWDBWD_FORCE", {"path": "rowloop"})
        want = ce.cross_entropy_fwd_bwd(x, t)
        monkeypatch.setattr(ce, "FWDBWD_FORCE", {"path": "pipe", "pblock": 1024})
        assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])
    assert calls == []
    assert ce.plan_fwd_bwd(5000, 3)["PATH"] == "pipe"
    assert ce.plan_fwd_bwd(5000, 3, path="rowloop")["PATH"] == "rowloop"


def test_cross_entropy_fwd_bwd_rule_and_override(monkeypatch):
    monkeypatch.setattr(ce, "FWDBWD_FORCE", None)
    monkeypatch.setenv("KR_CE_FWDBWD", "path=twopass,gblock=8192")
    p = ce.plan_fwd_bwd(128256, 4096)
    assert p["PATH"] == "twopass" and p["GBLOCK"] == 8192 and p["NBLK"] == 16
    monkeypatch.setenv("KR_CE_FWDBWD", "path=rowloop")
    assert ce.plan_fwd_bwd(128256, 4096)["PATH"] == "rowloop"
    monkeypatch.setenv("KR_CE_FWDBWD", "path=exchange,alt_path=rowloop,alt_from=100000")
    assert ce.plan_fwd_bwd(128256, 4096)["PATH"] == "rowloop" and ce.plan_fwd_bwd(32000, 4096)["PATH"] == "exchange"
    monkeypatch.setenv("KR_CE_FWDBWD", "blok=4")
    with pytest.raises(ValueError, match="KR_CE_FWDBWD"):
        ce.plan_fwd_bwd(128256, 4096)
    monkeypatch.setenv("KR_CE_FWDBWD", "path=fast")
    with pytest.raises(ValueError, match="path"):
        ce.plan_fwd_bwd(128256, 4096)
    monkeypatch.delenv("KR_CE_FWDBWD")
    for es in (2, 4):  # the default rule, whichever path it names: its launch at many rows
        rule = ce.fwd_bwd_rule(es)
        p = ce.plan_fwd_bwd(262144, 4096, elem_size=es)
        path = rule["alt_path"] if rule["alt_from"] and 262144 >= rule["alt_from"] else rule["path"]
        assert p["PATH"] == path, (es, p)
        if path == "exchange":  # parts of the rule's block
            assert p["BLOCK"] == rule["block"] and p["num_warps"] == rule["warps"]
            assert p["SPLIT"] * p["BLOCK"] >= 262144
        elif path == "rowloop":  # one program a row, chunks of rblock on rwarps
            assert p["SPLIT"] == 1 and p["BLOCK"] == rule["rblock"]
            assert p["num_warps"] == min(rule["rwarps"], max(1, rule["rblock"] // 256))
        else:  # twopass: parts of lse_part columns, gradient tiles of gblock
            assert p["GBLOCK"] == rule["gblock"] and p["NBLK"] * p["GBLOCK"] >= 262144
            assert p["SPLIT"] * p["PART"] >= 262144 and p["PART"] <= rule["lse_part"]


# Aligned rows (odd vocabularies): the forward and the row loop stream each contiguous row from
# its first 16-byte boundary (kr_triton._aligned); KR_CE_ALIGN=0 is the plain layout.
@pytest.mark.parametrize("rows,cols", [(9, 1001), (8, 4099), (5, 2053), (6, 3), (4, 12), (3, 1)])
def test_cross_entropy_aligned_rows_match_float64_and_the_plain_layout(rows, cols, monkeypatch):
    monkeypatch.setattr(ce, "FWDBWD_FORCE", {"path": "rowloop", "rblock": 1024})
    g = torch.Generator().manual_seed(rows * 13 + cols)
    x = torch.randn(rows, cols, generator=g) * 3 - 1
    t = torch.randint(0, cols, (rows,), generator=g)
    t[1] = -100
    t[0] = 0  # in row 0's body (row 0 starts on a boundary), then targets in the heads of others
    t[2:] = torch.arange(2, rows) % cols
    t[-1] = cols - 1  # the ragged last chunk
    if cols > 1:
        x[-1, 0] = -math.inf  # off the target: that row's loss stays finite
    loss_ref, g_ref = _ce_ref(x, t)
    got = {}
    for flag in ("0", "1"):
        monkeypatch.setenv("KR_CE_ALIGN", flag)
        x0 = x.clone()
        loss, dx = ce.cross_entropy_fwd_bwd(x, t)
        fwd = ce.cross_entropy(x, t)
        assert torch.equal(x, x0)
        for value in (loss, fwd):
            assert abs(value.item() - loss_ref.item()) <= 1e-5 * abs(loss_ref.item()), (flag, value, loss_ref)
        assert _rel(dx, g_ref) < 1e-5 and torch.equal(dx[1], torch.zeros(cols)) and not torch.isnan(dx).any()
        got[flag] = dx
    if cols % 4 == 0:  # every fp32 row starts on a 16-byte boundary: no head, the same bits
        assert torch.equal(got["0"], got["1"])


def test_cross_entropy_aligned_forward_split_rows(monkeypatch):
    """Few rows: the forward splits each row in parts; part 0 takes the head."""
    monkeypatch.setenv("KR_CE_ALIGN", "1")
    g = torch.Generator().manual_seed(11)
    x = torch.randn(3, 40003, generator=g)
    t = torch.tensor([1, 40002, 2])
    assert ce.plan_forward(40003, 3)["SPLIT"] > 1
    loss_ref, _ = _ce_ref(x, t)
    assert abs(ce.cross_entropy(x, t).item() - loss_ref.item()) <= 1e-5 * abs(loss_ref.item())
    view = torch.randn(3, 40010, generator=g)[:, 1:40004]  # strided rows keep the plain layout
    loss_ref, _ = _ce_ref(view, t)
    assert abs(ce.cross_entropy(view, t).item() - loss_ref.item()) <= 1e-5 * abs(loss_ref.item())


def test_cross_entropy_align_switch(monkeypatch):
    monkeypatch.delenv("KR_CE_ALIGN", raising=False)
    on = ce.ALIGN
    assert ce.align_vec(2, True, 1001) == (8 if on else 0) and ce.align_vec(4, False, 1001) == 0
    # rows that all start on a 16-byte boundary keep the plain layout (faster there on the H200)
    assert ce.align_vec(2, True, 4096) == 0 and ce.align_vec(4, True, 1000) == 0
    assert ce.align_vec(2, True, 4096, data_ptr=6) == (8 if on else 0)  # a misaligned base
    monkeypatch.setenv("KR_CE_ALIGN", "0")
    assert ce.align_vec(2, True, 1001) == 0
    monkeypatch.setenv("KR_CE_ALIGN", "1")
    assert ce.align_vec(4, True, 1001) == 4 and ce.align_vec(2, True, 1001) == 8
    assert ce.align_vec(2, True, 128256) == 0
    monkeypatch.setenv("KR_CE_ALIGN", "yes")
    with pytest.raises(ValueError, match="KR_CE_ALIGN='yes'"):
        ce.align_vec(2, True, 1001)


def test_cross_entropy_misaligned_base_takes_the_aligned_layout(monkeypatch):
    """An aligned vocabulary on a contiguous view whose base is off a 16-byte boundary: every
    row has a head; the result matches float64 and the plain layout."""
    monkeypatch.setattr(ce, "FWDBWD_FORCE", {"path": "rowloop", "rblock": 1024})
    g = torch.Generator().manual_seed(5)
    rows, cols = 6, 2048
    x = (torch.randn(rows * cols + 1, generator=g) * 2)[1:].view(rows, cols)
    assert x.stride(0) == cols and x.data_ptr() % 16 != 0
    assert ce.align_vec(4, True, cols, x.data_ptr()) == (4 if ce.ALIGN else 0)
    t = torch.tensor([0, 2047, 5, -100, 1, 3])
    loss_ref, g_ref = _ce_ref(x, t)
    for flag in ("0", "1"):
        monkeypatch.setenv("KR_CE_ALIGN", flag)
        loss, dx = ce.cross_entropy_fwd_bwd(x, t)
        assert abs(loss.item() - loss_ref.item()) <= 1e-5 * abs(loss_ref.item())
        assert abs(ce.cross_entropy(x, t).item() - loss_ref.item()) <= 1e-5 * abs(loss_ref.item())
        assert _rel(dx, g_ref) < 1e-5
