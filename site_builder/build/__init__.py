"""Stage 4: the build. `build()` renders the site into a folder, incrementally with its cache;
`render_site()` renders every file into memory, from scratch; `write_site()` swaps a site in."""

from __future__ import annotations

from .recipe import BuildReport, build, render_site
from .write import write_site

__all__ = ["BuildReport", "build", "render_site", "write_site"]
