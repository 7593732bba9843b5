"""The engine's layout is its pipeline: records → derive → site → build, with the command line,
the runner, the importers and the benchmark beside them. No module imports a later stage (or
one of the modules beside the stages), and no modules import each other in a circle."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "site_builder"
STAGES = {"errors": 0, "records": 1, "derive": 2, "site": 3, "build": 4}
BESIDE = {"cli", "runner", "importers", "bench_build", "__main__"}


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def imports(name: str, path: Path) -> set[str]:
    """The site_builder modules `path` imports, at any depth of the file (lazy imports count)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("site_builder")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("site_builder"):
                found.add(target)
                found |= {f"{target}.{a.name}" for a in node.names}
    known = modules()
    return {t for t in found if t in known}


def stage(module: str) -> tuple[str, int | None]:
    parts = module.split(".")
    if len(parts) == 1:
        return "site_builder", -1
    top = parts[1]
    return top, STAGES.get(top)


def test_every_module_sits_in_a_stage_or_beside_them():
    for name in modules():
        top, order = stage(name)
        assert order is not None or top in BESIDE, f"{name} is in no stage (records, derive, site, build)"


def test_no_module_imports_a_later_stage():
    problems = []
    for name, path in modules().items():
        top, order = stage(name)
        if order is None or order < 0:
            continue  # the modules beside the stages may use any of them
        for target in imports(name, path):
            t_top, t_order = stage(target)
            if t_order is None and t_top in BESIDE:
                problems.append(f"{name} imports {target}, which sits beside the stages")
            elif t_order is not None and t_order > order:
                problems.append(f"{name} (stage {top}) imports {target} (later stage {t_top})")
    assert not problems, "\n".join(problems)


def test_no_import_circles():
    graph = {name: {t for t in imports(name, path) if t != name and not name.startswith(t + ".")}
             for name, path in modules().items()}
    # a package's __init__ importing its own submodules is how packages export; not a circle
    for name in graph:
        graph[name] = {t for t in graph[name] if not t.startswith(name + ".")}
    state: dict[str, int] = {}
    circle: list[str] = []

    def visit(node, trail):
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                circle.extend(trail[trail.index(nxt):] + [nxt] if nxt in trail else [node, nxt])
                return True
            if state.get(nxt) is None and visit(nxt, trail + [nxt]):
                return True
        state[node] = 2
        return False

    for name in sorted(graph):
        if state.get(name) is None and visit(name, [name]):
            break
    assert not circle, " → ".join(circle)


def test_one_module_owns_the_site_paths():
    """Pages and publishers take every page path from site/urls.py, not from f-strings of their own."""
    import re

    pattern = re.compile(r'f"(?:families|runs|history|compare|implementations|hardware|schema|assets)/')
    for path in (PACKAGE / "site").rglob("*.py"):
        if path.name == "urls.py":
            continue
        assert not pattern.search(path.read_text(encoding="utf-8")), f"{path.name} builds a site path itself"
