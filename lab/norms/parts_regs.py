"""Registers and spills of the row-norm parts kernels for sm_90, compiled on a CPU (Triton's real
front end and its ptxas -v, no GPU): `python lab/norms/parts_regs.py [family ...]`. One line a
kernel and configuration: REGS family kernel dtype BLOCK warps registers spill-bytes."""

import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import triton  # noqa: E402
from triton.backends.nvidia.compiler import get_ptxas  # noqa: E402

from site_builder.runner.families import import_module  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ptx_same import compile_sm90  # noqa: E402  (the same compile as the PTX comparison)


def regs(fn, const, warps, elem):
    k = compile_sm90(fn, const, warps, elem)
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(k.asm["ptx"])
    r = subprocess.run([get_ptxas(90).path, "-arch=sm_90a", "-v", f.name, "-o", "/dev/null"],
                       capture_output=True, text=True)
    used = re.findall(r"Used (\d+) registers", r.stderr)
    spill = re.findall(r"(\d+) bytes spill stores", r.stderr)
    return int(used[0]) if used else None, int(spill[0]) if spill else 0


def main(families):
    """The parts backward of the families at hidden 32768, with and without the prefetch."""
    for fam in families:
        kr = import_module(fam, "kr_triton")
        stats = "HAS_RSTD" if fam == "rmsnorm" else "HAS_STATS"
        for elem, size in (("bf16", 2), ("fp32", 4)):
            for block, warps, pre in ((2048, 4, False), (2048, 4, True), (1024, 2, False), (1024, 2, True),
                                      (2048, 2, True), (4096, 8, True), (4096, 4, True)):
                for has in (True, False):
                    c = {"N": 32768, "BLOCK": block // (size // 2), "PARTS": 32768 * 2 // size // block,
                         "SP": triton.next_power_of_2(32768 * 2 // size // block), "MASK_COLS": False,
                         stats: has, "I64": False, "PDL": True, "PREFETCH": pre}
                    c["NX"] = (1 if has else 2) if fam == "rmsnorm" else (2 if has else 4)
                    r, s = regs(kr._bwd_parts, c, warps, elem)
                    print("REGS", fam, "_bwd_parts", elem, c["BLOCK"], warps, "prefetch" if pre else "-", stats, has, r, s,
                          flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["rmsnorm"])
