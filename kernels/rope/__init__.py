"""Rotary position embedding on q and k (family `rope`), Hugging Face "rotate half", forward
and backward.

Imported by the runner as `kr_kernels.rope` (site_builder/runner/families.py). Implements
site_builder.runner.family.KernelFamily:

- `make_inputs(case, seed, device)`: forward {"q", "k", "cos", "sin"};
  backward {"dq_embed", "dk_embed", "cos", "sin"}
- `reference(case, inputs)`: forward {"q_embed", "k_embed"}; backward {"dq", "dk"}, float64
- `tolerance(case, output)`: per output dtype (reference.TOLERANCES)
- `sample_shapes(n, seed)`: random shapes for the bench, prefill and decode (shapes.py states their ranges)

Installed on its own (`pip install ./kernels`, the `kr-kernels` distribution, kernels/pyproject.toml)
without the engine, the package offers its kernels only (kr_triton.py, imported on first use):

    from kr_kernels.rope import rope_forward
    from kr_kernels.rope import rope_backward
"""

from .._standalone import engine_present, lazy_exports

__getattr__ = lazy_exports(__name__, "kr_triton", ("rope_forward", "rope_backward"))

if engine_present():
    from site_builder.runner.family import Close, KernelFamily

    from . import reference as _reference
    from .inputs import make_inputs as _make_inputs
    from . import shapes as _shapes


    class RoPE(KernelFamily):
        id = "rope"
        numerics = _reference.NUMERICS
        # CPU correctness: GQA with odd head counts, head_dim not a power of two, decode positions
        test_sizes = ({"batch": 1, "heads_q": 3, "heads_kv": 1, "seq": 5, "head_dim": 6, "pos_batch": 1},
                      {"batch": 2, "heads_q": 4, "heads_kv": 2, "seq": 1, "head_dim": 10, "pos_batch": 2},
                      {"batch": 3, "heads_q": 5, "heads_kv": 3, "seq": 7, "head_dim": 16, "pos_batch": 1})

        def make_inputs(self, case, seed, device):
            return _make_inputs(case, seed, device)

        def sample_shapes(self, n, seed):
            return _shapes.sample_shapes(n, seed)

        def reference(self, case, inputs):
            return _reference.reference(inputs, case.params)

        def tolerance(self, case, output):
            return Close(*_reference.TOLERANCES[case.outputs[output].dtype])


    family = RoPE()
    register = family.registry.register

    from . import impl_eager  # noqa: E402,F401  (the designated baseline)
    from . import impl_liger  # noqa: E402,F401
    from . import impl_kr_triton  # noqa: E402,F401
    from . import impl_torch_compile  # noqa: E402,F401  (last: compiling every shape takes longest)

    __all__ = ["family", "register", "rope_forward", "rope_backward"]
else:
    __all__ = ["rope_forward", "rope_backward"]
