"""The row-norm families' parts backward (a long row across programs exchanging partial sums:
kernels/rmsnorm/kr_parts.py) compiles for Hopper (sm_90) without a GPU, at the rule's launch,
without spilling, small enough that several programs share an SM (what hides the exchange's
wait: lab/norms/NOTES.md, sweep 3). The interpreter cannot run these kernels (its programs run
one after another and would wait forever), so this is the CPU's check of their code; the GPU
tests (tests/gpu/test_norms_gpu.py) run them.

Triton's real front end, passes and ptxas -v, in a fresh process without TRITON_INTERPRET.
"""

import json
import textwrap

import pytest
from triton_mode import compile_script

pytest.importorskip("triton")

SCRIPT = textwrap.dedent('''
    import json, re, subprocess, tempfile

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import get_ptxas
    from triton.compiler import ASTSource

    from site_builder.runner.families import import_module

    PTR = {"SLOTS": "*i64", "DEP": "*i32", "RSTD": "*fp32", "MEAN": "*fp32", "DWP": "*fp32", "PART": "*fp32"}
    out = {}
    for fam, stats in (("rmsnorm", "HAS_RSTD"), ("layernorm", "HAS_STATS")):
        kr = import_module(fam, "kr_triton")
        fn = kr._bwd_parts
        for elem, size in (("bf16", 2), ("fp32", 4)):
            for n in (32768, 20000):
                cfg = kr.bwd_config(n, size)
                assert cfg["kind"] == "parts", cfg
                for has in (True, False):
                    for pre in (False, True):
                        sp = triton.next_power_of_2(cfg["PARTS"])
                        nx = (1 if has else 2) if fam == "rmsnorm" else (2 if has else 4)
                        const = {"N": n, "BLOCK": cfg["BLOCK"], "PARTS": cfg["PARTS"], "SP": sp, "NX": nx,
                                 "MASK_COLS": cfg["MASK_COLS"], stats: has, "I64": False, "PDL": True,
                                 "PREFETCH": pre}
                        sig = {a: "constexpr" if a in const else PTR.get(a, "*" + elem if a[0].isupper() else "i32")
                               for a in fn.arg_names}
                        sig["eps"] = "fp32"
                        k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=const),
                                           target=GPUTarget("cuda", 90, 32), options={"num_warps": cfg["num_warps"]})
                        with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
                            f.write(k.asm["ptx"])
                        r = subprocess.run([get_ptxas(90).path, "-arch=sm_90a", "-v", f.name, "-o", "/dev/null"],
                                           capture_output=True, text=True)
                        regs = int(re.findall(r"Used (\\d+) registers", r.stderr)[0])
                        spill = sum(int(v) for v in re.findall(r"(\\d+) bytes spill stores", r.stderr))
                        ptx = k.asm["ptx"]
                        out[f"{fam}-{elem}-{n}-{has}-{pre}"] = {
                            "regs": regs, "spill": spill, "warps": cfg["num_warps"],
                            "xchg": len(re.findall(r"atom[.a-z]*[.]exch", ptx)),
                            "volatile": len(re.findall(r"ld[.]volatile", ptx))}
    print(json.dumps(out))
''')


def test_parts_backward_compiles_for_sm90_without_spills():
    got = json.loads(compile_script(SCRIPT).strip().splitlines()[-1])
    assert len(got) == 2 * 2 * 2 * 2 * 2, sorted(got)
    for key, k in got.items():
        assert k["spill"] == 0, (key, k)
        # at least two programs of the rule's warps fit an SM's 65536 registers
        assert k["regs"] * 32 * k["warps"] * 2 <= 65536, (key, k)
        # one atomic exchange per published sum, and the waits spin on volatile loads
        assert k["xchg"] >= 1 and k["volatile"] >= 1, (key, k)


ALIGNED_SCRIPT = textwrap.dedent('''
    import json, re

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from site_builder.runner.families import import_module

    out = {}
    for fam, name, n, extra, elem, vec in (
            ("rmsnorm", "_fwd_chunked_aligned", 18901, {"BLOCK": 4096}, "bf16", 8),
            ("rmsnorm", "_fwd_chunked_aligned", 18901, {"BLOCK": 4096}, "fp32", 4),
            ("rmsnorm", "_fwd_aligned", 7885, {"BLOCK": 8192, "ROWS": 1}, "bf16", 8),
            ("rmsnorm", "_fwd_aligned", 511, {"BLOCK": 512, "ROWS": 4}, "bf16", 8),
            ("layernorm", "_fwd_aligned", 7885, {"BLOCK": 8192, "ROWS": 1}, "bf16", 8),
            ("layernorm", "_fwd_chunked_aligned", 18901, {"BLOCK": 4096}, "bf16", 8)):
        fn = getattr(import_module(fam, "kr_triton"), name)
        stats = "STORE_RSTD" if fam == "rmsnorm" else "STORE_STATS"
        const = {"N": n, "VEC": vec, stats: True, "I64": False, "PDL": False, **extra}
        sig = {a: "constexpr" if a in const else {"RSTD": "*fp32", "MEAN": "*fp32", "eps": "fp32",
                                                   "n_rows": "i32"}.get(a, "*" + elem)
               for a in fn.arg_names}
        k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=const), target=GPUTarget("cuda", 90, 32),
                           options={"num_warps": 8})
        ptx = k.asm["ptx"]
        out[f"{fam}{name}-{n}-{elem}"] = {"v4_loads": len(re.findall(r"ld[.]global[\\w:.]*[.]v4[.]b32", ptx)),
                                     "v4_stores": len(re.findall(r"st[.]global[\\w:.]*[.]v4[.]b32", ptx)),
                                     "passes": 2 if name == "_fwd_chunked_aligned" else 1}
    print(json.dumps(out))
''')


def test_aligned_forwards_move_the_body_in_16_byte_vectors():
    """The aligned forwards on odd rows (whose starts fall anywhere): the body's loads (both
    passes of the chunked kernel, its ragged last chunk included) and stores are 16 bytes wide,
    from the declared boundary and whole-vector length alone (the signature here gives no
    pointer alignment); without them every access is one element."""
    got = json.loads(compile_script(ALIGNED_SCRIPT).strip().splitlines()[-1])
    assert len(got) == 6, got
    for key, k in got.items():
        assert k["v4_loads"] >= k["passes"] and k["v4_stores"] >= 1, (key, k)
