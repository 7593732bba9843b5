"""Whether a change to the norms' forward kernels leaves their machine code as it was: compiles
each kernel of CONFIGS for sm_90 (Triton's front end and ptxas, no GPU) from a git revision's
`kernels/` and from the working tree's, and compares the SASS instruction by instruction
(nvdisasm; addresses, encodings and debug lines left out) and the PTX (debug labels left out).
A refactor with the same SASS at every configuration costs nothing at run time; the kernel's
hash still changes (its bytes did), so its results still need a GPU run to stay current.

    python lab/norms/same_sass.py [--rev HEAD]      # prints one line a configuration; exit 1 if any SASS differs

Written 2026-12-06 (fourth session) for lab/pending's norms patches; the local Triton (3.9 here,
3.6 on the lent GPU machine) decides the code, so the answer holds for this Triton.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# (kernel, element type, hidden, BLOCK (None: the next power of two), warps, extra constexprs)
CONFIGS = [
    ("_fwd_chunked", "bf16", 6980, 2048, 8, {"G": 4}),
    ("_fwd_chunked", "bf16", 40000, 8192, 16, {"G": 8}),
    ("_fwd_chunked", "fp32", 20000, 8192, 16, {"G": 4}),
    ("_fwd_chunked_aligned", "bf16", 6117, 4096, 8, {}),
    ("_fwd_chunked_aligned", "bf16", 28397, 8192, 16, {}),
    ("_fwd_chunked_aligned", "fp32", 777, 1024, 2, {}),
    ("_fwd_aligned", "bf16", 6117, None, 8, {"ROWS": 1}),
    ("_fwd_aligned", "fp16", 511, None, 4, {"ROWS": 4}),
    ("_fwd_aligned", "fp32", 777, None, 2, {"ROWS": 1}),
]


def _strip_ptx(ptx: str) -> str:
    keep = []
    for line in ptx.splitlines():
        s = line.strip()
        if s.startswith((".loc", ".file", "//", ".section", ".b8", ".b32", ".b64")) or re.match(r"^\$L__tmp\d+:$", s):
            continue
        keep.append(re.sub(r"\$L__tmp\d+", "L", line))
    return "\n".join(keep)


def _sass(cubin: bytes, nvdisasm: str) -> str:
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        out = subprocess.run([nvdisasm, "-c", f.name], capture_output=True, text=True, check=True).stdout
    lines = (re.sub(r"/\*.*?\*/", "", line).strip() for line in out.splitlines())
    return "\n".join(s for s in lines if s and not s.startswith((".", "//")))


def dump(tree: str) -> dict:
    """{config: [ptx, sass]} for the kernels of `tree`/kernels (run in a fresh process)."""
    sys.path.insert(0, tree)
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    nvdisasm = str(Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "nvdisasm")
    out = {}
    for fam in ("rmsnorm", "layernorm"):
        kr = importlib.import_module(f"kernels.{fam}.kr_triton")
        stats = "STORE_RSTD" if fam == "rmsnorm" else "STORE_STATS"
        for name, elem, n, block, warps, extra in CONFIGS:
            fn = getattr(kr, name)
            const = {"N": n, "BLOCK": block or 1 << (n - 1).bit_length(), "I64": False, "PDL": True, stats: True,
                     **extra}
            if "VEC" in fn.arg_names:
                const["VEC"] = 16 // (4 if elem == "fp32" else 2)
            sig = {}
            for a in fn.arg_names:  # UNROLL: lab/pending/norms-unrolled-loop.patch's, off
                if a in const or a == "UNROLL":
                    sig[a] = "constexpr"
                else:
                    sig[a] = "*fp32" if a in ("RSTD", "MEAN") else "*" + elem if a[0].isupper() else "i32"
            sig["eps"] = "fp32"
            consts = {a: const.get(a, False) for a, t in sig.items() if t == "constexpr"}
            k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=consts),
                               target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
            out[f"{fam} {name} {elem} {n}"] = [_strip_ptx(k.asm["ptx"]), _sass(k.asm["cubin"], nvdisasm)]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", default="HEAD", help="the git revision to compare the working tree with")
    ap.add_argument("--dump", help=argparse.SUPPRESS)  # internal: TREE:OUT
    args = ap.parse_args()
    if args.dump:
        tree, dest = args.dump.split(":", 1)
        Path(dest).write_text(json.dumps(dump(tree)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        old.mkdir()
        archive = subprocess.run(["git", "archive", args.rev, "kernels"], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        got = {}
        for label, tree in (("old", str(old)), ("new", str(ROOT))):
            dest = Path(tmp) / f"{label}.json"
            subprocess.run([sys.executable, __file__, "--dump", f"{tree}:{dest}"], cwd=tmp, check=True)
            got[label] = json.loads(dest.read_text())
    differ = 0
    for key in got["old"]:
        (p0, s0), (p1, s1) = got["old"][key], got["new"][key]
        same = s0 == s1
        differ += not same
        print(f"{key}: SASS {'same' if same else 'DIFFERS'} ({len(s0.splitlines())} instructions), "
              f"PTX {'same' if p0 == p1 else 'differs'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
