"""CPU tests of kernels/swiglu/kr_triton.py and kernels/rope/kr_triton.py under the Triton
interpreter (float32, small odd shapes), forward and backward, against the float64 references
of the families (kernels/swiglu/reference.py, kernels/rope/reference.py); and the references
against the eager baselines' formulas and autograd in float64.

TRITON_INTERPRET=1 is set before triton is imported and the modules are
imported through site_builder.runner.families.import_module; if another test module imported
the GPU build of Triton first, the file runs again in a fresh process, so they are interpreted.
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
    __file__, interpreted=True, timeout=600)



def _load(family, module):
    from site_builder.runner.families import import_module

    return import_module(family, module)


if not _IN_SUBPROCESS:
    sw = _load("swiglu", "kr_triton")
    swref = _load("swiglu", "reference")
    rp = _load("rope", "kr_triton")
    rpref = _load("rope", "reference")
    rpin = _load("rope", "inputs")

F32 = dict(atol=2e-6, rtol=1e-5)


def _close(out, ref, atol, rtol):
    err = (out.double() - ref).abs()
    bound = atol + rtol * ref.abs()
    assert bool((err <= bound).all()), f"max error {err.max().item():.3g} (bound at worst {bound.min().item():.3g})"


# ---- SwiGLU ---------------------------------------------------------------------------------

SW_SHAPES = [(1, 1), (1, 7), (3, 37), (5, 130), (17, 300), (2, 1031), (64, 96)]


@pytest.mark.parametrize("t,i", SW_SHAPES)
def test_swiglu_forward_backward_f32(t, i):
    g = torch.randn(t, i) * 4
    u = torch.randn(t, i)
    dy = torch.randn(t, i)
    _close(sw.swiglu_forward(g, u), swref.swiglu64(g, u), **F32)
    dg, du = sw.swiglu_backward(dy, g, u)
    rg, ru = swref.swiglu_backward64(dy, g, u)
    _close(dg, rg, **F32)
    _close(du, ru, **F32)
    assert dg.shape == du.shape == (t, i) and dg.dtype == torch.float32


@pytest.mark.parametrize("t,i", [(1, 5), (3, 37), (7, 260), (2, 1031)])
def test_swiglu_fused_layout_f32(t, i):
    gu = torch.randn(t, 2 * i) * 3
    dy = torch.randn(t, i)
    keep = gu.clone()
    y = sw.swiglu_fused_forward(gu)
    _close(y, swref.swiglu64(gu[:, :i], gu[:, i:]), **F32)
    d = sw.swiglu_fused_backward(dy, gu)
    rg, ru = swref.swiglu_backward64(dy, gu[:, :i], gu[:, i:])
    _close(d[:, :i], rg, **F32)
    _close(d[:, i:], ru, **F32)
    assert torch.equal(gu, keep), "gate_up was modified"
    ref = swref.reference({"dy": dy, "gate_up": gu.view(t, 2, i)}, {})["dgate_up"].view(t, 2 * i)
    _close(d, ref, **F32)


@pytest.mark.parametrize("t,i", [(3, 5723), (2, 5724), (1, 5722), (4, 1030)])
def test_swiglu_fused_access_widths_same_values(t, i):
    """The fused launch takes gate_up's start as the up half's base (offset I) and a constexpr
    access width A from I's alignment (odd 5723: 1; 5724 = 4 mod 8: 4; 5722, 1030 = 2 and 6 mod
    8: 2 bf16 elements). Only addresses depend on A: float32 against the reference, and in bf16
    the same bits as the separate layout on contiguous copies (a collapsed launch at A = 8)."""
    gu = torch.randn(t, 2 * i) * 3
    dy = torch.randn(t, i)
    _close(sw.swiglu_fused_forward(gu), swref.swiglu64(gu[:, :i], gu[:, i:]), **F32)
    ref = swref.reference({"dy": dy, "gate_up": gu.view(t, 2, i)}, {})["dgate_up"].view(t, 2 * i)
    _close(sw.swiglu_fused_backward(dy, gu), ref, **F32)
    gb, dyb = gu.to(torch.bfloat16), dy.to(torch.bfloat16)
    g, u = gb[:, :i].contiguous(), gb[:, i:].contiguous()
    assert torch.equal(sw.swiglu_fused_forward(gb), sw.swiglu_forward(g, u))
    assert torch.equal(sw.swiglu_fused_backward(dyb, gb), torch.cat(sw.swiglu_backward(dyb, g, u), dim=1))


class _Recorder:
    """Stands in for a kernel: keeps the arguments of each launch (nothing runs)."""

    def __init__(self, fn):
        self.names = [n for n in fn.arg_names]
        self.calls = []

    def __getitem__(self, grid):
        return lambda *args, **kw: self.calls.append({**dict(zip(self.names, args)), **kw})


def _check_access_width(call, pointers, n_rows):
    """A divides every address the kernel's rows start at: base / es + offset, and the row
    strides of a multi-row launch; each base plus its offset is the tensor's first element."""
    a = call["A"]
    assert a >= 1 and a & (a - 1) == 0
    for ptr, off, stride, t in pointers:
        base, es = call[ptr], call[ptr].element_size()
        assert base.data_ptr() + call[off] * es == t.data_ptr(), ptr
        assert base.data_ptr() % es == 0 and (base.data_ptr() // es + call[off]) % a == 0, (ptr, a)
        assert n_rows == 1 or call[stride] % a == 0, (ptr, a)
    return a


@pytest.mark.parametrize("t", [1, 6])
@pytest.mark.parametrize("i,want", [(5723, 1), (5722, 2), (1030, 2), (5724, 4), (5720, 8), (5728, 8)])
def test_swiglu_fused_launch_access_width(t, i, want, monkeypatch):
    """The width A the fused launch states with tl.multiple_of: the largest power of two up to
    16 bytes dividing I (the up half's offset from gate_up's start) and the row strides (I, 2I).
    The interpreter ignores the hint, so a width the addresses do not allow would pass every
    CPU test and fault (misaligned vectors) on a GPU: the invariant is checked on the host."""
    gu = torch.randn(t, 2 * i).to(torch.bfloat16)
    dy = torch.randn(t, i).to(torch.bfloat16)
    fwd, bwd = _Recorder(sw._fwd), _Recorder(sw._bwd)
    monkeypatch.setattr(sw, "_fwd", fwd)
    monkeypatch.setattr(sw, "_bwd", bwd)
    y = sw.swiglu_fused_forward(gu)
    d = sw.swiglu_fused_backward(dy, gu)
    (cf,), (cb,) = fwd.calls, bwd.calls
    assert cf["G"] is gu and cf["U"] is gu and (cf["og"], cf["ou"]) == (0, i)  # gate_up's start, offset I
    assert cb["DG"] is d and cb["DU"] is d and (cb["odg"], cb["odu"]) == (0, i)
    assert _check_access_width(cf, [("G", "og", "sg", gu[:, :i]), ("U", "ou", "su", gu[:, i:]),
                                     ("Y", "oy", "sy", y)], t) == want
    assert _check_access_width(cb, [("DY", "ody", "sdy", dy), ("G", "og", "sg", gu[:, :i]),
                                     ("U", "ou", "su", gu[:, i:]), ("DG", "odg", "sdg", d[:, :i]),
                                     ("DU", "odu", "sdu", d[:, i:])], t) == want


def test_swiglu_access_width_of_strided_views(monkeypatch):
    """Separate gate and up that are views: a 16-byte aligned root is their base (offsets from
    it); a root off that alignment, or so far before the view that its offset alone would need
    64-bit offsets, is not (the view is its own base, and its address bounds A). Values: the
    same bits as contiguous copies (a collapsed launch)."""
    big = torch.randn(5, 3 * 1024).to(torch.bfloat16)
    off3 = torch.empty(0, dtype=torch.bfloat16).set_(big.untyped_storage(), 3, (5, 2048), (2048, 1))  # 6 bytes in
    cases = [(big[:, 4:1028], big[:, 1036:2060], 4, big),   # row stride 3072, offsets 4 and 1036
             (big[:, 2:1026], big[:, 1032:2056], 2, big),
             (big[:, 8:1032], big[:, 1032:2056], 8, big),
             (off3[:, 1:1025], big[:, 4:1028], 4, None)]    # a root 6 bytes off: the view, 8 bytes in
    for g, u, _, _ in cases:
        assert torch.equal(sw.swiglu_forward(g, u), sw.swiglu_forward(g.contiguous(), u.contiguous()))
    fwd = _Recorder(sw._fwd)
    monkeypatch.setattr(sw, "_fwd", fwd)
    for g, u, want, g_base in cases:
        fwd.calls.clear()
        y = sw.swiglu_forward(g, u)
        (call,) = fwd.calls
        assert call["U"] is big and (call["G"] is g_base if g_base is not None else call["og"] == 0)
        a = _check_access_width(call, [("G", "og", "sg", g), ("U", "ou", "su", u), ("Y", "oy", "sy", y)], 5)
        assert a == want, (a, want)
    base, off, align = sw._aligned_base(big[:, 4:], 2, max_offset=3)
    assert base is not big and off == 0 and base.data_ptr() == big[:, 4:].data_ptr() and align == 4


def test_swiglu_strided_and_3d_views_f32():
    base = torch.randn(6, 2, 50)
    g = base[:, 0, :]          # row stride 100
    u = torch.randn(50, 6).t()  # not unit column stride: copied
    dy = torch.randn(2, 3, 50)  # leading dims collapse
    _close(sw.swiglu_forward(g, u), swref.swiglu64(g, u), **F32)
    g3 = torch.randn(2, 3, 50)
    u3 = torch.randn(2, 3, 50)
    dg, du = sw.swiglu_backward(dy, g3, u3)
    rg, ru = swref.swiglu_backward64(dy, g3, u3)
    assert dg.shape == (2, 3, 50)
    _close(dg, rg, **F32)
    _close(du, ru, **F32)


@pytest.mark.parametrize("cfg", [{"tile_bytes": 8192, "num_warps": 1}, {"tile_bytes": 4096, "num_warps": 2}])
@pytest.mark.parametrize("t,i,pad", [(37, 300, 20), (1, 70001, 0), (45, 61, 3)])
def test_swiglu_edge_tiles_masked_in_steps_f32(cfg, t, i, pad, monkeypatch):
    """Edge tiles run their masked path in SUB_R x SUB_C steps (one vector per thread): with
    one or two warps and large tiles an edge tile takes several steps, in rows and in columns.
    Two SMs, so the plan keeps large tiles at these small sizes (the values do not depend on it)."""
    monkeypatch.setattr(sw, "_sm_count", lambda device: 2)
    lc = sw.launch_config(t if pad else 1, i if pad else t * i, 4, 2, cfg)
    steps = (lc["BLOCK_R"] // lc["SUB_R"]) * (lc["BLOCK_C"] // lc["SUB_C"])
    assert steps > 1 and not lc["EVEN"], lc
    base = torch.randn(t, i + pad) * 4
    g = base[:, :i]                              # row stride i + pad: not collapsed when pad > 0
    u, dy = torch.randn(t, i), torch.randn(t, i)
    _close(sw.swiglu_forward(g, u, cfg=cfg), swref.swiglu64(g, u), **F32)
    dg, du = sw.swiglu_backward(dy, g, u, cfg=cfg)
    rg, ru = swref.swiglu_backward64(dy, g, u)
    _close(dg, rg, **F32)
    _close(du, ru, **F32)
    gu = torch.randn(t, 2 * i) * 3               # the fused layout: always [rows, I] tiles
    _close(sw.swiglu_fused_forward(gu, cfg=cfg), swref.swiglu64(gu[:, :i], gu[:, i:]), **F32)
    d = sw.swiglu_fused_backward(dy, gu, cfg=cfg)
    rg, ru = swref.swiglu_backward64(dy, gu[:, :i], gu[:, i:])
    _close(d[:, :i], rg, **F32)
    _close(d[:, i:], ru, **F32)


def test_swiglu_empty_and_bad_input():
    y = sw.swiglu_forward(torch.randn(0, 8), torch.randn(0, 8))
    assert y.shape == (0, 8)
    with pytest.raises(ValueError, match="shape"):
        sw.swiglu_forward(torch.randn(2, 8), torch.randn(2, 9))
    with pytest.raises(ValueError, match="even"):
        sw.swiglu_fused_forward(torch.randn(2, 7))
    with pytest.raises(ValueError, match="dtype"):
        sw.swiglu_forward(torch.randn(2, 8).double(), torch.randn(2, 8).double())


def test_swiglu_reference_against_eager_and_autograd_f64():
    g = torch.randn(9, 33, dtype=torch.float64) * 5
    u = torch.randn(9, 33, dtype=torch.float64)
    dy = torch.randn(9, 33, dtype=torch.float64)
    ref = swref.reference({"gate": g, "up": u}, {})
    torch.testing.assert_close(ref["y"], torch.nn.functional.silu(g) * u, rtol=1e-12, atol=1e-12)
    gg, uu = g.clone().requires_grad_(), u.clone().requires_grad_()
    (torch.nn.functional.silu(gg) * uu).backward(dy)
    back = swref.reference({"dy": dy, "gate": g, "up": u}, {})
    torch.testing.assert_close(back["dgate"], gg.grad, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(back["dup"], uu.grad, rtol=1e-12, atol=1e-12)
    # the eager baseline's backward formula (impl_eager.hf_swiglu_backward) is autograd's
    dup = dy * torch.nn.functional.silu(g)
    dgate = torch.ops.aten.silu_backward(dy * u, g)
    torch.testing.assert_close(dgate, gg.grad, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(dup, uu.grad, rtol=1e-12, atol=1e-12)


def test_swiglu_plan_is_a_model_not_a_table():
    # one-token calls still spread over many programs; big calls use 2 KB tiles, one 16-byte
    # vector per thread per tensor (1024 bf16 elements on 4 warps)
    small = sw.plan(1, 14336, 2, 132)
    assert small["programs"] >= 50 and small["BLOCK_R"] == 1
    big = sw.plan(1, 4096 * 14336, 2, 132)
    assert big["BLOCK_C"] * big["BLOCK_R"] * 2 == 2048 and big["num_warps"] == 4 and big["EVEN"]
    f32 = sw.plan(1, 4096 * 14336, 4, 132)
    assert f32["BLOCK_C"] == 512 and f32["num_warps"] == 4  # the same bytes and vectors in fp32
    # 11008 columns: the block that pads least, not the largest power of two
    odd = sw.plan(4096, 11008, 2, 132)
    padded = triton.cdiv(11008, odd["BLOCK_C"]) * odd["BLOCK_C"]
    assert (padded - 11008) / 11008 < 0.03
    # a collapsed contiguous call whose length no full tile divides keeps full tiles (the tail
    # masked), not the smallest block that happens to pad least
    for t, i in [(6042, 22592), (1467, 5376), (26454, 1282)]:
        p = sw.plan(1, t * i, 2, 132)
        assert p["BLOCK_C"] == 1024 and p["num_warps"] == 4 and not p["EVEN"], (t, i, p)
    # a one-row call with few programs per SM takes larger tiles on 8 warps, at least 3 per SM
    for t, i, block in [(233, 11501, 4096), (3108, 1088, 4096), (165, 5847, 2048)]:
        p = sw.plan(1, t * i, 2, 132)
        assert p["BLOCK_C"] == block and p["num_warps"] == 8 and p["programs"] >= 3 * 132, (t, i, p)
    # the edge tile's masked steps: one vector per thread
    assert sw.sub_tile(1, 4096, 2, 8) == {"SUB_R": 1, "SUB_C": 2048}
    assert sw.sub_tile(16, 64, 2, 4) == {"SUB_R": 16, "SUB_C": 64}


# ---- RoPE ----------------------------------------------------------------------------------

RP_SHAPES = [  # batch, heads_q, heads_kv, seq, head_dim, pos_batch
    (1, 3, 1, 5, 6, 1), (2, 4, 2, 3, 10, 2), (3, 5, 3, 1, 8, 3), (2, 7, 1, 4, 4, 1), (1, 2, 2, 9, 34, 1),
]


def _bshd(b, s, h, d):
    return torch.randn(b, s, h, d).transpose(1, 2)


@pytest.mark.parametrize("b,hq,hk,s,d,pb", RP_SHAPES)
def test_rope_forward_backward_f32(b, hq, hk, s, d, pb):
    q, k = _bshd(b, s, hq, d), _bshd(b, s, hk, d)
    cos, sin = torch.randn(pb, s, d), torch.randn(pb, s, d)  # arbitrary tables: both halves used
    qe, ke = rp.rope_forward(q, k, cos, sin)
    ref = rpref.reference({"q": q, "k": k, "cos": cos, "sin": sin}, {})
    _close(qe, ref["q_embed"], **F32)
    _close(ke, ref["k_embed"], **F32)
    assert qe.stride() == q.stride(), "the output takes the input's layout"
    dq, dk = rp.rope_backward(q, k, cos, sin)
    back = rpref.reference({"dq_embed": q, "dk_embed": k, "cos": cos, "sin": sin}, {})
    _close(dq, back["dq"], **F32)
    _close(dk, back["dk"], **F32)


def test_rope_contiguous_2d_tables_and_positions_f32():
    q = torch.randn(2, 3, 4, 8)
    k = torch.randn(2, 1, 4, 8)
    pos = torch.tensor([[5, 6, 7, 8], [100, 101, 102, 103]])
    cos, sin = rpin.rope_tables(pos, 8, torch.float32)
    qe, ke = rp.rope_forward(q, k, cos, sin)
    ref = rpref.reference({"q": q, "k": k, "cos": cos, "sin": sin}, {})
    _close(qe, ref["q_embed"], **F32)
    _close(ke, ref["k_embed"], **F32)
    c2, s2 = rpin.rope_tables(torch.arange(4), 8, torch.float32)  # [seq, head_dim]
    qe2, _ = rp.rope_forward(q, k, c2, s2)
    _close(qe2, rpref.reference({"q": q, "k": k, "cos": c2, "sin": s2}, {})["q_embed"], **F32)


def test_rope_bad_input():
    q, k = torch.randn(1, 2, 3, 8), torch.randn(1, 1, 3, 8)
    with pytest.raises(ValueError, match="cos/sin"):
        rp.rope_forward(q, k, torch.randn(4, 8), torch.randn(4, 8))
    with pytest.raises(ValueError, match="even"):
        rp.rope_forward(torch.randn(1, 2, 3, 7), torch.randn(1, 1, 3, 7), torch.randn(3, 7), torch.randn(3, 7))
    with pytest.raises(ValueError, match="k has shape"):
        rp.rope_forward(q, torch.randn(2, 1, 3, 8), torch.randn(3, 8), torch.randn(3, 8))


def test_rope_reference_against_eager_and_autograd_f64():
    q = torch.randn(2, 4, 5, 16, dtype=torch.float64)
    k = torch.randn(2, 2, 5, 16, dtype=torch.float64)
    cos, sin = rpin.rope_tables(torch.arange(5)[None].expand(2, 5), 16, torch.float64)
    def rotate_half(x):  # Transformers' Llama, verbatim
        x1 = x[..., : x.shape[-1] // 2]
        x2 = x[..., x.shape[-1] // 2 :]
        return torch.cat((-x2, x1), dim=-1)

    def hf(q, k):  # Transformers' apply_rotary_pos_emb, unsqueeze_dim=1
        c, s = cos.unsqueeze(1), sin.unsqueeze(1)
        return q * c + rotate_half(q) * s, k * c + rotate_half(k) * s

    ref = rpref.reference({"q": q, "k": k, "cos": cos, "sin": sin}, {})
    eq, ek = hf(q, k)
    torch.testing.assert_close(ref["q_embed"], eq, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(ref["k_embed"], ek, rtol=1e-12, atol=1e-12)
    qq, kk = q.clone().requires_grad_(), k.clone().requires_grad_()
    gq, gk = torch.randn_like(q), torch.randn_like(k)
    oq, ok = hf(qq, kk)
    torch.autograd.backward((oq, ok), (gq, gk))
    back = rpref.reference({"dq_embed": gq, "dk_embed": gk, "cos": cos, "sin": sin}, {})
    torch.testing.assert_close(back["dq"], qq.grad, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(back["dk"], kk.grad, rtol=1e-12, atol=1e-12)


def test_rope_plan_spreads_decode_over_the_sms():
    one = rp.plan(1, 32, 8, 128, 2, 132)
    assert one["programs"] == 40 and one["GQ"] == 1
    prefill = rp.plan(8192, 32, 8, 128, 2, 132)
    assert prefill["GQ"] == 32 and prefill["programs"] == 2 * 8192


def test_swiglu_eviction_hint_by_size():
    from site_builder.runner.families import import_module

    sw = import_module("swiglu", "kr_triton")
    assert sw.default_evict(0) == "evict_first"
    assert sw.default_evict(sw.EVICT_MAX_BYTES - 1) == "evict_first"
    assert sw.default_evict(sw.EVICT_MAX_BYTES) == ""
    assert sw.default_evict(2 << 30) == ""
