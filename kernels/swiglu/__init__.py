"""SwiGLU (family `swiglu`): y = silu(gate) * up, forward and backward, gate and up separate.

Imported by the runner as `kr_kernels.swiglu` (site_builder/runner/families.py), never as
`kernels.swiglu`. Implements site_builder.runner.family.KernelFamily:

- `make_inputs(case, seed, device)`: forward {"gate", "up"}; backward {"dy", "gate", "up"}
- `reference(case, inputs)`: forward {"y"}; backward {"dgate", "dup"}, float64
- `tolerance(case, output)`: per output dtype (reference.TOLERANCES)
- `sample_shapes(n, seed)`: random shapes for the bench (shapes.py states their ranges)

The family `swiglu-fused` (kernels/swiglu_fused/) reuses this package's kernels, references and
inputs for the fused [tokens, 2 x intermediate] layout.

Installed on its own (`pip install ./kernels`, the `kr-kernels` distribution, kernels/pyproject.toml)
without the engine, the package offers its kernels only (kr_triton.py, imported on first use):

    from kr_kernels.swiglu import swiglu_forward
    from kr_kernels.swiglu import swiglu_backward
    from kr_kernels.swiglu import swiglu_fused_forward
    from kr_kernels.swiglu import swiglu_fused_backward
"""

from .._standalone import engine_present, lazy_exports

__getattr__ = lazy_exports(__name__, "kr_triton", ("swiglu_forward", "swiglu_backward", "swiglu_fused_forward", "swiglu_fused_backward"))

if engine_present():
    from site_builder.runner.family import Close, KernelFamily

    from . import reference as _reference
    from .inputs import make_inputs as _make_inputs
    from . import shapes as _shapes


    class SwiGLU(KernelFamily):
        id = "swiglu"
        numerics = _reference.NUMERICS
        # CPU correctness: one element, odd and prime widths, a width that is not a power of two
        test_sizes = ({"tokens": 1, "intermediate": 8}, {"tokens": 3, "intermediate": 37},
                      {"tokens": 5, "intermediate": 130}, {"tokens": 2, "intermediate": 1031})

        def make_inputs(self, case, seed, device):
            return _make_inputs(case, seed, device)

        def sample_shapes(self, n, seed):
            return _shapes.sample_shapes(n, seed)

        def reference(self, case, inputs):
            return _reference.reference(inputs, case.params)

        def tolerance(self, case, output):
            return Close(*_reference.TOLERANCES[case.outputs[output].dtype])


    family = SwiGLU()
    register = family.registry.register

    # Each module registers one implementation; runs and tables follow this order (torch.compile
    # last: compiling every shape takes longest, and a run cut short by its budget loses least).
    from . import impl_eager  # noqa: E402,F401  (the designated baseline)
    from . import impl_liger  # noqa: E402,F401
    from . import impl_kr_triton  # noqa: E402,F401
    from . import impl_torch_compile  # noqa: E402,F401

    __all__ = ["family", "register", "swiglu_forward", "swiglu_backward", "swiglu_fused_forward", "swiglu_fused_backward"]
else:
    __all__ = ["swiglu_forward", "swiglu_backward", "swiglu_fused_forward", "swiglu_fused_backward"]
