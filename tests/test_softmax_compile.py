"""Our softmax kernels compile for Hopper (sm_90) without a GPU, and rows whose length is even
but not a multiple of a 16-byte vector load and store wider than one element: G
(kr_triton.access_granularity) declares the row starts and the length multiples of G.

Measured before G (H200): at 23162 bf16 columns every load and store was a 2-byte
`ld.global.b16` / `st.global.b16`, and a 2517 x 23162 backward ran 1.55x slower than
torch.compile. With G = 2 they are 4-byte accesses; 32008 (G = 8) takes 16-byte vectors;
an odd length (G = 1) still compiles, 2 bytes at a time.

Triton's real front end, passes and ptxas, in a fresh process without TRITON_INTERPRET (as
tests/test_cross_entropy_compile.py). G comes from `access_granularity` over CPU tensors of
the shape (torch aligns their storage as it does on the GPU). The pointers are declared
16-byte aligned, as Triton specialises a torch allocation, except where a case says
otherwise; the row length N is a plain i32, as Triton passes one that is not a multiple of 16.
"""

import json
import textwrap

import pytest
from triton_mode import compile_script

pytest.importorskip("triton")

SCRIPT = textwrap.dedent('''
    import json, re
    from collections import Counter

    import torch
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from site_builder.runner.families import import_module

    sm = import_module("softmax", "kr_triton")
    ELEM = {torch.bfloat16: "bf16", torch.float32: "fp32"}

    def compile_(fn, const, num_warps, elem, n, aligned=True):
        sig = {a: "constexpr" if a in const else {"SLOTS": "*i64", "DEP": "*i32"}.get(a, "i32")
               for a in fn.arg_names}
        for a in ("X", "Y", "Yp", "DY", "DX"):
            if a in sig:
                sig[a] = "*" + elem
        ptrs = ("SLOTS", "DEP") if not aligned else tuple(a for a in sig if sig[a].startswith("*"))
        attrs = {(i,): [["tt.divisibility", 16]] for i, a in enumerate(fn.arg_names) if a in ptrs}
        if n % 16 == 0:
            attrs[(fn.arg_names.index("N"),)] = [["tt.divisibility", 16]]
        k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=const, attrs=attrs),
                           target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps})
        return k.asm["ptx"]

    out = {}
    for dtype, n, g in ((torch.bfloat16, 23162, None), (torch.bfloat16, 23162, 1), (torch.bfloat16, 23163, None),
                        (torch.bfloat16, 32008, None), (torch.float32, 23162, None), (torch.float32, 4100, None)):
        t = torch.empty(2, n, dtype=dtype)
        G = sm.access_granularity(n, (n, n), (t, torch.empty_like(t))) if g is None else g
        for kind, fn, limit in (("forward", sm._fwd, sm.MAX_ROW), ("backward", sm._bwd, sm.MAX_ROW_BWD)):
            cfg = sm.plan(n, 0, 132, limit, t.element_size(), kind)
            const = {"BLOCK": cfg["BLOCK"], "SPLIT_P2": cfg["SPLIT_P2"], "CONTIG": True, "PHASE": 0, "G": G}
            ptx = compile_(fn, const, cfg["num_warps"], ELEM[dtype], n)
            acc = dict(Counter(re.findall(r"(?:ld|st)[.]global[.][a-z0-9.]+", ptx)))
            if cfg["SPLIT"] > 1:  # the rows' accesses only: not _count_out's resets (int64 slots, int32 count)
                acc = {a: c for a, c in acc.items() if not a.endswith(".b64")}
                acc["st.global.b32"] -= 1
                acc = {a: c for a, c in acc.items() if c}
            row = {"G": G, "split": cfg["SPLIT"], "acc": acc}
            if G > 1 and g is None and n == 23162 and dtype == torch.bfloat16:
                # strided rows (stride 23170), base pointers not known to be 16-byte aligned: the
                # same code (the pointer hint in _row makes the width follow G alone)
                strided = dict(const, CONTIG=False)
                row["base_hint_only"] = compile_(fn, strided, cfg["num_warps"], "bf16", n, aligned=False) == \\
                    compile_(fn, strided, cfg["num_warps"], "bf16", n)
            out[f"{kind}-{ELEM[dtype]}-{n}-{'G' if g is None else 'plain'}"] = row
    print(json.dumps(out))
''')


def _loads(acc):
    return {a: c for a, c in acc.items() if a.startswith("ld.")}


