"""Softmax (family `softmax`): forward (y from x) and backward (dx from y and dy).

The family interface is site_builder/runner/family.py (kernels/README.md): `family` below is
the runner's view of this package; implementations register on `family.registry`;
`sample_shapes(n, seed)` draws the bench's random shapes (shapes.py states their ranges).

Installed on its own (`pip install ./kernels`, the `kr-kernels` distribution, kernels/pyproject.toml)
without the engine, the package offers its kernels only (kr_triton.py, imported on first use):

    from kr_kernels.softmax import softmax_forward
    from kr_kernels.softmax import softmax_backward
"""

from .._standalone import engine_present, lazy_exports

__getattr__ = lazy_exports(__name__, "kr_triton", ("softmax_forward", "softmax_backward"))

if engine_present():
    from site_builder.runner.family import Case, Close, KernelFamily

    from . import inputs as _inputs
    from . import reference as _reference
    from . import shapes as _shapes


    class Softmax(KernelFamily):
        id = "softmax"
        numerics = ("float64 softmax of x (forward); float64 y · (dy − Σ y·dy) from the given y and dy "
                    "(backward)")

        def make_inputs(self, case: Case, seed: int, device) -> dict:
            return _inputs.draw(case.kind, case.id, case["rows"], case["cols"], case.dtype, seed, device)

        def sample_shapes(self, n, seed):
            return _shapes.sample_shapes(n, seed)

        def reference(self, case: Case, inputs: dict) -> dict:
            return _reference.reference(case.kind, inputs)

        def tolerance(self, case: Case, output: str):
            atol, rtol = _reference.tolerance(case.dtype, case["cols"], case.kind)
            return Close(atol, rtol)

        def allowance(self, case: Case, inputs: dict, reference: dict) -> dict:
            # bf16/fp16 backward: rounding of intermediates where dx cancels (reference.py)
            return _reference.allowance(case.kind, case.dtype, inputs)

        def notes(self, case: Case):
            if _reference.allowance_applies(case.kind, case.dtype):
                return (f"dx checked with an element-wise allowance for {_reference.C_ROUNDINGS} roundings of "
                        f"intermediates in {case.dtype} (kernels/softmax/reference.py)")
            return None


    family = Softmax()
    register = family.registry.register

    # Each module registers one implementation; runs and tables follow this order: the baseline and
    # ours first, torch.compile last (compiling every shape takes longest: a run cut short by its
    # budget loses least).
    from . import impl_eager  # noqa: E402,F401  (the designated baseline)
    from . import impl_kr_triton  # noqa: E402,F401
    from . import impl_torch_softmax  # noqa: E402,F401
    from . import impl_liger  # noqa: E402,F401
    from . import impl_torch_compile  # noqa: E402,F401

    __all__ = ["family", "register", "softmax_forward", "softmax_backward"]
else:
    __all__ = ["softmax_forward", "softmax_backward"]
