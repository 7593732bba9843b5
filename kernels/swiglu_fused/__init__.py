"""SwiGLU on the fused layout (family `swiglu-fused`): gate_up [tokens, 2 x intermediate]
holds gate in its first half and up in its second, as vLLM, FlashInfer and Megatron take it.

Loaded by the runner under a private module name. It reuses the kernels, references and eager
formulas of the sibling package kernels/swiglu/ (loaded by path, as the runner loads any family,
so both families run the same code); its own modules register the implementations.

- `make_inputs(workload, seed, device)`: forward {"gate_up"}; backward {"dy", "gate_up"}
- `reference(inputs, params)`: forward {"y"}; backward {"dgate_up"}, float64
- `tolerance(dtype) -> (atol, rtol)`: swiglu's
"""

from pathlib import Path

from site_builder.runner.families import load_family
from site_builder.runner.registry import Registry

FAMILY_ID = "swiglu-fused"

base = load_family(Path(__file__).resolve().parents[1], "swiglu")  # kernels/swiglu/

registry = Registry()
register = registry.register

reference = base.reference
tolerance = base.tolerance


def make_inputs(workload: dict, seed: int, device):
    return base.inputs.make_inputs(workload, seed, device, fused=True)


from . import impl_eager  # noqa: E402,F401  (the designated baseline)
from . import impl_liger  # noqa: E402,F401
from . import impl_kr_triton  # noqa: E402,F401
from . import impl_torch_compile  # noqa: E402,F401

__all__ = ["FAMILY_ID", "registry", "register", "make_inputs", "reference", "tolerance"]
