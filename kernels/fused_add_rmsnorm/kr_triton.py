"""Kernel Records' own Triton fused add + RMSNorm (forward).

Numerics (Hugging Face Llama convention, "rounded h"):

    h    = (x + residual) rounded to the input dtype          -> returned as residual_out
    rstd = 1 / sqrt(mean(float32(h) ** 2) + eps)              (float32)
    y    = weight * (float32(h) * rstd).to(input dtype)       (the multiply as torch would do it)

The product ``weight * normed`` follows torch's type promotion, exactly as HF's
``self.weight * hidden_states.to(input_dtype)``: with weight and input of the same dtype
``y`` has that dtype; with a float32 weight and bf16/fp16 input ``y`` is float32 (the
product of the float32 weight and the bf16-rounded normalised value, not rounded again);
in general ``y.dtype == torch.promote_types(weight.dtype, x.dtype)``.
``residual_out`` always has the input dtype.

The code is in three parts: the Triton kernels (kr_triton_kernels.py), their launch
configuration (kr_triton_config.py: a model of the shape and dtype over size classes, its anchors
as data in kr_triton_tuned.json) and this host wrapper, which checks the inputs, picks a
configuration and launches. Four kernels, one chosen per (hidden, element size) (a row's
arithmetic never depends on how many rows come with it):

* ``_k_rows``: the whole row lives in registers; one pass over memory. A program handles
  ROWS rows (several rows per program for small hidden sizes). The row is split into up
  to four power-of-two *segments* (e.g. 5120 = 4096 + 1024, 7168 = 4096 + 2048 + 1024),
  so hidden sizes that are not powers of two are covered without padding or masks;
  other sizes (111, 4097, ...) use one masked power-of-two block.
* ``_k_row1``: one row per program in 1-D blocks (no row axis), for wide rows that still fit
  in one program's registers.
* ``_k_split``: a row too wide for one program (hidden 32768 fp32, 65536, 131072 bf16) split
  across SPLIT programs that exchange their partial sums of squares through a small global
  workspace; still one pass over memory.
* ``_k_chunked``: where _k_split cannot run (the interpreter, fewer SMs than parts): one
  program per row loops over chunks; pass 2 re-reads h from L2.
* ``_k_wide``: experimental (lab/fused_add_rmsnorm/NOTES.md, issue 14, "Few rows × huge hidden"),
  selected only by a KR_TRITON_CONFIGS entry: _k_split's bits with the programs per row a knob.

Launch knobs that leave the arithmetic alone: cache hints (HINTS, see _HINTS), programmatic
dependent launch on Hopper (PDL), the weight loaded before or after the reduction (W_EARLY).

The host path caches per-(hidden, dtypes, alignment) launch configurations and, on CUDA,
the compiled kernel handle, so a decode-size call costs little more than the launch.
"""

from __future__ import annotations

import os

import torch
import triton

from .kr_triton_config import (  # noqa: F401  (the configuration, also for tests and sweeps)
    _ANCHORS, _INT32_MAX, _INTERPRET, _KNOB_NAMES, _KNOBS, _SUPPORTED, _TUNED, _HINTS, _bucket, _cfg_from_json,
    _chunked_cfg, _config_for, _resolve, _wide_cfg, check_wide_cfg,
    _default_config, _pdl_supported, _pow2_segments, _row1_cfg, _rows_cfg, _split_cfg, _split_possible,
    candidate_configs, model_anchor, model_config, reduction_layout)
from .kr_triton_kernels import KERNELS, _k_rows  # noqa: F401  (_k_rows: tests check it is interpreted)

__all__ = ["fused_add_rmsnorm"]


def _run_cfg(cfg: dict, x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6):
    """Run one given configuration (contiguous 2-D inputs): for tuning and tests."""
    n = x.shape[-1]
    y = torch.empty(x.shape, dtype=torch.promote_types(weight.dtype, x.dtype), device=x.device)
    h = torch.empty_like(x)
    n_rows = x.numel() // n
    if n_rows:
        i64 = x.numel() > _INT32_MAX
        _launch(cfg, x.view(-1, n), residual.view(-1, n), weight, y.view(-1, n), h.view(-1, n), n_rows,
                float(eps), True, i64)
    return y, h


