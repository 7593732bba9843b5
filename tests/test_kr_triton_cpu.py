"""CPU tests of kernels/fused_add_rmsnorm/kr_triton.py under the Triton interpreter (float32).

TRITON_INTERPRET=1 is set here, before triton is imported; if another test module imported
the GPU build first, the tests run again in a fresh process, so its kernels are interpreted.
"""

import os
from pathlib import Path

# Triton decides interpreted vs compiled when its modules are imported, so this must come
# before the first `import triton` of the process.
os.environ["TRITON_INTERPRET"] = "1"

import pytest  # noqa: E402
from triton_mode import triton_in_mode  # noqa: E402

torch = pytest.importorskip("torch")
triton = pytest.importorskip("triton")
pytest.importorskip("numpy")  # the Triton interpreter needs it

ROOT = Path(__file__).resolve().parents[1]
# If another module (e.g. the GPU tests) imported Triton compiled first, interpreting is no
# longer possible in this process: run this file again in a fresh one instead.
_IN_SUBPROCESS, test_cpu_suite_in_fresh_process, _only_subprocess_runner_here = triton_in_mode(
    __file__, interpreted=True, timeout=600)



def _load():
    from site_builder.runner.families import import_module

    return import_module("fused-add-rmsnorm", "kr_triton")


kr = _load() if not _IN_SUBPROCESS else None


def ref64(x, r, w, eps=1e-6):
    h = x + r
    hd = h.double()
    return w.double() * hd * torch.rsqrt(hd.pow(2).mean(-1, keepdim=True) + eps), h


def check(x, r, w, eps=1e-6, tol=1e-5):
    xc, rc, wc = x.clone(), r.clone(), w.clone()
    y, h = kr.fused_add_rmsnorm(x, r, w, eps)
    assert torch.equal(x, xc) and torch.equal(r, rc) and torch.equal(w, wc), "inputs modified"
    yr, hr = ref64(x, r, w, eps)
    assert y.shape == x.shape and h.shape == x.shape
    assert y.dtype == torch.promote_types(w.dtype, x.dtype) and h.dtype == x.dtype
    assert torch.equal(h, hr)
    assert torch.isfinite(y).all()
    if y.numel():
        err = ((y.double() - yr).norm() / yr.norm().clamp_min(1e-30)).item()
        assert err < tol, err
    return y, h


def test_interpreter_is_active():
    assert kr._INTERPRET
    assert type(kr._k_rows).__name__ == "InterpretedFunction"


@pytest.mark.parametrize("rows,n", [(1, 111), (3, 111), (2, 64), (7, 1024), (5, 4097), (2, 5120), (3, 7168),
                                    (1, 8192), (2, 33000), (1, 65536)])
def test_shapes_vs_float64(rows, n):
    torch.manual_seed(rows * 1000 + n)
    check(torch.randn(rows, n), torch.randn(rows, n), torch.randn(n))


def test_rows_zero():
    y, h = kr.fused_add_rmsnorm(torch.randn(0, 64), torch.randn(0, 64), torch.randn(64))
    assert y.shape == (0, 64) and h.shape == (0, 64)


def test_leading_dims_and_1d():
    torch.manual_seed(1)
    check(torch.randn(2, 3, 96), torch.randn(2, 3, 96), torch.randn(96))
    check(torch.randn(96), torch.randn(96), torch.randn(96))


def test_all_zero_row():
    x = torch.randn(3, 256)
    r = torch.randn(3, 256)
    x[1] = 0
    r[1] = 0
    y, h = check(x, r, torch.randn(256))
    assert torch.equal(y[1], torch.zeros(256))


