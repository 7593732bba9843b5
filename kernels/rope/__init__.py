"""Rotary position embedding on q and k (family `rope`), Hugging Face "rotate half", forward
and backward.

Loaded by the runner under a private module name (see site_builder/runner/families.py).

- `make_inputs(workload, seed, device)`: forward {"q", "k", "cos", "sin"};
  backward {"dq_embed", "dk_embed", "cos", "sin"}
- `reference(inputs, params)`: forward {"q_embed", "k_embed"}; backward {"dq", "dk"}, float64
- `tolerance(dtype) -> (atol, rtol)`
"""

from site_builder.runner.registry import Registry

FAMILY_ID = "rope"

registry = Registry()
register = registry.register

from .inputs import make_inputs  # noqa: E402
from .reference import reference, tolerance  # noqa: E402
from . import impl_eager  # noqa: E402,F401  (the designated baseline)
from . import impl_liger  # noqa: E402,F401
from . import impl_kr_triton  # noqa: E402,F401
from . import impl_torch_compile  # noqa: E402,F401  (last: compiling every shape takes longest)

__all__ = ["FAMILY_ID", "registry", "register", "make_inputs", "reference", "tolerance"]
