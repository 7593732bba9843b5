"""Compile a Triton kernel for sm_90 on a machine without a GPU (ptxas and cuobjdump ship with the
triton wheel), and read the result: SASS lines, resource usage. Shared by lab/softmax/aot_check.py
(registers, spills, vector accesses) and lab/norms/sass_same.py (is an edit a pure refactor).

    k = compile_sm90(fn, {"X": "*bf16", "n": "i32", ...}, {"BLOCK": 4096}, warps=8)
    sass_lines(k); cuobjdump(k, "-res-usage")
"""
import os
import re
import subprocess
import tempfile

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

TARGET = GPUTarget("cuda", 90, 32)


def compile_sm90(fn, sig: dict, cexpr: dict, warps: int, divisible=(), maxnreg: int = 0):
    """fn compiled for the H100/H200 (sm_90): sig maps each non-constexpr argument to its Triton
    type, cexpr each constexpr to its value. Pointer arguments, and those named in divisible, are
    declared 16-divisible, as the launcher specialises 16-byte-aligned tensors."""
    names = fn.arg_names
    full = {n: ("constexpr" if n in cexpr else sig[n]) for n in names}
    attrs = {(i,): [["tt.divisibility", 16]] for i, n in enumerate(names)
             if n not in cexpr and (full[n].startswith("*") or n in divisible)}
    src = ASTSource(fn=fn, signature=full, constexprs={(names.index(k),): v for k, v in cexpr.items()},
                    attrs=attrs)
    opts = {"num_warps": warps, "num_stages": 3, **({"maxnreg": maxnreg} if maxnreg else {})}
    return triton.compile(src, target=TARGET, options=opts)


def cuobjdump(kernel, flag: str) -> str:
    """cuobjdump FLAG (e.g. -sass, -res-usage) on the kernel's cubin."""
    tool = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/cuobjdump")
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(kernel.asm["cubin"])
    try:
        return subprocess.run([tool, flag, f.name], capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(f.name)


def sass_lines(kernel) -> list[str]:
    """The kernel's SASS instructions, addresses dropped (comparable across two builds)."""
    return [re.sub(r"/\*[0-9a-f]{4}\*/", "", line).strip()
            for line in cuobjdump(kernel, "-sass").splitlines() if "/*" in line and ";" in line]
