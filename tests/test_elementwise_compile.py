"""Our SwiGLU and RoPE Triton kernels compile for Hopper (sm_90) on a machine without a GPU.

The interpreter (TRITON_INTERPRET=1, tests/test_elementwise_kernels_cpu.py) runs Python and
checks none of the compiler's typing rules: RoPE's first version passed it and then failed to
compile on the H200 (a name assigned in both branches of an `if` with two tile shapes). This
test runs Triton's real front end, its passes and ptxas for a `cuda` sm_90 target, in a fresh
process without TRITON_INTERPRET, over the constexpr combinations the launch models produce,
and of the knobbed RoPE kernels (_rope_k, _rope_rows) over a few launch_config layouts and hints.
The SwiGLU tests below also read the PTX: vector widths (collapsed rows, the fused layout at an
intermediate size that is not a multiple of 8) and the masked edge tile's registers.
"""

import json
import textwrap

import pytest
from triton_mode import compile_script

pytest.importorskip("triton")

SCRIPT = textwrap.dedent('''
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from site_builder.runner.families import import_module

    def compile_(fn, const, num_warps, ptr, num_stages=None):
        # constexprs with defaults (launch knobs) take them unless given
        const = {**{p.name: p.default for p in fn.params if p.is_constexpr and p.has_default}, **const}
        sig = {n: ("constexpr" if n in const else (ptr if n[0].isupper() else "i32")) for n in fn.arg_names}
        opts = {"num_warps": num_warps} if num_stages is None else {"num_warps": num_warps, "num_stages": num_stages}
        return triton.compile(ASTSource(fn=fn, signature=sig, constexprs=const),
                              target=GPUTarget("cuda", 90, 32), options=opts)

    sw = import_module("swiglu", "kr_triton")
    n = 0
    for t, i, es in [(1, 14336, 2), (4096, 11008, 2), (4096, 14336, 2), (1, 4096 * 14336, 2), (7, 4099, 4),
                     (3, 37, 4)]:
        cfg = sw.plan(t, i, es, 132)
        for fn in (sw._fwd, sw._bwd):
            for i64 in (False, True):
                compile_(fn, {"BLOCK_R": cfg["BLOCK_R"], "BLOCK_C": cfg["BLOCK_C"], "SUB_R": cfg["SUB_R"],
                              "SUB_C": cfg["SUB_C"], "I64": i64, "EVEN": cfg["EVEN"]},
                         cfg["num_warps"], "*bf16" if es == 2 else "*fp32")
                n += 1
    rp = import_module("rope", "kr_triton")
    for tokens, hq, hk, d in [(16384, 32, 8, 128), (8192, 128, 1, 64), (1, 32, 8, 128), (64, 28, 4, 128),
                              (55, 7, 3, 96)]:
        cfg = rp.plan(tokens, hq, hk, d, 2, 132)
        for backward in (False, True):
            const = {"HALF": d // 2, "HALF_P2": triton.next_power_of_2(d // 2), "GQ": cfg["GQ"], "GK": cfg["GK"],
                     "PQ": cfg["PQ"], "PK": cfg["PK"], "I64": False, "BACKWARD": backward}
            compile_(rp._rope, const, cfg["num_warps"], "*bf16")
            n += 1
    # the knobbed kernels (cfg given): constexprs from launch_config for each layout
    for (tokens, hq, hk, d), kc, backward in [
            ((16384, 32, 8, 128), {"layout": "grouped"}, False),
            ((16384, 32, 8, 128), {"layout": "split", "persistent": 8}, True),
            ((1, 32, 8, 128), {"layout": "token", "tile_bytes": 16384, "evict": "evict_last"}, False),
            ((55, 7, 3, 96), {"layout": "grouped", "tokens": 2, "store": ".cs", "cs_evict": ""}, True),
            ((16384, 32, 8, 128), {"layout": "rows", "tile_bytes": 2048, "num_warps": 4}, False),
            ((64, 28, 4, 128), {"layout": "rows", "persistent": 4, "store": ".cg", "evict": ""}, True)]:
        lc = rp.launch_config(tokens, hq, hk, d, 2, 132, kc)
        const = {"HALF": d // 2, "HALF_P2": triton.next_power_of_2(d // 2), "I64": False, "BACKWARD": backward,
                 "PERSIST": lc["PERSIST"], "EVICT": lc["EVICT"], "CS_EVICT": lc["CS_EVICT"], "STORE": lc["STORE"]}
        if lc["kernel"] == "rows":
            fn, const = rp._rope_rows, {**const, "R": lc["R"]}
        else:
            fn = rp._rope_k
            const = {**const, "GQ": lc["GQ"], "GK": lc["GK"], "PQ": lc["PQ"], "PK": lc["PK"], "T": lc["T"],
                     "QK_ONE": lc["QK_ONE"]}
            if lc["layout"] == "split":  # the q launch (k alone in q's place is the same shape of code)
                const = {**const, "GK": 1, "PK": 0}
        compile_(fn, const, lc["num_warps"], "*bf16", lc["num_stages"])
        n += 1
    print("compiled", n)
''')


