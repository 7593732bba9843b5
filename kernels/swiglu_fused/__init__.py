"""SwiGLU on the fused layout (family `swiglu-fused`): gate_up [tokens, 2 x intermediate]
holds gate in its first half and up in its second, as vLLM, FlashInfer and Megatron take it.

Imported by the runner as `kr_kernels.swiglu_fused`. It reuses the kernels, references and
inputs of the sibling package kernels/swiglu/ (`from ..swiglu import ...`), so both families run
the same code; its own modules register the implementations.

- `make_inputs(case, seed, device)`: forward {"gate_up"}; backward {"dy", "gate_up"}
- `reference(case, inputs)`: forward {"y"}; backward {"dgate_up"}, float64
- `tolerance(case, output)`: swiglu's, per output dtype
- `sample_shapes(n, seed)`: random shapes for the bench (shapes.py states their ranges)
"""

from site_builder.runner.family import Close, KernelFamily

from ..swiglu import reference as _reference
from ..swiglu.inputs import make_inputs as _make_inputs
from . import shapes as _shapes


class SwiGLUFused(KernelFamily):
    id = "swiglu-fused"
    numerics = _reference.NUMERICS
    test_sizes = ({"tokens": 1, "intermediate": 8}, {"tokens": 3, "intermediate": 37},
                  {"tokens": 2, "intermediate": 1031})

    def make_inputs(self, case, seed, device):
        return _make_inputs(case, seed, device)

    def sample_shapes(self, n, seed):
        return _shapes.sample_shapes(n, seed)

    def reference(self, case, inputs):
        return _reference.reference(inputs, case.params)

    def tolerance(self, case, output):
        return Close(*_reference.TOLERANCES[case.outputs[output].dtype])


family = SwiGLUFused()
register = family.registry.register

from . import impl_eager  # noqa: E402,F401  (the designated baseline)
from . import impl_liger  # noqa: E402,F401
from . import impl_kr_triton  # noqa: E402,F401
from . import impl_torch_compile  # noqa: E402,F401

__all__ = ["family", "register"]
