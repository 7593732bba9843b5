"""Stage 4: the build. `build()` renders the site into a folder, incrementally with its cache;
`render_site()` renders every file into memory, from scratch; `write_site()` swaps a site in.

The names are loaded on first use, so that a chart renderer process (build/svgworker.py)
imports only what it needs."""

from __future__ import annotations

__all__ = ["BuildReport", "build", "render_site", "write_site"]


def __getattr__(name: str):
    if name in ("BuildReport", "build", "render_site"):
        from . import recipe

        return getattr(recipe, name)
    if name == "write_site":
        from .write import write_site

        return write_site
    raise AttributeError(name)
