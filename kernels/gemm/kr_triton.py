"""Kernel Records' Triton GEMM: C = A · Bᵀ (the nn.Linear layout), float32 accumulation.

`gemm(a, b)` checks its arguments, picks a kernel and its launch configuration from the
configuration model (`config_for`), and launches (kr_triton_kernels.py has the kernels).

The configuration model works over shape classes (`shape_class`), not a table of workloads:

- decode (M ≤ 16): `split_k`. Bound by reading B once (N·K·2 bytes): BN columns of B per
  program and the K axis cut into slices so that about DECODE_WAVES × SMs programs keep enough
  bytes in flight; a second small kernel adds the float32 slices in a fixed order. Unaligned
  rows stay on this pointer kernel (a copy of B would read it twice more). `"fused": true` (a
  sweep candidate) lets the last program of each tile add the slices instead.
- small (16 < M ≤ 128, or fewer 128 × 128 output tiles than SMs) and large (the rest):
  `tma_persistent` (one program per SM, grouped tile order, TMA descriptors, a deep pipeline),
  its tile shape and K split ranked by `estimate_s`, a wave-quantised time estimate: work items
  (tiles × K slices) run in whole waves over the SMs, so 138 items on 132 SMs cost two full
  waves. Large: 128 × 256 (8 warps, 3 stages, the Hopper wgmma sweet spot), 128 × 128 or
  256 × 128, and a TMA split-K of 2-4 where K ≥ 2048 per slice and the split beats the unsplit
  estimate by 10 % (its partials cost 2 × 4 bytes an output element a slice, and a launch).
  Small: 64 × 128 / 64 × 256 (M ≤ 64) or 128 × 128, split 1-8 (≥ 512 K a slice).
- unaligned rows (K or N not a multiple of 8 in bf16, strided views) with M > 16: the padded
  path (`gemm`'s docstring: copies into 16-byte aligned buffers, then the aligned kernels).
  With `"pad": false` (or a forced pointer configuration) the pointer kernels run as before:
  `tiles_persistent` for large, `split_k` for small.
- the pointer kernels are told, by constexprs, when the host verified 16-byte alignment
  (VEC_AB, VEC_C, VEC_N): K and N masks and row offsets carry hints so the loads are 16 bytes
  wide (Triton alone only knows integers divisible by 16: K = 4008 went 2 bytes at a time).

The numbers above are starting points, to be set by the sweep (lab/gemm/sweep.py) on the
H200: `KR_GEMM_CONFIG=<json>` overrides the model with one configuration (the sweep's
candidates), e.g. `{"kernel": "tma", "BM": 128, "BN": 256, "BK": 64, "stages": 3, "warps": 8}`.
Every kernel adds the K products of one element in the same float32 order for a given
configuration; split-K adds its slices in slice order.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

import torch
import triton

from . import kr_triton_kernels as K_

DECODE_M = 16
SMALL_M = 128
DECODE_WAVES = 4  # programs per SM the decode split aims for
MAX_SPLITS = 32
_ENV = "KR_GEMM_CONFIG"

# The time estimate of the model (H200 figures, used only to rank options against each other):
# bf16 flop/s one SM sustains on a 128 x 256 wgmma tile: the 2026-12-02 tune's unsplit 128 x 256
# times on its 7 large shapes were 0.75-0.95 of this estimate at 5.0e12 (mean 0.83)
F_SM = 6.2e12
BW = 4.0e12  # HBM bytes/s (the 2026-12-02 sweep measured a 4.18 TB/s copy)
BW_SM = 3 * BW / 132  # the bytes/s one program can pull when fewer programs than SMs run
ITEM_S = 1.0e-6  # fixed cost of one work item (pipeline fill, epilogue)
LAUNCH_S = 3.0e-6  # the second launch of a split (the reduction)
# (BM, BN): (BK, stages, warps, relative wgmma efficiency); the efficiencies are guesses that
# order the 2026-12-02 tune geomeans (128x256 1.29, 128x128 1.36, 256x128 1.45 of cuBLAS)
TILES = {(128, 256): (64, 3, 8, 1.0), (256, 128): (64, 3, 8, 0.92), (128, 128): (64, 4, 4, 0.85),
         (64, 128): (64, 4, 4, 0.55), (64, 256): (64, 3, 8, 0.65)}
LARGE_TILES = ((128, 256), (128, 128), (256, 128))
SMALL_TILES = ((64, 128), (128, 128), (64, 256))
LARGE_SPLITS = (1, 2, 3, 4)  # split-K of the large class only where K is large:
LARGE_MIN_SLICE = 2048  # K elements per slice at least
SMALL_SPLITS = (1, 2, 3, 4, 6, 8)
SMALL_MIN_SLICE = 512
SPLIT_GAIN = 0.9  # a split must beat the unsplit estimate by 10 % (its extra traffic is a guess)


def _sms(device) -> int:
    if device.type != "cuda":
        return 4  # the interpreter: any count computes the same C
    return torch.cuda.get_device_properties(device).multi_processor_count


def _aligned(t: torch.Tensor) -> bool:
    """Row-major with 16-byte aligned rows and base: what a TMA descriptor needs."""
    es = t.element_size()
    return t.stride(-1) == 1 and (t.stride(0) * es) % 16 == 0 and t.data_ptr() % 16 == 0


def shape_class(M: int, N: int, K: int, sms: int) -> str:
    """decode (M ≤ 16), small (M ≤ 128, or 128 x 128 output tiles fewer than the SMs), large."""
    if M <= DECODE_M:
        return "decode"
    if M <= SMALL_M or triton.cdiv(M, 128) * triton.cdiv(N, 128) < sms:
        return "small"
    return "large"


def estimate_s(M: int, N: int, K: int, BM: int, BN: int, splits: int, sms: int, elsize: int = 2) -> float:
    """The model's time of the TMA kernel at tile BM x BN and `splits` K slices: whole waves of
    work items (tiles x splits over the SMs: a last wave half full costs a full one), each item
    bound by its wgmma work or, below one wave, by the bytes one program pulls; never under the
    bytes of A, B and C once; a split adds its float32 partials (written, read) and a launch."""
    BK, _, _, eff = TILES[(BM, BN)]
    items = triton.cdiv(M, BM) * triton.cdiv(N, BN) * splits
    k_slice = triton.cdiv(triton.cdiv(K, BK), splits) * BK
    item = max(2.0 * BM * BN * k_slice / (F_SM * eff), (BM + BN) * k_slice * elsize / BW_SM) + ITEM_S
    t = max(triton.cdiv(items, sms) * item, (M * K + N * K + M * N) * elsize / BW)
    if splits > 1:
        t += LAUNCH_S + (2 * splits * M * N * 4 + M * N * elsize) / BW
    return t


def last_wave_fill(M: int, N: int, cfg: dict, sms: int) -> float:
    """How full the last wave of the configuration's work items is (1.0: every SM busy)."""
    items = triton.cdiv(M, cfg["BM"]) * triton.cdiv(N, cfg["BN"]) * cfg.get("splits", 1)
    return (items - (triton.cdiv(items, sms) - 1) * sms) / sms


