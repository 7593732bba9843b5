"""Launch configurations of kr_triton's kernels: the configuration model (`model_config`, its
anchors as data in kr_triton_tuned.json), the heuristic default (for a size class the model has
no anchor for), the rows buckets, and the candidates a sweep times.

A configuration is a dict: `kind` (rows, row1, split, chunked: the kernel), its block shape,
`num_warps`, and launch knobs that leave the arithmetic alone (HINTS, PDL, W_EARLY).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch
import triton

_INT32_MAX = 2**31 - 1

_SUPPORTED = (torch.float32, torch.float16, torch.bfloat16)
_MAX_REG_ROW = 32768  # the largest row kept whole in registers
# cache hints: HINTS -> (eviction policy of the x/r loads, cache modifier of the y/h stores).
# 2 measures fast only when the kernel follows itself (lab/fused_add_rmsnorm/NOTES.md, "cache hints under interleaved
# timing"); 3 keeps the streaming stores without the evict-first loads.
_HINTS = {0: ("", ""), 1: ("evict_first", ""), 2: ("evict_first", ".cs"), 3: ("", ".cs")}
_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")
_PDL_ENV = os.environ.get("KR_TRITON_PDL", "1") not in ("", "0")
_DEVICE_INFO: dict = {}  # device index -> (compute capability major, SM count)


def _device_info(device: torch.device) -> tuple[int, int]:
    idx = device.index if device.index is not None else torch.cuda.current_device()
    info = _DEVICE_INFO.get(idx)
    if info is None:
        props = torch.cuda.get_device_properties(idx)
        info = _DEVICE_INFO[idx] = (props.major, props.multi_processor_count)
    return info


def _pdl_supported(device: torch.device) -> bool:
    """Programmatic dependent launch: Hopper (sm_90) and newer, compiled mode only."""
    if _INTERPRET or not _PDL_ENV or device.type != "cuda":
        return False
    return _device_info(device)[0] >= 9


def _pow2_segments(n: int, max_segments: int = 4, min_seg: int = 256):
    """Split n into <= max_segments powers of two (largest first), each >= min_seg;
    None if impossible."""
    segs = []
    rest = n
    bit = 1 << (n.bit_length() - 1)
    while rest and bit >= min_seg:
        if rest & bit:
            segs.append(bit)
            rest -= bit
        bit >>= 1
    if rest or len(segs) > max_segments:
        return None
    return segs


def _rows_cfg(s, mask, rows, warps, hints=1, pdl=True, w_early=False):
    s = tuple(list(s) + [0] * (4 - len(s)))
    return {"kind": "rows", "S": s, "MASK_COLS": mask, "ROWS": rows, "num_warps": warps, "HINTS": hints,
            "PDL": pdl, "W_EARLY": w_early}


def _row1_cfg(n, warps, hints=1, pdl=True, w_early=False):
    block = triton.next_power_of_2(n)
    return {"kind": "row1", "BLOCK": block, "MASK_COLS": block != n, "num_warps": warps, "HINTS": hints,
            "PDL": pdl, "W_EARLY": w_early}


def _split_cfg(n, block, warps, hints=1, pdl=True, w_early=False):
    """A row split across SPLIT programs of BLOCK columns (SPLIT a power of two, the last
    blocks masked where BLOCK * SPLIT > n)."""
    split = triton.next_power_of_2(triton.cdiv(n, block))
    return {"kind": "split", "BLOCK": block, "SPLIT": split, "num_warps": warps, "HINTS": hints, "PDL": pdl,
            "W_EARLY": w_early}


def _chunked_cfg(block, warps, hints=1, pdl=True):
    return {"kind": "chunked", "BLOCK": block, "num_warps": warps, "HINTS": hints, "PDL": pdl}


_WIDE_MAX_CHUNKS_PER_PROGRAM = 4


def _wide_parts(nch: int, parts: int) -> int:
    """PARTS clamped to what _k_wide takes: a power of two with nch / PARTS in 1, 2, 4."""
    return max(nch // _WIDE_MAX_CHUNKS_PER_PROGRAM, min(nch, triton.next_power_of_2(max(1, parts))))


def _wide_cfg(n, chunk, parts, warps, hints=0, pdl=True):
    """EXPERIMENTAL (_k_wide; never chosen by the model, only by a KR_TRITON_CONFIGS entry, e.g.
    a sweep candidate): a row as NCH = next_pow2(ceil(n / CHUNK)) chunks on PARTS programs. Its
    bits are those of _split_cfg(n, chunk, warps) for every PARTS (PARTS is a launch knob)."""
    nch = triton.next_power_of_2(triton.cdiv(n, chunk))
    return {"kind": "wide", "CHUNK": chunk, "NCH": nch, "PARTS": _wide_parts(nch, parts), "num_warps": warps,
            "HINTS": hints, "PDL": pdl}


def check_wide_cfg(cfg: dict, n: int) -> None:
    """A clear error for a `wide` configuration _k_wide cannot run (from a KR_TRITON_CONFIGS file)."""
    chunk, nch, parts = cfg.get("CHUNK"), cfg.get("NCH"), cfg.get("PARTS")
    ok = isinstance(chunk, int) and isinstance(nch, int) and isinstance(parts, int) and chunk > 0 \
        and chunk & (chunk - 1) == 0 and nch == triton.next_power_of_2(triton.cdiv(n, chunk)) \
        and parts > 0 and parts & (parts - 1) == 0 and nch % parts == 0 \
        and nch // parts <= _WIDE_MAX_CHUNKS_PER_PROGRAM
    if not ok:
        raise ValueError(f"wide configuration {cfg} for hidden {n}: needs CHUNK a power of two, "
                         f"NCH = next_pow2(ceil({n} / CHUNK)), PARTS a power of two dividing NCH with "
                         f"NCH / PARTS <= {_WIDE_MAX_CHUNKS_PER_PROGRAM}; "
                         "build it with _wide_cfg(n, chunk, parts, warps)")


def _default_config(n: int, elsize: int) -> dict:
    """Heuristic launch configuration for a row of n elements of elsize bytes."""
    np2 = triton.next_power_of_2(n)
    if n > _MAX_REG_ROW:
        # split across programs of 64 kB of input each (see _k_split); where that is not
        # possible (the interpreter, fewer SMs than parts) _resolve falls back to _k_chunked
        return _split_cfg(n, 16384 if elsize == 4 else 32768, 32)
    segs = _pow2_segments(n)
    if segs is None:
        segs, mask = [np2], True
    else:
        mask = False
    # several rows per program for small rows
    tile = n if not mask else np2
    rows = max(1, min(16, 2048 // np2)) if elsize == 2 else 1
    elems = rows * tile
    warps = max(1, min(32, elems // (32 * (16 // elsize) * 2)))  # ~2 16-byte vectors per thread
    warps = 1 << (warps.bit_length() - 1)  # a power of two
    if n >= 8192:
        warps = 16 if n < 16384 else 32
    return _rows_cfg(segs, mask, rows, warps)


# The configuration model (lab/fused_add_rmsnorm/NOTES.md, "Issue 14: the configuration model").
# A row's result must not depend on how many rows come with it, so everything that fixes the
# order of the sum of squares (kernel kind, block shape, warps, rows per program) is chosen per
# (hidden, element size) alone, by `model_config`. Per rows bucket (0: <= 256 rows, decode;
# 1: <= 8192; 2: more) only launch knobs that leave the arithmetic alone may change: _KNOBS
# (cache hints, PDL, weight loaded early; empty since sweep 8). KR_TRITON_CONFIGS=<json file>
# overrides entries for tuning runs: _TUNED (exact (hidden, element size) -> configuration, empty
# otherwise) and _KNOBS, in the format of kr_triton_tuned.json's `knobs` or
# [{"key": [n, elsize], "cfg": {...}}, {"key": [n, elsize, bucket], "knobs": {...}}, ...].
def _bucket(n_rows: int) -> int:
    return 0 if n_rows <= 256 else (1 if n_rows <= 8192 else 2)


_KNOB_NAMES = ("HINTS", "PDL", "W_EARLY", "PARTS")  # PARTS: _k_wide's programs per row


TUNED_FILE = Path(__file__).with_name("kr_triton_tuned.json")


def _cfg_from_json(cfg: dict) -> dict:
    cfg = dict(cfg)
    if "S" in cfg:
        cfg["S"] = tuple(cfg["S"])
    return cfg


def _elclass(elsize: int) -> int:
    """bf16 and fp16 share one class (same bytes, same code but the conversions); fp32 its own."""
    return 4 if elsize >= 4 else 2


def _read_knobs(items, knobs: dict) -> None:
    for item in items:
        knobs[(item["hidden"], item["elsize"], item["bucket"])] = {
            k: item["knobs"][k] for k in _KNOB_NAMES if k in item["knobs"]}


def _load_model() -> tuple[dict, dict, dict]:
    """(anchors by element-size class: sorted [(hidden, cfg)], overrides, knobs)."""
    anchors: dict[int, list] = {}
    tuned: dict[tuple[int, int], dict] = {}
    knobs: dict[tuple[int, int, int], dict] = {}
    data = json.loads(TUNED_FILE.read_text())
    for item in data["anchors"]:
        anchors.setdefault(_elclass(item["elsize"]), []).append((item["hidden"], _cfg_from_json(item["cfg"])))
    for group in anchors.values():
        group.sort(key=lambda a: a[0])
    _read_knobs(data.get("knobs", []), knobs)
    path = os.environ.get("KR_TRITON_CONFIGS")
    if path:
        with open(path) as f:
            extra = json.load(f)
        if isinstance(extra, dict):
            for item in extra.get("tuned", []):
                tuned[(item["hidden"], item["elsize"])] = _cfg_from_json(item["cfg"])
            _read_knobs(extra.get("knobs", []), knobs)
        else:
            for item in extra:
                key = tuple(item["key"])
                if len(key) == 2:
                    tuned[key] = _cfg_from_json(item["cfg"])
                else:
                    knobs[key] = {k: item["knobs"][k] for k in _KNOB_NAMES if k in item["knobs"]}
    return anchors, tuned, knobs


_ANCHORS, _TUNED, _KNOBS = _load_model()


def _knobs_of(cfg: dict) -> dict:
    return {k: cfg[k] for k in _KNOB_NAMES if k in cfg}


def _adapt(cfg: dict, n: int) -> dict:
    """An anchor's configuration applied to a row of n elements of the same size class."""
    kind, warps, knobs = cfg["kind"], cfg["num_warps"], _knobs_of(cfg)
    p = triton.next_power_of_2(n)
    if kind == "rows":
        return {**_rows_cfg([p], p != n, cfg["ROWS"], warps), **knobs}
    if kind == "row1":
        return {**_row1_cfg(n, warps), **knobs}
    if kind == "split":
        return {**_split_cfg(n, cfg["BLOCK"], warps), **knobs}
    if kind == "wide":
        w = _wide_cfg(n, cfg["CHUNK"], cfg["PARTS"], warps)
        return {**w, **knobs, "PARTS": w["PARTS"]}
    return {**_chunked_cfg(min(cfg["BLOCK"], p), warps), **{k: v for k, v in knobs.items() if k != "W_EARLY"}}


