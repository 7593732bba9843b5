"""RMSNorm (family `rmsnorm`), forward and backward: inputs, references and implementations.

Imported by the runner as `kr_kernels.rmsnorm` (site_builder/runner/families.py), never as
`kernels.rmsnorm`. Implements site_builder.runner.family.KernelFamily:

- `make_inputs(case, seed, device)`: forward {"x", "weight"}; backward {"dy", "x", "weight", "rstd"}
- `reference(case, inputs)`: forward {"y"}; backward {"dx", "dweight"}, in float64
- `tolerance(case, output)`: per output, dtype and kind (reference.py)
- `sample_shapes(n, seed)`: random shapes for the bench and lab/norms/sweep2.py (shapes.py)
- `registry`: the implementations, each computing both kinds.

Installed on its own (`pip install ./kernels`, the `kr-kernels` distribution, kernels/pyproject.toml)
without the engine, the package offers its kernels only (kr_triton.py, imported on first use):

    from kr_kernels.rmsnorm import rmsnorm
    from kr_kernels.rmsnorm import rmsnorm_backward
"""

from .._standalone import engine_present, lazy_exports

__getattr__ = lazy_exports(__name__, "kr_triton", ("rmsnorm", "rmsnorm_backward"))

if engine_present():
    from site_builder.runner.family import KernelFamily

    from . import reference as _reference
    from .inputs import make_inputs as _make_inputs
    from . import shapes as _shapes


    class RMSNorm(KernelFamily):
        id = "rmsnorm"
        numerics = _reference.NUMERICS
        # CPU correctness test (tests/test_families.py, every implementation, torch.compile included, so
        # few sizes): one tiny row, QK-norm's 128 with many rows, an odd masked row of 4097
        test_sizes = ({"rows": 1, "hidden": 8}, {"rows": 37, "hidden": 128}, {"rows": 3, "hidden": 4097})

        def make_inputs(self, case, seed, device):
            return _make_inputs(case, seed, device)

        def sample_shapes(self, n, seed):
            return _shapes.sample_shapes(n, seed)

        def reference(self, case, inputs):
            return _reference.reference(case, inputs)

        def tolerance(self, case, output):
            return _reference.tolerance(case, output)


    family = RMSNorm()
    register = family.registry.register

    # Each module registers one implementation; runs and tables follow this order. A run cut
    # short by its budget loses the last ones: the peers and ours first, torch.compile (compiling
    # every shape takes longest) and then the eager baseline (slow kernels, cheap to set up) last.
    from . import impl_torch_rms_norm  # noqa: E402,F401
    from . import impl_liger  # noqa: E402,F401
    from . import impl_kr_triton  # noqa: E402,F401
    from . import impl_quack  # noqa: E402,F401  (not-installed where QuACK is missing)
    from . import impl_flashinfer  # noqa: E402,F401  (not-installed where FlashInfer is missing)
    from . import impl_torch_compile  # noqa: E402,F401
    from . import impl_eager  # noqa: E402,F401  (the designated baseline)

    __all__ = ["family", "register", "rmsnorm", "rmsnorm_backward"]
else:
    __all__ = ["rmsnorm", "rmsnorm_backward"]
