"""Chart specs into inline SVG: vl-convert, made smaller (svgslim), through a cache of SVGs
keyed by the spec's hash; many misses are rendered on both cores (fresh processes: the
renderer's runtime does not survive a fork)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from .svgslim import slim_svg

POOL_FROM = 12  # misses below this are rendered here: starting a process costs more


def spec_key(spec: dict) -> str:
    return hashlib.sha256(json.dumps(spec, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


SLOT = "__kernel_records_slot__"


def _skeleton(spec, values: list):
    """The spec with each inline data set (`"data": {"values": [...]}`) replaced by a marker
    row naming its slot; the data sets go into `values`, in order."""
    if isinstance(spec, dict):
        out = {}
        for k, v in spec.items():
            if k == "data" and isinstance(v, dict) and isinstance(v.get("values"), list):
                out[k] = {**v, "values": [{SLOT: len(values)}]}
                values.append(v["values"])
            else:
                out[k] = _skeleton(v, values)
        return out
    if isinstance(spec, list):
        return [_skeleton(v, values) for v in spec]
    return spec


@lru_cache(maxsize=64)
def _compiled(skeleton: str) -> str:
    import vl_convert as vlc

    return json.dumps(vlc.vegalite_to_vega(json.loads(skeleton)))


def _vega_of(spec: dict) -> dict | None:
    """The Vega spec of a Vega-Lite spec, compiled once per shape of chart: Vega-Lite's compiler
    does not read inline data, so a chart's data goes into its kind's compiled spec. None when
    that is not sure (equal data sets, which the compiler may merge, or a slot not found once)."""
    values: list = []
    skeleton = _skeleton(spec, values)
    if not values or any(a == b for i, a in enumerate(values) for b in values[i + 1:]):
        return None
    vega = json.loads(_compiled(json.dumps(skeleton, sort_keys=True)))
    found = 0
    for data in vega.get("data", []):
        rows = data.get("values")
        if isinstance(rows, list) and len(rows) == 1 and isinstance(rows[0], dict) and SLOT in rows[0]:
            data["values"] = values[rows[0][SLOT]]
            found += 1
    return vega if found == len(values) else None


def raw_svg(spec: dict) -> str:
    """vl-convert's SVG of a Vega-Lite spec (the same bytes as `vegalite_to_svg(spec)`)."""
    import vl_convert as vlc

    vega = _vega_of(spec)
    return vlc.vegalite_to_svg(spec) if vega is None else vlc.vega_to_svg(vega)


def svg_of(spec: dict) -> str:
    svg = slim_svg(raw_svg(spec))
    # vl-convert writes a fixed-size SVG; let CSS scale it to the column width.
    return svg.replace('class="marks"', 'class="marks" role="img"', 1)


def render_charts(charts, store, jobs: int) -> int:
    """Give every chart its spec and SVG; `store` maps spec hash -> SVG. Returns how many were rendered."""
    todo: dict[str, dict] = {}
    keyed = []
    for chart in charts:
        spec = chart.ensure_spec()
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
    return len(todo)


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