def _constexpr_tail(cfg: dict, n: int, contig: bool, i64: bool, pdl: bool) -> tuple:
    """The constexpr arguments, in kernel signature order (the *_CONSTEXPRS names below)."""
    ld_ev, st_cm = _HINTS[cfg.get("HINTS", 1)]
    w_early = bool(cfg.get("W_EARLY", False))
    kind = cfg["kind"]
    if kind == "rows":
        s = cfg["S"]
        return (n, s[0], s[1], s[2], s[3], cfg["MASK_COLS"], cfg["ROWS"], contig, i64, pdl, ld_ev, st_cm, w_early)
    if kind == "row1":
        return (n, cfg["BLOCK"], cfg["MASK_COLS"], contig, i64, pdl, ld_ev, st_cm, w_early)
    if kind == "split":
        return (n, cfg["BLOCK"], cfg["SPLIT"], contig, i64, pdl, ld_ev, st_cm, w_early)
    if kind == "wide":
        return (n, cfg["CHUNK"], cfg["NCH"], cfg["PARTS"], contig, i64, pdl, ld_ev, st_cm)
    return (n, cfg["BLOCK"], contig, i64, pdl, ld_ev, st_cm)


def _grid0(cfg: dict, n_rows: int) -> int:
    kind = cfg["kind"]
    if kind == "rows":
        return triton.cdiv(n_rows, cfg["ROWS"])
    if kind == "wide":
        return n_rows * cfg["PARTS"]
    return n_rows * cfg["SPLIT"] if kind == "split" else n_rows


# _k_split's exchange workspace. Eagerly: one per (device, stream), all zeros between calls
# (each call leaves it as it found it), grown as rows demand; kernels on one stream run one
# after the other and can share it, kernels on two streams may overlap and must not. While a
# CUDA graph is being captured: a fresh zeroed one per call, so the graph holds its own
# memset and never depends on memory that was zeroed, or not, outside it.
_SPLIT_WS: dict = {}


def _split_workspace(device: torch.device, n_rows: int, split: int):
    def zeroed(rows, per_row):
        return (torch.zeros(rows * per_row, dtype=torch.int64, device=device),
                torch.zeros(rows, dtype=torch.int32, device=device))

    if torch.cuda.is_current_stream_capturing():
        return zeroed(n_rows, split)
    key = (device.index, torch.cuda.current_stream(device).cuda_stream)
    ws = _SPLIT_WS.get(key)
    if ws is None or ws[0].numel() < n_rows * split or ws[1].numel() < n_rows:
        ws = _SPLIT_WS[key] = zeroed(max(n_rows, 2 * ws[1].numel() if ws is not None else 0), max(split, 16))
    return ws


def _launch(cfg: dict, x2, r2, w, y2, h2, n_rows: int, eps: float, contig: bool, i64: bool):
    n = x2.shape[1]
    pdl = bool(cfg.get("PDL", True)) and _pdl_supported(x2.device)
    args = (x2, r2, w, y2, h2, n_rows, x2.stride(0), r2.stride(0), h2.stride(0), y2.stride(0), eps)
    if cfg["kind"] == "split":
        if not _split_possible(x2.device, cfg["SPLIT"]):
            raise ValueError(f"split configuration {cfg} needs a CUDA device with at least {cfg['SPLIT']} SMs "
                             "and compiled Triton (its programs wait for each other)")
        args += _split_workspace(x2.device, n_rows, cfg["SPLIT"])
    elif cfg["kind"] == "wide":  # experimental (_k_wide): only from a KR_TRITON_CONFIGS entry
        check_wide_cfg(cfg, n)
        if not _split_possible(x2.device, cfg["PARTS"]):
            raise ValueError(f"wide configuration {cfg} needs a CUDA device with at least {cfg['PARTS']} SMs "
                             "and compiled Triton (its programs wait for each other)")
        args += _split_workspace(x2.device, n_rows, cfg["NCH"])
    tail = _constexpr_tail(cfg, n, contig, i64, pdl)
    kern, names = KERNELS[cfg["kind"]]
    kw = dict(zip(names, tail))
    if pdl:
        kw["launch_pdl"] = True
    return kern[(_grid0(cfg, n_rows),)](*args, **kw, num_warps=cfg["num_warps"], num_stages=1)


# --------------------------------------------------------------------------------------
# Lean host path: cached compiled kernels, launched without Triton's per-call binding.
# --------------------------------------------------------------------------------------

# key (hidden, x dtype, w dtype, device index, rows bucket) ->
#   (compiled kernel, rows per program, parts per row (_k_split) or 0, constexpr tail, y dtype)
#   or False (use the normal path)
_FAST: dict = {}
_FAST_ENABLED = os.environ.get("KR_TRITON_NO_FAST_LAUNCH", "0") in ("", "0")
_raw_stream = None
_get_device = None


