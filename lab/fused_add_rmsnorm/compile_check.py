"""Compile kr_triton's kernels for sm_90 without a GPU (Triton's bundled ptxas), for configurations
the interpreter cannot run (a split or wide row's programs wait for each other):

    PYTHONPATH=. python lab/fused_add_rmsnorm/compile_check.py [--quick | --cands FILE]  # (TRITON_INTERPRET unset)

Prints one line per configuration (registers, spills); exits 1 if one fails to compile. It
checks that the code compiles and fits, nothing about its results (tests/gpu/ does that).
"""

from __future__ import annotations

import os
import sys

os.environ.pop("TRITON_INTERPRET", None)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

from site_builder.runner.families import import_module  # noqa: E402

kr = import_module("fused-add-rmsnorm", "kr_triton")  # as the runner imports it (kr_kernels.*)
KERNELS = import_module("fused-add-rmsnorm", "kr_triton_kernels").KERNELS

PTR = {2: "*bf16", 4: "*fp32"}
CONFIGS = [(46592, 2, kr._wide_cfg(46592, 2048, p, 4)) for p in (8, 16, 32)] + \
    [(103482, 2, kr._wide_cfg(103482, 2048, p, 4)) for p in (16, 32, 64)] + \
    [(99563, 4, kr._wide_cfg(99563, 4096, p, 4)) for p in (8, 16, 32)] + \
    [(46592, 2, kr._split_cfg(46592, 2048, 4, hints=0)), (99563, 4, kr.model_config(99563, 4))]


def compile_one(n: int, elsize: int, cfg: dict):
    kern, names = KERNELS[cfg["kind"]]
    p = PTR[elsize]
    sig = {"X": p, "R": p, "W": p, "Y": p, "H": p, "n_rows": "i32", "stride_x": "i32", "stride_r": "i32",
           "stride_h": "i32", "stride_y": "i32", "eps": "fp32"}
    if cfg["kind"] in ("split", "wide"):
        sig.update(SLOTS="*i64", DEP="*i32")
    consts = dict(zip(names, kr._constexpr_tail(cfg, n, True, False, bool(cfg.get("PDL", True)))))
    sig.update({k: "constexpr" for k in consts})
    src = ASTSource(fn=kern, signature=sig, constexprs=consts)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": cfg["num_warps"], "num_stages": 1})


def resources(cubin: bytes) -> str:
    """Registers and spill bytes per thread, from the bundled cuobjdump."""
    import re
    import subprocess
    import tempfile

    tool = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        out = subprocess.run([tool, "--dump-resource-usage", f.name], capture_output=True, text=True).stdout
    m = re.search(r"REG:(\d+).*?STACK:(\d+).*?LOCAL:(\d+)", out)
    return f"regs {m.group(1)}, stack {m.group(2)}, local {m.group(3)}" if m else out.strip()[-200:]


def main() -> int:
    bad = 0
    # --quick: one configuration of each K (chunks per program) of the wide kernel, and a split
    configs = [CONFIGS[i] for i in (3, 4, 5, 9)] if "--quick" in sys.argv else CONFIGS
    if "--cands" in sys.argv:  # every candidate of a sweep file (make_wide_cands.py's format)
        import json

        data = json.loads(open(sys.argv[sys.argv.index("--cands") + 1]).read())
        configs = [(int(k.split(",")[0]), int(k.split(",")[1]), kr._cfg_from_json(cfg))
                   for k, cfgs in data["cands"].items() for cfg in cfgs if cfg["kind"] in ("split", "wide")]
    for n, el, cfg in configs:
        try:
            ck = compile_one(n, el, cfg)
            print(f"ok   {n} e{el} {cfg}: {resources(ck.asm['cubin'])}")
        except Exception as e:  # noqa: BLE001 - report every configuration
            bad += 1
            print(f"FAIL {n} e{el} {cfg}: {type(e).__name__}: {str(e)[:400]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