_MAX_ROWS_PER_PROGRAM = 128
_MODEL_CACHE: dict = {}


def model_config(n: int, elsize: int) -> dict:
    """The launch configuration of a row of n elements of elsize bytes (x's dtype), from the
    anchors (kr_triton_tuned.json, whose `about` states the three rules). Never depends on the
    number of rows. A new dict each call."""
    key = (n, elsize)
    cfg = _MODEL_CACHE.get(key)
    if cfg is None:
        cfg = _MODEL_CACHE[key] = _model(n, elsize)
    return dict(cfg)


def model_anchor(n: int, elsize: int):
    """(rule, anchor hidden) behind model_config(n, elsize): for notes, tests and sweeps."""
    anchors = _ANCHORS.get(_elclass(elsize))
    if not anchors:
        return ("default", None)
    p = triton.next_power_of_2(n)
    same = [h for h, _ in anchors if triton.next_power_of_2(h) == p]
    if same:
        return ("class", min(same, key=lambda h: (abs(h - n), -h)))
    if p < triton.next_power_of_2(anchors[0][0]):
        return ("below", anchors[0][0])
    # rule 3: a class without anchors above an anchored one: the largest anchor below it, when
    # that is a split (fp32 32769-65536 keeps the 32768 anchor now that 99563 anchors the class
    # above; issue 14, "Folding the 2026-12-02 sweep in")
    hidden, cfg = [a for a in anchors if a[0] < n][-1]
    if cfg["kind"] == "split":
        return ("above", hidden)
    return ("default", None)


