"""One correctness test for every family in kernels/: each family's test cases (its
`test_sizes` with every dtype and kind of its record, see family.test_cases) × each registered
implementation, checked on the CPU by the timing core's own check (measure.check) against the
family's reference. Implementations that cannot run here (GPU-only, package not installed,
another kind) skip with the reason. Also: every family satisfies the interface, and its inputs
have the declared dtypes and shapes, are reproducible from the seed and are not zeros."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from conftest import REPO  # noqa: E402
from site_builder.records.load import load_catalog  # noqa: E402
from site_builder.runner.families import KERNELS_ROOT, family_ids, load_family  # noqa: E402
from site_builder.runner.family import test_cases  # noqa: E402
from site_builder.runner.measure import check, dtype_name  # noqa: E402
from site_builder.runner.registry import Unsupported  # noqa: E402

CATALOG = load_catalog(REPO / "records")
FAMILIES = family_ids(KERNELS_ROOT)
SEED = 7


def _cases():
    for fid in FAMILIES:
        plugin = load_family(KERNELS_ROOT, fid)
        for case in test_cases(plugin, CATALOG.families[fid]):
            yield pytest.param(fid, case, id=f"{fid}:{case.id}")


def _impl_cases():
    for fid in FAMILIES:
        plugin = load_family(KERNELS_ROOT, fid)
        for case in test_cases(plugin, CATALOG.families[fid]):
            for impl in plugin.registry.ids():
                yield pytest.param(fid, impl, case, id=f"{fid}:{impl}:{case.id}")


@pytest.mark.parametrize("family_id", FAMILIES)
def test_the_family_satisfies_the_interface(family_id):
    plugin = load_family(KERNELS_ROOT, family_id)
    assert plugin.check() == []
    record = CATALOG.families[family_id]
    assert plugin.baseline() == record.baseline
    assert all(impl in CATALOG.implementations for impl in plugin.registry.ids())
    assert test_cases(plugin, record), "no case small enough for the CPU: set test_sizes"


@pytest.mark.parametrize("family_id,case", list(_cases()))
def test_inputs_and_reference_have_the_declared_dtypes_and_shapes(family_id, case):
    plugin = load_family(KERNELS_ROOT, family_id)
    a, b = plugin.make_inputs(case, SEED, "cpu"), plugin.make_inputs(case, SEED, "cpu")
    c = plugin.make_inputs(case, SEED + 1, "cpu")
    assert sorted(a) == sorted(case.inputs)
    for name, spec in case.inputs.items():
        t = a[name]
        assert dtype_name(t.dtype) == spec.dtype and tuple(t.shape) == spec.shape, name
        assert torch.equal(t, b[name]), f"{name} is not reproducible from the seed"
        assert t.numel() == 0 or bool((t != 0).any()), f"{name} is all zeros"
        assert t.numel() <= 1 or not torch.equal(t, c[name]), f"{name} does not change with the seed"
    ref = plugin.reference(case, a)
    assert sorted(ref) == sorted(case.outputs)
    for name, spec in case.outputs.items():
        assert tuple(ref[name].shape) == spec.shape, name
        if spec.dtype.startswith("float"):
            assert ref[name].dtype == torch.float64, f"reference {name} is not float64"


@pytest.mark.parametrize("family_id,impl_id,case", list(_impl_cases()))
def test_implementation_matches_the_reference(family_id, impl_id, case):
    plugin = load_family(KERNELS_ROOT, family_id)
    impl = plugin.registry[impl_id]
    if impl.missing():
        pytest.skip(f"{impl_id}: module {impl.missing()!r} is not installed here")
    if impl.declines(case.kind):
        pytest.skip(impl.declines(case.kind))
    try:
        _, correctness, problems, _ = check(plugin, impl, case, SEED, "cpu")
    except Unsupported as exc:
        pytest.skip(f"{impl_id}: {exc}")
    assert problems == [] and correctness["passed"]
