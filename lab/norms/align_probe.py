"""How wide are the forward's loads and stores when the row stride is not a multiple of 16?

    python lab/norms/align_probe.py [N:dtype ...]      # default: 28690:fp16 6858:fp32 28672:fp16

Compiles rmsnorm's forward (the kernel `fwd_config` picks for N) for sm_90 on a CPU (Triton's
real front end, no GPU) twice: with the row strides carrying the 16-divisibility hint (what a
launch gives when the stride is a multiple of 16) and without it (a contiguous row of N
elements, N not a multiple of 16), and counts the global load and store instructions by width.
Found on 2026-12-05: without the hint every x load and y store is one element wide (28690 fp16:
b16; 6858 fp32: b32) although N allows 4 and 8 bytes; the seed-4099 report measured these two
shapes at 1.46x and 1.19x torch.compile (lab/device-2026-12-05b/tables.md). softmax solved the
same with a constexpr access granularity G (kernels/_row_access.py, `row_ptr`);
the norm forwards declare the same since 2026-12-05 (`access_granularity`,
`row_ptr`): with it applied, a third line per shape shows the kernel as it would launch.
"""

import collections
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ptx_same import compile_sm90  # noqa: E402  (the same compile as the PTX comparison)

from site_builder.runner.families import import_module  # noqa: E402


def widths(fn, const, warps, elem, stride_hint):
    """The kernel's global load and store instructions, counted by their full PTX name."""
    k = compile_sm90(fn, const, warps, elem, stride_hint=stride_hint)
    return dict(collections.Counter(re.findall(r"((?:ld|st)\.global[.:\w]*)", k.asm["ptx"])))


def main(specs):
    k = import_module("rmsnorm", "kr_triton")
    for spec in specs:
        n, elem = spec.split(":")
        n = int(n)
        cfg = k.fwd_config(n, 4 if elem == "fp32" else 2)
        print(f"N={n} {elem}: {cfg}")
        if cfg["kind"] not in ("chunked", "rows"):
            print("  (kind not probed)")
            continue
        fn = k._fwd_chunked if cfg["kind"] == "chunked" else k._fwd
        const = dict(N=n, BLOCK=cfg["BLOCK"], STORE_RSTD=False, I64=False, PDL=False)
        if fn is k._fwd:
            const.update(ROWS=cfg["ROWS"], MASK_COLS=cfg["MASK_COLS"], LATE_W=cfg.get("LATE_W", False))
        for hint in (True, False):
            print(f"  {'strides % 16 == 0' if hint else 'strides unhinted '}: {widths(fn, const, cfg['num_warps'], elem, hint)}")
        if "G" in fn.arg_names:  # the declared access width (access_granularity of a contiguous row)
            g = 16 // (4 if elem == "fp32" else 2)
            while g > 1 and n % g:
                g //= 2
            print(f"  unhinted, G = {g}    : {widths(fn, {**const, 'G': g}, cfg['num_warps'], elem, False)}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["28690:fp16", "6858:fp32", "28672:fp16"])
