"""GPU tests of kernels/fused_add_rmsnorm/kr_triton.py (skipped without CUDA).

    python -m pytest -q tests/gpu/test_kr_triton_gpu.py
"""

from pathlib import Path

import pytest
from triton_mode import triton_in_mode

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
if not torch.cuda.is_available():
    # skip before importing triton, so the CPU tests can still import it interpreted
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

triton = pytest.importorskip("triton")
# If the CPU tests imported Triton in interpreter mode first, compiled kernels are not
# possible in this process: run this file again in a fresh one without TRITON_INTERPRET.
_IN_SUBPROCESS, test_gpu_suite_in_fresh_process, _only_subprocess_runner_here = triton_in_mode(
    __file__, interpreted=False, timeout=1800)



def _load():
    from site_builder.runner.families import import_module

    return import_module("fused-add-rmsnorm", "kr_triton")


kr = _load() if not _IN_SUBPROCESS else None

TOL = {torch.float32: 1e-5, torch.bfloat16: 8e-3, torch.float16: 1e-3}
EAGER_TOL = {torch.float32: dict(rtol=1e-5, atol=1e-6), torch.bfloat16: dict(rtol=1.6e-2, atol=1e-5),
             torch.float16: dict(rtol=2e-3, atol=1e-5)}
SHAPES = [(2048, 4096), (37, 5120), (3, 7168), (5, 111), (2, 4097), (1, 8192), (3, 1024), (16, 32768),
          (4, 65536), (2, 131072), (9, 16384), (3, 32769), (5, 100000), (1, 262144),
          # issue 14: the configuration model's classes at odd and prime sizes of the random set
          (7, 257), (300, 1000), (3, 3584), (2, 4099), (5, 7919), (3, 12289), (2, 14336), (2, 28672),
          (2, 38275), (2, 98317),
          # the 2026-12-02 sweep's anchors (fp32 704, 3456, 99563) and shapes near them
          (14, 704), (268, 582), (6, 2432), (494, 3456), (13, 82496)]


def ref64(x, r, w, eps=1e-6):
    h = x + r
    hd = h.double()
    return w.double() * hd * torch.rsqrt(hd.pow(2).mean(-1, keepdim=True) + eps), h


def hf_eager(x, r, w, eps=1e-6):
    h = x + r
    hs = h.to(torch.float32)
    hs = hs * torch.rsqrt(hs.pow(2).mean(-1, keepdim=True) + eps)
    return w * hs.to(x.dtype), h


def relerr(a, b):
    return ((a.double() - b.double()).norm() / b.double().norm().clamp_min(1e-30)).item()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("rows,n", SHAPES)
def test_vs_float64(dtype, rows, n):
    g = torch.Generator(device="cuda").manual_seed(rows * 7 + n)
    x = torch.randn(rows, n, device="cuda", dtype=dtype, generator=g)
    r = torch.randn(rows, n, device="cuda", dtype=dtype, generator=g)
    w = (1 + 0.1 * torch.randn(n, device="cuda", generator=g)).to(dtype)
    xc, rc = x.clone(), r.clone()
    for _ in range(2):  # first call: normal launch; second: cached fast launch
        y, h = kr.fused_add_rmsnorm(x, r, w)
        torch.cuda.synchronize()
        assert torch.equal(x, xc) and torch.equal(r, rc)
        yr, hr = ref64(x, r, w)
        assert torch.equal(h, hr)
        assert y.dtype == dtype and torch.isfinite(y).all()
        assert relerr(y, yr) < TOL[dtype]
        ye, he = hf_eager(x, r, w)
        # vs the HF eager baseline: within ~2 ulp of the output dtype (rsqrt and the order of
        # the sum of squares differ; the rounded h is identical)
        torch.testing.assert_close(y, ye, **EAGER_TOL[dtype])


