"""CPU tests of kernels/rope/kr_triton.py's launch knobs (`cfg`) under the Triton interpreter:
every knob setting gives the default launch's result (float32, bit for bit: the arithmetic does
not depend on the tile) and matches the float64 reference; bad knobs are refused."""

import os

os.environ["TRITON_INTERPRET"] = "1"

import pytest  # noqa: E402
from triton_mode import triton_in_mode  # noqa: E402

torch = pytest.importorskip("torch")
pytest.importorskip("triton")
pytest.importorskip("numpy")
_ELSEWHERE, test_cpu_suite_in_fresh_process, _only_here = triton_in_mode(__file__, interpreted=True, timeout=600)


def _load(module):
    from site_builder.runner.families import import_module

    return import_module("rope", module)


if not _ELSEWHERE:
    rp = _load("kr_triton")
    rpref = _load("reference")
    rpin = _load("inputs")

CFGS = [
    {"layout": "grouped"},
    {"layout": "split"},
    {"layout": "token"},
    {"layout": "token", "tile_bytes": 32},
    {"layout": "rows"},
    {"layout": "rows", "tile_bytes": 64, "num_warps": 1},
    {"tokens": 3},
    {"tokens": 2, "layout": "token"},
    {"tile_bytes": 32, "num_warps": 2},
    {"evict": "", "cs_evict": ""},
    {"evict": "evict_last", "cs_evict": "evict_first", "store": ".cs"},
    {"num_stages": 2},
    {"persistent": 1},
    {"persistent": 1, "tokens": 2},
    {"persistent": 1, "layout": "rows", "tile_bytes": 64},
    {"persistent": 1, "layout": "split"},
]


def _inputs(b, hq, hk, s, d, pb, seed=0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(b, s, hq, d, generator=g).transpose(1, 2)
    k = torch.randn(b, s, hk, d, generator=g).transpose(1, 2)
    pos = torch.randint(0, 1000, (pb, 1), generator=g) + torch.arange(s)[None]
    cos, sin = rpin.rope_tables(pos, d, torch.float32)
    return q, k, cos, sin


@pytest.mark.parametrize("shape", [(1, 3, 1, 5, 6, 1), (2, 4, 2, 1, 10, 2), (3, 5, 3, 7, 16, 1)])
@pytest.mark.parametrize("cfg", CFGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_knobs_match_default_and_reference_f32(shape, cfg):
    q, k, cos, sin = _inputs(*shape)
    for fn, names in ((rp.rope_forward, ("q_embed", "k_embed")), (rp.rope_backward, ("dq", "dk"))):
        base = fn(q, k, cos, sin)
        got = fn(q, k, cos, sin, cfg=cfg)
        inputs = ({"q": q, "k": k} if names[0] == "q_embed" else {"dq_embed": q, "dk_embed": k})
        ref = rpref.reference({**inputs, "cos": cos, "sin": sin}, {})
        for a, b_, n in zip(got, base, names):
            assert a.shape == b_.shape and a.stride() == b_.stride()
            assert torch.equal(a, b_), (n, cfg)
            torch.testing.assert_close(a.double(), ref[n], atol=2e-6, rtol=1e-5)


def test_knob_defaults_are_todays_plan():
    for tokens, hq, hk, d in [(16384, 32, 8, 128), (8192, 128, 1, 64), (1, 32, 8, 128), (64, 28, 4, 128)]:
        p = rp.plan(tokens, hq, hk, d, 2, 132)
        lc = rp.launch_config(tokens, hq, hk, d, 2, 132, None)
        assert (lc["GQ"], lc["GK"], lc["PQ"], lc["PK"], lc["num_warps"], lc["T"]) == \
            (p["GQ"], p["GK"], p["PQ"], p["PK"], p["num_warps"], 1)
        assert lc["grids"] == [p["programs"]] and lc["num_stages"] == 1
        assert (lc["EVICT"], lc["CS_EVICT"], lc["STORE"], lc["PERSIST"]) == ("evict_first", "evict_last", "", False)


def test_bad_knobs_are_refused():
    q, k, cos, sin = _inputs(1, 2, 1, 3, 8, 1)
    for bad in ({"nope": 1}, {"layout": "x"}, {"tile_bytes": 100}, {"num_warps": 3}, {"tokens": 0},
                {"evict": "evict_normal"}, {"persistent": -1}):
        with pytest.raises(ValueError):
            rp.rope_forward(q, k, cos, sin, cfg=bad)