def tma_options(M: int, N: int, K: int, sms: int, elsize: int = 2):
    """(estimate, BM, BN, splits) of every TMA option of the shape's class, best first."""
    small = shape_class(M, N, K, sms) == "small"
    tiles = [t for t in (SMALL_TILES if small else LARGE_TILES) if not (t[0] == 64 and M > 64)]
    splits, min_slice = (SMALL_SPLITS, SMALL_MIN_SLICE) if small else (LARGE_SPLITS, LARGE_MIN_SLICE)
    out = []
    for BM, BN in tiles:
        base = estimate_s(M, N, K, BM, BN, 1, sms, elsize)
        out.append((base, BM, BN, 1))
        for s in splits[1:]:
            if K < s * min_slice:
                break
            t = estimate_s(M, N, K, BM, BN, s, sms, elsize)
            if t < SPLIT_GAIN * base:
                out.append((t, BM, BN, s))
    return sorted(out)


def config_for(M: int, N: int, K: int, sms: int, tma_ok: bool = True, elsize: int = 2) -> dict:
    """The launch configuration of the shape (M, N, K) on a GPU with `sms` multiprocessors, for
    operands of `elsize` bytes (2: bfloat16 or float16, the family's; 4: float32). `tma_ok`:
    the operands the kernel will read are 16-byte aligned, as they are after the padded path
    (`needs_pad`), so it is False only for decode shapes or a configuration with pad false."""
    forced = os.environ.get(_ENV)
    if forced:
        return _checked(json.loads(forced))
    cls = shape_class(M, N, K, sms)
    if cls == "decode":
        cfg = {"kernel": "split_k", "BM": 16, "BN": 64, "BK": 128, "stages": 4, "warps": 4}
        return _with_splits(_fit(cfg, elsize), M, N, K, DECODE_WAVES * sms)
    if not tma_ok:  # the pointer kernels, as before the padded path
        if cls == "small":
            cfg = {"kernel": "split_k", "BM": 64 if M <= 64 else 128, "BN": 128, "BK": 64, "stages": 4, "warps": 4}
            return _with_splits(_fit(cfg, elsize), M, N, K, sms)
        cfg = {"kernel": "tiles", "BM": 128, "BN": 256, "BK": 64, "stages": 3, "warps": 8, "GROUP_M": 8}
        return _fit(cfg, elsize)
    _, BM, BN, splits = tma_options(M, N, K, sms)[0]
    BK, stages, warps, _ = TILES[(BM, BN)]
    cfg = {"kernel": "tma", "BM": BM, "BN": BN, "BK": BK, "stages": stages, "warps": warps, "GROUP_M": 8,
           "WS": False}
    if splits > 1:
        per = triton.cdiv(triton.cdiv(K, BK), splits)
        cfg.update(splits=triton.cdiv(triton.cdiv(K, BK), per), k_per_split=per * BK)
    return _fit(cfg, elsize)


