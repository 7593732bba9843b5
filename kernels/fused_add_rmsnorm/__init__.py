"""Fused add + RMSNorm (family `fused-add-rmsnorm`): reference, inputs and implementations.

Loaded by the runner under a private module name (see site_builder/runner/families.py), never
as `kernels.fused_add_rmsnorm`. The hooks the runner calls:

- `make_inputs(workload, seed, device) -> {"x", "residual", "weight"}`
- `reference(inputs, params) -> {"y", "residual_out"}` in float64
- `tolerance(dtype) -> (atol, rtol)`
- `registry`: the implementations, registered by the ids of their implementation records.
"""

from site_builder.runner.registry import Registry

FAMILY_ID = "fused-add-rmsnorm"

registry = Registry()
register = registry.register

from .inputs import make_inputs  # noqa: E402
from .reference import reference, tolerance  # noqa: E402
# Each module registers one implementation; runs and tables follow this order (torch.compile
# last: compiling every shape takes longest, and a run cut short by its budget loses least).
from . import impl_transformers  # noqa: E402,F401  (the designated baseline)
from . import impl_torch_rms_norm  # noqa: E402,F401
from . import impl_liger  # noqa: E402,F401
from . import impl_quack  # noqa: E402,F401
from . import impl_kr_triton  # noqa: E402,F401
from . import impl_torch_compile  # noqa: E402,F401

__all__ = ["FAMILY_ID", "registry", "register", "make_inputs", "reference", "tolerance"]
