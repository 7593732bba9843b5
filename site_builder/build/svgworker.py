"""A chart renderer process: `python -m site_builder.build.svgworker SPECS.json SVGS.json`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .svg import svg_of

if __name__ == "__main__":
    specs_in, svgs_out = sys.argv[1:3]
    specs = json.loads(Path(specs_in).read_text(encoding="utf-8"))
    Path(svgs_out).write_text(json.dumps([svg_of(s) for s in specs]), encoding="utf-8")