def _fit(cfg: dict, elsize: int) -> dict:
    """The 2-byte configuration `cfg` for operands of `elsize` bytes. float32 would ask twice its
    shared memory (the H200 measured 393,232 bytes for the 128 × 256 × 64 three-stage tile,
    against 232,448 allowed): halving BK keeps each stage's bytes (a split's k_per_split stays
    a multiple of it), and tiles above 128 × 128 drop to 128 × 128 on 4 warps, so the float32
    epilogue fits beside the stages."""
    if elsize <= 2:
        return cfg
    cfg = dict(cfg, BK=max(16, cfg["BK"] * 2 // elsize))
    if cfg["kernel"] in ("tma", "tiles") and cfg["BM"] * cfg["BN"] > 128 * 128:
        cfg.update(BM=128, BN=128, warps=4, stages=4)
    return cfg


def _with_splits(cfg: dict, M: int, N: int, K: int, target_programs: int) -> dict:
    tiles = triton.cdiv(N, cfg["BN"]) * triton.cdiv(M, cfg["BM"])
    k_tiles = triton.cdiv(K, cfg["BK"])
    splits = max(1, min(MAX_SPLITS, k_tiles, triton.cdiv(target_programs, tiles)))
    per = triton.cdiv(k_tiles, splits)  # K tiles per slice
    cfg["splits"] = triton.cdiv(k_tiles, per)  # no empty slice
    cfg["k_per_split"] = per * cfg["BK"]
    return cfg


_KEYS = {"kernel", "BM", "BN", "BK", "stages", "warps", "GROUP_M", "WS", "splits", "k_per_split", "fused",
         "pad"}


def _checked(cfg: dict) -> dict:
    unknown = set(cfg) - _KEYS
    if unknown or cfg.get("kernel") not in ("tma", "tiles", "split_k"):
        raise ValueError(f"{_ENV}: unknown keys {sorted(unknown)} or kernel {cfg.get('kernel')!r} "
                         f"(keys: {sorted(_KEYS)}; kernel: tma, tiles or split_k)")
    return cfg


@lru_cache(maxsize=None)
def _allocator_set() -> bool:
    # TMA descriptors made on the device need a global scratch buffer from Triton's allocator.
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                 device="cuda" if torch.cuda.is_available() else "cpu"))
    return True