def test_kernels_compile_for_sm90_without_a_gpu():
    out = compile_script(SCRIPT)
    assert "compiled 40" in out, out


VEC_SCRIPT = textwrap.dedent('''
    import re
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from site_builder.runner.families import import_module

    sw = import_module("swiglu", "kr_triton")
    fn = sw._bwd
    const = {p.name: p.default for p in fn.params if p.is_constexpr and p.has_default}
    const.update({"BLOCK_R": 1, "BLOCK_C": 4096, "SUB_R": 1, "SUB_C": 1024, "I64": False, "EVEN": False})
    sig = {n: ("constexpr" if n in const else ("*bf16" if n[0].isupper() else "i32")) for n in fn.arg_names}
    for strides_aligned in (False, True):
        # pointers 16-byte aligned (fresh allocations), offsets 0 (each tensor its own base); the
        # strides as the launch passes them: a collapsed row's length (any) before, 0 now
        attrs = {(i,): [["tt.divisibility", 16]] for i, n in enumerate(fn.arg_names)
                 if n not in const and (n[0].isupper() or n.startswith("o")
                                        or (strides_aligned and n.startswith("s")))}
        k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=const, attrs=attrs),
                           target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
        print(strides_aligned, len(re.findall(r"ld\\.global[^\\n]*\\.v4", k.asm["ptx"])))
''')


def test_collapsed_swiglu_launch_vectorises_at_any_length():
    """A collapsed contiguous call passes row stride 0 (kernels/swiglu/kr_triton.py, _launch):
    with the row's length there, Triton's divisibility analysis emitted no 16-byte loads at
    lengths not a multiple of 16 (the H200 measured those calls 1.3-1.6x slower)."""
    out = compile_script(VEC_SCRIPT).split("\n")
    counts = dict(line.split() for line in out if line.startswith(("False", "True")))
    assert int(counts["True"]) >= 3, out  # the three loads of a full tile, as 16-byte vectors


REGS_SCRIPT = textwrap.dedent('''
    import re, subprocess, tempfile
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import get_ptxas
    from triton.compiler import ASTSource

    from site_builder.runner.families import import_module

    sw = import_module("swiglu", "kr_triton")
    ptxas = get_ptxas(90).path
    for name, fn in (("fwd", sw._fwd), ("bwd", sw._bwd)):
        for even in (True, False):
            p = sw.plan(1, 30735 * 26020, 2, 132)  # a collapsed call no tile divides
            const = {q.name: q.default for q in fn.params if q.is_constexpr and q.has_default}
            const.update({"BLOCK_R": p["BLOCK_R"], "BLOCK_C": p["BLOCK_C"], "SUB_R": p["SUB_R"],
                          "SUB_C": p["SUB_C"], "I64": False, "EVEN": even, "EVICT": "", "A": 8})
            sig = {n: ("constexpr" if n in const else ("*bf16" if n[0].isupper() else "i32")) for n in fn.arg_names}
            # as the collapsed launch passes them: aligned pointers, strides and offsets 0, A 8
            attrs = {(i,): [["tt.divisibility", 16]] for i, n in enumerate(fn.arg_names)
                     if n not in const and (n[0].isupper() or n.startswith(("s", "o")))}
            k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=const, attrs=attrs),
                               target=GPUTarget("cuda", 90, 32), options={"num_warps": p["num_warps"]})
            with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
                f.write(k.asm["ptx"])
            r = subprocess.run([ptxas, "-arch=sm_90a", "-v", f.name, "-o", "/dev/null"],
                               capture_output=True, text=True)
            print("REGS", name, even, re.findall(r"Used (\\d+) registers", r.stderr)[0], p["BLOCK_C"], p["num_warps"])
''')


def test_swiglu_edge_tile_keeps_the_unmasked_register_count():
    """A launch whose last tile is partial (EVEN False) runs its masked path in steps of one
    vector per thread (kernels/swiglu/kr_triton.py, _bwd_tile): masked all at once the sm_90
    backward held 139 registers against 64 unmasked, a third of the occupancy for every program
    (the H200 measured such calls 1.26-1.35x slower than torch.compile on 2026-12-04)."""
    out = compile_script(REGS_SCRIPT).split("\n")
    regs = {(f, e): int(r) for _, f, e, r, *_ in (line.split() for line in out if line.startswith("REGS"))}
    assert len(regs) == 4, out
    for f in ("fwd", "bwd"):
        assert regs[(f, "False")] <= regs[(f, "True")] + 8, (f, regs)