@pytest.mark.parametrize("n", [4096, 5120, 65536])
def test_every_candidate_config(n):
    x = torch.randn(33, n, device="cuda", dtype=torch.bfloat16)
    r = torch.randn(33, n, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    yr, hr = ref64(x, r, w)
    for cfg in kr.candidate_configs(n, 2):
        y = torch.full((33, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        y, h = kr._run_cfg(cfg, x, r, w)
        assert torch.equal(h, hr), cfg
        assert relerr(y, yr) < TOL[torch.bfloat16], cfg


def test_fp16_overflow_matches_eager():
    x = torch.randn(4, 4096, device="cuda", dtype=torch.float16)
    r = torch.randn(4, 4096, device="cuda", dtype=torch.float16)
    x[1, 10] = 60000.0
    r[1, 10] = 60000.0  # h = inf in fp16
    x[2, :] = 300.0
    r[2, :] = 300.0     # finite h, sum of squares fine in fp32
    w = torch.randn(4096, device="cuda", dtype=torch.float16)
    y, h = kr.fused_add_rmsnorm(x, r, w)
    ye, he = hf_eager(x, r, w)
    assert torch.equal(h, he)
    assert torch.equal(torch.isnan(y), torch.isnan(ye))
    assert torch.equal(torch.isinf(y), torch.isinf(ye))
    fin = torch.isfinite(ye)
    torch.testing.assert_close(y[fin], ye[fin], **EAGER_TOL[torch.float16])


@pytest.mark.parametrize("wdtype,xdtype", [(torch.float32, torch.bfloat16), (torch.float32, torch.float16),
                                           (torch.bfloat16, torch.float32)])
def test_mixed_weight_dtype_promotes_like_hf(wdtype, xdtype):
    x = torch.randn(64, 5120, device="cuda", dtype=xdtype)
    r = torch.randn(64, 5120, device="cuda", dtype=xdtype)
    w = (1 + 0.1 * torch.randn(5120, device="cuda")).to(wdtype)
    y, h = kr.fused_add_rmsnorm(x, r, w)
    ye, he = hf_eager(x, r, w)
    assert y.dtype == ye.dtype == torch.promote_types(wdtype, xdtype)
    assert h.dtype == xdtype and torch.equal(h, he)
    # the normalised value is rounded to the input dtype before the weight multiply, so a
    # 1-ulp difference there (rsqrt, order of the sum) shows at the input dtype's precision
    torch.testing.assert_close(y, ye, **EAGER_TOL[xdtype])


def test_zero_rows_and_zero_row():
    y, h = kr.fused_add_rmsnorm(*(torch.empty(0, 4096, device="cuda"),) * 2, torch.ones(4096, device="cuda"))
    assert y.shape == (0, 4096)
    x = torch.zeros(3, 4096, device="cuda", dtype=torch.bfloat16)
    y, h = kr.fused_add_rmsnorm(x, x.clone(), torch.ones(4096, device="cuda", dtype=torch.bfloat16))
    assert torch.equal(y, torch.zeros_like(y))


@pytest.mark.parametrize("case", ["rowstride", "misaligned", "misaligned_rowstride", "3d", "noncollapsible"])
def test_strided_and_misaligned_views(case):
    n = 4096
    if case == "rowstride":
        bx, br = torch.randn(40, n + 64, device="cuda"), torch.randn(40, n + 32, device="cuda")
        x, r = bx[:, 64:], br[:, :n]
    elif case == "misaligned":
        fx, fr = torch.randn(40 * n + 3, device="cuda"), torch.randn(40 * n + 5, device="cuda")
        x, r = fx[1:1 + 40 * n].view(40, n), fr[3:3 + 40 * n].view(40, n)
    elif case == "misaligned_rowstride":
        bx, br = torch.randn(40, n + 3, device="cuda"), torch.randn(40, n + 1, device="cuda")
        x, r = bx[:, 1:n + 1], br[:, 1:]
    elif case == "3d":
        x, r = torch.randn(4, 10, n, device="cuda"), torch.randn(4, 10, n, device="cuda")
    else:
        x = torch.randn(10, 4, n, device="cuda").transpose(0, 1)
        r = torch.randn(4, 10, n, device="cuda")
    w = torch.randn(n, device="cuda")
    for _ in range(2):
        y, h = kr.fused_add_rmsnorm(x, r, w)
        yr, hr = ref64(x, r, w)
        assert torch.equal(h, hr)
        assert relerr(y, yr) < 1e-5


def test_pdl_and_hints_variants_agree():
    x = torch.randn(300, 4096, device="cuda", dtype=torch.bfloat16)
    r = torch.randn(300, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    for kind in ("rows", "chunked"):
        outs = []
        for hi in (0, 1, 2):
            for p in (False, True):
                cfg = kr._rows_cfg([4096], False, 1, 8, hi, p) if kind == "rows" else kr._chunked_cfg(1024, 4, hi, p)
                outs.append(kr._run_cfg(cfg, x, r, w))
        for y, h in outs[1:]:
            assert torch.equal(y, outs[0][0]) and torch.equal(h, outs[0][1])


def test_cuda_graph_capture_and_fast_path_consistency():
    x = torch.randn(16, 8192, device="cuda", dtype=torch.bfloat16)
    r = torch.randn(16, 8192, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(8192, device="cuda", dtype=torch.bfloat16)
    y0, h0 = kr.fused_add_rmsnorm(x, r, w)
    y1, h1 = kr.fused_add_rmsnorm(x, r, w)
    assert torch.equal(y0, y1) and torch.equal(h0, h1)
    assert any(kr.fast_path_status().values()), kr.fast_path_status()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y2, h2 = kr.fused_add_rmsnorm(x, r, w)
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(y0, y2) and torch.equal(h0, h2)


def test_refusals_gpu():
    x = torch.randn(4, 64, device="cuda")
    with pytest.raises(ValueError):
        kr.fused_add_rmsnorm(x, x.cpu(), torch.ones(64, device="cuda"))
    with pytest.raises(ValueError):
        kr.fused_add_rmsnorm(x, x.half(), torch.ones(64, device="cuda"))
    with pytest.raises(ValueError):
        kr.fused_add_rmsnorm(x, x, torch.ones(64))


@pytest.mark.parametrize("rows,n", [(32769, 65536), (524289, 4096)])
def test_more_than_2_31_elements(rows, n):
    if torch.cuda.get_device_properties(0).total_memory < 40 * 2**30:
        pytest.skip("needs ~20 GB of GPU memory")
    assert rows * n > 2**31
    x = torch.randn(rows, n, device="cuda", dtype=torch.bfloat16)
    r = torch.randn(rows, n, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    y, h = kr.fused_add_rmsnorm(x, r, w)
    for sl in (slice(0, 2), slice(rows // 2, rows // 2 + 2), slice(rows - 2, rows)):
        yr, hr = ref64(x[sl], r[sl], w)
        assert torch.equal(h[sl], hr)
        assert relerr(y[sl], yr) < TOL[torch.bfloat16]
    del x, r, y, h
    torch.cuda.empty_cache()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("n", [1024, 4096, 5120, 8192, 16384, 32768, 65536, 131072, 3584, 7919, 14336, 38275,
                               704, 2432, 99563])
def test_row_result_independent_of_row_count(dtype, n):
    """The same row gives the same bits whether it comes alone, with a decode batch, or with
    thousands of rows (each rows bucket may tune launch knobs, never the reduction order)."""
    big = 9000 if n <= 8192 else 300
    g = torch.Generator(device="cuda").manual_seed(n)
    x = torch.randn(big, n, device="cuda", dtype=dtype, generator=g)
    r = torch.randn(big, n, device="cuda", dtype=dtype, generator=g)
    w = (1 + 0.1 * torch.randn(n, device="cuda", generator=g)).to(dtype)
    y, h = kr.fused_add_rmsnorm(x, r, w)
    for rows in (1, 16, 257, 2048):
        if rows > big:
            continue
        for start in (0, big - rows):
            ys, hs = kr.fused_add_rmsnorm(x[start:start + rows].clone(), r[start:start + rows].clone(), w)
            assert torch.equal(hs, h[start:start + rows]), (rows, start)
            assert torch.equal(ys.view(torch.uint8), y[start:start + rows].view(torch.uint8)), (rows, start)


def _split_cfgs(n, elsize=2):
    return [c for c in kr.candidate_configs(n, elsize) if c["kind"] == "split"]


def test_split_kernel_is_chosen_for_wide_rows_and_leaves_its_workspace_zeroed():
    for n in (65536, 131072):
        assert kr._config_for(n, 2, 2048, torch.device("cuda"))["kind"] == "split"
    x = torch.randn(77, 65536, device="cuda", dtype=torch.bfloat16)
    r = torch.randn(77, 65536, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(65536, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        y, h = kr.fused_add_rmsnorm(x, r, w)
        torch.cuda.synchronize()
        for slots, dep in kr._SPLIT_WS.values():
            assert not slots.any() and not dep.any()
    yr, hr = ref64(x, r, w)
    assert torch.equal(h, hr) and relerr(y, yr) < TOL[torch.bfloat16]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("n", [65536, 131072 + 7])
def test_every_split_config_vs_float64(dtype, n):
    x = torch.randn(19, n, device="cuda", dtype=dtype)
    r = torch.randn(19, n, device="cuda", dtype=dtype)
    w = torch.randn(n, device="cuda", dtype=dtype)
    yr, hr = ref64(x, r, w)
    cfgs = _split_cfgs(n, x.element_size())
    assert cfgs
    if dtype == torch.float16:
        cfgs = cfgs[:1]
    variants = [dict(cfgs[0], HINTS=hi, PDL=p, W_EARLY=we) for hi in (0, 2, 3) for p in (False, True)
                for we in (False, True)] + cfgs[1:]
    for c in variants:
        y, h = kr._run_cfg(c, x, r, w)
        assert torch.equal(h, hr), c
        assert relerr(y, yr) < TOL[dtype], c


def test_split_kernel_in_cuda_graph_and_on_concurrent_streams():
    n = 131072
    xs = [torch.randn(64, n, device="cuda", dtype=torch.bfloat16) for _ in range(4)]
    rs = [torch.randn(64, n, device="cuda", dtype=torch.bfloat16) for _ in range(4)]
    w = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    want = [kr.fused_add_rmsnorm(x, r, w) for x, r in zip(xs, rs)]
    # a graph captured before its stream was ever used eagerly, replayed several times
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        got = [kr.fused_add_rmsnorm(x, r, w) for x, r in zip(xs, rs)]
    for _ in range(3):
        g.replay()
        torch.cuda.synchronize()
        for (y0, h0), (y1, h1) in zip(want, got):
            assert torch.equal(y0, y1) and torch.equal(h0, h1)
    # four streams at once, each with its own workspace
    streams = [torch.cuda.Stream() for _ in range(4)]
    torch.cuda.synchronize()
    outs = [None] * 4
    for _ in range(5):
        for i, s in enumerate(streams):
            with torch.cuda.stream(s):
                outs[i] = kr.fused_add_rmsnorm(xs[i], rs[i], w)
        torch.cuda.synchronize()
        for (y0, h0), (y1, h1) in zip(want, outs):
            assert torch.equal(y0, y1) and torch.equal(h0, h1)


def test_split_kernel_on_the_fast_path_eagerly_and_under_capture():
    """The split kernel's cached launch uses the stream's own workspace when it is big enough,
    and the normal path otherwise (a new stream, more rows than before, graph capture)."""
    n = 65536
    w = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        small = [(torch.randn(8, n, device="cuda", dtype=torch.bfloat16),
                  torch.randn(8, n, device="cuda", dtype=torch.bfloat16)) for _ in range(3)]
        big = (torch.randn(200, n, device="cuda", dtype=torch.bfloat16),  # same rows bucket, more rows
               torch.randn(200, n, device="cuda", dtype=torch.bfloat16))
        want = [ref64(x, r, w) for x, r in small + [big]]
        for _ in range(2):  # first call caches the kernel; then small (fast), big (grows), small (fast)
            for (x, r), (yr, hr) in zip(small + [big] + small[:1], want + want[:1]):
                y, h = kr.fused_add_rmsnorm(x, r, w)
                assert torch.equal(h, hr) and relerr(y, yr) < TOL[torch.bfloat16]
        key = str((n, torch.bfloat16, torch.bfloat16, torch.cuda.current_device(), 0))
        assert kr.fast_path_status().get(key) is True, kr.fast_path_status()
        # captured on a stream that already has an eager workspace: the graph gets its own
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            got = [kr.fused_add_rmsnorm(x, r, w) for x, r in small]
        for _ in range(3):
            g.replay()
            y, h = kr.fused_add_rmsnorm(*small[0], w)  # eager, between replays, same stream
            s.synchronize()
            assert torch.equal(h, want[0][1])
            for (y1, h1), (yr, hr) in zip(got, want):
                assert torch.equal(h1, hr) and relerr(y1, yr) < TOL[torch.bfloat16]
    torch.cuda.synchronize()
    for slots, dep in kr._SPLIT_WS.values():
        assert not slots.any() and not dep.any()


def test_split_kernel_strided_and_misaligned():
    n = 65536
    bx, br = torch.randn(6, n + 3, device="cuda"), torch.randn(6, n + 1, device="cuda")
    x, r = bx[:, 1:n + 1], br[:, 1:]
    w = torch.randn(n, device="cuda")
    y, h = kr.fused_add_rmsnorm(x, r, w)
    yr, hr = ref64(x, r, w)
    assert torch.equal(h, hr) and relerr(y, yr) < 1e-5


# --- the experimental one-launch wide kernel (_k_wide; only a KR_TRITON_CONFIGS entry selects it) ---

WIDE = [(46592, 2048, torch.bfloat16), (103482 + 7, 2048, torch.float16), (99563, 4096, torch.float32),
        (65536, 2048, torch.float32)]


def _wide_variants(n, chunk):
    nch = kr._wide_cfg(n, chunk, 1, 4)["NCH"]
    return [kr._wide_cfg(n, chunk, p, 4) for p in sorted({nch, nch // 2, max(1, nch // 4)})]


@pytest.mark.parametrize("n,chunk,dtype", WIDE)
def test_wide_kernel_bits_do_not_depend_on_parts(n, chunk, dtype):
    """Every PARTS gives the bits of _k_split with BLOCK = CHUNK (the same per-chunk partials and
    fixed-order sum), residual_out exact, y within tolerance of float64, workspace zero after."""
    for rows in (1, 2, 13, 300):
        g = torch.Generator(device="cuda").manual_seed(n + rows)
        x = torch.randn(rows, n, device="cuda", dtype=dtype, generator=g)
        r = torch.randn(rows, n, device="cuda", dtype=dtype, generator=g)
        w = (1 + 0.1 * torch.randn(n, device="cuda", generator=g)).to(dtype)
        y0, h0 = kr._run_cfg(kr._split_cfg(n, chunk, 4, hints=0), x, r, w)
        yr, hr = ref64(x, r, w)
        assert torch.equal(h0, hr) and relerr(y0, yr) < TOL[dtype]
        for cfg in _wide_variants(n, chunk):
            for _ in range(2):
                y, h = kr._run_cfg(cfg, x, r, w)
                assert torch.equal(h, h0), (rows, cfg)
                assert torch.equal(y.view(torch.uint8), y0.view(torch.uint8)), (rows, cfg)
        torch.cuda.synchronize()
        for slots, dep in kr._SPLIT_WS.values():
            assert not slots.any() and not dep.any()


def test_wide_kernel_through_the_public_call_in_a_cuda_graph():
    """Selected as a tuning run would (kr._TUNED, as KR_TRITON_CONFIGS fills it): never cached on
    the fast path, replayable from a graph (the workspace is zero again after each replay)."""
    n, chunk = 46592, 2048
    cfg = kr._wide_cfg(n, chunk, 8, 4)
    x = torch.randn(5, n, device="cuda", dtype=torch.bfloat16)
    r = torch.randn(5, n, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    y0, h0 = kr._run_cfg(kr._split_cfg(n, chunk, 4, hints=0), x, r, w)
    saved = kr._TUNED.get((n, 2))
    kr._TUNED[(n, 2)] = cfg
    kr._FAST.clear()
    try:
        for _ in range(3):
            y, h = kr.fused_add_rmsnorm(x, r, w)
            assert torch.equal(h, h0) and torch.equal(y.view(torch.uint8), y0.view(torch.uint8))
        assert not any(k.startswith(f"({n},") for k in kr.fast_path_status()), kr.fast_path_status()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            got = kr.fused_add_rmsnorm(x, r, w)
        for _ in range(3):
            g.replay()
            torch.cuda.synchronize()
            assert torch.equal(got[1], h0) and torch.equal(got[0].view(torch.uint8), y0.view(torch.uint8))
    finally:
        if saved is None:
            kr._TUNED.pop((n, 2), None)
        else:
            kr._TUNED[(n, 2)] = saved
        kr._FAST.clear()
    torch.cuda.synchronize()
    for slots, dep in kr._SPLIT_WS.values():
        assert not slots.any() and not dep.any()