def check_args(a: torch.Tensor, b: torch.Tensor) -> None:
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"gemm: a [M, K] and b [N, K] must be 2-d, got {tuple(a.shape)} and {tuple(b.shape)}")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"gemm: a is [M, K] = {tuple(a.shape)} and b is [N, K] = {tuple(b.shape)}: "
                         "their K (last dimension) must agree")
    if a.dtype != b.dtype or a.dtype not in (torch.bfloat16, torch.float16, torch.float32):
        raise ValueError(f"gemm: a and b must share one of bfloat16, float16, float32; got {a.dtype} and {b.dtype}")
    if a.device != b.device:
        raise ValueError(f"gemm: a is on {a.device} and b on {b.device}")


def _vec(t: torch.Tensor) -> int:
    return 16 // t.element_size()  # elements in 16 bytes


def needs_pad(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None = None) -> bool:
    """The padded path's rule: M > 16 and a row of A, B or C not 16-byte aligned (K or N not a
    multiple of 8 in bf16, a strided view, an odd base). Decode shapes keep the pointer kernels:
    they are bound by reading B once, and a copy of B would read it twice more."""
    if a.shape[0] <= DECODE_M:
        return False
    rows_ok = _aligned(a) and _aligned(b) and a.shape[1] % _vec(a) == 0
    return not (rows_ok and (c is None or _aligned(c)))


def model_config(a: torch.Tensor, b: torch.Tensor) -> dict:
    """The model's configuration for `gemm(a, b)`: the shape as the kernel will see it, after
    the padded path when it applies (K rounded up to 16 bytes, the operands aligned)."""
    M, K = a.shape
    pad = needs_pad(a, b) or (M > DECODE_M and b.shape[0] % _vec(a) != 0)
    vec = _vec(a)
    k_eff = triton.cdiv(K, vec) * vec if pad else K
    tma_ok = pad or (_aligned(a) and _aligned(b) and b.shape[0] % vec == 0)
    return config_for(M, b.shape[0], k_eff, _sms(a.device), tma_ok, a.element_size())


def _padded(t: torch.Tensor, cols: int) -> torch.Tensor:
    """A row-major copy of t [R, C] with `cols` ≥ C columns (a multiple of 16 bytes), zeros in
    the pad: one launch, reading t at its strides."""
    R, C = t.shape
    dst = torch.empty((R, cols), dtype=t.dtype, device=t.device)
    if R:
        BR, BC = 16, 128
        K_.pad_copy[(triton.cdiv(R, BR), triton.cdiv(cols, BC))](t, dst, R, C, cols, t.stride(0), t.stride(1),
                                                                BR=BR, BC=BC, VEC=_vec(t), num_warps=4)
    return dst


