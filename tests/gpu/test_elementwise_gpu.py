"""GPU tests of kernels/swiglu/kr_triton.py and kernels/rope/kr_triton.py (skipped without CUDA).

    python -m pytest -q tests/gpu/test_elementwise_gpu.py

bf16 and fp32, odd and prime sizes, tokens 0 and 1, strided and non-contiguous views (the fused
gate_up halves, a fused qkv projection's q and k), the fused layout at intermediate sizes of
each alignment (its access width: the same bits as the separate layout), large |x| for silu
(up to bf16's largest finite values: the same infinities and zeros as the eager code), RoPE at
decode with per-sequence positions, and the lean launch path giving the same bits as the normal one.
"""

from pathlib import Path

import pytest
from triton_mode import triton_in_mode

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

triton = pytest.importorskip("triton")
_IN_SUBPROCESS, test_gpu_suite_in_fresh_process, _only_subprocess_runner_here = triton_in_mode(
    __file__, interpreted=False, timeout=1800)



def _load(family, module):
    from site_builder.runner.families import import_module

    return import_module(family, module)


if not _IN_SUBPROCESS:
    sw = _load("swiglu", "kr_triton")
    swref = _load("swiglu", "reference")
    rp = _load("rope", "kr_triton")
    rpref = _load("rope", "reference")
    rpin = _load("rope", "inputs")

DEV = "cuda"
DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}
SW_TOL = {torch.bfloat16: (1e-3, 1.6e-2), torch.float32: (1e-6, 1e-5)}
RP_TOL = {torch.bfloat16: (5e-2, 1.6e-2), torch.float32: (2e-6, 1e-5)}
F = torch.nn.functional


def _close(out, ref, tol):
    atol, rtol = tol
    err = (out.double() - ref).abs()
    bad = err > atol + rtol * ref.abs()
    assert not bool(bad.any()), f"{int(bad.sum())} elements out of tolerance, max error {err.max().item():.3g}"


def _ulps_vs(a, b):
    """Largest distance in units in the last place between two same-dtype tensors."""
    if a.dtype == torch.float32:
        ai, bi = a.view(torch.int32).long(), b.view(torch.int32).long()
    else:
        ai, bi = a.view(torch.int16).long(), b.view(torch.int16).long()
    return int((ai - bi).abs().max().item()) if a.numel() else 0


# ---- SwiGLU --------------------------------------------------------------------------------

SW_SHAPES = [(0, 128), (1, 1), (1, 14336), (7, 11008), (3, 4099), (257, 18432), (1031, 1742)]  # last: full tiles + a tail


@pytest.mark.parametrize("dt", list(DTYPES))
@pytest.mark.parametrize("t,i", SW_SHAPES)
def test_swiglu_forward_backward(dt, t, i):
    dtype = DTYPES[dt]
    g = (torch.randn(t, i, device=DEV) * 3).to(dtype)
    u = torch.randn(t, i, device=DEV).to(dtype)
    dy = torch.randn(t, i, device=DEV).to(dtype)
    keep = (g.clone(), u.clone(), dy.clone())
    y = sw.swiglu_forward(g, u)
    _close(y, swref.swiglu64(g, u), SW_TOL[dtype])
    if dtype == torch.bfloat16:  # the eager rounding (silu rounded, then the product); fp32 differs in silu's formula
        assert _ulps_vs(y, F.silu(g) * u) <= 2, "forward follows the eager rounding"
    dg, du = sw.swiglu_backward(dy, g, u)
    rg, ru = swref.swiglu_backward64(dy, g, u)
    _close(dg, rg, SW_TOL[dtype])
    _close(du, ru, SW_TOL[dtype])
    assert all(torch.equal(a, b) for a, b in zip((g, u, dy), keep)), "inputs modified"