def _model(n: int, elsize: int) -> dict:
    rule, hidden = model_anchor(n, elsize)
    if rule == "default":
        return _default_config(n, elsize)
    anchor = dict(_ANCHORS[_elclass(elsize)])[hidden]
    if rule == "class":
        return anchor if n == hidden else _adapt(anchor, n)
    if rule == "above":
        return _adapt(anchor, n)
    # below: keep the smallest class's tile (rows per program x block) and warps
    p, p0 = triton.next_power_of_2(n), triton.next_power_of_2(hidden)
    rows0 = anchor["ROWS"] if anchor["kind"] == "rows" else 1
    rows = max(1, min(_MAX_ROWS_PER_PROGRAM, rows0 * p0 // p))
    return {**_rows_cfg([p], p != n, rows, anchor["num_warps"]), **_knobs_of(anchor)}


def reduction_layout(cfg: dict) -> tuple:
    """What fixes the order of a row's sum of squares: two configurations with the same layout
    give bit-identical rows."""
    return tuple((k, v) for k, v in sorted(cfg.items()) if k not in _KNOB_NAMES)


def _split_possible(device: torch.device, split: int) -> bool:
    """_k_split's programs of one row wait for each other: only compiled, and only with at
    least as many SMs as parts."""
    if _INTERPRET or device.type != "cuda":
        return False
    return split <= _device_info(device)[1]


def _resolve(cfg: dict, n: int, device: torch.device) -> dict:
    if cfg["kind"] == "wide":
        check_wide_cfg(cfg, n)
        if not _split_possible(device, cfg["PARTS"]):
            np2 = triton.next_power_of_2(n)
            return _chunked_cfg(min(16384, np2), 32 if n >= 131072 else 16, cfg.get("HINTS", 1), cfg.get("PDL", True))
        return cfg
    if cfg["kind"] == "split" and not _split_possible(device, cfg["SPLIT"]):
        np2 = triton.next_power_of_2(n)
        return _chunked_cfg(min(16384, np2), 32 if n >= 131072 else 16, cfg.get("HINTS", 1), cfg.get("PDL", True))
    return cfg


def _config_for(n: int, elsize: int, n_rows: int, device: torch.device | None = None) -> dict:
    cfg = _TUNED.get((n, elsize))  # a tuning run's override, else the model
    if cfg is None:
        cfg = model_config(n, elsize)
    knobs = _KNOBS.get((n, elsize, _bucket(n_rows)))
    if knobs:
        cfg = {**cfg, **knobs}
    return _resolve(cfg, n, device if device is not None else torch.device("cpu"))


def candidate_configs(n: int, elsize: int) -> list[dict]:
    """Configurations worth timing for a row of n elements (used by bench.py --sweep)."""
    vec = 16 // elsize
    np2 = triton.next_power_of_2(n)
    out = []
    if n <= _MAX_REG_ROW:
        segs = _pow2_segments(n)
        variants = [(segs, False)] if segs is not None else []
        if segs is None or len(segs) > 1:
            variants.append(([np2], True))
        for segs, mask in variants:
            for rows in (1, 2, 4, 8, 16):
                tile = rows * (np2 if mask else n)
                if rows > 1 and (tile < 2048 or tile > 16384):
                    continue
                for warps in (1, 2, 4, 8, 16, 32):
                    ept = tile // (warps * 32)
                    if ept < vec or ept > 40:
                        continue
                    out.append(_rows_cfg(segs, mask, rows, warps))
        for warps in (4, 8, 16, 32):
            ept = np2 // (warps * 32)
            if vec <= ept <= 64:
                out.append(_row1_cfg(n, warps))
    if n >= 16384:
        for block in (2048, 4096, 8192, 16384, 32768):
            if block > np2:
                continue
            for warps in (4, 8, 16, 32):
                ept = block // (warps * 32)
                if ept < vec or ept > 32:
                    continue
                out.append(_chunked_cfg(block, warps))
                if not _INTERPRET and block >= 4096 and block < np2:
                    out.append(_split_cfg(n, block, warps))
    d = _default_config(n, elsize)
    if d not in out and (d["kind"] != "split" or not _INTERPRET):
        out.append(d)
    return out
