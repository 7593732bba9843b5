"""CPU tests of the gemm family: the float64 reference, the tolerance that grows with K, the
shape hooks, the configuration model, and our Triton kernels (kernels/gemm/kr_triton*.py) and
the tutorial-style kernel (kernels/gemm/tutorial.py) under the Triton interpreter in float32 at
small odd shapes. Triton 3.9's interpreter runs TMA tensor descriptors (out-of-bounds loads
zero-filled, stores clipped), so the TMA kernel is tested here too, not only its pointer twin.

TRITON_INTERPRET=1 is set here, before triton is imported; if another test module imported
the GPU build first, the tests run again in a fresh process, so the kernels are interpreted.
"""

import json
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



def _mod(name):
    from site_builder.runner.families import import_module

    return import_module("gemm", name)


if not _IN_SUBPROCESS:
    kr = _mod("kr_triton")
    tut = _mod("tutorial")
    ref = _mod("reference")
    pkg = _mod(None)


def _case(m, n, k, dtype="float32"):
    from site_builder.runner.family import Case, Tensor

    return Case(id=f"t-m{m}-n{n}-k{k}", dtype=dtype, sizes={"m": m, "n": n, "k": k},
                inputs={"a": Tensor(dtype, (m, k)), "b": Tensor(dtype, (n, k))},
                outputs={"c": Tensor(dtype, (m, n))})


def _inputs(m, n, k, seed=0):
    case = _case(m, n, k)
    return case, pkg.family.make_inputs(case, seed, "cpu")


def _assert_close(case, out, want):
    tol = ref.tolerance(case, "c")
    err = (out.double() - want).abs()
    bound = tol.atol + tol.rtol * want.abs()
    assert out.shape == want.shape and not torch.isnan(out).any()
    assert bool((err <= bound).all()), f"max error {err.max().item():.3g}, bound {bound.min().item():.3g}"


# --- reference, tolerance, inputs -----------------------------------------------------------


def test_reference_is_the_float64_product():
    case, x = _inputs(5, 7, 33)
    want = (x["a"].double().numpy() @ x["b"].double().numpy().T)
    got = pkg.family.reference(case, x)["c"]
    assert got.dtype == torch.float64 and torch.allclose(got, torch.from_numpy(want), rtol=1e-12, atol=1e-12)


def test_inputs_keep_c_near_one_at_every_k():
    for k in (64, 4096):
        case, x = _inputs(64, 64, k)
        c = pkg.family.reference(case, x)["c"]
        assert 0.7 < c.std().item() < 1.3, (k, c.std().item())


def test_tolerance_grows_with_k_as_float32_accumulation_does():
    small, large = ref.tolerance(_case(1, 8, 1024, "bfloat16")), ref.tolerance(_case(1, 8, 4096, "bfloat16"))
    acc = ref.accumulation_atol
    assert acc(4096) == pytest.approx(4 * acc(1024))  # λ·√K·u·(2/π)·√K: linear in K for our inputs
    assert large.atol - small.atol == pytest.approx(acc(4096) - acc(1024))
    assert small.rtol == 2.0 ** -8  # one bf16 ulp for the final rounding
    f32 = ref.tolerance(_case(1, 8, 1024))
    assert f32.atol == pytest.approx(acc(1024)) and f32.rtol == pytest.approx(4 * 2.0 ** -24)


def test_tolerance_is_met_by_a_float32_product_and_missed_by_a_perturbed_one():
    case, x = _inputs(16, 48, 4096)
    want = pkg.family.reference(case, x)["c"]
    _assert_close(case, x["a"] @ x["b"].T, want)  # torch's float32 CPU product
    bad = (x["a"] @ x["b"].T).clone()
    bad[3, 5] += 4 * ref.accumulation_atol(4096)  # past the bound: one wrong element fails
    with pytest.raises(AssertionError):
        _assert_close(case, bad, want)


# --- shapes -----------------------------------------------------------------------------------


