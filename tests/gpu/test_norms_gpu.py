"""GPU tests of kernels/rmsnorm/kr_triton.py and kernels/layernorm/kr_triton.py (skipped
without CUDA): every dtype, odd and prime sizes, rows 0 and 1, strided views, all-zero rows,
forward and backward against the families' float64 references at their tolerances.

    python -m pytest -q tests/gpu/test_norms_gpu.py
"""

import itertools
from pathlib import Path

import pytest
from triton_mode import triton_in_mode

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

triton = pytest.importorskip("triton")
_IN_SUBPROCESS, test_gpu_suite_in_fresh_process, _only_subprocess_runner_here = triton_in_mode(
    __file__, interpreted=False, timeout=1800)



def _mod(family, name=None):
    from site_builder.runner.families import import_module

    return import_module(family, name)


if not _IN_SUBPROCESS:
    PKG = {"rmsnorm": _mod("rmsnorm"), "layernorm": _mod("layernorm")}
    KR = {"rmsnorm": _mod("rmsnorm", "kr_triton"), "layernorm": _mod("layernorm", "kr_triton")}

DEV = "cuda"
DTYPES = ["float32", "bfloat16", "float16"]
# odd, prime, QK-norm, masked, model sizes; 20000 and 32768: the forward's chunked rule, the parts backward
SIZES = [(1, 4096), (0, 128), (7, 97), (131, 128), (33, 1021), (257, 4099), (64, 5120), (3, 16384),
         (9, 20000), (2, 32768)]


def _case(family, kind, rows, hidden, dtype):
    """The family record's tensors of `kind` at these sizes (rows 0 too, which a workload
    record may not declare)."""
    import yaml

    from site_builder.runner.family import Case, Tensor
    from site_builder.records.schema import Family

    rec = Family.model_validate(yaml.safe_load((ROOT / "records" / "families" / f"{family}.yaml").read_text()))
    ins, outs = rec.semantics.tensors(kind)
    sizes = {"rows": rows, "hidden": hidden}

    def resolve(group):
        return {n: Tensor(dtype if t.dtype == "float" else t.dtype, tuple(sizes[a] for a in t.shape))
                for n, t in group.items()}

    return Case(id=f"t-{kind}-{rows}-{hidden}-{dtype}", dtype=dtype, kind=kind, sizes=sizes,
                params=dict(rec.semantics.parameters), inputs=resolve(ins), outputs=resolve(outs))


def _check(family, case, out: dict, ref: dict):
    pkg = PKG[family].family
    for name, r in ref.items():
        o = out[name]
        assert tuple(o.shape) == tuple(r.shape), name
        assert str(o.dtype) == "torch." + case.outputs[name].dtype, (name, o.dtype)
        assert bool(torch.isfinite(o).all()), f"{name}: non-finite values"
        tol = pkg.tolerance(case, name)
        err = (o.double() - r).abs()
        bad = err > tol.atol + tol.rtol * r.abs()
        assert not bool(bad.any()), f"{family} {case.id} {name}: {int(bad.sum())} outside, max err {float(err.max())}"


def _run(family, case, inputs):
    kr = KR[family]
    eps = float(case.params["eps"])
    if family == "rmsnorm":
        if case.kind == "forward":
            return {"y": kr.rmsnorm(inputs["x"], inputs["weight"], eps)}
        dx, dw = kr.rmsnorm_backward(inputs["dy"], inputs["x"], inputs["weight"], inputs["rstd"], eps)
        return {"dx": dx, "dweight": dw}
    if case.kind == "forward":
        return {"y": kr.layernorm(inputs["x"], inputs["weight"], inputs["bias"], eps)}
    dx, dw, db = kr.layernorm_backward(inputs["dy"], inputs["x"], inputs["weight"], inputs["mean"], inputs["rstd"], eps)
    return {"dx": dx, "dweight": dw, "dbias": db}


