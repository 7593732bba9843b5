"""Charts into inline SVG, through a cache of SVGs. A chart that can draw itself (the site's own
kinds: site/svgdraw.py, about a millisecond each) is drawn here, cached under its key. Any
other chart is rendered from its Vega-Lite spec by vl-convert, made smaller (svgslim), cached
under the spec's hash; many such misses are rendered on both cores (fresh processes: the
renderer's runtime does not survive a fork)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .svgslim import slim_svg

POOL_FROM = 12  # misses below this are rendered here: starting a process costs more


def spec_key(spec: dict) -> str:
    return hashlib.sha256(json.dumps(spec, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def svg_of(spec: dict) -> str:
    import vl_convert as vlc

    svg = slim_svg(vlc.vegalite_to_svg(spec))
    # vl-convert writes a fixed-size SVG; let CSS scale it to the column width.
    return svg.replace('class="marks"', 'class="marks" role="img"', 1)


def render_charts(charts, store, jobs: int) -> int:
    """Give every chart its spec and SVG; `store` maps spec hash -> SVG. Returns how many were rendered."""
    todo: dict[str, dict] = {}
    keyed = []
    drawn = 0
    for chart in charts:
        spec = chart.ensure_spec()  # the page embeds it, for the interactive view
        if chart.draw is not None:
            key = "d-" + chart.key
            if store.get(key) is None:
                store.put(key, chart.draw())
                drawn += 1
            keyed.append((chart, key))
            continue
        key = spec_key(spec)
        keyed.append((chart, key))
        if store.get(key) is None:
            todo[key] = spec
    if todo:
        keys = sorted(todo)
        specs = [todo[k] for k in keys]
        n = min(jobs, os.cpu_count() or 1)
        svgs = _in_workers(specs, n) if n > 1 and len(specs) >= POOL_FROM else [svg_of(s) for s in specs]
        for k, svg in zip(keys, svgs):
            store.put(k, svg)
    for chart, key in keyed:
        chart.svg = store.get(key)
    return len(todo) + drawn


def _in_workers(specs: list[dict], n: int) -> list[str]:
    """Render in `n` fresh processes (`python -m site_builder.build.svgworker`), specs and SVGs as JSON files."""
    chunks = [specs[i::n] for i in range(n)]
    with tempfile.TemporaryDirectory(prefix="kr-charts-") as tmp:
        procs = []
        for i, chunk in enumerate(chunks):
            src, dst = Path(tmp) / f"{i}.in.json", Path(tmp) / f"{i}.out.json"
            src.write_text(json.dumps(chunk), encoding="utf-8")
            procs.append((subprocess.Popen([sys.executable, "-m", "site_builder.build.svgworker", str(src), str(dst)],
                                           env=_child_env()), dst))
        results = []
        for proc, dst in procs:
            if proc.wait() != 0:
                raise RuntimeError(f"a chart renderer process failed (exit status {proc.returncode})")
            results.append(json.loads(dst.read_text(encoding="utf-8")))
    out: list[str] = [""] * len(specs)
    for i, chunk in enumerate(results):
        out[i::n] = chunk
    return out


def _child_env() -> dict:
    """This process's environment, with the folder that holds this package first on the path."""
    env = dict(os.environ)
    package_parent = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([package_parent, *filter(None, [env.get("PYTHONPATH")])])
    return env
