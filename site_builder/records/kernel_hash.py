"""What code is registered in `kernels/<family>/`, and the hash of each implementation's source,
found by reading the files (Python's `ast`), never by importing them: `check` runs without
torch and without executing anything a pull request brought in.

The hash is the runner's (`site_builder.runner.registry.Registered.kernel_sha`): sha256 over,
for the registering module and then each of its `extra_sources`, the file name, a NUL byte and
the file's bytes; the first 16 hex digits. A test keeps the two in step.
"""

from __future__ import annotations

import ast
import hashlib
from collections import deque
from dataclasses import dataclass
from pathlib import Path

SHA_LENGTH = 16


@dataclass(frozen=True)
class KernelSource:
    implementation: str
    module: Path  # the file whose decorator registers it
    sources: tuple[Path, ...]  # the module, then its extra_sources
    packages: tuple[str, ...]  # distribution names whose versions the runner records


def family_dir(kernels_root: Path, family_id: str) -> Path:
    """`kernels/<family with - and . as _>/`, the runner's layout."""
    return Path(kernels_root) / family_id.replace("-", "_").replace(".", "_")


def sha_of(paths) -> str:
    digest = hashlib.sha256()
    for path in paths:
        path = Path(path)
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:SHA_LENGTH]


def registered(kernels_root: Path, family_id: str) -> dict[str, KernelSource]:
    """Every implementation registered in the family's package, by id (empty when none)."""
    folder = family_dir(kernels_root, family_id)
    if not (folder / "__init__.py").is_file():
        return {}
    found: dict[str, KernelSource] = {}
    for module in sorted(folder.glob("*.py")):
        try:
            source = module.read_bytes()
        except OSError:
            continue
        for entry in _registrations(module, source):
            if entry.implementation not in found:
                found[entry.implementation] = entry
    return found


_PARSED: dict[tuple[Path, bytes], tuple[KernelSource, ...]] = {}  # (module, its bytes) -> what it registers


def _registrations(module: Path, source: bytes) -> tuple[KernelSource, ...]:
    """What one module registers, in source order; read once per content (a build asks for every
    family three times)."""
    key = (module, source)
    if key not in _PARSED:
        _PARSED[key] = _parse_registrations(module, source)
    return _PARSED[key]


def _parse_registrations(module: Path, source: bytes) -> tuple[KernelSource, ...]:
    if b"register" not in source:  # no decorator can name it
        return ()
    try:
        tree = ast.parse(source.decode("utf-8"), filename=str(module))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return ()
    out = []
    for node in _statements(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for deco in node.decorator_list:
            entry = _registration(deco, module)
            if entry:
                out.append(entry)
    return tuple(out)


_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)


def _statements(tree: ast.AST):
    """The nodes `ast.walk` yields, in its order, less every expression: only statements carry
    decorators, and no statement sits inside an expression."""
    todo = deque([tree])
    while todo:
        node = todo.popleft()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                todo.extend(v for v in value if isinstance(v, _BLOCKS))
        yield node


def same_kernel(recorded: str, current: str) -> bool:
    """Whether a result's `kernel_sha` names the current source (either may be a prefix of the
    other: records may keep fewer or more hex digits)."""
    return bool(recorded and current) and (current.startswith(recorded) or recorded.startswith(current))


def kernel_sha(kernels_root: Path, family_id: str, implementation_id: str) -> str | None:
    """The current hash of an implementation's source, or None when no code registers it."""
    entry = registered(kernels_root, family_id).get(implementation_id)
    if entry is None or not all(p.is_file() for p in entry.sources):
        return None
    return sha_of(entry.sources)


def current_shas(kernels_root: Path | None, family_id: str) -> dict[str, str]:
    """The current source hash of every implementation the family's package registers, by id
    (empty without a kernels folder; an implementation whose source files are missing is left out)."""
    if not kernels_root or not Path(kernels_root).is_dir():
        return {}
    return shas_of(registered(kernels_root, family_id))


def shas_of(code: dict[str, KernelSource]) -> dict[str, str]:
    """The source hash of each registered implementation whose files are all present."""
    return {iid: sha_of(src.sources) for iid, src in code.items() if all(p.is_file() for p in src.sources)}


def source_changed(recorded: str | None, current: str | None) -> bool:
    """Whether a result's recorded kernel hash names other code than `current` (False when
    either is unknown; a shorter hash that is a prefix of the other matches)."""
    return bool(recorded and current) and not same_kernel(recorded, current)


def _registration(deco: ast.expr, module: Path) -> KernelSource | None:
    if not isinstance(deco, ast.Call):
        return None
    func = deco.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name != "register" or not deco.args:
        return None
    first = deco.args[0]
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return None
    kwargs = {kw.arg: kw.value for kw in deco.keywords if kw.arg}
    extra = _strings(kwargs.get("extra_sources"))
    packages = _strings(kwargs.get("packages"))
    sources = (module.resolve(), *(module.resolve().parent / name for name in extra))
    return KernelSource(first.value, module, sources, packages)


def _strings(node) -> tuple[str, ...]:
    if isinstance(node, (ast.List, ast.Tuple)):
        return tuple(e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return ()