def test_even_rows_compile_to_wider_accesses():
    got = json.loads(compile_script(SCRIPT).strip().splitlines()[-1])
    assert len(got) == 12, sorted(got)
    for kind in ("forward", "backward"):
        # before G (G = 1 at 23162): every load and store of the row 2 bytes
        plain = got[f"{kind}-bf16-23162-plain"]["acc"]
        assert set(plain) == {"ld.global.b16", "st.global.b16"}, (kind, plain)
        # with G = 2: no 2-byte access left, 4-byte loads and stores
        row = got[f"{kind}-bf16-23162-G"]
        assert row["G"] == 2 and row["base_hint_only"], (kind, row)
        assert not any(a.endswith(".b16") for a in row["acc"]), (kind, row)
        assert row["acc"].get("ld.global.b32", 0) > 0 and row["acc"].get("st.global.b32", 0) > 0, (kind, row)
        # an odd length compiles and stays at one element
        odd = got[f"{kind}-bf16-23163-G"]
        assert odd["G"] == 1 and set(_loads(odd["acc"])) == {"ld.global.b16"}, (kind, odd)
        # 32008 bf16 (G = 8) and 4100 fp32 (G = 4): 16-byte vectors only
        for key in (f"{kind}-bf16-32008-G", f"{kind}-fp32-4100-G"):
            assert set(_loads(got[key]["acc"])) == {"ld.global.v4.b32"}, (key, got[key])
            assert got[key]["acc"].get("st.global.v4.b32", 0) > 0, (key, got[key])
        # fp32 at 23162 (G = 2): 8-byte vectors
        fp32 = got[f"{kind}-fp32-23162-G"]
        assert fp32["G"] == 2 and set(_loads(fp32["acc"])) == {"ld.global.v2.b32"}, (kind, fp32)
    assert got["backward-bf16-23162-G"]["split"] > 1  # the measured backward takes the split layout


ALIGNED_SCRIPT = textwrap.dedent('''
    import json, re
    from collections import Counter

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from site_builder.runner.families import import_module

    sm = import_module("softmax", "kr_triton")
    out = {}
    for n in (23163, 71107):
        cfg = sm.plan(n, 0, 132, sm.MAX_ROW, 2, "forward", 1)
        for ysame in (True, False):
            fn = sm._fwd_aligned
            const = {"BLOCK": cfg["BLOCK"], "SPLIT_P2": cfg["SPLIT_P2"], "CONTIG": True, "PHASE": 0, "VEC": 8,
                     "XMIS": 3, "YSAME": ysame, "SCALE": sm._fixed_scale(n)}
            sig = {a: "constexpr" if a in const else {"X": "*bf16", "Y": "*bf16", "SLOTS": "*i64",
                                                      "DEP": "*i32"}.get(a, "i32") for a in fn.arg_names}
            attrs = {(fn.arg_names.index(a),): [["tt.divisibility", 16]] for a in ("SLOTS", "DEP")}
            k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=const, attrs=attrs),
                               target=GPUTarget("cuda", 90, 32), options={"num_warps": cfg["num_warps"]})
            acc = Counter(re.findall(r"(?:ld|st)[.]global[.][a-z0-9.]+", k.asm["ptx"]))
            out[f"{n}-{ysame}"] = {"split": cfg["SPLIT"], "acc": dict(acc)}
    print(json.dumps(out))
''')


def test_odd_rows_forward_loads_whole_vectors_from_the_first_boundary():
    """2-byte rows of odd length (G = 1): `_fwd_aligned` loads the body between a row's first
    and last 16-byte boundary in 16-byte vectors (X's base declared nowhere aligned: XMIS
    says where it lies), and stores it so where Y's rows start as X's do (YSAME), else one
    element at a time; the head and tail take 2-byte accesses. The committed plain forward
    at the same length loads every element alone (test_even_rows_compile_to_wider_accesses)."""
    got = json.loads(compile_script(ALIGNED_SCRIPT).strip().splitlines()[-1])
    assert got["23163-True"]["split"] == 1 and got["71107-True"]["split"] > 1
    for n in (23163, 71107):
        same, other = got[f"{n}-True"]["acc"], got[f"{n}-False"]["acc"]
        assert same.get("ld.global.v4.b32", 0) > 0 and same.get("st.global.v4.b32", 0) > 0, (n, same)
        assert other.get("ld.global.v4.b32", 0) > 0 and "st.global.v4.b32" not in other, (n, other)
        assert other.get("st.global.b16", 0) > same.get("st.global.b16", 0), (n, same, other)