def gemm(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None, config: dict | None = None) -> torch.Tensor:
    """C = a @ b.T for a [M, K] and b [N, K]; C [M, N] in their dtype, accumulated in float32.
    Any M, N, K ≥ 1 (edges masked or clipped by TMA); `config` overrides the model.

    The padded path (M > 16, `needs_pad`): A and B whose rows are not 16-byte aligned (K not a
    multiple of 8 bf16 elements, strided views) are copied once into row-major buffers of
    Kp = K rounded up to 8 columns, zeros in the pad (zero products: the same float32 sums, in
    the same order, as the unpadded kernel); C, when its rows are unaligned (N odd), is
    written into an [M, Np] buffer and copied out. Then the aligned kernels run (TMA, or the
    pointer kernels with 16-byte loads). Cost model: the copies move 2·(M + N)·K·e bytes (read
    and write; + 2·M·N·e for C) at BW ≈ 4 TB/s: 2× the operands' share of the GEMM's memory
    floor ((M + N)·K·e + M·N·e bytes). Against a compute-bound GEMM (2·M·N·K flop at F ≈ 660
    TFLOP/s) the copy costs e·F/BW·(1/M + 1/N) ≈ 330·(1/M + 1/N) of it for bf16: 10 % at
    M = N = 6600, 5 % at M = N = 13200. It applies to every unaligned shape with M > 16 anyway:
    the alternative, the pointer kernels with scalar loads on unaligned rows, measured 4.5-16×
    cuBLAS on the H200 (2026-12-02, lab/gemm/NOTES.md), far above copy + aligned GEMM. Decode
    (M ≤ 16) is bound by reading B and keeps the pointer kernel. `"pad": false` in a
    configuration turns the copies off (the sweep's comparison); `"pad": true` forces them."""
    check_args(a, b)
    M, Kd = a.shape
    N = b.shape[0]
    c = out if out is not None else torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M == 0 or N == 0:
        return c
    if Kd == 0:
        return c.zero_()
    cfg = dict(config) if config is not None else None
    pad = needs_pad(a, b, c) if cfg is None or "pad" not in cfg else bool(cfg.pop("pad"))
    a_, b_, c_, K_eff = a, b, c, Kd
    if pad:
        vec = _vec(a)
        kp = triton.cdiv(Kd, vec) * vec
        if not (_aligned(a) and _aligned(b) and Kd % vec == 0):
            a_, b_, K_eff = _padded(a, kp), _padded(b, kp), kp
        if not _aligned(c):
            c_ = torch.empty((M, triton.cdiv(N, vec) * vec), dtype=c.dtype, device=c.device)[:, :N]
    tma_ok = _aligned(a_) and _aligned(b_) and _aligned(c_)
    if cfg is None:
        cfg = config_for(M, N, K_eff, _sms(a.device), tma_ok, a.element_size())
    if cfg["kernel"] == "tma" and not tma_ok:
        cfg["kernel"] = "tiles"
    if cfg["kernel"] == "split_k" and "splits" not in cfg:
        cfg = _with_splits(cfg, M, N, K_eff, DECODE_WAVES * _sms(a.device))
    ieee = a.dtype == torch.float32
    if cfg["kernel"] == "split_k":
        _split_k(a_, b_, c_, cfg, ieee, K_eff)
    else:
        _persistent(a_, b_, c_, cfg, ieee, K_eff)
    if c_ is not c:
        c.copy_(c_)
    return c


def _vecs(a, b, c, K):
    """The alignment hints the host has verified: (VEC_AB, VEC_C) in elements, 1 for none."""
    vec = _vec(a)
    ab = vec if (_aligned(a) and _aligned(b) and K % vec == 0) else 1
    cv = vec if (_aligned(c) and c.shape[1] % vec == 0) else 1
    return ab, cv


