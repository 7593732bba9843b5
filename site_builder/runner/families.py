"""Find and load a family's kernel package from `kernels/<family>/`.

The folder name `kernels` is also the import name of an unrelated PyPI package, so the
folder is never imported as `kernels`: each family package is loaded from its file under a
private module name (`kr_kernels_<family>`), which cannot collide with anything installed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from ..errors import UserError

REPO_ROOT = Path(__file__).resolve().parents[2]
KERNELS_ROOT = REPO_ROOT / "kernels"

#: What a family package must define (see kernels/README.md).
HOOKS = ("registry", "make_inputs", "reference", "tolerance")


def family_dir(kernels_root: Path, family_id: str) -> Path:
    return Path(kernels_root) / family_id.replace("-", "_").replace(".", "_")


def module_name(family_id: str) -> str:
    return "kr_kernels_" + family_id.replace("-", "_").replace(".", "_")


def has_kernels(kernels_root: Path, family_id: str) -> bool:
    return (family_dir(kernels_root, family_id) / "__init__.py").is_file()


def load_family(kernels_root: Path, family_id: str):
    """Import `kernels/<family>/__init__.py` as package `kr_kernels_<family>` and check its hooks."""
    name = module_name(family_id)
    if name in sys.modules:
        return sys.modules[name]
    folder = family_dir(kernels_root, family_id)
    init = folder / "__init__.py"
    if not init.is_file():
        raise UserError(f"no kernels for family {family_id!r}: {init} not found — "
                        f"add a package {folder.name}/ under {kernels_root} (see kernels/README.md)")
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    missing = [hook for hook in HOOKS if not hasattr(module, hook)]
    if missing:
        raise UserError(f"{init} lacks {', '.join(missing)} — define them (see kernels/README.md)")
    return module
