"""Fused add + RMSNorm (family `fused-add-rmsnorm`): inputs, reference and implementations.

Imported by the runner as `kr_kernels.fused_add_rmsnorm` (site_builder/runner/families.py),
never as `kernels.fused_add_rmsnorm`; the same import name when installed on its own
(`pip install ./kernels`, kernels/pyproject.toml), where it offers the kernel:

    from kr_kernels.fused_add_rmsnorm import fused_add_rmsnorm
    y, residual_out = fused_add_rmsnorm(x, residual, weight, eps=1e-6)

(kr_triton.py; Triton is imported at the first use of the name). With the repository's engine
(site_builder) importable, it also implements site_builder.runner.family.KernelFamily:

- `make_inputs(case, seed, device) -> {"x", "residual", "weight"}`
- `reference(case, inputs) -> {"y", "residual_out"}` in float64
- `tolerance(case, output)`: per input dtype (reference.TOLERANCES)
- `sample_shapes(n, seed)`, `shape_sets()`, `shape_set("models" | "smoke")`: shapes for the bench (shapes.py)
- `registry`: the implementations, registered by the ids of their implementation records.
"""


from .._standalone import engine_present, lazy_exports

# `fused_add_rmsnorm`, Kernel Records' Triton kernel, imported on first use (the family loads without
# Triton; the kernel needs it)
__getattr__ = lazy_exports(__name__, "kr_triton", ("fused_add_rmsnorm",))

if engine_present():
    from site_builder.runner.family import Close, KernelFamily

    from . import reference as _reference
    from . import shapes as _shapes
    from .inputs import make_inputs as _make_inputs

    class FusedAddRMSNorm(KernelFamily):
        id = "fused-add-rmsnorm"
        numerics = _reference.NUMERICS
        # CPU correctness test: powers of two, segments (5120), masked rows (111, 4097)
        test_sizes = ({"rows": 1, "hidden": 8}, {"rows": 3, "hidden": 111}, {"rows": 16, "hidden": 4096},
                      {"rows": 2, "hidden": 4097}, {"rows": 5, "hidden": 5120})

        def make_inputs(self, case, seed, device):
            return _make_inputs(case, seed, device)

        def reference(self, case, inputs):
            return _reference.reference(inputs, case.params)

        def tolerance(self, case, output):
            # by the input's dtype: with a float32 weight and bf16 input, y is float32 but carries
            # the bf16 rounding of the normalised value (the convention), so bf16's tolerance
            return Close(*_reference.TOLERANCES[case.inputs["x"].dtype])

        def sample_shapes(self, n, seed):
            return _shapes.sample_shapes(n, seed)

        def shape_sets(self):
            return ("models", "smoke")

        def shape_set(self, name):
            return {"models": _shapes.model_shapes, "smoke": _shapes.smoke_shapes}[name]()

    family = FusedAddRMSNorm()
    register = family.registry.register

    # Each module registers one implementation; runs and tables follow this order (torch.compile
    # last: compiling every shape takes longest, and a run cut short by its budget loses least).
    from . import impl_transformers  # noqa: E402,F401  (the designated baseline)
    from . import impl_torch_rms_norm  # noqa: E402,F401
    from . import impl_liger  # noqa: E402,F401
    from . import impl_quack  # noqa: E402,F401
    from . import impl_flashinfer  # noqa: E402,F401  (not-installed where FlashInfer is missing)
    from . import impl_kr_triton  # noqa: E402,F401
    from . import impl_torch_compile  # noqa: E402,F401

    __all__ = ["family", "fused_add_rmsnorm", "register"]
else:
    __all__ = ["fused_add_rmsnorm"]