def _persistent(a, b, c, cfg, ieee, Kd):
    M = a.shape[0]
    N = b.shape[0]
    tiles = triton.cdiv(M, cfg["BM"]) * triton.cdiv(N, cfg["BN"])
    common = dict(BM=cfg["BM"], BN=cfg["BN"], BK=cfg["BK"], GROUP_M=cfg.get("GROUP_M", 8),
                  IEEE=ieee, num_warps=cfg["warps"], num_stages=cfg["stages"])
    if cfg["kernel"] == "tma":
        _allocator_set()
        k_tiles = triton.cdiv(Kd, cfg["BK"])
        splits = int(cfg.get("splits", 1))
        per = k_tiles
        if splits > 1:
            per = cfg.get("k_per_split", triton.cdiv(k_tiles, splits) * cfg["BK"])
            if per % cfg["BK"]:
                raise ValueError(f"gemm: k_per_split {per} must be a multiple of BK {cfg['BK']}")
            per //= cfg["BK"]
            splits = triton.cdiv(k_tiles, per)  # no empty slice
        programs = max(1, min(_sms(a.device), tiles * splits))
        if splits > 1:
            ps = triton.cdiv(N, 4) * 4  # float32 partial rows: 16-byte multiples (wide stores)
            part = torch.empty((splits, M, ps), dtype=torch.float32, device=a.device)
        else:
            ps, part = N, c
        K_.tma_persistent[(programs,)](a, b, c, part, M, N, Kd, a.stride(0), b.stride(0), c.stride(0), ps, per,
                                       NUM_PROGRAMS=programs, WS=bool(cfg.get("WS", False)), SPLITS=splits, **common)
        if splits > 1:
            _reduce(part, c, M, N, ps, splits)
    else:
        programs = max(1, min(_sms(a.device), tiles))
        vab, vc = _vecs(a, b, c, Kd)
        K_.tiles_persistent[(programs,)](a, b, c, M, N, Kd, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                         c.stride(0), c.stride(1), NUM_PROGRAMS=programs, VEC_AB=vab, VEC_C=vc,
                                         **common)


def _reduce(part, c, M, N, ps, splits):
    block = 1024
    K_.split_k_reduce[(triton.cdiv(M * N, block),)](part, c, M, N, ps, c.stride(0), c.stride(1),
                                                    SPLITS=splits, BLOCK=block, num_warps=4)


_COUNTERS: dict = {}  # device -> int32 tile counters of the fused split-K, zero between calls


def _counters(device, tiles: int) -> torch.Tensor:
    """The fused split-K's counters: allocated (zeroed) once per device and grown when a call
    has more tiles, so a call (and a CUDA-graph replay) launches nothing to reset them."""
    have = _COUNTERS.get(device)
    if have is None or have.numel() < tiles:
        have = torch.zeros(max(tiles, 1024), dtype=torch.int32, device=device)
        _COUNTERS[device] = have
    return have


def _split_k(a, b, c, cfg, ieee, Kd):
    M = a.shape[0]
    N = b.shape[0]
    splits, per = cfg["splits"], cfg["k_per_split"]
    if per % cfg["BK"]:
        raise ValueError(f"gemm: k_per_split {per} must be a multiple of BK {cfg['BK']}")
    if splits * per < Kd:
        raise ValueError(f"gemm: {splits} slices of k_per_split {per} do not cover K = {Kd}: "
                         "give splits ≥ K / k_per_split, or leave both out for the model's split")
    grid = (triton.cdiv(N, cfg["BN"]), triton.cdiv(M, cfg["BM"]), splits)
    fused = bool(cfg.get("fused", False)) and splits > 1
    cc = c if (c.is_contiguous() and splits == 1 and c.dtype == torch.float32) else None
    part = cc if cc is not None else torch.empty((splits, M, N), dtype=torch.float32, device=a.device)
    count = _counters(a.device, grid[0] * grid[1]) if fused else part
    vab, _ = _vecs(a, b, c, Kd)
    if per % _vec(a):
        vab = 1
    vn = 4 if (N % 4 == 0 and cc is None) else 1  # the float32 partials' rows
    K_.split_k[grid](a, b, part, M, N, Kd, a.stride(0), a.stride(1), b.stride(0), b.stride(1), per,
                     c, c.stride(0), c.stride(1), count, splits,
                     BM=cfg["BM"], BN=cfg["BN"], BK=cfg["BK"], IEEE=ieee, FUSED=fused, VEC_AB=vab, VEC_N=vn,
                     num_warps=cfg["warps"], num_stages=cfg["stages"])
    if cc is not None or fused:
        return
    _reduce(part, c, M, N, N, splits)