@pytest.mark.parametrize("family", ["rmsnorm", "layernorm"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["forward", "backward"])
def test_vs_float64_reference(family, dtype, kind):
    for rows, hidden in SIZES:
        case = _case(family, kind, rows, hidden, dtype)
        inputs = PKG[family].family.make_inputs(case, 1234, DEV)
        snap = {k: v.clone() for k, v in inputs.items()}
        out = _run(family, case, inputs)
        torch.cuda.synchronize()
        _check(family, case, out, PKG[family].family.reference(case, inputs))
        for k in inputs:
            assert torch.equal(inputs[k], snap[k]), f"input {k} modified"


@pytest.mark.parametrize("family", ["rmsnorm", "layernorm"])
def test_backward_at_many_rows_uses_partials_and_matches(family):
    """132 x 4 programs over 40000 rows (the partial-sum path at its full width), and rows not
    divisible by the rows per program."""
    for rows, hidden, dtype in ((40000, 256, "bfloat16"), (20011, 2048, "float32"), (9000, 128, "bfloat16")):
        case = _case(family, "backward", rows, hidden, dtype)
        inputs = PKG[family].family.make_inputs(case, 5, DEV)
        _check(family, case, _run(family, case, inputs), PKG[family].family.reference(case, inputs))


def test_strided_views_and_zero_rows():
    g = torch.Generator(device=DEV).manual_seed(3)
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        base = torch.randn(9, 5000, generator=g, device=DEV).to(dtype)
        x = base[:, 7:4106]  # 4099 columns, row stride 5000, misaligned start
        w = (torch.rand(4099, generator=g, device=DEV) + 0.5).to(dtype)
        b = torch.randn(4099, generator=g, device=DEV).to(dtype)
        y = KR["rmsnorm"].rmsnorm(x, w)
        torch.testing.assert_close(y, KR["rmsnorm"].rmsnorm(x.contiguous(), w), rtol=0, atol=0)
        yl = KR["layernorm"].layernorm(x, w, b)
        torch.testing.assert_close(yl, KR["layernorm"].layernorm(x.contiguous(), w, b), rtol=0, atol=0)
        dy = torch.randn(9, 6000, generator=g, device=DEV).to(dtype)[:, 1:4100]
        dx, dw = KR["rmsnorm"].rmsnorm_backward(dy, x, w)
        dx2, dw2 = KR["rmsnorm"].rmsnorm_backward(dy.contiguous(), x.contiguous(), w)
        assert torch.equal(dx, dx2) and torch.equal(dw, dw2)
        # all-zero rows: RMSNorm y = 0, LayerNorm y = bias, no NaN; backward finite
        z = torch.randn(6, 1000, generator=g, device=DEV).to(dtype)
        z[1] = 0
        z[4] = 0
        wz = (torch.rand(1000, generator=g, device=DEV) + 0.5).to(dtype)
        bz = torch.randn(1000, generator=g, device=DEV).to(dtype)
        yz = KR["rmsnorm"].rmsnorm(z, wz)
        assert bool(torch.isfinite(yz).all()) and bool((yz[1] == 0).all())
        ylz = KR["layernorm"].layernorm(z, wz, bz)
        assert bool(torch.isfinite(ylz).all())
        torch.testing.assert_close(ylz[4].float(), bz.float(), rtol=0, atol=1e-6)
        dyz = torch.randn(6, 1000, generator=g, device=DEV).to(dtype)
        for out in (KR["rmsnorm"].rmsnorm_backward(dyz, z, wz), KR["layernorm"].layernorm_backward(dyz, z, wz)):
            assert all(bool(torch.isfinite(t.float()).all()) for t in out)


def test_rows_independent_of_batch_fast_path_and_cuda_graph():
    g = torch.Generator(device=DEV).manual_seed(9)
    for dtype in (torch.bfloat16, torch.float32):
        for n in (128, 4096, 5120):
            x = torch.randn(300, n, generator=g, device=DEV).to(dtype)
            dy = torch.randn(300, n, generator=g, device=DEV).to(dtype)
            w = (torch.rand(n, generator=g, device=DEV) + 0.5).to(dtype)
            b = torch.randn(n, generator=g, device=DEV).to(dtype)
            rk, lk = KR["rmsnorm"], KR["layernorm"]
            first = rk.rmsnorm(x, w)  # fills the fast path
            assert torch.equal(rk.rmsnorm(x, w), first)  # through the fast path
            assert torch.equal(rk.rmsnorm(x[17:18], w)[0], first[17])
            lfirst = lk.layernorm(x, w, b)
            assert torch.equal(lk.layernorm(x, w, b), lfirst)
            assert torch.equal(lk.layernorm(x[17:18], w, b)[0], lfirst[17])
            assert torch.equal(rk.rmsnorm_backward(dy[17:18], x[17:18], w)[0][0], rk.rmsnorm_backward(dy, x, w)[0][17])
            # the same calls captured in a CUDA graph and replayed
            graph = torch.cuda.CUDAGraph()
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                rk.rmsnorm(x, w)
                rk.rmsnorm_backward(dy, x, w)
                lk.layernorm_backward(dy, x, w)
            torch.cuda.current_stream().wait_stream(s)
            with torch.cuda.graph(graph):
                y = rk.rmsnorm(x, w)
                dxw = rk.rmsnorm_backward(dy, x, w)
                ldx = lk.layernorm_backward(dy, x, w)
            graph.replay()
            torch.cuda.synchronize()
            assert torch.equal(y, first)
            ref = rk.rmsnorm_backward(dy, x, w)
            assert torch.equal(dxw[0], ref[0]) and torch.equal(dxw[1], ref[1])
            lref = lk.layernorm_backward(dy, x, w)
            assert all(torch.equal(a, b2) for a, b2 in zip(ldx, lref))
    assert any(rk.fast_path_status().values()) and any(lk.fast_path_status().values())


def test_forward_matches_eager_baselines_closely():
    """Our forward follows each family's eager convention: bf16 results within one ulp of eager
    (RMSNorm: Transformers' LlamaRMSNorm; LayerNorm: F.layer_norm)."""
    g = torch.Generator(device=DEV).manual_seed(4)
    eager = _mod("rmsnorm", "eager")
    for n in (128, 4096, 7168):
        x = torch.randn(512, n, generator=g, device=DEV).bfloat16()
        w = (torch.rand(n, generator=g, device=DEV) + 0.5).bfloat16()
        b = torch.randn(n, generator=g, device=DEV).bfloat16()
        ours = KR["rmsnorm"].rmsnorm(x, w, 1e-6).float()
        theirs = eager.eager_rmsnorm(x, w, 1e-6).float()
        assert float(((ours - theirs).abs() / theirs.abs().clamp_min(1e-3)).max()) <= 2 ** -7
        lo = KR["layernorm"].layernorm(x, w, b, 1e-5).float()
        lt = torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5).float()
        assert float((lo - lt).abs().max()) <= 2 ** -6 * float(lt.abs().max())