def test_sample_shapes_are_reproducible_and_in_range():
    a, b = pkg.family.sample_shapes(30, 1), pkg.family.sample_shapes(30, 1)
    assert a == b and a != pkg.family.sample_shapes(30, 2)
    for s in a:
        m, n, k = s.sizes["m"], s.sizes["n"], s.sizes["k"]
        assert 1 <= m <= 16384 and 128 <= n <= 32768 and 128 <= k <= 32768 and s.dtype == "bfloat16"
        assert 2 * m * n * k <= 8e12 or m == 1
    assert any(s.sizes["m"] <= 16 for s in a) and any(s.sizes["m"] > 1024 for s in a)
    assert any(s.sizes["k"] % 8 for s in a)  # some draws take the unaligned path


def test_models_set_holds_the_projection_shapes():
    assert pkg.family.shape_sets() == ("models",)
    models = {(s.sizes["m"], s.sizes["n"], s.sizes["k"]) for s in pkg.family.shape_set("models")}
    with pytest.raises(KeyError):
        pkg.family.shape_set("nope")
    # the shapes named in the family module's list, at every M the record uses
    for n, k in [(6144, 4096), (57344, 8192), (4096, 7168), (10240, 5120)]:
        assert all((m, n, k) in models for m in (1, 16, 128, 1024, 4096, 16384))


# --- the configuration model ----------------------------------------------------------------


def test_config_model_classes():
    sms = 132
    for m in (1, 7, 16):
        cfg = kr.config_for(m, 4096, 14336, sms)
        assert cfg["kernel"] == "split_k" and cfg["splits"] * cfg["k_per_split"] >= 14336
        assert (cfg["splits"] - 1) * cfg["k_per_split"] < 14336  # no empty slice
        assert cfg == kr.config_for(1, 4096, 14336, sms)  # the decode split does not depend on M
        tiles = triton.cdiv(4096, cfg["BN"])
        assert tiles * cfg["splits"] >= sms  # enough programs to fill the GPU
    assert kr.shape_class(128, 4096, 4096, sms) == "small" and kr.shape_class(17, 4096, 4096, sms) == "small"
    assert kr.shape_class(1024, 1024, 4096, sms) == "small"  # 64 tiles of 128 x 128 < 132 SMs
    small = kr.config_for(128, 4096, 4096, sms)
    assert small["kernel"] == "tma"  # aligned (or padded): the TMA kernel, split to fill the SMs
    assert kr.config_for(128, 4096, 4096, sms, tma_ok=False)["kernel"] == "split_k"
    big = kr.config_for(4096, 28672, 4096, sms)
    assert big["kernel"] == "tma" and (big["BM"], big["BN"]) == (128, 256) and big.get("splits", 1) == 1
    assert kr.config_for(4096, 28672, 4096, sms, tma_ok=False)["kernel"] == "tiles"
    assert kr.shape_class(16384, 1024, 1024, sms) == "large"


def _work_items(m, n, cfg):
    return triton.cdiv(m, cfg["BM"]) * triton.cdiv(n, cfg["BN"]) * cfg.get("splits", 1)


def test_model_avoids_a_mostly_empty_last_wave():
    # e.g. M = 641, N = 5888: 128 x 256 tiles give 6 x 23 = 138 work items on 132 SMs, two waves
    # of which the second is 5 % full; the model must take another tile or a split of K instead
    sms = 132
    cfg = kr.config_for(641, 5888, 15872, sms)
    assert not ((cfg["BM"], cfg["BN"]) == (128, 256) and cfg.get("splits", 1) == 1)
    assert cfg.get("splits", 1) in (1, 2, 3, 4)
    eff = _work_items(641, 5888, cfg) / (triton.cdiv(_work_items(641, 5888, cfg), sms) * sms)
    assert eff > 0.75


