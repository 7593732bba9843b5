"""The timing core's `Close` check (measure._compare through measure.verify): which element a
failure message names, and the families' element-wise allowances (KernelFamily.allowance):
added to atol where given, checked for shape, dtype and sign, absent by default."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from site_builder.runner import measure  # noqa: E402
from site_builder.runner.family import Case, Close, Exact, KernelFamily, Tensor  # noqa: E402


def _verify(out, ref, tol, allowance=None):
    """verify() on one output `y` (no inputs): (correctness, problems)."""
    allowances = None if allowance is None else {"y": allowance}
    return measure.verify({"y": out}, {"y": ref}, {}, {}, {"y": tol}, allowances=allowances)


def test_the_message_names_the_element_furthest_outside_its_tolerance_not_the_largest_diff():
    ref = torch.tensor([[0.0750005, 1e-4, 0.5], [2e-4, 3e-4, 0.25]], dtype=torch.float64)
    out = ref.clone()
    out[0, 0] += 1.9e-4  # the largest |diff|, within 1e-6 + 1.6e-2·0.075 = 1.2e-3
    out[1, 1] = 3.1e-4  # |diff| 1e-5, outside 1e-6 + 1.6e-2·3e-4 = 5.8e-6: 1.72x
    out[0, 1] = 1.03e-4  # |diff| 3e-6, outside 2.6e-6: 1.15x
    _, [text] = _verify(out, ref, Close(1e-6, 1.6e-2))
    assert text == ("output y: 2 of 6 elements outside tolerance; furthest outside at flat index 4 [1, 1]: "
                    "0.00031 vs 0.0003, |diff| 1e-05 is 1.72× the tolerance there, 5.8e-06 "
                    "(atol 1e-06 + rtol·|ref| 4.8e-06); largest |diff| at flat index 0 [0, 0]: 0.0751905 vs "
                    "0.0750005, |diff| 0.00019, tolerance there 0.0012 (within)")


def test_the_largest_diff_is_left_out_when_it_is_the_worst_element():
    ref = torch.zeros(5, dtype=torch.float64)
    out = ref.clone()
    out[3] = 1.0
    _, [text] = _verify(out, ref, Close(0.1, 0.0))
    assert "furthest outside at flat index 3: 1 vs 0, |diff| 1 is 10× the tolerance there, 0.1" in text
    assert "largest" not in text


def test_a_zero_tolerance_names_the_failing_element():
    ref = torch.tensor([0.0, 1.0], dtype=torch.float64)
    _, [text] = _verify(torch.tensor([1e-9, 1.0], dtype=torch.float64), ref, Close(0.0, 0.0))
    assert "furthest outside at flat index 0: 1e-09 vs 0, |diff| 1e-09 against a zero tolerance there, 0 " \
           "(atol 0 + rtol·|ref| 0)" in text


def test_among_elements_under_a_zero_tolerance_the_largest_diff_is_named():
    # every failing element is infinitely far outside a zero tolerance: name the largest miss,
    # not the first one in memory order
    ref = torch.tensor([1.0, 2.0, 5.0], dtype=torch.float64)
    out = torch.tensor([1.0, 2.1, 5.5], dtype=torch.float64)
    _, [text] = _verify(out, ref, Close(0.0, 0.0))
    assert "2 of 3 elements outside tolerance; furthest outside at flat index 2: 5.5 vs 5, |diff| 0.5 " \
           "against a zero tolerance there" in text
    assert "largest" not in text


def test_a_nan_reference_is_not_called_a_zero_tolerance():
    ref = torch.tensor([1.0, float("nan")], dtype=torch.float64)
    _, [text] = _verify(torch.tensor([1.0, 0.0], dtype=torch.float64), ref, Close(1e-3, 1e-3))
    assert "furthest outside at flat index 1: 0 vs nan" in text
    assert "zero tolerance" not in text and "|diff| nan (the reference is nan there: no tolerance holds)" in text


def test_a_scalar_output_still_gets_a_message():
    ref = torch.tensor(2.0, dtype=torch.float64)
    _, [text] = _verify(torch.tensor(2.5, dtype=torch.float64), ref, Close(1e-3, 1e-3))
    assert "1 of 1 elements outside tolerance; furthest outside at flat index 0: 2.5 vs 2" in text


def test_an_allowance_is_added_to_atol_elementwise():
    ref = torch.tensor([1.0, 1.0, 1.0], dtype=torch.float64)
    out = torch.tensor([1.05, 1.05, 1.0], dtype=torch.float64)
    tol = Close(0.01, 0.0)
    allowance = torch.tensor([0.05, 0.03, 0.0], dtype=torch.float64)
    correctness, [text] = _verify(out, ref, tol, allowance)
    assert text.startswith("output y: 1 of 3 elements outside tolerance; furthest outside at flat index 1: 1.05 vs 1")
    assert "(atol 0.01 + rtol·|ref| 0 + allowance 0.03)" in text
    assert correctness["atol"] == 0.01 and correctness["passed"] is False
    correctness, problems = _verify(out, ref, tol, torch.full((3,), 0.05, dtype=torch.float64))
    assert problems == [] and correctness["passed"] is True


def test_no_allowance_is_the_scalar_check_bit_for_bit():
    gen = torch.Generator().manual_seed(3)
    ref = torch.randn(64, 33, generator=gen, dtype=torch.float64)
    out = (ref + 1e-3 * torch.randn(64, 33, generator=gen, dtype=torch.float64)).float()
    tol = Close(1e-3, 1.6e-2)
    plain = measure.verify({"y": out}, {"y": ref}, {}, {}, {"y": tol})
    assert _verify(out, ref, tol) == plain
    zero = _verify(out, ref, tol, torch.zeros(64, 33, dtype=torch.float64))
    assert zero[0] == plain[0] and [p.replace(" + allowance 0)", ")") for p in zero[1]] == plain[1]
    # the same elements fail as under the formula written out
    n = int(((out.double() - ref).abs() > tol.atol + tol.rtol * ref.abs()).sum())
    assert n > 0 and plain[1][0].startswith(f"output y: {n} of {64 * 33} elements outside tolerance")


def test_the_default_hook_gives_no_allowance():
    class Plain(KernelFamily):
        id = "plain"

        def make_inputs(self, case, seed, device):
            return {}

        def reference(self, case, inputs):
            return {}

    case = Case(id="w", dtype="float32", outputs={"y": Tensor("float32", (2,))})
    assert Plain().allowance(case, {}, {}) == {}
    ref = {"y": torch.zeros(2, dtype=torch.float64)}
    assert measure.checked_allowances(Plain(), case, {}, ref, {"y": Close(0, 0)}) == {}


@pytest.mark.parametrize("given,message", [
    ({"z": torch.zeros(2, dtype=torch.float64)}, "gives 'z', which is not an output of the case"),
    ({"y": torch.zeros(2, dtype=torch.float32)}, "is torch.float32 (2,) on cpu; it must be a float64 tensor"),
    ({"y": torch.zeros(3, dtype=torch.float64)}, "of the reference's shape (2,)"),
    ({"y": torch.tensor([0.0, -1.0], dtype=torch.float64)}, "negative or non-finite"),
    ({"y": torch.tensor([0.0, float("inf")], dtype=torch.float64)}, "negative or non-finite"),
    ({"y": 0.5}, "is float; it must be a float64 tensor"),
])
def test_a_bad_allowance_is_refused_with_the_hook_named(given, message):
    family = SimpleNamespace(id="fam", allowance=lambda case, inputs, reference: given)
    case = Case(id="w1", dtype="float32", outputs={"y": Tensor("float32", (2,))})
    ref = {"y": torch.zeros(2, dtype=torch.float64)}
    with pytest.raises(ValueError, match="family 'fam': allowance\\(case 'w1'\\)") as exc:
        measure.checked_allowances(family, case, {}, ref, {"y": Close(0, 0)})
    assert message in str(exc.value)


def test_an_allowance_for_an_exact_output_is_refused():
    zeros = {"y": torch.zeros(2, dtype=torch.float64)}
    family = SimpleNamespace(id="fam", allowance=lambda case, inputs, reference: zeros)
    case = Case(id="w1", dtype="int64", outputs={"y": Tensor("int64", (2,))})
    with pytest.raises(ValueError, match="compared Exact: an allowance applies to Close outputs only"):
        measure.checked_allowances(family, case, {}, {"y": torch.zeros(2, dtype=torch.int64)}, {"y": Exact()})


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 25])
def test_a_comparison_in_chunks_reports_what_one_pass_over_the_whole_output_does(monkeypatch, chunk):
    """Large outputs are compared in chunks of COMPARE_CHUNK elements (float64 temporaries stay
    small); the verdict, the counts, the errors and the elements a message names do not depend on
    the chunk size. Cases: outside elements in several chunks, an allowance, a zero tolerance, a
    NaN reference, a NaN output."""
    g = torch.Generator().manual_seed(5)
    ref = torch.randn(13, 11, generator=g, dtype=torch.float64)
    out = ref + 1e-3 * torch.randn(13, 11, generator=g, dtype=torch.float64)
    out[2, 3] += 0.05
    out[9, 10] -= 0.2  # the largest |diff|
    out[12, 0] += 0.03
    allowance = torch.zeros(13, 11, dtype=torch.float64)
    allowance[9, 10] = 0.5  # ...allowed there: within
    zero_tol = ref.clone()
    zero_tol[6, 6] = 0.0
    cases = {
        "several outside": (out, ref, Close(1e-2, 0.0), None),
        "allowance": (out, ref, Close(1e-2, 0.0), allowance),
        "zero tolerance": (out, zero_tol, Close(0.0, 0.5), None),  # 0 where the reference is
        "NaN reference": (out, torch.where(torch.arange(143).reshape(13, 11) == 40, math.nan, ref), Close(1e-2, 0.0), None),
        "NaN output": (torch.where(torch.arange(143).reshape(13, 11) == 100, math.nan, out), ref, Close(1e-2, 0.0), None),
        "float32 output": (out.float(), ref, Close(1e-2, 1e-3), None),
    }
    whole = {k: _verify(*v) for k, v in cases.items()}  # the default chunk holds all 143 elements
    monkeypatch.setattr(measure, "COMPARE_CHUNK", chunk)
    for key, args in cases.items():
        got = _verify(*args)
        assert repr(got) == repr(whole[key]), key  # repr: NaN == NaN
    assert whole["several outside"][1][0].startswith("output y: 3 of 143 elements outside tolerance; "
                                                     "furthest outside at flat index 109 [9, 10]")
    assert whole["allowance"][1][0].startswith("output y: 2 of 143 elements outside tolerance; "
                                               "furthest outside at flat index 25 [2, 3]")
    assert "no tolerance holds" in whole["NaN reference"][1][0] and "flat index 40 [3, 7]" in whole["NaN reference"][1][0]
    assert whole["NaN output"][1] == ["output y has 1 non-finite values of 143 (NaN where an element was never written)"]
    assert "flat index 72 [6, 6]" in whole["zero tolerance"][1][0]

