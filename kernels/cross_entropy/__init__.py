"""Cross-entropy (family `cross-entropy`): the mean loss (forward) and the loss with dlogits
(forward+backward), ignore_index −100.

The family interface is site_builder/runner/family.py (kernels/README.md): `family` below is
the runner's view of this package; implementations register on `family.registry`;
`sample_shapes(n, seed)` draws the bench's random shapes (shapes.py states their ranges).

Installed on its own (`pip install ./kernels`, the `kr-kernels` distribution, kernels/pyproject.toml)
without the engine, the package offers its kernels only (kr_triton.py, imported on first use):

    from kr_kernels.cross_entropy import cross_entropy
    from kr_kernels.cross_entropy import cross_entropy_fwd_bwd
"""

from .._standalone import engine_present, lazy_exports

__getattr__ = lazy_exports(__name__, "kr_triton", ("cross_entropy", "cross_entropy_fwd_bwd"))

if engine_present():
    from site_builder.runner.family import Case, Close, KernelFamily

    from . import inputs as _inputs
    from . import reference as _reference
    from . import shapes as _shapes


    class CrossEntropy(KernelFamily):
        id = "cross-entropy"
        #: CPU correctness sizes (the record's workloads are 65 MB and up): odd vocabularies, a share ignored
        test_sizes = ({"tokens": 1, "vocab": 8, "valid_pct": 100}, {"tokens": 7, "vocab": 37, "valid_pct": 50},
                      {"tokens": 4, "vocab": 1031, "valid_pct": 75})
        numerics = ("float64 mean over counted rows of logsumexp − target logit; dlogits = "
                    "(softmax − onehot) / n_valid on counted rows, 0 on ignored rows")

        def make_inputs(self, case: Case, seed: int, device) -> dict:
            return _inputs.draw(case.id, case["tokens"], case["vocab"], case["valid_pct"], case.dtype, seed,
                                device, int(case.params["ignore_index"]))

        def sample_shapes(self, n, seed):
            return _shapes.sample_shapes(n, seed)

        def reference(self, case: Case, inputs: dict) -> dict:
            return _reference.reference(case.kind, inputs, int(case.params["ignore_index"]))

        def tolerance(self, case: Case, output: str):
            n_valid = case["tokens"] - _inputs.n_ignored(case["tokens"], case["valid_pct"])
            atol, rtol = _reference.tolerance(output, case.dtype, case["vocab"], n_valid)
            return Close(atol, rtol)


    family = CrossEntropy()
    register = family.registry.register

    # Run order: the baseline and ours first, torch.compile last (a run cut short by its budget
    # loses least).
    from . import impl_eager  # noqa: E402,F401  (the designated baseline; PyTorch's built-in)
    from . import impl_kr_triton  # noqa: E402,F401
    from . import impl_liger  # noqa: E402,F401
    from . import impl_torch_compile  # noqa: E402,F401

    __all__ = ["family", "register", "cross_entropy", "cross_entropy_fwd_bwd"]
else:
    __all__ = ["cross_entropy", "cross_entropy_fwd_bwd"]
