"""The softmax and cross-entropy families' float64 references against eager PyTorch in float64,
their input generators and tolerances (CPU, no Triton)."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

def _load(family: str, module: str):
    from site_builder.runner.families import import_module

    return import_module(family, module)


sm_ref = _load("softmax", "reference")
sm_in = _load("softmax", "inputs")
ce_ref = _load("cross-entropy", "reference")
ce_in = _load("cross-entropy", "inputs")


@pytest.mark.parametrize("rows,cols", [(3, 1001), (1, 7), (5, 4097)])
def test_softmax_reference_matches_eager_float64(rows, cols):
    x = sm_in.draw("forward", "w", rows, cols, "float32", 3, "cpu")["x"].double()
    y = sm_ref.forward(x)
    assert torch.allclose(y, torch.softmax(x, -1), rtol=1e-12, atol=0)
    assert torch.allclose(y.sum(-1), torch.ones(rows, dtype=torch.float64), rtol=1e-12)
    xg = x.clone().requires_grad_(True)
    dy = torch.randn(rows, cols, dtype=torch.float64)
    (dx,) = torch.autograd.grad(torch.softmax(xg, -1), xg, dy)
    assert torch.allclose(sm_ref.backward(y, dy), dx, rtol=1e-10, atol=1e-14)


def test_softmax_reference_slices_rows_the_same_way(monkeypatch):
    x = torch.randn(9, 50, dtype=torch.float64)
    whole = sm_ref.forward(x)
    monkeypatch.setattr(sm_ref, "_SLICE", 100)  # two rows per slice
    assert torch.equal(sm_ref.forward(x), whole)


def test_softmax_inputs_are_seeded_never_zero_and_backward_takes_a_softmax():
    a = sm_in.draw("forward", "w1", 4, 300, "bfloat16", 5, "cpu")["x"]
    b = sm_in.draw("forward", "w1", 4, 300, "bfloat16", 5, "cpu")["x"]
    c = sm_in.draw("forward", "w1", 4, 300, "bfloat16", 6, "cpu")["x"]
    assert a.dtype == torch.bfloat16 and torch.equal(a, b) and not torch.equal(a, c)
    assert (a != 0).float().mean() > 0.99
    assert a.float().std() > 1.5  # logits of a realistic spread, not N(0, 1e-3)
    bw = sm_in.draw("backward", "w2", 4, 300, "float32", 5, "cpu")
    assert set(bw) == {"y", "dy"}
    assert torch.allclose(bw["y"].double().sum(-1), torch.ones(4, dtype=torch.float64), rtol=1e-5)
    assert (bw["y"] > 0).all()
    with pytest.raises(ValueError, match="no 'forward\\+backward' kind"):
        sm_in.draw("forward+backward", "w", 1, 1, "float32", 1, "cpu")


def test_softmax_tolerance_scales_with_the_row():
    atol, rtol = sm_ref.tolerance("bfloat16", 128256)
    assert atol < 1e-7 and rtol == 1.6e-2  # below the typical output 1/cols = 7.8e-6
    assert sm_ref.tolerance("float32", 1024) == (1e-6 / 1024, 1e-5)
    assert sm_ref.tolerance("float32", 1024, "backward") == (1e-4 / 1024, 1e-4)  # cancellation in dy − Σ y·dy
    assert sm_ref.tolerance("bfloat16", 1024, "backward") == sm_ref.tolerance("bfloat16", 1024)


@pytest.mark.parametrize("tokens,vocab,valid_pct", [(40, 777, 100), (64, 100, 75), (7, 33, 0)])
def test_cross_entropy_reference_matches_eager_float64(tokens, vocab, valid_pct):
    ins = ce_in.draw("w", tokens, vocab, valid_pct, "float32", 11, "cpu")
    x, t = ins["logits"].double(), ins["target"]
    assert int((t == -100).sum()) == ce_in.n_ignored(tokens, valid_pct)
    out = ce_ref.reference("forward+backward", {"logits": x, "target": t})
    xg = x.clone().requires_grad_(True)
    loss = F.cross_entropy(xg, t, ignore_index=-100)
    (g,) = torch.autograd.grad(loss, xg)
    if valid_pct == 0:  # every target ignored: PyTorch's loss is 0/0 = NaN, its gradient zeros
        assert math.isnan(out["loss"].item()) and math.isnan(loss.item())
        assert torch.equal(out["dlogits"], torch.zeros_like(x)) and torch.equal(g, torch.zeros_like(g))
    else:
        assert torch.allclose(out["loss"], loss, rtol=1e-12, atol=0)
        assert torch.allclose(out["dlogits"], g, rtol=1e-10, atol=1e-16)
    fwd = ce_ref.reference("forward", {"logits": x, "target": t})
    assert set(fwd) == {"loss"}


def test_cross_entropy_reference_handles_minus_inf_and_large_logits():
    x = torch.randn(5, 50, dtype=torch.float64)
    x[0, :10] = -math.inf
    x[1, 3] = 1e4
    x[4, :] = -1e30  # logits that dwarf log(vocab): the loss is still log(50)
    t = torch.tensor([12, 3, -100, 7, 9])
    out = ce_ref.reference("forward+backward", {"logits": x, "target": t})
    xg = x.clone().requires_grad_(True)
    loss = F.cross_entropy(xg, t)
    (g,) = torch.autograd.grad(loss, xg)
    assert torch.allclose(out["loss"], loss) and torch.isfinite(out["loss"])
    assert torch.allclose(out["dlogits"], g, atol=1e-15)


def test_cross_entropy_inputs_honour_the_share_of_ignored_targets():
    a = ce_in.draw("w", 1000, 500, 75, "bfloat16", 2, "cpu")
    b = ce_in.draw("w", 1000, 500, 75, "bfloat16", 2, "cpu")
    assert torch.equal(a["logits"], b["logits"]) and torch.equal(a["target"], b["target"])
    t = a["target"]
    assert t.dtype == torch.int64 and int((t == -100).sum()) == 250
    kept = t[t != -100]
    assert int(kept.min()) >= 0 and int(kept.max()) < 500
    assert (a["logits"] != 0).float().mean() > 0.99
    assert ce_in.n_ignored(16384, 90) == 1638 and ce_in.n_ignored(8, 100) == 0
    with pytest.raises(ValueError, match="valid_pct"):
        ce_in.draw("w", 4, 4, 101, "float32", 1, "cpu")


def test_cross_entropy_tolerances():
    assert ce_ref.tolerance("loss", "bfloat16", 128256, 8192) == ce_ref.LOSS_TOL["bfloat16"]
    atol, rtol = ce_ref.tolerance("dlogits", "bfloat16", 128256, 8192)
    assert atol < 1.0 / (128256 * 8192) and rtol == 5e-2  # below the gradient's typical size
