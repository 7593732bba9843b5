"""Does a source change leave the compiled kernels as they were? Compiles the row-norm parts
backward (`_bwd_parts` of rmsnorm and layernorm) for sm_90 on a CPU (Triton's real front end,
no GPU) in 32 configurations a family and writes or compares their PTX, debug lines removed:

    python lab/norms/ptx_same.py save DIR      # before the change
    python lab/norms/ptx_same.py compare DIR   # after it: "same" per kernel, or the first diff

A refactor that moves code into helpers of kernels/rmsnorm/kr_parts.py re-hashes both families'
kernels (their results read "earlier code" until the runner measures them again); identical PTX
says the measured code did not change in what the GPU runs."""

import difflib
import itertools
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

from site_builder.runner.families import import_module  # noqa: E402

#: pointer arguments that are not of the tensors' element type (the rest: capitalised names are
#: pointers to `elem`, lower-case ones i32, `eps` fp32)
PTR = {"SLOTS": "*i64", "DEP": "*i32", "RSTD": "*fp32", "MEAN": "*fp32", "DWP": "*fp32", "DBP": "*fp32",
       "PART": "*fp32"}
_DEBUG = re.compile(r"^\s*(\.loc|\.file)\b|^\s*//|^\$L__tmp\d+:$")  # line info, comments, its labels


def compile_sm90(fn, const, warps, elem, ptrs=None, stride_hint=True):
    """`fn` compiled for sm_90 by Triton's real front end (no GPU): `const` its constexprs (the
    rest of its defaults added), `elem` the tensors' element type, `ptrs` pointer types beside PTR;
    pointers carry the 16-divisibility hint a real launch gives them, and so do the arguments
    named s* (row strides) where `stride_hint` (False: a stride that is not a multiple of 16)."""
    const = {**{p.name: p.default for p in fn.params if p.is_constexpr and p.has_default}, **const}
    types = {**PTR, **(ptrs or {})}
    sig = {n: "constexpr" if n in const else types.get(n, "*" + elem if n[0].isupper() else "i32") for n in fn.arg_names}
    if "eps" in sig:
        sig["eps"] = "fp32"
    attrs = {(i,): [["tt.divisibility", 16]] for i, n in enumerate(fn.arg_names)
             if n not in const and (n[0].isupper() or (n.startswith("s") and stride_hint))}
    return triton.compile(ASTSource(fn=fn, signature=sig, constexprs=const, attrs=attrs),
                          target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})


def ptx(fn, const, warps, elem, ptrs=None):
    """The kernel's PTX for sm_90 with line info and comments dropped, the debug sections cut."""
    k = compile_sm90(fn, const, warps, elem, ptrs)
    return _strip(k.asm["ptx"].split(".section\t.debug")[0].split(".section .debug")[0])


def _strip(text):
    return "\n".join(line for line in text.splitlines() if not _DEBUG.match(line)) + "\n"


def configs():
    for fam in ("rmsnorm", "layernorm"):
        stats = "HAS_RSTD" if fam == "rmsnorm" else "HAS_STATS"
        for (elem, size), mask, has, pre, i64 in itertools.product(
                (("bf16", 2), ("fp32", 4)), (False, True), (False, True), (False, True), (False, True)):
            n = 9000 if mask else 8192
            block = 2048 // (size // 2)
            c = {"N": n, "BLOCK": block, "PARTS": triton.cdiv(n, block),
                 "SP": triton.next_power_of_2(triton.cdiv(n, block)), "MASK_COLS": mask, stats: has,
                 "I64": i64, "PDL": True, "PREFETCH": pre}
            c["NX"] = (1 if has else 2) if fam == "rmsnorm" else (2 if has else 4)
            name = f"{fam}-{elem}-mask{int(mask)}-has{int(has)}-pre{int(pre)}-i64{int(i64)}"
            yield name, fam, c, elem


def main(mode, folder):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    differ = 0
    for name, fam, c, elem in configs():
        text = ptx(import_module(fam, "kr_triton")._bwd_parts, c, 4, elem)
        path = folder / f"{name}.ptx"
        if mode == "save":
            path.write_text(text)
            print("saved", name, len(text.splitlines()), "lines")
            continue
        old = _strip(path.read_text())
        if old == text:
            print("same", name)
        else:
            differ += 1
            diff = list(difflib.unified_diff(old.splitlines(), text.splitlines(), lineterm="", n=1))
            print("DIFFERS", name, len(diff), "diff lines; first:", *diff[:12], sep="\n  ")
    if mode == "compare":
        print("all same" if not differ else f"{differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("save", "compare"):
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
