"""What every family package of `kr_kernels` shares: it imports with or without the repository's
engine, and its kernels load on first use.

In this repository the runner imports a family as `kr_kernels.<family>` with site_builder
importable: the package then defines its `KernelFamily` and registers its implementations.
Installed on its own (`pip install ./kernels`, the `kr-kernels` distribution) there is no
site_builder: the package offers its kernel functions only. Either way the Triton kernels are
imported at the first use of their name, so that the family loads without Triton.
"""

from __future__ import annotations

import importlib


def engine_present() -> bool:
    """Whether site_builder (the engine) is importable here; any other import error is raised."""
    try:
        import site_builder.runner.family  # noqa: F401
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("site_builder"):
            raise
        return False
    return True


def lazy_exports(package: str, module: str, names: tuple[str, ...]):
    """A module `__getattr__` for `package` that imports `names` from its submodule `module` on
    first use and keeps them as attributes of the package."""
    def __getattr__(name: str):
        if name in names:
            value = getattr(importlib.import_module(f"{package}.{module}"), name)
            setattr(importlib.import_module(package), name, value)
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