#: Fused intermediate sizes by I mod 8 (bf16 elements per 16 bytes), which set the launch's access
#: width A (kr_triton._launch): 5722 and 1030 (2 and 6 mod 8: 4-byte accesses), 5724 (4 mod 8:
#: 8 bytes), 5723 (odd: 2 bytes), 5720 (8 mod 16: 16 bytes, where y and dy were 2 bytes before).
FUSED_WIDTHS = [(7, 5722), (5, 1030), (64, 5724), (1, 5724), (3, 5723), (33, 5720)]


@pytest.mark.parametrize("dt", list(DTYPES))
@pytest.mark.parametrize("t,i", [(0, 64), (1, 14336), (9, 11008), (33, 2048), *FUSED_WIDTHS])
def test_swiglu_fused_layout(dt, t, i):
    dtype = DTYPES[dt]
    gu = (torch.randn(t, 2 * i, device=DEV) * 3).to(dtype)
    dy = torch.randn(t, i, device=DEV).to(dtype)
    y = sw.swiglu_fused_forward(gu)
    gate, up = gu.chunk(2, dim=-1)
    _close(y, swref.swiglu64(gate, up), SW_TOL[dtype])
    d = sw.swiglu_fused_backward(dy, gu)
    ref = swref.reference({"dy": dy, "gate_up": gu.view(t, 2, i)}, {})["dgate_up"].view(t, 2 * i)
    _close(d, ref, SW_TOL[dtype])


@pytest.mark.parametrize("dt", list(DTYPES))
@pytest.mark.parametrize("t,i", FUSED_WIDTHS)
def test_swiglu_fused_access_width_keeps_the_bits(dt, t, i):
    """The fused launch loads from gate_up's start at offset I with accesses as wide as I allows
    (tl.multiple_of: a wrong width would be a misaligned vector access, which only a GPU shows).
    Only the addresses change with the width: the same bits as the separate layout on
    contiguous copies (one collapsed row, 16-byte accesses), forward and backward."""
    dtype = DTYPES[dt]
    gu = (torch.randn(t, 2 * i, device=DEV) * 3).to(dtype)
    dy = torch.randn(t, i, device=DEV).to(dtype)
    g, u = gu[:, :i].contiguous(), gu[:, i:].contiguous()
    assert torch.equal(sw.swiglu_fused_forward(gu), sw.swiglu_forward(g, u))
    dg, du = sw.swiglu_backward(dy, g, u)
    assert torch.equal(sw.swiglu_fused_backward(dy, gu), torch.cat((dg, du), dim=1))
    torch.cuda.synchronize()


@pytest.mark.parametrize("dt", list(DTYPES))
def test_swiglu_strided_views(dt):
    dtype = DTYPES[dt]
    big = torch.randn(37, 3 * 4099, device=DEV).to(dtype)
    g, u = big[:, :4099], big[:, 4099 + 7:2 * 4099 + 7]           # row stride 12297, odd offsets
    dy = torch.randn(4099, 37, device=DEV).to(dtype).t()              # column-major: copied
    _close(sw.swiglu_forward(g, u), swref.swiglu64(g, u), SW_TOL[dtype])
    dg, du = sw.swiglu_backward(dy, g, u)
    rg, ru = swref.swiglu_backward64(dy, g, u)
    _close(dg, rg, SW_TOL[dtype])
    _close(du, ru, SW_TOL[dtype])
    g3 = torch.randn(2, 5, 1031, device=DEV).to(dtype)                 # leading dims collapse
    u3 = torch.randn(2, 5, 1031, device=DEV).to(dtype)
    y3 = sw.swiglu_forward(g3, u3)
    assert y3.shape == (2, 5, 1031)
    _close(y3, swref.swiglu64(g3, u3), SW_TOL[dtype])