@pytest.mark.parametrize("rows,n", [(9, 1024), (300, 256), (260, 2048)])
def test_row_independence(rows, n):
    """A row alone and among many (a different rows bucket above 256) gives the same bits."""
    torch.manual_seed(2)
    x, r, w = torch.randn(rows, n), torch.randn(rows, n), torch.randn(n)
    y, h = kr.fused_add_rmsnorm(x, r, w)
    for i in (0, rows // 2, rows - 1):
        yi, hi = kr.fused_add_rmsnorm(x[i:i + 1].clone(), r[i:i + 1].clone(), w)
        assert torch.equal(yi[0], y[i]) and torch.equal(hi[0], h[i])


@pytest.mark.parametrize("elsize", [2, 4])
def test_reduction_order_does_not_depend_on_the_row_count(elsize):
    """Per rows bucket only launch knobs may change, never what orders the sum of squares."""
    gpu = torch.device("cuda")
    hiddens = sorted({h for group in kr._ANCHORS.values() for h, _ in group} | {k[0] for k in kr._KNOBS}
                     | {111, 4097, 65536, 131072})
    for n in hiddens:
        layouts = {kr.reduction_layout(kr._config_for(n, elsize, rows, gpu)) for rows in (1, 256, 257, 8192, 8193)}
        assert len(layouts) == 1, (n, elsize, layouts)
    for key, knobs in kr._KNOBS.items():
        assert set(knobs) <= set(kr._KNOB_NAMES), key


def test_split_kernel_never_runs_interpreted():
    """Its programs wait for each other, which the interpreter (one program at a time) cannot."""
    for n in (65536, 131072):
        assert kr._default_config(n, 2)["kind"] == "split"
        assert kr._config_for(n, 2, 2048, torch.device("cpu"))["kind"] == "chunked"
        assert all(c["kind"] != "split" for c in kr.candidate_configs(n, 2))
    x = torch.randn(2, 64)
    with pytest.raises(ValueError, match="split configuration"):
        kr._run_cfg(kr._split_cfg(64, 32, 1), x, x.clone(), torch.ones(64))


def test_strided_rows():
    torch.manual_seed(3)
    big_x, big_r = torch.randn(5, 300), torch.randn(5, 280)
    x, r = big_x[:, 7:263], big_r[:, 3:259]
    check(x, r, torch.randn(256))


def test_eps_and_scale():
    torch.manual_seed(4)
    check(1e-3 * torch.randn(4, 512), 1e-3 * torch.randn(4, 512), torch.randn(512), eps=1e-2)
    check(1e3 * torch.randn(4, 512), 1e3 * torch.randn(4, 512), torch.randn(512), eps=1e-5)


@pytest.mark.parametrize("n", [1024, 5120, 7168, 32768])
def test_every_candidate_config(n):
    torch.manual_seed(n)
    x, r, w = torch.randn(5, n), torch.randn(5, n), torch.randn(n)
    yr, hr = ref64(x, r, w)
    for cfg in kr.candidate_configs(n, 4):
        y, h = kr._run_cfg(cfg, x, r, w)
        assert torch.equal(h, hr), cfg
        err = ((y.double() - yr).norm() / yr.norm()).item()
        assert err < 1e-5, (cfg, err)


@pytest.mark.parametrize("n", [64, 111, 1024, 2048, 4096, 4097, 5120, 7168, 8192, 12288, 16384, 32768, 65536,
                               131072])
@pytest.mark.parametrize("elsize", [2, 4])
def test_configs_are_launchable(n, elsize):
    for cfg in kr.candidate_configs(n, elsize) + [kr._default_config(n, elsize)]:
        w = cfg["num_warps"]
        assert 1 <= w <= 32 and w & (w - 1) == 0, cfg
    w = kr.model_config(n, elsize)["num_warps"]
    assert 1 <= w <= 32 and w & (w - 1) == 0, (n, elsize)


def test_segments():
    assert kr._pow2_segments(5120) == [4096, 1024]
    assert kr._pow2_segments(7168) == [4096, 2048, 1024]
    assert kr._pow2_segments(4096) == [4096]
    assert kr._pow2_segments(4097) is None
    assert kr._pow2_segments(111) is None


@pytest.mark.parametrize("bad", ["shape", "dtype", "wsize", "wdim", "lastdim", "intdtype", "hidden0", "notensor"])
def test_refusals(bad):
    x, r, w = torch.randn(4, 64), torch.randn(4, 64), torch.randn(64)
    if bad == "shape":
        r = torch.randn(4, 32)
    elif bad == "dtype":
        r = r.double()
    elif bad == "wsize":
        w = torch.randn(63)
    elif bad == "wdim":
        w = torch.randn(1, 64)
    elif bad == "lastdim":
        x, r = torch.randn(64, 4).t(), torch.randn(64, 4).t()
    elif bad == "intdtype":
        x, r = x.int(), r.int()
    elif bad == "hidden0":
        x, r, w = torch.randn(4, 0), torch.randn(4, 0), torch.randn(0)
    elif bad == "notensor":
        x = x.tolist()
    with pytest.raises(ValueError):
        kr.fused_add_rmsnorm(x, r, w)


# --- the configuration model (kr_triton_config.model_config, issue 14) -------------------------

FIXTURES = ROOT / "tests" / "fixtures"
# the family's 24 workloads (rows, hidden, element size), as the record listed them when the
# exact-workload table (tests/fixtures/kr_triton_tuned_4f4d63e.json) was replaced by the model
FAMILY_24 = [(2048, n, 4) for n in (1024, 2048, 4096, 8192, 16384, 32768)] + \
    [(2048, n, 2) for n in (1024, 2048, 4096, 8192, 16384, 32768)] + \
    [(r, n, 2) for r in (1, 16, 128) for n in (4096, 8192)] + \
    [(2048, 5120, 2), (2048, 7168, 2), (2048, 65536, 2), (2048, 131072, 2), (32768, 4096, 2), (32768, 8192, 4)]


def _old_table():
    import json

    data = json.loads((FIXTURES / "kr_triton_tuned_4f4d63e.json").read_text())
    return {(t["hidden"], t["elsize"]): kr._cfg_from_json(t["cfg"]) for t in data["tuned"]}


def test_model_gives_the_24_workloads_their_configurations():
    old = _old_table()
    assert len({(n, e) for _, n, e in FAMILY_24}) == len(old) == 16
    for rows, n, elsize in FAMILY_24:
        cfg = kr.model_config(n, elsize)
        print(f"{rows} x {n} (elsize {elsize}): {kr.model_anchor(n, elsize)} {cfg}")
        assert cfg == old[(n, elsize)], (rows, n, elsize, cfg, old[(n, elsize)])
        # what a call launches (the interpreter turns a split row into the chunked kernel)
        got = kr._config_for(n, elsize, rows, torch.device("cpu"))
        assert got == kr._resolve(old[(n, elsize)], n, torch.device("cpu")), (rows, n, elsize)


# the 2026-12-02 sweep's winners folded in as anchors (NOTES.md, issue 14, "Folding the
# 2026-12-02 sweep in"): (hidden, element size) -> (rule, anchor hidden, the configuration)
def _sweep14_fold():
    """Built when a test runs: the module-level `kr` is None where this file only spawns its
    fresh-process copy (triton_mode)."""
    return {
        (704, 4): ("class", 704, kr._rows_cfg([1024], True, 1, 1)),
        (582, 4): ("class", 704, kr._rows_cfg([1024], True, 1, 1)),
        (576, 4): ("class", 704, kr._rows_cfg([1024], True, 1, 1)),
        (2432, 4): ("class", 3456, kr._row1_cfg(2432, 16, hints=0, w_early=True)),
        (3456, 4): ("class", 3456, kr._row1_cfg(3456, 16, hints=0, w_early=True)),
        (82496, 4): ("class", 99563, kr._split_cfg(82496, 4096, 4, hints=0)),
        (99563, 4): ("class", 99563, kr._split_cfg(99563, 4096, 4, hints=0)),
        # kept (the sweep's best within its noise, or a row-count effect): the old choices
        (9216, 4): ("class", 16384, kr._row1_cfg(9216, 32, hints=0, w_early=True)),
        (46592, 2): ("class", 65536, kr._split_cfg(46592, 4096, 4, hints=0)),
        (42006, 2): ("class", 65536, kr._split_cfg(42006, 4096, 4, hints=0)),
        (103482, 2): ("class", 131072, kr._split_cfg(103482, 8192, 4, hints=0)),
    }


SWEEP14_KEYS = [(704, 4), (582, 4), (576, 4), (2432, 4), (3456, 4), (82496, 4), (99563, 4),
                (9216, 4), (46592, 2), (42006, 2), (103482, 2)]


@pytest.mark.parametrize("key", sorted(SWEEP14_KEYS))
def test_model_takes_the_issue14_sweep_winners(key):
    fold = _sweep14_fold()
    assert sorted(fold) == sorted(SWEEP14_KEYS)
    rule, hidden, cfg = fold[key]
    assert kr.model_anchor(*key) == (rule, hidden)
    assert kr.model_config(*key) == cfg, (key, kr.model_config(*key))
    assert cfg["num_warps"] * 32 <= (cfg.get("BLOCK") or cfg["S"][0]) * cfg.get("ROWS", 1)


def test_model_rule3_fills_an_unanchored_class_between_anchored_ones():
    """fp32 32769-65536 has no anchor, the classes on both sides have: the largest anchor below
    (the 32768 split) with more programs, as before 99563 anchored the class above; above the
    largest fp32 class the 99563 split; bf16 above 131072 the 131072 split."""
    for n in (32769, 49152, 65536):
        assert kr.model_anchor(n, 4) == ("above", 32768)
        assert kr.model_config(n, 4) == kr._split_cfg(n, 8192, 8, hints=0, pdl=False)
    assert kr.model_anchor(200000, 4) == ("above", 99563)
    assert kr.model_config(200000, 4) == kr._split_cfg(200000, 4096, 4, hints=0)
    assert kr.model_anchor(200000, 2) == ("above", 131072)
    # below the smallest fp32 anchor (704: one row of 1024 on one warp) the tile is kept
    assert kr.model_anchor(256, 4) == ("below", 704)
    assert kr.model_config(256, 4) == kr._rows_cfg([256], False, 4, 1)


def test_wide_config_is_checked_resolved_and_off_by_default():
    """The experimental one-launch wide kernel: never the model's choice; a bad entry is a clear
    error; on the CPU (the interpreter runs programs one after another, so its spin-wait would
    never end) it resolves to the chunked kernel; PARTS is a launch knob, not the layout."""
    for n, e in [(n, e) for n in _hiddens() for e in (2, 4)]:
        assert kr.model_config(n, e)["kind"] != "wide"
    cfg = kr._wide_cfg(46592, 2048, 8, 4)
    assert (cfg["NCH"], cfg["PARTS"]) == (32, 8)
    assert kr._wide_cfg(46592, 2048, 2, 4)["PARTS"] == 8 and kr._wide_cfg(46592, 2048, 999, 4)["PARTS"] == 32
    assert kr.reduction_layout(cfg) == kr.reduction_layout(dict(cfg, PARTS=32))
    kr.check_wide_cfg(cfg, 46592)
    for bad in (dict(cfg, PARTS=4), dict(cfg, NCH=64), dict(cfg, CHUNK=3000), dict(cfg, PARTS=6)):
        with pytest.raises(ValueError, match="wide configuration"):
            kr.check_wide_cfg(bad, 46592)
        with pytest.raises(ValueError, match="wide configuration"):
            kr._resolve(bad, 46592, torch.device("cpu"))
    assert kr._resolve(cfg, 46592, torch.device("cpu"))["kind"] == "chunked"
    x, r, w = torch.randn(2, 46592), torch.randn(2, 46592), torch.randn(46592)
    with pytest.raises(ValueError, match="compiled Triton"):
        kr._run_cfg(cfg, x, r, w)
    kr._TUNED[(46592, 4)] = cfg  # as a KR_TRITON_CONFIGS entry would
    try:
        check(x, r, w)
    finally:
        kr._TUNED.pop((46592, 4), None)


def test_wide_and_split_kernels_compile_for_sm90():
    """What the interpreter cannot run, compiled for the H200 by Triton's bundled ptxas in a
    process without TRITON_INTERPRET (lab/fused_add_rmsnorm/compile_check.py): compiles, no
    results checked (tests/gpu/ does that)."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    p = subprocess.run([sys.executable, str(ROOT / "lab" / "fused_add_rmsnorm" / "compile_check.py"), "--quick"],
                       capture_output=True, text=True, env=env, timeout=600)
    print(p.stdout[-3000:], p.stderr[-2000:])
    assert p.returncode == 0 and p.stdout.count("ok ") == 4, p.stdout + p.stderr


def _hiddens():
    import random

    rng = random.Random(14)
    odd = {rng.randrange(256, 131073) for _ in range(60)}
    return sorted(odd | {256, 257, 384, 1000, 1023, 1025, 2880, 3584, 4097, 5120, 5525, 6144, 7168, 7680, 12288,
                         14336, 18432, 28672, 32767, 32769, 38275, 49152, 65535, 65536, 65537, 98304, 131071,
                         131072} | {8, 64, 111})


@pytest.mark.parametrize("elsize", [2, 4])
def test_model_is_sensible_over_the_whole_range(elsize):
    """Every hidden size 8..131072 (odd ones too) gets a launchable configuration that keeps a
    few 16-byte vectors per thread, covers the row exactly once, and never depends on rows."""
    vec = 16 // elsize
    gpu = torch.device("cuda")
    for n in _hiddens():
        cfg = kr.model_config(n, elsize)
        w = cfg["num_warps"]
        assert 1 <= w <= 32 and w & (w - 1) == 0, (n, cfg)
        p = triton.next_power_of_2(n)
        if cfg["kind"] == "rows":
            assert cfg["S"] == (p, 0, 0, 0) and cfg["MASK_COLS"] == (p != n), (n, cfg)
            per_thread = cfg["ROWS"] * p // (w * 32)
            assert 1 <= cfg["ROWS"] <= 128 and cfg["ROWS"] & (cfg["ROWS"] - 1) == 0, (n, cfg)
        elif cfg["kind"] == "row1":
            assert cfg["BLOCK"] == p and cfg["MASK_COLS"] == (p != n), (n, cfg)
            per_thread = p // (w * 32)
        else:
            assert cfg["kind"] == "split", (n, cfg)
            assert n > 16384 and cfg["BLOCK"] * cfg["SPLIT"] >= n > cfg["BLOCK"] * cfg["SPLIT"] // 2, (n, cfg)
            assert cfg["SPLIT"] <= 132 and cfg["SPLIT"] & (cfg["SPLIT"] - 1) == 0, (n, cfg)
            per_thread = cfg["BLOCK"] // (w * 32)
        # fp32 keeps at most 64 elements of a row per thread in registers, as the anchors do
        assert per_thread <= 64 and (per_thread >= vec or n < 256 * vec), (n, cfg, per_thread)
        layouts = {kr.reduction_layout(kr._config_for(n, elsize, rows, gpu)) for rows in (1, 7, 256, 257, 8193, 65536)}
        assert len(layouts) == 1, (n, layouts)
    # bf16 and fp16 share one class; the weight's dtype does not enter
    assert kr.model_config(12288, 2) == kr._config_for(12288, 2, 4096, torch.device("cpu"))


# (n, element size of the configuration): one of every variant the model chooses, at odd sizes
MODEL_VARIANTS = [(111, 4), (300, 4), (1000, 4), (1536, 4), (2880, 4), (5525, 4), (12288, 4), (18432, 4),
                  (38275, 4), (111, 2), (300, 2), (1000, 2), (1536, 2), (2880, 2), (4097, 2), (6144, 2),
                  (7680, 2), (14336, 2), (18432, 2), (38275, 2), (98304, 2)]


def test_model_variants_cover_every_kind():
    kinds = {(kr.model_config(n, e)["kind"], kr.model_config(n, e).get("ROWS", 1) > 1,
              kr.model_config(n, e).get("MASK_COLS", True)) for n, e in MODEL_VARIANTS}
    assert {("rows", True, True), ("rows", False, True), ("row1", False, True), ("split", False, True)} <= kinds


@pytest.mark.parametrize("n,elsize", MODEL_VARIANTS)
def test_model_variants_vs_float64(n, elsize):
    """Each configuration the model picks, run under the interpreter in float32 on an odd shape
    (a split row runs as the chunked kernel here: its programs wait for each other)."""
    torch.manual_seed(n)
    rows = 3 if n <= 20000 else 2
    x, r, w = torch.randn(rows, n), torch.randn(rows, n), torch.randn(n)
    cfg = kr._resolve(kr.model_config(n, elsize), n, torch.device("cpu"))
    y, h = kr._run_cfg(cfg, x, r, w)
    yr, hr = ref64(x, r, w)
    assert torch.equal(h, hr), cfg
    err = ((y.double() - yr).norm() / yr.norm()).item()
    assert err < 1e-5, (cfg, err)
    if elsize == 4:  # the public call picks the same configuration for float32
        check(x, r, w)


@pytest.mark.parametrize("n", [n for n, e in MODEL_VARIANTS if e == 2 and n <= 40000])
@pytest.mark.parametrize("wdtype", [torch.float16, torch.float32])
def test_model_fp16_input_with_fp16_or_fp32_weight(n, wdtype):
    """The 2-byte class's configurations through the public call with float16 input (the
    interpreter handles float16, not bfloat16), the weight float16 or float32 (then y is float32,
    torch's promotion): residual_out exact, y within float16's tolerance of the float64 reference."""
    torch.manual_seed(n + 1)
    x, r = torch.randn(3, n).half(), torch.randn(3, n).half()
    w = (torch.rand(n) + 0.5).to(wdtype)
    y, h = kr.fused_add_rmsnorm(x, r, w)
    hr = (x.double() + r.double()).half()
    hd = hr.double()
    yr = w.double() * hd * torch.rsqrt(hd.pow(2).mean(-1, keepdim=True) + 1e-6)
    assert h.dtype == torch.float16 and torch.equal(h, hr)
    assert y.dtype == torch.promote_types(wdtype, torch.float16)
    assert ((y.double() - yr).abs() <= 1e-4 + 2e-3 * yr.abs()).all(), kr.model_config(n, 2)
