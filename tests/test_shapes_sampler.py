"""The shared random-shape sampler (site_builder/runner/shapes.py): its specs and caps, and the
proof that the families moved onto it (rmsnorm, layernorm, fused-add-rmsnorm, gemm) draw
exactly what their own samplers drew before, seed by seed: the lab notes name tune and report
seeds, and those sets must not change. The functions under "frozen" are the families'
`shapes.sample_shapes` as committed before the move (9e87e71), kept here as the expectation."""

from __future__ import annotations

import math
import os
import random

import pytest

from site_builder.runner.families import KERNELS_ROOT, import_module
from site_builder.runner.family import Shape
from site_builder.runner.shapes import Cap, Choice, Cycle, Derived, Fixed, LogUniform, Sampler, Uniform

# --- frozen: the samplers before the shared one (copied unchanged but for the names) ---------------


def _old_log_uniform(rng: random.Random, low: int, high: int) -> int:
    return min(high, max(low, int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))))


def old_norm_sample_shapes(name: str, n: int, seed: int) -> list[Shape]:
    """kernels/rmsnorm/shapes.py and kernels/layernorm/shapes.py (identical but for `name`)."""
    ROWS = (1, 32768)
    HIDDEN = (128, 32768)
    MAX_ELEMENTS = 2**26
    DTYPES = ("bfloat16", "float16", "float32")
    KINDS = ("forward", "backward")
    rng = random.Random(f"{name} shapes {seed}")
    out = []
    for i in range(n):
        rows = _old_log_uniform(rng, *ROWS)
        hidden = _old_log_uniform(rng, *HIDDEN)
        if i % 2 == 0:
            hidden = min(HIDDEN[1], max(HIDDEN[0], 64 * round(hidden / 64)))
        cap = min(MAX_ELEMENTS, int(os.environ.get("KR_BENCH_MAX_ELEMENTS") or MAX_ELEMENTS))
        rows = max(1, min(rows, cap // hidden))
        dtype = DTYPES[rng.randrange(len(DTYPES))]
        kind = KINDS[rng.randrange(len(KINDS))]
        out.append(Shape(sizes={"rows": rows, "hidden": hidden}, dtype=dtype, kind=kind))
    return out


def old_fused_sample_shapes(n: int, seed: int) -> list[Shape]:
    """kernels/fused_add_rmsnorm/shapes.py."""
    ROWS = (1, 65536)
    HIDDEN = (256, 131072)
    MAX_ELEMENTS = 2**29
    DTYPES = (("bfloat16", {}), ("float16", {}), ("float32", {}),
              ("bfloat16", {"weight": "float32", "y": "float32"}))
    rng = random.Random(f"fused-add-rmsnorm shapes {seed}")
    out = []
    for i in range(n):
        rows = _old_log_uniform(rng, *ROWS)
        hidden = _old_log_uniform(rng, *HIDDEN)
        if i % 2 == 0:  # a multiple of 64 (alternating, so both kinds are always in the set)
            hidden = min(HIDDEN[1], max(HIDDEN[0], 64 * round(hidden / 64)))
        cap = min(MAX_ELEMENTS, int(os.environ.get("KR_BENCH_MAX_ELEMENTS") or MAX_ELEMENTS))
        rows = max(1, min(rows, cap // hidden))
        dtype, tensors = DTYPES[rng.randrange(len(DTYPES))]
        out.append(Shape(sizes={"rows": rows, "hidden": hidden}, dtype=dtype, tensors=dict(tensors)))
    return out


def old_gemm_sample_shapes(n: int, seed: int) -> list[Shape]:
    """kernels/gemm/shapes.py."""
    M_RANGE = (1, 16384)
    NK_RANGE = (1024, 32768)
    MAX_FLOPS = 8e12
    rng = random.Random(f"gemm shapes {seed}")
    out = []
    for i in range(n):
        m = rng.randint(1, 16) if i % 3 == 0 else _old_log_uniform(rng, *M_RANGE)
        nn_, k = _old_log_uniform(rng, *NK_RANGE), _old_log_uniform(rng, *NK_RANGE)
        if i % 4 != 3:
            nn_, k = max(128, 128 * round(nn_ / 128)), max(128, 128 * round(k / 128))
        m = max(1, min(m, int(MAX_FLOPS // (2 * nn_ * k))))
        out.append(Shape(sizes={"m": m, "n": nn_, "k": k}, dtype="bfloat16"))
    return out


OLD = {
    "rmsnorm": lambda n, s: old_norm_sample_shapes("rmsnorm", n, s),
    "layernorm": lambda n, s: old_norm_sample_shapes("layernorm", n, s),
    "fused-add-rmsnorm": old_fused_sample_shapes,
    "gemm": old_gemm_sample_shapes,
}
SEEDS = range(0, 51)


@pytest.mark.parametrize("family", list(OLD))
@pytest.mark.parametrize("max_elements", [None, "65536", "3000"])
def test_migrated_families_draw_what_they_drew_before(family, max_elements, monkeypatch):
    """Seeds 0..50, 64 shapes each (the lab notes use seeds 1, 2, 11, 12, 14, 21, 2026 and sets
    of up to 40): equal Shapes (sizes, dtype, kind, tensors) in the same order, and the same
    JSON (the key order of sizes included), with and without KR_BENCH_MAX_ELEMENTS."""
    if max_elements is None:
        monkeypatch.delenv("KR_BENCH_MAX_ELEMENTS", raising=False)
    else:
        monkeypatch.setenv("KR_BENCH_MAX_ELEMENTS", max_elements)
    shapes = import_module(family, "shapes", KERNELS_ROOT)
    for seed in SEEDS:
        new, old = shapes.sample_shapes(64, seed), OLD[family](64, seed)
        assert new == old, (family, seed)
        assert [s.to_json() for s in new] == [s.to_json() for s in old]
        assert [list(s.sizes) for s in new] == [list(s.sizes) for s in old]
    # seeds beyond the proof's range too, and a large one (a date)
    for seed in (2026, 10**6 + 3):
        assert shapes.sample_shapes(40, seed) == OLD[family](40, seed)


# --- the sampler's specs ----------------------------------------------------------------------


def _sampler(**kw):
    base = dict(axes={"a": LogUniform(1, 1000)}, dtype=Choice(("float32", "bfloat16")))
    base.update(kw)
    return Sampler("toy", **base)


def test_a_set_is_fixed_by_family_and_seed_and_prefixes_agree():
    s = _sampler()
    assert s.sample(30, 4) == s.sample(30, 4) and s.sample(30, 4) != s.sample(30, 5)
    assert s.sample(10, 4) == s.sample(30, 4)[:10]
    other = Sampler("other", axes=s.axes, dtype=s.dtype)
    assert other.sample(30, 4) != s.sample(30, 4)


def test_log_uniform_stays_in_range_and_rounds_to_its_multiple():
    rng = random.Random(0)
    plain = [LogUniform(3, 5000).draw(rng) for _ in range(2000)]
    assert min(plain) >= 3 and max(plain) <= 5000 and any(v % 2 for v in plain)
    # log-uniform: about as many draws in [3, 122] as in [122, 5000] (the geometric middle)
    low = sum(v < 122 for v in plain)
    assert 800 < low < 1200, low
    rounded = [LogUniform(100, 5000, multiple=64).draw(rng) for _ in range(2000)]
    assert all(v % 64 == 0 and 128 <= v <= 4992 for v in rounded)  # the multiples inside [100, 5000]
    with pytest.raises(ValueError, match="no multiple of 64"):
        LogUniform(65, 100, multiple=64)
    with pytest.raises(ValueError, match="1 ≤ lo ≤ hi"):
        LogUniform(10, 3)


def test_choice_weights_joint_values_and_single_values():
    rng = random.Random(1)
    c = Choice((100, 50), weights=(3, 1))
    draws = [c.draw(rng) for _ in range(4000)]
    assert 2800 < draws.count(100) < 3200
    state = rng.getstate()
    assert Choice(("only",)).draw(rng) == "only" and Fixed(7).draw(rng) == 7
    assert rng.getstate() == state  # a choice of one value, or a fixed one, draws nothing
    with pytest.raises(ValueError, match="one weight per value"):
        Choice((1, 2), weights=(1,))
    with pytest.raises(ValueError, match="mixes mappings"):
        Choice(({"a": 1}, 2))
    s = Sampler("toy", axes={"heads": Choice(({"hq": 8, "hkv": 2}, {"hq": 12, "hkv": 4})), "d": Fixed(64)},
                dtype=Fixed("bfloat16"))
    shapes = s.sample(50, 0)
    assert {(x.sizes["hq"], x.sizes["hkv"]) for x in shapes} == {(8, 2), (12, 4)}
    assert all(list(x.sizes) == ["hq", "hkv", "d"] for x in shapes)
    with pytest.raises(ValueError, match="same axes"):
        Sampler("toy", axes={"h": Choice(({"a": 1}, {"b": 2}))}, dtype=Fixed("float32"))


def test_cycle_alternates_by_draw_index_and_derived_follows_the_caps(monkeypatch):
    monkeypatch.delenv("KR_BENCH_MAX_ELEMENTS", raising=False)
    s = Sampler("toy", axes={"batch": Cycle(LogUniform(1, 4), LogUniform(100, 300)),
                             "seq": Cycle(LogUniform(500, 4000), Fixed(1)),
                             "pos": Cycle(Fixed(1), Derived(lambda z: z["batch"]))},
                dtype=Fixed("float32"), kind=Cycle(Choice(("forward", "backward")), Fixed("forward")),
                caps=(Cap(("batch", "seq"), 1000, cut=("seq", "batch")),))
    shapes = s.sample(40, 3)
    for i, x in enumerate(shapes):
        b, q, p = x.sizes["batch"], x.sizes["seq"], x.sizes["pos"]
        assert b * q <= 1000
        if i % 2:
            assert q == 1 and p == b and 100 <= b <= 300 and x.kind == "forward"
        else:
            assert p == 1 and b <= 4 and q <= 4000
    assert {x.kind for x in shapes[::2]} == {"forward", "backward"}
    # a lower KR_BENCH_MAX_ELEMENTS cuts seq, then batch; Derived sees the cut batch
    monkeypatch.setenv("KR_BENCH_MAX_ELEMENTS", "50")
    for x in s.sample(40, 3):
        assert x.sizes["batch"] * x.sizes["seq"] <= 50
        assert x.sizes["pos"] in (1, x.sizes["batch"])


def test_caps_cut_the_named_axis_honour_the_env_only_downwards_and_keep_their_floor(monkeypatch):
    monkeypatch.delenv("KR_BENCH_MAX_ELEMENTS", raising=False)
    s = _sampler(axes={"rows": LogUniform(1, 10**4), "cols": LogUniform(1, 10**4)},
                 caps=(Cap(("rows", "cols"), 10**6, cut="rows"),))
    base = s.sample(200, 0)
    free = Sampler("toy", axes=s.axes, dtype=s.dtype).sample(200, 0)
    assert [x.sizes["cols"] for x in base] == [x.sizes["cols"] for x in free]  # only rows is cut
    assert all(x.sizes["rows"] * x.sizes["cols"] <= 10**6 for x in base)
    assert any(x.sizes["rows"] < y.sizes["rows"] for x, y in zip(base, free))
    monkeypatch.setenv("KR_BENCH_MAX_ELEMENTS", str(10**9))  # never raises the cap
    assert s.sample(200, 0) == base
    monkeypatch.setenv("KR_BENCH_MAX_ELEMENTS", "5000")
    low = s.sample(200, 0)
    assert all(x.sizes["rows"] * x.sizes["cols"] <= 5000 or x.sizes["rows"] == 1 for x in low)
    assert any(x.sizes["rows"] == 1 and x.sizes["cols"] > 5000 for x in low)  # the floor holds over the cap
    ignored = _sampler(axes=s.axes, caps=(Cap(("rows", "cols"), 10**6, cut="rows", env=None),))
    assert ignored.sample(200, 0) == base
    floored = _sampler(axes=s.axes, caps=(Cap(("rows", "cols"), 5000, cut="rows", floor=2),))
    for x, y in zip(floored.sample(200, 0), free):
        assert x.sizes["rows"] >= min(2, y.sizes["rows"])  # floored, never raised past the draw
    monkeypatch.setenv("KR_BENCH_MAX_ELEMENTS", "lots")
    with pytest.raises(ValueError, match="KR_BENCH_MAX_ELEMENTS='lots' is not a positive whole number"):
        s.sample(3, 0)


def test_bad_declarations_get_clear_messages():
    with pytest.raises(ValueError, match="undeclared axis 'nope'"):
        _sampler(caps=(Cap(("a", "nope"), 10, cut="a"),))
    with pytest.raises(ValueError, match="must be among them"):
        Cap(("a",), 10, cut="b")
    with pytest.raises(ValueError, match="derived axis"):
        _sampler(axes={"a": LogUniform(1, 9), "b": Derived(lambda s: s["a"])}, caps=(Cap(("a", "b"), 10, cut="a"),))
    with pytest.raises(ValueError, match="not an axis spec"):
        _sampler(axes={"a": 5})
    with pytest.raises(ValueError, match="positive whole"):
        Sampler("toy", axes={"a": Derived(lambda s: 0)}, dtype=Fixed("float32")).sample(1, 0)
    assert Uniform(2, 2).draw(random.Random(0)) == 2