def test_model_wave_use_property_over_random_shapes():
    """Over random shapes above decode: the chosen option is the model's best estimate; in the
    large class its waves are never under half used (work items / (waves x SMs) ≥ 0.5: the
    unsplit 128 x 256 tile alone leaves them so at e.g. 138 items on 132 SMs); in any class,
    when they are under half used, every option that uses them better is estimated slower
    (small shapes with short K have few items and nothing to split)."""
    import random

    rng = random.Random(7)
    sms = 132
    large = 0
    for _ in range(400):
        m, n, k = rng.randint(17, 8192), rng.randint(128, 16384) // 8 * 8, rng.randint(256, 32768) // 8 * 8
        cfg = kr.config_for(m, n, k, sms)
        assert cfg["kernel"] == "tma"
        opts = kr.tma_options(m, n, k, sms)
        best = opts[0]
        assert (cfg["BM"], cfg["BN"], cfg.get("splits", 1)) == best[1:]
        cls = kr.shape_class(m, n, k, sms)
        if cfg.get("splits", 1) > 1:  # a split only where K is large enough for its slices
            assert k >= cfg["splits"] * (kr.SMALL_MIN_SLICE if cls == "small" else kr.LARGE_MIN_SLICE)
            assert cfg["splits"] * cfg["k_per_split"] >= k > (cfg["splits"] - 1) * cfg["k_per_split"]
        items = _work_items(m, n, cfg)
        eff = items / (triton.cdiv(items, sms) * sms)
        if cls == "large":
            large += 1
            assert eff >= 0.5, (m, n, k, cfg, eff)
        if eff < 0.5:
            for t, bm, bn, s in opts[1:]:
                other = triton.cdiv(m, bm) * triton.cdiv(n, bn) * s
                if other / (triton.cdiv(other, sms) * sms) > eff:
                    assert t >= best[0], (m, n, k, cfg, (bm, bn, s))
    assert large > 100  # the draw covers the large class


def test_unaligned_shapes_route_to_the_padded_path_when_m_exceeds_16():
    def pad(m, n, k, **kw):
        a, b = torch.randn(m, k), torch.randn(n, k)
        c = torch.empty(m, n)
        return kr.needs_pad(a, b, c)
    assert pad(17, 64, 257) and pad(300, 64, 1001) and pad(300, 63, 1000)  # K or N not a multiple of 4 (fp32)
    assert not pad(300, 64, 1000) and not pad(16, 64, 257) and not pad(1, 63, 1001)  # aligned, or decode
    a = torch.randn(40, 64).T.contiguous().T  # a strided (column-major) view
    assert kr.needs_pad(a, torch.randn(32, 64))
    # the model sees the padded shape: the TMA kernel, not the pointer fall-back
    cfg = kr.model_config(torch.randn(300, 1001), torch.randn(64, 1001))
    assert cfg["kernel"] == "tma"
    assert kr.model_config(torch.randn(7, 1001), torch.randn(64, 1001))["kernel"] == "split_k"


def test_float32_operands_keep_each_stage_within_the_2byte_bytes():
    # The H200 refused the 2-byte 128 x 256 x 64 tile for float32 (393,232 bytes of shared memory
    # asked, 232,448 allowed: lab/gemm/runs-2026-12-01/gpu_tests.txt); the float32 rule keeps every
    # stage's bytes at or below the 2-byte configuration's, and the tile at most 128 x 128.
    sms = 132
    for m, n, k in [(1, 4096, 4096), (16, 28672, 8192), (128, 4096, 4096), (1000, 1024, 1000),
                    (1024, 4096, 4096), (4096, 7168, 4096), (16384, 57344, 8192)]:
        two = kr.config_for(m, n, k, sms)
        four = kr.config_for(m, n, k, sms, elsize=4)
        assert four["kernel"] == two["kernel"]
        stage = lambda c, es: (c["BM"] + c["BN"]) * c["BK"] * es
        assert stage(four, 4) <= stage(two, 2) and four["stages"] * stage(four, 4) <= 4 * 256 * 64 * 2
        if four["kernel"] != "split_k":
            assert four["BM"] * four["BN"] <= 128 * 128
        else:
            assert four["splits"] * four["k_per_split"] >= k and four["k_per_split"] % four["BK"] == 0
    assert kr.config_for(4096, 7168, 4096, sms, elsize=2) == kr.config_for(4096, 7168, 4096, sms)


def test_config_override_and_its_bad_input(monkeypatch):
    monkeypatch.setenv("KR_GEMM_CONFIG", json.dumps({"kernel": "tiles", "BM": 16, "BN": 16, "BK": 16,
                                                      "stages": 1, "warps": 4}))
    assert kr.config_for(4096, 4096, 4096, 132)["kernel"] == "tiles"
    monkeypatch.setenv("KR_GEMM_CONFIG", json.dumps({"kernel": "tma", "BMX": 1}))
    with pytest.raises(ValueError, match="unknown keys"):
        kr.config_for(4096, 4096, 4096, 132)