FUSED_SCRIPT = textwrap.dedent('''
    import json, re
    from collections import Counter

    import torch
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.compiler import ASTSource
    try:  # Triton's launch binder (internal; Triton 3.x)
        from triton.runtime.jit import create_function_from_signature
    except ImportError:
        print("NO_BINDER")
        raise SystemExit(0)

    from site_builder.runner.families import import_module

    sw = import_module("swiglu", "kr_triton")
    sw._INTERPRET = True  # CPU tensors pass the wrapper's checks; nothing runs
    target = GPUTarget("cuda", 90, 32)
    backend = CUDABackend(target)

    class Recorder:  # in the kernel's place: keeps the launch's arguments
        def __init__(self):
            self.calls = []

        def __getitem__(self, grid):
            return lambda *args, **kw: self.calls.append((args, kw))

    def accesses(fn, args, kw, **force):
        # the launch's own specialization (Triton's binder: pointer and integer divisibility by
        # 16, constexprs), as a GPU launch would compile it
        kw = {**kw, **force}
        bound, spec, opts = create_function_from_signature(fn.signature, fn.params, backend)(*args, **kw)
        options, signature, constexprs, attrs = fn._pack_args(backend, kw, bound, spec, opts)
        k = triton.compile(ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs),
                           target=target, options=options.__dict__)
        return dict(Counter(re.sub(r"[.]L[12]::[a-z_]+", "", a)
                            for a in re.findall(r"(?:ld|st)[.]global[.][A-Za-z0-9_:.]+", k.asm["ptx"])))

    out = {}
    for i in (5724, 5723):
        gu = torch.randn(64, 2 * i).to(torch.bfloat16)
        dy = torch.randn(64, i).to(torch.bfloat16)
        for kind, name in (("fwd", "_fwd"), ("bwd", "_bwd")):
            fn, rec = getattr(sw, name), Recorder()
            setattr(sw, name, rec)
            sw.swiglu_fused_forward(gu) if kind == "fwd" else sw.swiglu_fused_backward(dy, gu)
            setattr(sw, name, fn)
            (args, kw), = rec.calls
            out[f"{kind}-{i}"] = {"A": kw["A"], "ptx": accesses(fn, args, kw)}
            out[f"{kind}-{i}-A1"] = {"A": 1, "ptx": accesses(fn, args, kw, A=1)}
    print(json.dumps(out))
''')


def test_fused_swiglu_at_i_4_mod_8_loads_8_bytes():
    """The fused layout at I = 5724 (4 mod 8, not a multiple of 8 bf16): gate_up's rows (2I) and
    the up half (column I) start 8-byte aligned, not 16. Triton knows an argument's alignment
    only when it is a multiple of 16, so while the launch passed the up half as a pointer of its
    own every access was 2 bytes (`ld.global.b16`). It now passes gate_up's start with offset I
    and the access width A = 4 (kr_triton._launch), said with tl.multiple_of: a full tile's
    loads and stores are 8 bytes. A = 1 (no hint) compiles what Triton knows alone (2 bytes);
    an odd I gets A = 1 and stays at 2 bytes, and still compiles (its values: the interpreted
    tests/test_elementwise_kernels_cpu.py). Compiled from the wrapper's own launch arguments
    through Triton's binder (its specialisation of a real launch), for sm_90, without a GPU."""
    out = compile_script(FUSED_SCRIPT).strip()
    if out.endswith("NO_BINDER"):
        pytest.skip("this Triton has no create_function_from_signature (its launch binder)")
    got = json.loads(out.splitlines()[-1])
    wide = ("ld.global.v2.b32", "ld.global.b64", "ld.global.v4.b32")
    for kind, loads in (("fwd", 2), ("bwd", 3)):  # tensors each full tile loads
        vec, plain, odd = got[f"{kind}-5724"], got[f"{kind}-5724-A1"], got[f"{kind}-5723"]
        assert vec["A"] == 4 and odd["A"] == 1, (vec["A"], odd["A"])
        assert sum(vec["ptx"].get(w, 0) for w in wide) >= loads, vec  # 8-byte loads in the full tiles
        assert vec["ptx"].get("st.global.v2.b32", 0) > 0, vec          # and stores
        assert not any(w in vec["ptx"] for w in ("ld.global.v4.b32",)), vec  # never more than I allows
        for other in (plain, odd):  # no hint, or an odd I: 2-byte accesses only
            assert set(other["ptx"]) == {"ld.global.b16", "st.global.b16"}, other
