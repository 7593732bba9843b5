"""Is a kernel edit a pure refactor? Compile the norms' `_fwd_chunked_aligned` from a git ref and
from the working tree for sm_90 here (no GPU: ptxas and cuobjdump ship with the triton wheel) and
compare the SASS, instruction by instruction, at a few configurations (bf16 and fp32, odd hidden
sizes, UNROLL on and off). Exit 1 when any differs.

    PYTHONPATH=. python lab/norms/sass_same.py [REF]      # REF: default HEAD

Run it under the GPU machine's triton (3.6; e.g. a venv with triton==3.6.0) as well as this
one's: 2026-12-07e found the loop's SASS changed when a branch's `acc +=` moved into the helper,
and identical once the helper returned x (and the deviation) and the add stayed after the branch.
"""
import importlib
import subprocess
import sys
from pathlib import Path

import triton

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab"))
from sm90 import compile_sm90, sass_lines  # noqa: E402


def sass(fn, sig, cexpr, warps):
    return sass_lines(compile_sm90(fn, sig, cexpr, warps))


def main(ref="HEAD"):
    sys.path.insert(0, str(ROOT))
    bad = 0
    for fam in ("rmsnorm", "layernorm"):
        old_path = ROOT / "kernels" / fam / "_sass_same_old.py"
        old_path.write_text(subprocess.run(["git", "show", f"{ref}:kernels/{fam}/kr_triton.py"], cwd=ROOT,
                                           capture_output=True, text=True, check=True).stdout)
        try:
            new = importlib.import_module(f"kernels.{fam}.kr_triton")._fwd_chunked_aligned
            old = importlib.import_module(f"kernels.{fam}._sass_same_old")._fwd_chunked_aligned
        finally:
            old_path.unlink()
        for dt, vec in (("bf16", 8), ("fp16", 8), ("fp32", 4)):
            for n, block, unroll in ((5647, 2048, True), (5647, 2048, False), (13001, 4096, True),
                                     (30011, 8192, False)):
                sig = {"X": f"*{dt}", "W": f"*{dt}", "Y": f"*{dt}", "B": f"*{dt}", "MEAN": "*fp32",
                       "RSTD": "*fp32", "n_rows": "i32", "eps": "fp32"}
                cx = {"N": n, "BLOCK": block, "VEC": vec, "I64": False, "PDL": False, "UNROLL": unroll,
                      ("STORE_STATS" if fam == "layernorm" else "STORE_RSTD"): True}
                a, b = sass(old, sig, cx, 8), sass(new, sig, cx, 8)
                bad += a != b
                print(f"{fam} {dt} N={n} BLOCK={block} UNROLL={unroll}: "
                      + ("SASS identical" if a == b else f"DIFFERS ({len(a)} / {len(b)} instructions)"))
    print(f"triton {triton.__version__}: {'all identical' if not bad else f'{bad} differ'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