def test_bad_arguments_get_clear_errors():
    a = torch.randn(4, 8)
    with pytest.raises(ValueError, match="K .* must agree"):
        kr.gemm(a, torch.randn(5, 9))
    with pytest.raises(ValueError, match="2-d"):
        kr.gemm(a[None], torch.randn(5, 8))
    with pytest.raises(ValueError, match="share one of"):
        kr.gemm(a, torch.randn(5, 8, dtype=torch.float64))


# --- our kernels and the tutorial kernel, interpreted, float32 --------------------------------

TMA = {"kernel": "tma", "BM": 16, "BN": 32, "BK": 32, "stages": 2, "warps": 4, "GROUP_M": 2}
TILES = dict(TMA, kernel="tiles")
SPLIT = {"kernel": "split_k", "BM": 16, "BN": 16, "BK": 32, "stages": 2, "warps": 4}


@pytest.mark.parametrize("m,n,k,cfg", [
    (1, 64, 96, None), (7, 33, 100, None), (7, 33, 100, SPLIT),  # decode: the model's split-K
    (1, 40, 200, dict(SPLIT, splits=3, k_per_split=96)),  # three K slices added in order
    (7, 40, 104, TMA), (1000, 40, 72, dict(TMA, BM=64, GROUP_M=4)),  # TMA: odd M, ragged K tail
    (37, 48, 257, TILES), (37, 48, 257, TMA),  # K = 257 is not 16-byte aligned: TMA falls back to tiles
    (70, 24, 64, dict(TMA, BN=16)),  # more tiles than programs: the persistent loop wraps
])
def test_kr_triton_matches_float64(m, n, k, cfg):
    case, x = _inputs(m, n, k)
    _assert_close(case, kr.gemm(x["a"], x["b"], config=cfg), pkg.family.reference(case, x)["c"])


def test_fused_split_k_matches_the_two_kernel_split_bit_for_bit():
    # the last program of each tile adds the slices in slice order, as split_k_reduce does
    case, x = _inputs(7, 40, 200)
    cfg = dict(SPLIT, splits=3, k_per_split=96)
    two = kr.gemm(x["a"], x["b"], config=cfg)
    one = kr.gemm(x["a"], x["b"], config=dict(cfg, fused=True))
    assert torch.equal(one, two)
    _assert_close(case, one, pkg.family.reference(case, x)["c"])
    assert int(kr._counters(x["a"].device, 1).abs().sum()) == 0  # every counter back to zero
    assert torch.equal(kr.gemm(x["a"], x["b"], config=dict(cfg, fused=True)), two)  # and again
    at = x["a"].T.contiguous().T
    out = torch.empty((40, 7), dtype=torch.float32).T  # C as a strided view
    kr.gemm(at, x["b"], out=out, config=dict(cfg, fused=True))
    assert torch.equal(out, two)


def test_kr_triton_strided_views_and_edges():
    case, x = _inputs(9, 20, 48)
    at = x["a"].T.contiguous().T  # a column-major view of the same values: the pointer kernel
    assert not kr._aligned(at)
    want = pkg.family.reference(case, x)["c"]
    _assert_close(case, kr.gemm(at, x["b"], config=dict(TMA)), want)
    _assert_close(case, kr.gemm(at, x["b"], config=dict(SPLIT)), want)
    assert kr.gemm(torch.randn(0, 8), torch.randn(3, 8)).shape == (0, 3)
    assert torch.equal(kr.gemm(torch.randn(2, 0), torch.randn(3, 0)), torch.zeros(2, 3))


def test_kr_triton_inputs_unchanged_and_rows_independent_of_m():
    case, x = _inputs(33, 32, 64)
    a0, b0 = x["a"].clone(), x["b"].clone()
    full = kr.gemm(x["a"], x["b"], config=dict(TMA))
    assert torch.equal(x["a"], a0) and torch.equal(x["b"], b0)
    first = kr.gemm(x["a"][:5].contiguous(), x["b"], config=dict(TMA))
    assert torch.equal(first, full[:5])  # a row of C does not depend on how many rows come with it


SPLIT_TMA = dict(TMA, splits=4, k_per_split=64)