@pytest.mark.parametrize("dt", list(DTYPES))
@pytest.mark.parametrize("cfg", [None, {"tile_bytes": 8192, "num_warps": 1}, {"tile_bytes": 16384, "num_warps": 2}])
@pytest.mark.parametrize("t,i,pad", [(37, 300, 20), (1, 70001, 0), (45, 61, 3), (3001, 4099, 5)])
def test_swiglu_edge_tiles_in_masked_steps(dt, cfg, t, i, pad):
    """Edge tiles (rows and columns past the tensor) run masked in SUB_R x SUB_C steps; with one
    or two warps and large tiles an edge tile takes several. Separate (strided: no collapse, and
    collapsed at pad 0) and fused layouts, forward and backward, against the float64 reference."""
    dtype = DTYPES[dt]
    base = (torch.randn(t, i + pad, device=DEV) * 3).to(dtype)
    g = base[:, :i]
    u, dy = torch.randn(t, i, device=DEV).to(dtype), torch.randn(t, i, device=DEV).to(dtype)
    _close(sw.swiglu_forward(g, u, cfg=cfg), swref.swiglu64(g, u), SW_TOL[dtype])
    dg, du = sw.swiglu_backward(dy, g, u, cfg=cfg)
    rg, ru = swref.swiglu_backward64(dy, g, u)
    _close(dg, rg, SW_TOL[dtype])
    _close(du, ru, SW_TOL[dtype])
    gu = (torch.randn(t, 2 * i, device=DEV) * 3).to(dtype)
    _close(sw.swiglu_fused_forward(gu, cfg=cfg), swref.swiglu64(gu[:, :i], gu[:, i:]), SW_TOL[dtype])
    d = sw.swiglu_fused_backward(dy, gu, cfg=cfg)
    ref = swref.reference({"dy": dy, "gate_up": gu.view(t, 2, i)}, {})["dgate_up"].view(t, 2 * i)
    _close(d, ref, SW_TOL[dtype])


@pytest.mark.parametrize("dt", list(DTYPES))
def test_swiglu_large_magnitudes_match_eager(dt):
    dtype = DTYPES[dt]
    big = torch.finfo(dtype).max
    vals = torch.tensor([-big, -1e30, -1e4, -100.0, -88.5, -20.0, -1.0, 0.0, 1.0, 20.0, 88.5, 100.0, 1e4, 1e30, big],
                        device=DEV)
    g = vals.repeat(3, 11)[:, :160].to(dtype)
    u = torch.tensor([0.5, -1.0, 2.0], device=DEV)[:, None].expand(3, 160).contiguous().to(dtype)
    dy = torch.full_like(g, 0.75)
    y = sw.swiglu_forward(g, u)
    eager = F.silu(g) * u
    assert torch.equal(torch.isnan(y), torch.isnan(eager)) and torch.equal(torch.isinf(y), torch.isinf(eager))
    finite = torch.isfinite(eager)
    _close(y[finite], swref.swiglu64(g, u)[finite], SW_TOL[dtype])
    dg, du = sw.swiglu_backward(dy, g, u)
    assert not bool(torch.isnan(dg).any()) and not bool(torch.isnan(du).any())
    rg, ru = swref.swiglu_backward64(dy, g, u)
    for out, ref in ((dg, rg), (du, ru)):
        fin = torch.isfinite(ref.to(dtype))
        _close(out[fin], ref[fin], SW_TOL[dtype])


# ---- RoPE ----------------------------------------------------------------------------------

RP_SHAPES = [  # batch, heads_q, heads_kv, seq, head_dim, pos_batch
    (1, 32, 8, 1, 128, 1), (3, 32, 8, 1, 128, 3), (1, 28, 4, 37, 128, 1), (2, 128, 1, 17, 64, 1),
    (5, 7, 3, 11, 96, 5), (0, 4, 2, 3, 64, 1),
]


def _tables(b, s, d, pb, dtype):
    pos = torch.randint(0, 8000, (b, 1), device=DEV) + torch.arange(s, device=DEV) if pb > 1 else \
        torch.arange(s, device=DEV)[None]
    return rpin.rope_tables(pos, d, dtype)