# the parts backward's other layouts (bf16 columns a program, warps, the prefetch; float32 half the
# columns)
PARTS_CFGS = [(2048, 4, False), (1024, 2, True), (8192, 16, True)]


def parts_config(n, block, warps, prefetch=False):
    from site_builder.runner.families import import_module

    return {**import_module("rmsnorm", "kr_parts").parts_config(n, block, warps), "PREFETCH": prefetch}


# the long-row backward (no row in registers) and the split forward, with the configurations
# lab/norms/sweep2.py times (pipelining stages, chunks, programs per SM): correct before timed
LONG_CFGS = [None,
             {"kind": "long", "BLOCK": 2048, "ROWS": 1, "MASK_COLS": True, "num_warps": 8, "num_stages": 3, "CTAS": None},
             {"kind": "long", "BLOCK": 4096, "ROWS": 1, "MASK_COLS": True, "num_warps": 16, "num_stages": 2, "CTAS": 2},
             {"kind": "long", "BLOCK": 8192, "ROWS": 1, "MASK_COLS": True, "num_warps": 16, "num_stages": 1, "CTAS": 4},
             {"kind": "long", "BLOCK": 8192, "ROWS": 1, "MASK_COLS": True, "num_warps": 32, "num_stages": 2, "CTAS": None}]