def _check_inputs(x, residual, weight):
    if not (isinstance(x, torch.Tensor) and isinstance(residual, torch.Tensor) and isinstance(weight, torch.Tensor)):
        raise ValueError("x, residual and weight must be torch.Tensors")
    if x.shape != residual.shape:
        raise ValueError(f"x and residual shapes differ: {tuple(x.shape)} vs {tuple(residual.shape)}")
    if x.dim() < 1:
        raise ValueError("x must have at least one dimension (..., hidden)")
    if weight.dim() != 1 or weight.shape[0] != x.shape[-1]:
        raise ValueError(f"weight must be 1-D of size hidden={x.shape[-1]}, got shape {tuple(weight.shape)}")
    if x.dtype != residual.dtype:
        raise ValueError(f"x and residual dtypes differ: {x.dtype} vs {residual.dtype}")
    if x.dtype not in _SUPPORTED or weight.dtype not in _SUPPORTED:
        raise ValueError(f"unsupported dtype(s) x={x.dtype}, weight={weight.dtype}; use float32, float16 or bfloat16")
    if x.device != residual.device or x.device != weight.device:
        raise ValueError(f"tensors on different devices: x {x.device}, residual {residual.device}, weight {weight.device}")
    if x.device.type != "cuda" and not _INTERPRET:
        raise ValueError("fused_add_rmsnorm needs CUDA tensors (or TRITON_INTERPRET=1 for CPU tensors)")
    if x.shape[-1] == 0:
        raise ValueError("hidden size must be > 0")
    if x.stride(-1) != 1 or residual.stride(-1) != 1:
        raise ValueError("x and residual must be contiguous in the last dimension (stride(-1) == 1)")


def _rows_view(t: torch.Tensor, n: int) -> torch.Tensor:
    if t.dim() == 2:
        return t
    if t.dim() == 1:
        return t.view(1, n)
    try:
        return t.view(-1, n)
    except RuntimeError:  # leading dims not collapsible: copy (correct, slower)
        return t.reshape(-1, n)


def fused_add_rmsnorm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                      eps: float = 1e-6) -> tuple[torch.Tensor, torch.Tensor]:
    """returns (y, residual_out), new tensors; inputs are not modified

    residual_out = (x + residual) in x.dtype; y = weight * rmsnorm(residual_out) with the
    norm in float32 (HF Llama convention); y.dtype = torch.promote_types(weight.dtype, x.dtype).
    """
    # ---- fast path: contiguous, 16-byte aligned, int32 offsets, cached compiled kernel ----
    if _FAST:
        try:
            n = x.shape[-1]
            numel = x.numel()
            dev = x.get_device()
            entry = _FAST.get((n, x.dtype, weight.dtype, dev,
                               0 if numel <= n * 256 else (1 if numel <= n * 8192 else 2)))
        except (AttributeError, IndexError, TypeError):
            entry = None
        if entry and numel <= _INT32_MAX and x.is_contiguous() and residual.is_contiguous() \
                and weight.is_contiguous() and residual.dtype is x.dtype and residual.shape == x.shape \
                and weight.dim() == 1 and weight.shape[0] == n and residual.get_device() == dev \
                and weight.get_device() == dev and _get_device() == dev:
            px, pr, pw = x.data_ptr(), residual.data_ptr(), weight.data_ptr()
            ck, rows_per_prog, split, tail, ydt = entry
            n_rows = numel // n
            stream = _raw_stream(dev)
            ws = None
            if split and n_rows:
                # the stream's own workspace, already big enough; never while capturing a graph
                # (the normal path gives a captured call a workspace of its own)
                ws = _SPLIT_WS.get((dev, stream))
                if ws is not None and (ws[0].numel() < n_rows * split or ws[1].numel() < n_rows
                                       or torch.cuda.is_current_stream_capturing()):
                    ws = None
            if ((px | pr | pw) & 15) == 0 and (ws is not None or not split or not n_rows):
                h = torch.empty_like(x)
                y = torch.empty_like(x) if ydt is x.dtype else torch.empty_like(x, dtype=ydt)
                if n_rows:
                    # raw device pointers: the tensors were checked above (same CUDA device)
                    if split:
                        ck.run(n_rows * split, 1, 1, stream, ck.function, ck.packed_metadata, None, None, None,
                               px, pr, pw, y.data_ptr(), h.data_ptr(), n_rows, n, n, n, n, eps,
                               ws[0].data_ptr(), ws[1].data_ptr(), *tail)
                    else:
                        ck.run((n_rows + rows_per_prog - 1) // rows_per_prog, 1, 1, stream, ck.function,
                               ck.packed_metadata, None, None, None, px, pr, pw, y.data_ptr(), h.data_ptr(),
                               n_rows, n, n, n, n, eps, *tail)
                return y, h
    return _general(x, residual, weight, eps)