@pytest.mark.parametrize("m,n,k,cfg", [
    (37, 48, 257, TMA), (37, 45, 257, TMA), (40, 45, 96, TMA),  # odd K, odd K and N, odd N
    (33, 45, 257, TILES), (33, 45, 257, SPLIT), (33, 45, 257, None),  # every kernel after the copies
    (37, 45, 201, SPLIT_TMA), (40, 48, 200, SPLIT_TMA),  # the TMA split-K, padded and not
])
def test_padded_path_matches_float64_and_the_unpadded_kernel(m, n, k, cfg):
    case, x = _inputs(m, n, k)
    a0, b0 = x["a"].clone(), x["b"].clone()
    want = pkg.family.reference(case, x)["c"]
    padded = kr.gemm(x["a"], x["b"], config=None if cfg is None else dict(cfg, pad=True))
    _assert_close(case, padded, want)
    assert torch.equal(x["a"], a0) and torch.equal(x["b"], b0)  # inputs never modified
    if cfg is not None:
        # zeros in the K pad, the same K tiles: the same float32 sums in the same order
        # (unpadded, an unaligned TMA configuration runs the pointer kernel: for a split, the
        # pointer split-K with the same slices)
        plain_cfg = dict(cfg, pad=False)
        if cfg.get("splits", 1) > 1:
            plain_cfg = dict(SPLIT, BM=cfg["BM"], BN=cfg["BN"], BK=cfg["BK"], splits=cfg["splits"],
                             k_per_split=cfg["k_per_split"], pad=False)
        assert torch.equal(padded, kr.gemm(x["a"], x["b"], config=plain_cfg))


def test_padded_path_strided_views_and_out():
    case, x = _inputs(35, 41, 133)
    want = pkg.family.reference(case, x)["c"]
    at = x["a"].T.contiguous().T  # column-major A
    wide = torch.zeros(41, 300)
    wide[:, 7:140] = x["b"]  # B as a view at an odd offset: base and rows unaligned
    bv = wide[:, 7:140]
    a0, w0 = at.clone(), wide.clone()
    assert kr.needs_pad(at, bv)
    _assert_close(case, kr.gemm(at, bv, config=dict(TMA)), want)
    out = torch.full((41, 35), float("nan")).T  # C as a strided (transposed) view
    kr.gemm(at, bv, out=out, config=dict(TMA))
    _assert_close(case, out, want)
    assert torch.equal(at, a0) and torch.equal(wide, w0)
    odd_m = kr.gemm(x["a"][:19], x["b"], config=dict(TMA))  # odd M, its first rows
    assert torch.equal(odd_m, kr.gemm(x["a"], x["b"], config=dict(TMA))[:19])


def test_split_that_misses_part_of_k_is_refused():
    a, b = torch.randn(20, 201), torch.randn(8, 201)
    with pytest.raises(ValueError, match="cover K"):
        kr.gemm(a, b, config=dict(SPLIT, splits=3, k_per_split=64))


def test_pad_copy_zero_fills_and_keeps_values():
    t = torch.randn(5, 13)
    p = kr._padded(t.T.contiguous().T, 16)
    assert p.shape == (5, 16) and p.is_contiguous() and torch.equal(p[:, :13], t)
    assert torch.equal(p[:, 13:], torch.zeros(5, 3))


def test_tma_split_k_is_the_unsplit_sum_order_per_slice():
    # the slices are added in slice order by split_k_reduce: deterministic, and the same result
    # from the pointer split-K with the same slices (same tiles, same order)
    case, x = _inputs(33, 40, 192)
    tma = kr.gemm(x["a"], x["b"], config=dict(TMA, splits=3, k_per_split=64))
    ptr = kr.gemm(x["a"], x["b"], config=dict(SPLIT, BM=16, BN=32, splits=3, k_per_split=64))
    assert torch.equal(tma, kr.gemm(x["a"], x["b"], config=dict(TMA, splits=3, k_per_split=64)))
    assert torch.equal(tma, ptr)
    _assert_close(case, tma, pkg.family.reference(case, x)["c"])
    _assert_close(case, ptr, pkg.family.reference(case, x)["c"])


@pytest.mark.parametrize("m,n,k", [(1, 64, 96), (7, 33, 100), (37, 48, 257)])
def test_tutorial_kernel_matches_float64(m, n, k):
    case, x = _inputs(m, n, k)
    out = tut.matmul(x["a"], x["b"], config={"BM": 16, "BN": 32, "BK": 32, "GROUP_M": 2})
    _assert_close(case, out, pkg.family.reference(case, x)["c"])
