"""The registry of runnable implementations: code registers itself under a record id.

A family (site_builder/runner/family.py) has one `Registry`; each implementation module
decorates a factory::

    @register("liger-fused", requires=["liger_kernel"], packages=["liger-kernel"])
    def liger(inputs, case):
        from liger_kernel... import ...
        x, r, w = inputs["x"], inputs["residual"], inputs["weight"]
        return lambda: fn(x, r, w, case.params["eps"])

A factory takes the prepared input tensors (by the case's input names) and the `Case` (its
kind, sizes and parameters), and returns a zero-argument callable that computes the outputs (a
tuple in the order of the case's outputs, a dict keyed by their names, or one tensor). The
runner executes only what is registered here, never a code path named by a YAML file.

This module imports nothing heavy: the site builds without torch.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..records.schema import WORKLOAD_KINDS


class NotInstalled(Exception):
    """The implementation's package is not installed here: recorded as `not-installed`."""


class Unsupported(Exception):
    """The implementation declines this workload by design (e.g. a size limit): `unsupported`."""


@dataclass(frozen=True)
class Registered:
    id: str
    factory: Callable
    baseline: bool = False
    requires: tuple[str, ...] = ()  # importable module names that must be present
    packages: tuple[str, ...] = ()  # distribution names whose versions go into the record
    sources: tuple[Path, ...] = ()  # files whose content is the kernel's identity
    note: str | None = None  # a fixed note for every result (e.g. the numerics convention)
    kinds: tuple[str, ...] = ("forward",)  # the workload kinds it computes
    destroys: tuple[str, ...] = ()  # inputs it overwrites (it gets fresh copies of them)

    def missing(self) -> str | None:
        """The first required module that cannot be imported, or None."""
        for name in self.requires:
            try:
                if importlib.util.find_spec(name) is None:
                    return name
            except (ImportError, ValueError):
                return name
        return None

    def kernel_sha(self) -> str:
        """sha256 (first 16 hex) of the source files, so results from changed code are recognisable."""
        digest = hashlib.sha256()
        for path in self.sources:
            digest.update(path.name.encode() + b"\0")
            digest.update(path.read_bytes())
        return digest.hexdigest()[:16]

    def declines(self, kind: str) -> str | None:
        """Why this implementation does not run a workload of `kind`, or None when it does."""
        if kind not in self.kinds:
            return f"{self.id} computes the {' and '.join(self.kinds)} kind{'s' if len(self.kinds) > 1 else ''}, not {kind}"
        return None


@dataclass
class Registry:
    items: dict[str, Registered] = field(default_factory=dict)

    def register(self, impl_id: str, *, baseline: bool = False, requires=(), packages=(),
                 extra_sources=(), note: str | None = None, kinds=("forward",), destroys=()):
        """Decorator: register `factory` under the implementation record id `impl_id`.

        `extra_sources` are file names beside the factory's module (e.g. the kernel it wraps)
        whose content joins the kernel hash. `kinds` are the workload kinds it computes
        (forward, backward, forward+backward); other kinds are recorded as `unsupported`.
        `destroys` names the inputs it overwrites (e.g. a loss writing its gradient into the
        logits): the runner gives it fresh copies of those, checks the others are unchanged,
        lets outputs alias them, and says so in each result's note.
        """
        kinds, destroys = tuple(kinds), tuple(destroys)
        bad = [k for k in kinds if k not in WORKLOAD_KINDS]
        if bad or not kinds:
            raise ValueError(f"implementation {impl_id!r}: kinds must be among {', '.join(WORKLOAD_KINDS)}, "
                             f"got {list(kinds)}")

        def decorate(factory: Callable) -> Callable:
            if impl_id in self.items:
                raise ValueError(f"implementation {impl_id!r} is registered twice")
            module_file = Path(inspect.getsourcefile(factory)).resolve()
            sources = (module_file, *(module_file.parent / name for name in extra_sources))
            self.items[impl_id] = Registered(impl_id, factory, baseline, tuple(requires),
                                             tuple(packages), sources, note, kinds, destroys)
            return factory

        return decorate

    def __contains__(self, impl_id: str) -> bool:
        return impl_id in self.items

    def __getitem__(self, impl_id: str) -> Registered:
        return self.items[impl_id]

    def ids(self) -> list[str]:
        return list(self.items)


def require_cuda(tensor, what: str) -> None:
    """Raise `Unsupported` unless `tensor` lives on a CUDA device (for GPU-only kernels)."""
    if tensor.device.type != "cuda":
        raise Unsupported(f"{what} runs on CUDA devices only")
