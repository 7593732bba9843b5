"""The row-norm forwards declare how wide a row's accesses may be (`access_granularity` and
`row_ptr` of kernels/_row_access.py, shared with softmax): a contiguous row whose length is not a
multiple of 16 gets vector loads and stores as wide as its length and alignment allow, where
Triton alone (which proves a row start aligned only from a stride that is a multiple of 16)
issued one element at a time. sm_90 PTX from Triton's real front end, in a fresh process without
TRITON_INTERPRET; the GPU tests run the kernels."""

import json
import textwrap

import pytest
import torch
from triton_mode import compile_script

pytest.importorskip("triton")

from site_builder.runner.families import import_module  # noqa: E402

access_granularity = import_module("rmsnorm", "kr_triton").access_granularity

SCRIPT = textwrap.dedent('''
    import json, re

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from site_builder.runner.families import import_module

    def widths(fn, const, warps, elem, stride_hint):
        const = {**{p.name: p.default for p in fn.params if p.is_constexpr and p.has_default}, **const}
        sig = {a: "constexpr" if a in const else ("*fp32" if a in ("RSTD", "MEAN") else
                                                  ("*" + elem if a[0].isupper() else "i32")) for a in fn.arg_names}
        sig["eps"] = "fp32"
        # pointers 16-byte aligned (as a launch with such tensors specialises them); strides
        # a multiple of 16 only where stride_hint
        attrs = {(i,): [["tt.divisibility", 16]] for i, a in enumerate(fn.arg_names)
                 if a not in const and (a[0].isupper() or (a.startswith("s") and stride_hint))}
        k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=const, attrs=attrs),
                           target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
        ptx = k.asm["ptx"].split(".section")[0]
        found = set()
        for op in re.findall(r"(?:ld|st)[.]global[.:\\w]*", ptx):
            found.add(next(w for w in ("v4.b32", "v2.b32", "b32", "b16", "") if op.endswith(w)))
        return sorted(found)

    out = {}
    for fam, stats in (("rmsnorm", "STORE_RSTD"), ("layernorm", "STORE_STATS")):
        kr = import_module(fam, "kr_triton")
        for n, elem, size, g in ((28690, "fp16", 2, 2), (6858, "fp32", 4, 2), (1018, "fp32", 4, 2),
                                 (3096, "fp16", 2, 8), (4096, "bf16", 2, 8)):
            cfg = kr.fwd_config(n, size)
            fn = kr._fwd_chunked if cfg["kind"] == "chunked" else kr._fwd
            const = {"N": n, "BLOCK": cfg["BLOCK"], "I64": False, "PDL": True, stats: False}
            if fn is kr._fwd:
                const.update(ROWS=cfg["ROWS"], MASK_COLS=cfg["MASK_COLS"], LATE_W=bool(cfg.get("LATE_W", False)))
            out[f"{fam}-{n}-{elem}"] = {
                "kind": cfg["kind"],
                "undeclared": widths(fn, {**const, "G": 1}, cfg["num_warps"], elem, False),
                "declared": widths(fn, {**const, "G": g}, cfg["num_warps"], elem, False),
                "hinted": widths(fn, {**const, "G": 1}, cfg["num_warps"], elem, True),
                "hinted_declared": widths(fn, {**const, "G": g}, cfg["num_warps"], elem, True)}
    print(json.dumps(out))
''')


def test_access_granularity_follows_length_strides_and_alignment():
    x = torch.empty(64, 28690, dtype=torch.float16)
    assert access_granularity(28690, (28690, 28690), (x, x)) == 2  # even, not a multiple of 4
    y = torch.empty(8, 4096, dtype=torch.bfloat16)
    assert access_granularity(4096, (4096,), (y,)) == 8  # one 16-byte vector
    z = torch.empty(4, 6858, dtype=torch.float32)
    assert access_granularity(6858, (6858,), (z,)) == 2
    assert access_granularity(4097, (4097,), (y,)) == 1  # odd length: one element
    # a stride that breaks the length's alignment, and a base pointer one element off
    assert access_granularity(4096, (4100,), (y,)) == 4
    off = torch.empty(8 * 4096 + 1, dtype=torch.bfloat16)[1:].view(8, 4096)  # base 2 bytes past alignment
    assert access_granularity(4096, (4096,), (off,)) == 1
    # a view of later rows of an aligned tensor keeps the tensor's width (row bits independent of the view)
    assert access_granularity(28690, (28690,), (x[3:],)) == access_granularity(28690, (28690,), (x,))
    # mixed element sizes: the narrowest sets the cap, each pointer is checked up to 16 bytes
    w32 = torch.empty(8, 4096, dtype=torch.float32)
    assert access_granularity(4096, (4096, 4096), (y, w32)) == 8


def test_norm_forwards_declare_the_rows_access_width():
    got = json.loads(compile_script(SCRIPT).strip().splitlines()[-1])
    assert len(got) == 10, sorted(got)
    for key, k in got.items():
        # what a stride that is a multiple of 16 gives, G declared or not, is what the declared
        # width gives without that stride: the change only adds knowledge Triton lacked
        assert k["declared"] == k["hinted"] == k["hinted_declared"], (key, k)
        if key.endswith(("28690-fp16", "6858-fp32", "1018-fp32", "3096-fp16")):
            # without the declaration these rows were read and written one element at a time
            assert k["undeclared"] != k["declared"], (key, k)
    # the two fresh-seed misses of 2026-12-05: 4-byte (fp16 pairs) and 8-byte (fp32 pairs) accesses
    assert got["rmsnorm-28690-fp16"]["undeclared"] == ["b16", "b32"], got["rmsnorm-28690-fp16"]
    assert "b16" not in got["rmsnorm-28690-fp16"]["declared"], got["rmsnorm-28690-fp16"]
    assert "v2.b32" in got["rmsnorm-6858-fp32"]["declared"], got["rmsnorm-6858-fp32"]
    assert got["rmsnorm-3096-fp16"]["declared"] == ["v4.b32"], got["rmsnorm-3096-fp16"]
