"""SwiGLU (family `swiglu`): y = silu(gate) * up, forward and backward, gate and up separate.

Loaded by the runner under a private module name (see site_builder/runner/families.py), never
as `kernels.swiglu`. The family `swiglu-fused` (kernels/swiglu_fused/) reuses this package's
kernels and references for the fused [tokens, 2 x intermediate] layout.

- `make_inputs(workload, seed, device)`: forward {"gate", "up"}; backward {"dy", "gate", "up"}
- `reference(inputs, params)`: forward {"y"}; backward {"dgate", "dup"}, float64
- `tolerance(dtype) -> (atol, rtol)`
"""

from site_builder.runner.registry import Registry

FAMILY_ID = "swiglu"

registry = Registry()
register = registry.register

from .inputs import make_inputs  # noqa: E402
from .reference import reference, tolerance  # noqa: E402
from . import impl_eager  # noqa: E402,F401  (the designated baseline)
from . import impl_liger  # noqa: E402,F401
from . import impl_kr_triton  # noqa: E402,F401
from . import impl_torch_compile  # noqa: E402,F401  (last: compiling every shape takes longest)

__all__ = ["FAMILY_ID", "registry", "register", "make_inputs", "reference", "tolerance"]