@pytest.mark.parametrize("family", ["rmsnorm", "layernorm"])
def test_long_backward_vs_float64_deterministic_row_independent(family):
    kr = KR[family]
    try:
        for rows, hidden, dtype in ((300, 16384, "bfloat16"), (37, 32768, "float32"), (5, 40000, "float16"),
                                    (1000, 9000, "bfloat16"), (2048, 32768, "bfloat16")):
            case = _case(family, "backward", rows, hidden, dtype)
            inputs = PKG[family].family.make_inputs(case, 7, DEV)
            ref = PKG[family].family.reference(case, inputs)
            el = inputs["x"].element_size()
            # rows above _BWD_REG_ROW go to the parts kernel; LONG_CFGS force the long one, PARTS_CFGS
            # other parts layouts (masked where the block does not divide the row)
            assert kr.bwd_config(hidden, el)["kind"] == ("parts" if hidden > kr._BWD_REG_ROW else "rows")
            cfgs = LONG_CFGS if hidden in (16384, 32768) else LONG_CFGS[:2]
            for cfg in cfgs + [parts_config(hidden, b // (el // 2), w, pre) for b, w, pre in PARTS_CFGS]:
                kr.OVERRIDE.pop(("bwd", hidden, el), None)
                if cfg:
                    kr.OVERRIDE[("bwd", hidden, el)] = cfg
                out = _run(family, case, inputs)
                torch.cuda.synchronize()
                _check(family, case, out, ref)
                again = _run(family, case, inputs)
                assert all(torch.equal(out[k], again[k]) for k in out), f"{family} {case.id} {cfg}: not deterministic"
                r = rows // 2
                one = {k: (v[r:r + 1] if v.dim() and v.shape[0] == rows and k != "weight" else v)
                       for k, v in inputs.items()}
                assert torch.equal(_run(family, case, one)["dx"][0], out["dx"][r]), f"{family} {case.id} {cfg}"
            kr.OVERRIDE.pop(("bwd", hidden, el), None)
    finally:
        kr.OVERRIDE.clear()


def test_parts_backward_without_statistics_and_under_cuda_graph():
    """The parts backward recomputing the statistics in the kernel (two more exchanges), beside
    the call given them; then captured in a CUDA graph (a fresh workspace) and replayed twice,
    eager calls in between (the cached workspace left zeroed)."""
    for family in ("rmsnorm", "layernorm"):
        kr = KR[family]
        for rows, hidden, dtype in ((129, 32768, "bfloat16"), (40, 20000, "float32")):
            case = _case(family, "backward", rows, hidden, dtype)
            inputs = PKG[family].family.make_inputs(case, 11, DEV)
            ref = PKG[family].family.reference(case, inputs)
            assert kr.bwd_config(hidden, inputs["x"].element_size())["kind"] == "parts"
            args = (inputs["dy"], inputs["x"], inputs["weight"])
            names = ("dx", "dweight") if family == "rmsnorm" else ("dx", "dweight", "dbias")
            fn = kr.rmsnorm_backward if family == "rmsnorm" else kr.layernorm_backward
            out = dict(zip(names, fn(*args)))
            _check(family, case, out, ref)
            given = _run(family, case, inputs)
            torch.testing.assert_close(out["dx"].float(), given["dx"].float(), rtol=1e-2, atol=1e-2)
            graph = torch.cuda.CUDAGraph()
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                fn(*args)
            torch.cuda.current_stream().wait_stream(s)
            with torch.cuda.graph(graph):
                captured = fn(*args)
            for _ in range(2):
                graph.replay()
                assert all(torch.equal(a, out[n]) for a, n in zip(fn(*args), names))
            torch.cuda.synchronize()
            assert all(torch.equal(a, out[n]) for a, n in zip(captured, names))


def test_split_forward_vs_float64_and_cuda_graph():
    """Rows that are not a power of two: the split kernel where the row is two powers of two
    (768, 3072), the masked block where a third piece would be needed (9000, 2496, 1252; sweeps
    6-7), and between 4096 and 8192 the masked block of 8192 for 2-byte rows (5120, 7168; sweeps
    11-13; the chunked loop of sweep 2 before) and the masked block for float32
    (5120; sweep 8's rule); the three-piece split (no
    longer a rule's choice, still a sweep's candidate) forced at 9000 and 2496."""
    three = {9000: "float32", 2496: "bfloat16"}
    for family in ("rmsnorm", "layernorm"):
        kr = KR[family]
        for rows, hidden, dtype, kind in ((257, 7168, "bfloat16", "rows"), (64, 768, "float16", "split"),
                                          (33, 9000, "float32", "rows"), (4096, 5120, "bfloat16", "rows"),
                                          (100, 3072, "bfloat16", "split"), (19, 5120, "float32", "rows"),
                                          (14, 2496, "bfloat16", "rows"), (300, 1252, "float16", "rows"),
                                          (33, 9000, "float32", "three"), (14, 2496, "bfloat16", "three")):
            case = _case(family, "forward", rows, hidden, dtype)
            inputs = PKG[family].family.make_inputs(case, 8, DEV)
            el = inputs["x"].element_size()
            kr.OVERRIDE.pop(("fwd", hidden, el), None)
            if kind == "three":
                b1, b2, b3 = kr.split_pieces(hidden)
                assert b3 and three[hidden] == dtype
                kr.OVERRIDE[("fwd", hidden, el)] = {
                    "kind": "split", "B1": b1, "B2": b2, "B3": b3, "BLOCK": 1 << (hidden - 1).bit_length(), "ROWS": 1,
                    "MASK_COLS": b1 + b2 + b3 != hidden, "num_warps": 4}
            else:
                cfg = kr.fwd_config(hidden, el)
                assert cfg["kind"] == kind and (kind != "rows" or cfg["MASK_COLS"])
            try:
                out = _run(family, case, inputs)
                _check(family, case, out, PKG[family].family.reference(case, inputs))
                graph = torch.cuda.CUDAGraph()
                _run(family, case, inputs)
                torch.cuda.synchronize()
                with torch.cuda.graph(graph):
                    y = _run(family, case, inputs)["y"]
                graph.replay()
                torch.cuda.synchronize()
                assert torch.equal(y, out["y"])
            finally:
                kr.OVERRIDE.pop(("fwd", hidden, el), None)


def test_access_width_rows_vs_float64_and_row_independent():
    """Rows whose length is not a multiple of 16 but allows wider accesses (kr_parts.
    access_granularity: 28690 fp16 pairs, 6858 and 1018 fp32 pairs, 3096 fp16 8-wide), through
    the chunked and the register forwards: against the float64 reference, the same bits for a
    row alone as inside the batch (also through the fast path), and a misaligned view (G = 1)
    still correct."""
    for family in ("rmsnorm", "layernorm"):
        for rows, hidden, dtype in ((41, 28690, "float16"), (37, 6858, "float32"), (300, 1018, "float32"),
                                    (65, 3096, "float16")):
            case = _case(family, "forward", rows, hidden, dtype)
            inputs = PKG[family].family.make_inputs(case, 77, DEV)
            out = _run(family, case, inputs)
            _check(family, case, out, PKG[family].family.reference(case, inputs))
            again = _run(family, case, inputs)  # the fast path, where the kernel took it
            assert torch.equal(again["y"], out["y"]), (family, hidden)
            # row count: the first 6 rows of the batch give row 5 the same bits
            six = {k: (v[:6] if k == "x" else v) for k, v in inputs.items()}
            assert torch.equal(_run(family, case, six)["y"][5], out["y"][5]), (family, hidden, "row count")
            # a row alone (another offset modulo 16 bytes): the same bits unless the rule's aligned
            # loop split the batch's row at its own 16-byte boundary (the modules' docstrings);
            # with BATCH_INVARIANT the plain kernels, the same bits wherever the row lies
            one = {k: (v[5:6] if k == "x" else v) for k, v in inputs.items()}
            kr = KR[family]
            aligned = kr.fwd_config(hidden, inputs["x"].element_size()).get("ALIGN")
            if not aligned:
                assert torch.equal(_run(family, case, one)["y"][0], out["y"][5]), (family, hidden, "row alone")
            was, kr.BATCH_INVARIANT = kr.BATCH_INVARIANT, True
            try:
                inv = _run(family, case, inputs)["y"]
                assert torch.equal(_run(family, case, one)["y"][0], inv[5]), (family, hidden, "batch invariant")
                _check(family, case, {**out, "y": inv}, PKG[family].family.reference(case, inputs))
            finally:
                kr.BATCH_INVARIANT = was  # as the environment set it
            # the same rows one element off a 16-byte boundary: G = 1, another layout, still correct
            x = inputs["x"]
            buf = torch.empty(x.numel() + 1, dtype=x.dtype, device=DEV)[1:].view_as(x)
            buf.copy_(x)
            mis = {**inputs, "x": buf}
            _check(family, case, _run(family, case, mis), PKG[family].family.reference(case, mis))


def _same_among_fewer_rows(family, case, inputs, y, label):
    """Row rows-2 of y (the forward over all of inputs' rows) has the same bits when the call
    holds only the rows up to it."""
    r = max(0, inputs["x"].shape[0] - 2)
    fewer = dict(inputs, x=inputs["x"][:r + 1])
    assert torch.equal(_run(family, case, fewer)["y"][r], y[r]), label


def test_aligned_forwards_vs_float64_row_independent_and_cuda_graph():
    """The aligned forwards (lab/norms/sweep9.py's candidates) on rows whose length is not a
    multiple of 16 bytes, every dtype: against the float64 reference, a row's bits the same among
    fewer rows (its head follows its position, not the row count), and a CUDA-graph replay
    bit-identical to the call. Both families: kind "aligned" and the chunked loop with ALIGN."""
    shapes = ((257, 511, "bfloat16"), (100, 7885, "float16"), (19, 1021, "float32"), (64, 6980, "bfloat16"),
              (1, 479, "bfloat16"), (5, 3, "bfloat16"), (33, 18901, "bfloat16"), (7, 12289, "float32"))
    for family in ("rmsnorm", "layernorm"):
        kr = KR[family]
        for rows, hidden, dtype in shapes:
            case = _case(family, "forward", rows, hidden, dtype)
            inputs = PKG[family].family.make_inputs(case, 11, DEV)
            el = inputs["x"].element_size()
            block = 1 << (hidden - 1).bit_length()
            cfgs = [{"kind": "aligned", "BLOCK": block, "ROWS": max(1, 2048 // block), "num_warps": 8}]
            cfgs.append({"kind": "chunked", "BLOCK": 2048, "num_warps": 8, "ALIGN": 1})
            for cfg in cfgs:
                if cfg["kind"] == "aligned" and block > 16384:
                    continue
                kr.OVERRIDE[("fwd", hidden, el)] = cfg
                try:
                    assert kr._aligned_ok(inputs["x"], torch.empty_like(inputs["x"]), hidden)
                    out = _run(family, case, inputs)
                    _check(family, case, out, PKG[family].family.reference(case, inputs))
                    _same_among_fewer_rows(family, case, inputs, out["y"], (family, hidden, cfg))
                    graph = torch.cuda.CUDAGraph()
                    torch.cuda.synchronize()
                    with torch.cuda.graph(graph):
                        y = _run(family, case, inputs)["y"]
                    graph.replay()
                    torch.cuda.synchronize()
                    assert torch.equal(y, out["y"]), (family, hidden, cfg)
                finally:
                    kr.OVERRIDE.pop(("fwd", hidden, el), None)


def test_unrolled_loop_gives_the_loops_bits():
    """A chunked configuration's UNROLL (lab/norms/sweep10.py's decode candidates), at decode and
    at training row counts, every dtype, both families, strided rows (G = 1) too: against
    float64, and a row's bits the same among fewer rows. RMSNorm's unrolled loops give the
    loop's bits. LayerNorm's may differ from its loop in the last bit (an H100 on 2026-12-06
    found 4 of 3,072,000 elements at 64 x 8000 bf16, random inputs: lab/device-2026-12-06f/),
    so a LayerNorm rule may take UNROLL by hidden and dtype, never by the row count. The aligned
    loops (ALIGN; rows off 16-byte multiples: 6980, 7219 at 2 bytes) with UNROLL the same way:
    RMSNorm's give its loop's bits."""
    shapes = ((3, 6980, "bfloat16"), (300, 5120, "float16"), (11, 7168, "bfloat16"), (2, 4100, "float32"),
              (64, 8000, "bfloat16"), (1500, 7219, "bfloat16"))
    for family in ("rmsnorm", "layernorm"):
        kr = KR[family]
        for (rows, hidden, dtype), align in itertools.product(shapes, (False, True)):
            case = _case(family, "forward", rows, hidden, dtype)
            inputs = PKG[family].family.make_inputs(case, 13, DEV)
            el = inputs["x"].element_size()
            loop = {"kind": "chunked", "BLOCK": 4096 // el, "num_warps": 8, **({"ALIGN": 1} if align else {})}
            views = [inputs, dict(inputs, x=torch.randn(rows, hidden + 3, device=DEV).to(inputs["x"].dtype)[:, :hidden])]
            for ins in views:
                try:
                    kr.OVERRIDE[("fwd", hidden, el)] = loop
                    base = _run(family, case, ins)["y"]
                    kr.OVERRIDE[("fwd", hidden, el)] = {**loop, "UNROLL": True}
                    out = _run(family, case, ins)
                    if family == "rmsnorm":
                        assert torch.equal(out["y"], base), (family, rows, hidden, dtype)
                    _check(family, case, out, PKG[family].family.reference(case, ins))
                    _same_among_fewer_rows(family, case, ins, out["y"], (family, rows, hidden, dtype))
                finally:
                    kr.OVERRIDE.pop(("fwd", hidden, el), None)