@pytest.mark.parametrize("dt", list(DTYPES))
@pytest.mark.parametrize("b,hq,hk,s,d,pb", RP_SHAPES)
def test_rope_forward_backward(dt, b, hq, hk, s, d, pb):
    dtype = DTYPES[dt]
    q = torch.randn(b, s, hq, d, device=DEV).to(dtype).transpose(1, 2)
    k = torch.randn(b, s, hk, d, device=DEV).to(dtype).transpose(1, 2)
    cos, sin = _tables(b, s, d, pb, dtype)
    keep = (q.clone(), k.clone())
    qe, ke = rp.rope_forward(q, k, cos, sin)
    ref = rpref.reference({"q": q, "k": k, "cos": cos, "sin": sin}, {})
    _close(qe, ref["q_embed"], RP_TOL[dtype])
    _close(ke, ref["k_embed"], RP_TOL[dtype])
    assert torch.equal(q, keep[0]) and torch.equal(k, keep[1])
    dq, dk = rp.rope_backward(q, k, cos, sin)
    back = rpref.reference({"dq_embed": q, "dk_embed": k, "cos": cos, "sin": sin}, {})
    _close(dq, back["dq"], RP_TOL[dtype])
    _close(dk, back["dk"], RP_TOL[dtype])
    # the lean path (second call of a key) gives the same bits
    qe2, ke2 = rp.rope_forward(q, k, cos, sin)
    assert torch.equal(qe2, qe) and torch.equal(ke2, ke)


@pytest.mark.parametrize("dt", list(DTYPES))
def test_rope_strided_qkv_and_contiguous_layouts(dt):
    dtype = DTYPES[dt]
    b, s, hq, hk, d = 2, 19, 12, 4, 128
    qkv = torch.randn(b, s, hq + 2 * hk, d, device=DEV).to(dtype)   # one fused projection
    q = qkv[:, :, :hq].transpose(1, 2)
    k = qkv[:, :, hq:hq + hk].transpose(1, 2)
    cos, sin = _tables(b, s, d, 1, dtype)
    qe, ke = rp.rope_forward(q, k, cos, sin)
    ref = rpref.reference({"q": q, "k": k, "cos": cos, "sin": sin}, {})
    _close(qe, ref["q_embed"], RP_TOL[dtype])
    _close(ke, ref["k_embed"], RP_TOL[dtype])
    qc, kc = q.contiguous(), k.contiguous()                            # [b, h, s, d] contiguous
    qe2, ke2 = rp.rope_forward(qc, kc, cos[0], sin[0])                 # [seq, head_dim] tables
    _close(qe2, ref["q_embed"], RP_TOL[dtype])
    _close(ke2, ref["k_embed"], RP_TOL[dtype])
    assert qe2.is_contiguous()


def test_rope_lean_path_is_used_and_misaligned_views_fall_back():
    b, s, hq, hk, d = 4, 1, 32, 8, 128
    q = torch.randn(b, s, hq, d, device=DEV).to(torch.bfloat16).transpose(1, 2)
    k = torch.randn(b, s, hk, d, device=DEV).to(torch.bfloat16).transpose(1, 2)
    cos, sin = _tables(b, s, d, b, torch.bfloat16)
    first = rp.rope_forward(q, k, cos, sin)
    second = rp.rope_forward(q, k, cos, sin)
    assert any(rp.fast_path_status().values()), rp.fast_path_status()
    assert all(torch.equal(a, c) for a, c in zip(first, second))
    flat = torch.randn(b * s * hq * d + 1, device=DEV).to(torch.bfloat16)
    qm = flat[1:].view(b, s, hq, d).transpose(1, 2)                    # 2-byte offset: not 16-byte aligned
    out = rp.rope_forward(qm, k, cos, sin)
    ref = rpref.reference({"q": qm, "k": k, "cos": cos, "sin": sin}, {})
    _close(out[0], ref["q_embed"], RP_TOL[torch.bfloat16])
