"""Find and import the family packages under `kernels/`: the one place that imports them.

The folder name `kernels` is also the import name of an unrelated PyPI package, so the folder
is never imported as `kernels`. Instead the repository's `kernels/` folder is the package
`kr_kernels` (a package made here whose search path is that folder: `kr_kernels.<family>`,
`kr_kernels.<family>.kr_triton`), and any other kernels folder (test fixtures) the
package `kr_kernels_<8 hex of its path>`. Modules are then imported by the normal import
system, never loaded from a file path; inside a family they import each other relatively.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

from ..errors import UserError

REPO_ROOT = Path(__file__).resolve().parents[2]
KERNELS_ROOT = REPO_ROOT / "kernels"
PACKAGE = "kr_kernels"


def folder_name(family_id: str) -> str:
    """The package folder of a family id (`my-family` -> `my_family`)."""
    return family_id.replace("-", "_").replace(".", "_")


def family_dir(kernels_root: Path, family_id: str) -> Path:
    return Path(kernels_root) / folder_name(family_id)


def has_kernels(kernels_root: Path, family_id: str) -> bool:
    return (family_dir(kernels_root, family_id) / "__init__.py").is_file()


def package_name(kernels_root: Path = KERNELS_ROOT) -> str:
    """`kr_kernels` for the repository's kernels/, `kr_kernels_<hash>` for another folder."""
    root = Path(kernels_root).resolve()
    if root == KERNELS_ROOT.resolve():
        return PACKAGE
    return f"{PACKAGE}_{hashlib.sha256(str(root).encode()).hexdigest()[:8]}"


def _root_package(kernels_root: Path) -> str:
    name = package_name(kernels_root)
    if name not in sys.modules:
        root = str(Path(kernels_root).resolve())
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [root]
        package = importlib.util.module_from_spec(spec)
        package.__path__ = [root]
        package.__doc__ = f"the kernel families under {root} (site_builder/runner/families.py)"
        sys.modules[name] = package
    return name


def import_module(family_id: str, submodule: str | None = None, kernels_root: Path = KERNELS_ROOT):
    """Import a family's package (or one of its modules, e.g. `kr_triton`) by its import name."""
    name = f"{_root_package(kernels_root)}.{folder_name(family_id)}"
    return importlib.import_module(f"{name}.{submodule}" if submodule else name)


def load_family(kernels_root: Path, family_id: str):
    """The `KernelFamily` that `kernels/<family>/__init__.py` exposes as `family`, checked."""
    from .family import KernelFamily

    folder = family_dir(kernels_root, family_id)
    init = folder / "__init__.py"
    if not init.is_file():
        raise UserError(f"no kernels for family {family_id!r}: {init} not found — add a package "
                        f"{folder.name}/ under {kernels_root} (`kernel-records new kernels {family_id}`, "
                        "see kernels/README.md)")
    module = import_module(family_id, kernels_root=kernels_root)
    plugin = getattr(module, "family", None)
    if not isinstance(plugin, KernelFamily):
        raise UserError(f"{init} defines no `family` (an instance of a KernelFamily subclass, "
                        "site_builder/runner/family.py) — see kernels/README.md")
    problems = plugin.check()
    if plugin.id and plugin.id != family_id:
        problems.append(f"its family's id is {plugin.id!r}, the folder is for {family_id!r}")
    if problems:
        raise UserError(f"{init}: " + "; ".join(problems))
    return plugin


def family_ids(kernels_root: Path = KERNELS_ROOT) -> list[str]:
    """The ids of the families packaged under `kernels_root` (each package's `family.id`)."""
    ids = []
    for init in sorted(Path(kernels_root).glob("*/__init__.py")):
        module = importlib.import_module(f"{_root_package(kernels_root)}.{init.parent.name}")
        plugin = getattr(module, "family", None)
        if plugin is not None and getattr(plugin, "id", None):
            ids.append(plugin.id)
    return ids