def _general(x, residual, weight, eps):
    _check_inputs(x, residual, weight)
    n = x.shape[-1]
    out_dtype = torch.promote_types(weight.dtype, x.dtype)
    y = torch.empty(x.shape, dtype=out_dtype, device=x.device)
    h = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if x.numel() == 0:
        return y, h
    x2 = _rows_view(x, n)
    r2 = _rows_view(residual, n)
    w = weight.contiguous()
    y2 = y.view(-1, n)
    h2 = h.view(-1, n)
    n_rows = x2.shape[0]
    max_off = max((n_rows - 1) * abs(t.stride(0)) + n for t in (x2, r2, y2, h2))
    i64 = max_off > _INT32_MAX
    contig = all(t.stride(0) == n for t in (x2, r2))
    cfg = _config_for(n, x.element_size(), n_rows, x.device)
    if x.device.type == "cuda":
        with torch.cuda.device(x.device):
            ck = _launch(cfg, x2, r2, w, y2, h2, n_rows, float(eps), contig, i64)
            _maybe_cache_fast(ck, cfg, x2, r2, w, y2, h2, n_rows, eps, contig, i64, out_dtype)
    else:
        _launch(cfg, x2, r2, w, y2, h2, n_rows, float(eps), contig, i64)
    return y, h


def _maybe_cache_fast(ck, cfg, x2, r2, w, y2, h2, n_rows, eps, contig, i64, out_dtype):
    """After a normal launch of the common case (contiguous, 16-byte aligned, int32
    offsets), remember the compiled kernel and check once that launching it directly
    gives bit-identical results; otherwise keep using the normal path for that key."""
    global _raw_stream, _get_device
    if not _FAST_ENABLED or not contig or i64 or ck is None or cfg["kind"] == "wide":
        return  # (the experimental _k_wide always takes the normal path)
    n = x2.shape[1]
    key = (n, x2.dtype, w.dtype, x2.get_device(), _bucket(n_rows))
    if key in _FAST:
        return
    if (x2.data_ptr() | r2.data_ptr() | w.data_ptr() | y2.data_ptr() | h2.data_ptr()) & 15:
        return
    if not (x2.is_contiguous() and r2.is_contiguous() and w.is_contiguous()):
        return
    try:
        if torch.cuda.is_current_stream_capturing():
            return
        _raw_stream = torch._C._cuda_getCurrentRawStream
        _get_device = torch._C._cuda_getDevice
        if _get_device() != x2.get_device():
            return
        pdl = bool(cfg.get("PDL", True)) and _pdl_supported(x2.device)
        tail = _constexpr_tail(cfg, n, True, False, pdl)
        rpp = cfg["ROWS"] if cfg["kind"] == "rows" else 1
        split = cfg["SPLIT"] if cfg["kind"] == "split" else 0
        y_b = torch.empty_like(y2)
        h_b = torch.empty_like(h2)
        args = (x2.data_ptr(), r2.data_ptr(), w.data_ptr(), y_b.data_ptr(), h_b.data_ptr(), n_rows, n, n, n, n,
                float(eps))
        if split:
            slots, dep = _split_workspace(x2.device, n_rows, split)
            args += (slots.data_ptr(), dep.data_ptr())
        grid = n_rows * split if split else (n_rows + rpp - 1) // rpp
        ck.run(grid, 1, 1, _raw_stream(x2.get_device()), ck.function, ck.packed_metadata, None, None, None,
               *args, *tail)
        same = torch.equal(y_b.view(torch.uint8), y2.view(torch.uint8)) and \
            torch.equal(h_b.view(torch.uint8), h2.view(torch.uint8))
    except Exception:  # noqa: BLE001 - any incompatibility: keep the normal path
        same = False
    _FAST[key] = (ck, rpp, split, tail, out_dtype) if same else False


def fast_path_status() -> dict:
    """For benchmarks and tests: which keys launch through the cached fast path."""
    return {str(k): bool(v) for k, v in _FAST.items()}
