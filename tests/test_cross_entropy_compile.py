"""Our cross-entropy kernels compile for Hopper (sm_90) without a GPU, and the aligned layout
(kr_triton._aligned, for vocabularies that are not a multiple of a 16-byte vector) loads and
stores its full chunks as 16-byte vectors where the plain layout issues 2-byte accesses.

Triton's real front end, passes and ptxas, in a fresh process without TRITON_INTERPRET (as
tests/test_elementwise_compile.py). The pointers are declared 16-byte aligned, as Triton
specialises a torch allocation; the vocabulary N is a plain i32, as an odd vocabulary is
(Triton specialises N only when it is a multiple of 16).
"""

import json
import textwrap

import pytest
from triton_mode import compile_script

pytest.importorskip("triton")

SCRIPT = textwrap.dedent('''
    import json, re
    from collections import Counter

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from site_builder.runner.families import import_module

    ce = import_module("cross-entropy", "kr_triton")
    POINTERS = {"T": "*i64", "WS": "*i64", "SLOTS": "*i64", "LOSSROW": "*fp32", "PM": "*fp32", "PS": "*fp32", "XT": "*fp32"}

    def accesses(fn, const, num_warps, elem):
        sig = {n: "constexpr" if n in const else ("*" + elem if n in ("X", "DX") else POINTERS.get(n, "i32"))
               for n in fn.arg_names}
        attrs = {(i,): [["tt.divisibility", 16]] for i, n in enumerate(fn.arg_names) if sig[n].startswith("*")}
        k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=const, attrs=attrs),
                           target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps})
        return dict(Counter(re.findall(r"(?:ld|st)[.]global[.][a-zA-Z0-9.:_]+", k.asm["ptx"])))

    out = {}
    for elem, size in (("bf16", 2), ("fp32", 4)):
        for vec in (0, 16 // size):
            plain = {"BLOCK": 4096, "CONTIG": True, "VEC": vec, "EV1": "", "EV2": "", "SCM": ""}
            out[f"rowloop-{elem}-{vec}"] = accesses(ce._rowloop, plain, 4, elem)
            # the row loop with the eviction hints (rule key revict)
            out[f"rowloop-hinted-{elem}-{vec}"] = accesses(ce._rowloop, dict(plain, EV1="evict_last",
                                                                          EV2="evict_first", SCM=".cs"), 4, elem)
            out[f"lse-{elem}-{vec}"] = accesses(ce._lse_parts, {"BLOCK": 4096, "PART": 16384, "CONTIG": True,
                                                                "EVICT": "", "VEC": vec}, 8, elem)
        # path "pipe" (aligned rows only): its chunks held across a step, streamed in and out
        out[f"pipe-{elem}"] = accesses(ce._pipe, {"P": 16, "P_P2": 16, "BLOCK": 8192, "LAG": 1, "HOLD": True,
                                                  "CONTIG": True, "VEC": 16 // size, "EV1": "evict_first", "EV2": "evict_first",
                                                  "SCM": ".cs"}, 8, elem)
    print(json.dumps(out))
''')


def test_aligned_rows_compile_to_16_byte_vectors():
    out = compile_script(SCRIPT)
    got = json.loads(out.strip().splitlines()[-1])
    for elem, vec in (("bf16", 8), ("fp32", 4)):
        for kernel in ("rowloop", "lse"):
            plain, aligned = got[f"{kernel}-{elem}-0"], got[f"{kernel}-{elem}-{vec}"]
            assert not any(".v4." in a for a in plain), (kernel, elem, plain)  # odd N: no vectors
            assert aligned.get("ld.global.v4.b32", 0) > 0, (kernel, elem, aligned)
            if kernel == "rowloop":  # the gradient's full chunks too
                assert aligned.get("st.global.v4.b32", 0) > 0, (kernel, elem, aligned)
        hinted = got[f"rowloop-hinted-{elem}-{vec}"]  # the gradient streams out (.cs: evict-first in L2)
        assert hinted.get("st.global.cs.v4.b32", 0) > 0 and "st.global.v4.b32" not in hinted, hinted
        # eviction_policy reaches the L2: an L1 priority and an L2 cache policy (createpolicy)
        for ev in ("evict_last", "evict_first"):
            assert hinted.get(f"ld.global.L1::{ev}.L2::cache_hint.v4.b32", 0) > 0, sorted(hinted)
        assert not any("evict" in a or ".cs" in a for a in got[f"rowloop-{elem}-{vec}"]), got[f"rowloop-{elem}-{vec}"]
        pipe = got[f"pipe-{elem}"]  # one vector load a chunk (held, not read again), streamed stores
        assert pipe.get("ld.global.L1::evict_first.L2::cache_hint.v4.b32", 0) > 0, sorted(pipe)
        assert pipe.get("st.global.cs.v4.b32", 0) > 0 and "st.global.v4.b32" not in pipe, sorted(pipe)


REGS_SCRIPT = textwrap.dedent('''
    import json, re, subprocess, tempfile

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import get_ptxas
    from triton.compiler import ASTSource

    from site_builder.runner.families import import_module

    ce = import_module("cross-entropy", "kr_triton")
    P = {"T": "*i64", "WS": "*i64", "SLOTS": "*i64", "DEP": "*i32", "LOSSROW": "*fp32"}
    fn = ce._fwd_bwd
    out = {}
    for cap in (0, 64):
        ce.FWDBWD_FORCE = {"path": "exchange", "xregs": cap}
        cfg = ce.plan_fwd_bwd(262144, 4096, 132, 2)  # the exchange's parts, bf16
        const = {"BLOCK": cfg["BLOCK"], "SPLIT_P2": cfg["SPLIT_P2"], "CONTIG": True, "PAIR": cfg["PAIR"],
                 "EXP1": cfg["EXP1"], "PHASE": 0}
        sig = {a: "constexpr" if a in const else ("*bf16" if a in ("X", "DX") else P.get(a, "i32")) for a in fn.arg_names}
        opts = {"num_warps": cfg["num_warps"], **({"maxnreg": cfg["MAXNREG"]} if cfg["MAXNREG"] else {})}
        k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=const), target=GPUTarget("cuda", 90, 32), options=opts)
        with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
            f.write(k.asm["ptx"])
        r = subprocess.run([get_ptxas(90).path, "-arch=sm_90a", "-v", f.name, "-o", "/dev/null"], capture_output=True, text=True)
        out[cap] = {"regs": int(re.findall(r"Used (\\d+) registers", r.stderr)[0]),
                    "spill": sum(int(v) for v in re.findall(r"(\\d+) bytes spill stores", r.stderr)),
                    "arith": sorted(re.findall(r"(?:fma|add|mul|ex2)[.a-z0-9]*", k.asm["ptx"]))}
    print(json.dumps(out))
''')


def test_exchange_register_cap_reaches_ptxas():
    """`xregs` (lab/pending/ce-exchange-maxnreg.patch): the exchange's parts at 262144 bf16 take
    80-96 registers a thread; capped at 64 they fit it without spilling, and the PTX's arithmetic
    is unchanged (the cap moves registers, not operations)."""
    got = json.loads(compile_script(REGS_SCRIPT).strip().splitlines()[-1])
    free, capped = got["0"], got["64"]
    assert free["regs"] > 64 and capped["regs"] <= 64, (free["regs"], capped["regs"])
    assert capped["spill"] == 0
    assert capped["arith"] == free["arith"]
