"""bf16 GEMM, C = A · Bᵀ in the nn.Linear layout (family `gemm`): inputs, reference, shapes and
implementations.

Imported by the runner as `kr_kernels.gemm` (site_builder/runner/families.py), never as
`kernels.gemm`; the same import name when installed on its own (`pip install ./kernels`,
kernels/pyproject.toml), where it offers the kernel:

    from kr_kernels.gemm import gemm
    c = gemm(a, b)          # a [M, K], b [N, K]: c = a @ b.T, float32 accumulation

(kr_triton.py; Triton is imported at the first use of the name). With the repository's engine
(site_builder) importable, it also implements site_builder.runner.family.KernelFamily:

- `make_inputs(case, seed, device)`: {"a" [m, k], "b" [n, k]} (inputs.py)
- `reference(case, inputs)`: {"c"} in float64 (reference.py)
- `tolerance(case, output)`: grows with K as float32 accumulation error does (reference.py)
- `sample_shapes`, `shape_sets`/`shape_set("models")`: shapes for the bench (shapes.py)
- `registry`: the implementations.
"""


from .._standalone import engine_present, lazy_exports

# `gemm`, Kernel Records' Triton kernel, imported on first use (the family loads without
# Triton; the kernel needs it)
__getattr__ = lazy_exports(__name__, "kr_triton", ("gemm",))

if engine_present():
    from site_builder.runner.family import KernelFamily

    from . import reference as _reference
    from . import shapes as _shapes
    from .inputs import make_inputs as _make_inputs

    class GEMM(KernelFamily):
        id = "gemm"
        numerics = _reference.NUMERICS
        # CPU correctness test (tests/test_families.py; only F.linear runs on a CPU, the Triton and
        # compiled implementations skip there): M = 1, odd M, K not a multiple of 64
        test_sizes = ({"m": 1, "n": 64, "k": 96}, {"m": 7, "n": 33, "k": 100}, {"m": 37, "n": 48, "k": 257})

        def make_inputs(self, case, seed, device):
            return _make_inputs(case, seed, device)

        def reference(self, case, inputs):
            return _reference.reference(case, inputs)

        def tolerance(self, case, output):
            return _reference.tolerance(case, output)

        def sample_shapes(self, n, seed):
            return _shapes.sample_shapes(n, seed)

        def shape_sets(self):
            return ("models",)

        def shape_set(self, name):
            if name != "models":
                raise KeyError(name)
            return _shapes.model_shapes()

    family = GEMM()
    register = family.registry.register

    # Each module registers one implementation; runs and tables follow this order: ours and the
    # peers first, torch.compile max-autotune (autotuning every shape takes longest) last but one,
    # the cuBLAS baseline last (cheap to set up).
    from . import impl_kr_triton  # noqa: E402,F401
    from . import impl_tutorial  # noqa: E402,F401
    from . import impl_quack  # noqa: E402,F401
    from . import impl_torch_compile  # noqa: E402,F401
    from . import impl_f_linear  # noqa: E402,F401  (the designated baseline)

    __all__ = ["family", "register", "gemm"]
else:
    __all__ = ["gemm"]
