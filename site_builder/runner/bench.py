"""`kernel-records bench`: a side-by-side benchmark of a family's implementations, measured
exactly as a run measures them, printed instead of recorded.

It calls the runner's own `measure_family` (run.py): the probe (copy bandwidth), one worker per
implementation (measure.measure_one in each: correctness first, cold L2, CUDA-graph replay,
end-to-end, CPU pinning, spread), then the interleaved end-to-end pass (measure.measure_e2e).
The only difference from `kernel-records run` is the output: a table of µs, GB/s or TFLOP/s,
the ratio to the floor and to the best peer, and optionally JSON, instead of a record in
records/ (`--append` adds the rows to a lab JSON-lines file). This process never imports torch.

Shapes the family record does not list: `--random N --seed S` draws N shapes from the family's
`sample_shapes` hook (a family without one: N of the record's workloads), `--set NAME` takes the
family's named set (`shape_sets`/`shape_set`, e.g. `models`). Each becomes an ad-hoc workload of
a copy of the family record (a shape equal to a record workload keeps that workload's id) and is
measured by the same `measure_family`, correctness against the float64 reference first. Shapes
whose tensors have other dtypes than the record declares (a float32 weight with bfloat16 input)
are measured in a copy of the record whose semantics declare those dtypes, one group per such
variant (each with its own probe and copy bandwidth). The hooks are asked in a subprocess that
imports the family package, so this process still never imports torch.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ..errors import UserError
from ..derive.floors import floor
from ..records.load import load_catalog
from ..records.schema import DTYPE_SHORT, Family, Workload
from .families import KERNELS_ROOT, REPO_ROOT, has_kernels
from .protocol import SEED
from .run import measure_family


def pick_workloads(family, workloads, random_n: int | None, seed: int) -> list:
    """The family's workloads named in `workloads` (all when none), or `random_n` of them drawn
    with `seed`."""
    by_id = {w.id: w for w in family.workloads}
    unknown = [w for w in workloads if w not in by_id]
    if unknown:
        raise UserError(f"unknown workload {unknown[0]!r} for {family.id} — use one of {', '.join(by_id)}")
    chosen = [by_id[w] for w in workloads] if workloads else list(family.workloads)
    if random_n:
        chosen = random.Random(seed).sample(chosen, min(random_n, len(chosen)))
    return chosen


def family_shapes(kernels_root: Path, family_id: str, *, random_n: int | None = None, seed: int = SEED,
                  sets=(), timeout: float = 300.0) -> dict:
    """Ask the family package (in a subprocess: it imports torch) for `random_n` sampled shapes
    and the named `sets`: {"random": [shape JSON] or None (no sampler), "sets": {name: [...]},
    "known_sets": [...]}."""
    request = {"kernels_root": str(kernels_root), "family": family_id, "random_n": random_n, "seed": seed,
               "sets": list(sets)}
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    try:
        out = subprocess.run([sys.executable, "-m", "site_builder.runner.bench", "--shapes", json.dumps(request)],
                             capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise UserError(f"the family {family_id!r} gave no shapes within {timeout:.0f} s") from None
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        tail = (out.stdout[-1500:] + out.stderr[-1500:]).strip()
        raise UserError(f"asking the family {family_id!r} for its shapes failed:\n{tail}")
    answer = json.loads(lines[-1])
    if answer.get("error"):
        raise UserError(answer["error"])
    return answer


def _shapes_main(request: dict) -> dict:
    """The subprocess's side of family_shapes."""
    from .families import load_family
    from .family import Shape

    plugin = load_family(Path(request["kernels_root"]), request["family"])
    known = list(plugin.shape_sets())
    out = {"random": None, "sets": {}, "known_sets": known}
    if request.get("random_n"):
        try:
            shapes = plugin.sample_shapes(int(request["random_n"]), int(request["seed"]))
        except NotImplementedError:
            shapes = None
        if shapes is not None:
            out["random"] = [s.to_json() if isinstance(s, Shape) else Shape.from_json(s).to_json() for s in shapes]
    for name in request.get("sets") or ():
        if name not in known:
            return {"error": f"the family {request['family']!r} offers no shape set {name!r}"
                             + (f" — use one of {', '.join(known)}" if known else " (it defines no shape_sets)")}
        out["sets"][name] = [s.to_json() for s in plugin.shape_set(name)]
    return out


def shape_id(family: Family, shape: dict) -> str:
    """A workload id for an ad-hoc shape: its sizes, dtype, kind and tensor dtype overrides."""
    parts = [f"{axis}{shape['sizes'][axis]}" for axis, ax in family.semantics.axes.items() if ax.kind == "variable"]
    parts.append(DTYPE_SHORT.get(shape["dtype"], shape["dtype"]))
    if shape.get("kind", "forward") != "forward":
        parts.append(shape["kind"].replace("+", "-"))
    for name, dtype in sorted((shape.get("tensors") or {}).items()):
        parts += [name.replace("_", "-"), DTYPE_SHORT.get(dtype, dtype)]
    return "x-" + "-".join(parts).lower()


def family_variant(family: Family, tensors: dict, extra: list[Workload]) -> Family:
    """A copy of the family record with `extra` workloads and the declared dtypes of `tensors`
    (tensor name -> dtype) replaced, validated as a record is."""
    data = family.model_dump(mode="json")
    sem = data["semantics"]
    groups = [sem["inputs"], sem["outputs"]] + [g for k in (sem.get("kinds") or {}).values()
                                                for g in (k["inputs"], k["outputs"])]
    for name, dtype in tensors.items():
        found = [g for g in groups if name in g]
        if not found:
            raise UserError(f"a shape of {family.id} gives a dtype for {name!r}, which its record does not declare "
                            f"— use one of its tensors ({', '.join(sorted({n for g in groups for n in g}))})")
        for g in found:
            g[name] = {**g[name], "dtype": dtype}
    data["workloads"] = data["workloads"] + [w.model_dump(mode="json") for w in extra]
    try:
        return Family.model_validate(data)
    except ValueError as exc:
        raise UserError(f"an ad-hoc shape of {family.id} does not fit its record: {exc}") from None


def plan_groups(family: Family, record_ids: list[str], shapes: list[tuple[str, dict]]) -> list[dict]:
    """Measurement groups: {"family": record copy, "ids": [...], "sets": {id: [set names]}}; the
    record's own dtypes first, then one group per tensor-dtype variant, in order of appearance."""
    by_key = {(tuple(sorted(w.sizes.items())), w.dtype, w.kind): w.id for w in family.workloads}
    groups: dict[tuple, dict] = {(): {"tensors": {}, "ids": [], "extra": [], "sets": {}}}
    for wid in record_ids:
        g = groups[()]
        if wid not in g["sets"]:
            g["ids"].append(wid)
        g["sets"].setdefault(wid, []).append("record")
    for label, shape in shapes:
        tensors = dict(shape.get("tensors") or {})
        key = tuple(sorted(tensors.items()))
        g = groups.setdefault(key, {"tensors": tensors, "ids": [], "extra": [], "sets": {}})
        sizes = {k: int(v) for k, v in shape["sizes"].items()}
        kind = shape.get("kind", "forward")
        wid = None if key else by_key.get((tuple(sorted(sizes.items())), shape["dtype"], kind))
        if wid is None:
            wid = shape_id(family, shape)
            if wid not in {w.id for w in g["extra"]}:
                g["extra"].append(Workload(id=wid, dtype=shape["dtype"], kind=kind, **sizes))
        if wid not in g["sets"]:
            g["ids"].append(wid)
        if label not in g["sets"].setdefault(wid, []):
            g["sets"][wid].append(label)
    out = []
    for g in groups.values():
        if g["ids"]:
            out.append({"family": family_variant(family, g["tensors"], g["extra"]) if (g["tensors"] or g["extra"])
                        else family, "tensors": g["tensors"], "ids": g["ids"], "sets": g["sets"]})
    return out


def bench(records: Path = Path("records"), *, family: str, workloads=(), implementations=(),
          random_n: int | None = None, seed: int = SEED, sets=(), device: str | None = None,
          timeout: float = 600.0, budget_s: float | None = None,
          kernels_root: Path = KERNELS_ROOT, json_out: Path | None = None, append: Path | None = None,
          console: Console | None = None, timing_cpu: int | None = None) -> dict:
    console = console or Console()
    if not console.is_terminal:
        console.width = max(console.width, 180)  # logs keep every column of the table
    catalog = load_catalog(records)
    if family not in catalog.families:
        raise UserError(f"unknown family {family!r} — use one of {', '.join(sorted(catalog.families))}")
    fam = catalog.families[family]
    if not has_kernels(kernels_root, family):
        raise UserError(f"no kernels for family {family!r} under {kernels_root}")
    sets = list(dict.fromkeys(sets))
    answer = (family_shapes(kernels_root, family, random_n=random_n, seed=seed, sets=sets)
              if (random_n or sets) else {"random": None, "sets": {}})
    shapes: list[tuple[str, dict]] = []
    if random_n and answer["random"] is not None:
        shapes += [(f"random-{seed}", s) for s in answer["random"]]
        record_ids = [w.id for w in pick_workloads(fam, list(workloads), None, seed)] if workloads else []
    elif random_n:  # no sampler: N of the record's workloads, as before
        record_ids = [w.id for w in pick_workloads(fam, list(workloads), random_n, seed)]
    else:
        record_ids = [w.id for w in pick_workloads(fam, list(workloads), None, seed)] if (workloads or not sets) \
            else []
    for name in sets:
        shapes += [(name, s) for s in answer["sets"][name]]
    groups = plan_groups(fam, record_ids, shapes)
    deadline = None if budget_s is None else time.monotonic() + budget_s
    rows: list[dict] = []
    out: dict = {"family": family, "seed": seed, "groups": []}
    for g in groups:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left < 1.0:  # nothing would run: not even the probe
            out.setdefault("not_run", []).extend(g["ids"])
            console.print(f"not run, the bench's budget was spent: {', '.join(g['ids'])}", highlight=False)
            continue
        variant = g["family"]
        data, _, _ = measure_family(catalog, variant, implementations=implementations, workloads=g["ids"],
                                    timeout=timeout, device=device, seed=seed, kernels_root=kernels_root,
                                    console=console, timing_cpu=timing_cpu, tool="kernel-records bench",
                                    budget_s=left)
        hardware = catalog.hardware[data["hardware"]]
        bandwidth = data["environment"].get("copy_bandwidth_gbps")
        results: dict[str, dict] = {}
        for r in data["results"]:
            results.setdefault(r["workload"], {})[r["implementation"]] = r
        by_id = {w.id: w for w in variant.workloads}
        chosen = [by_id[i] for i in g["ids"]]
        group_rows = table_rows(variant, chosen, results, hardware, bandwidth)
        for row in group_rows:
            w = by_id[row["workload"]]
            row.update(sizes=w.sizes, dtype=w.dtype, tensors=g["tensors"], sets=g["sets"][row["workload"]],
                       copy_bandwidth_gbps=bandwidth)
        console.print(render(variant, hardware, bandwidth, group_rows,
                             note=", ".join(f"{k} {v}" for k, v in g["tensors"].items())))
        rows += group_rows
        out["groups"].append({"tensors": g["tensors"], "workloads": g["ids"], "copy_bandwidth_gbps": bandwidth,
                              "observed": data["observed"]})
        out.update(hardware=hardware.id, observed=data["observed"], protocol=data["protocol"]["id"],
                   protocol_version=data["protocol"]["version"], environment=data["environment"])
        out.setdefault("copy_bandwidth_gbps", bandwidth)
    out["rows"] = rows
    if "hardware" not in out:
        raise UserError("nothing was measured: the bench's budget was spent before its first workload")
    if json_out:
        Path(json_out).write_text(json.dumps(out, indent=1) + "\n")
    if append:
        with open(append, "a", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps({"observed": out["observed"], "tool": "kernel-records bench",
                                         "hardware": out["hardware"], "seed": seed, **row}) + "\n")
    return out


def table_rows(family, workloads, results: dict, hardware, bandwidth: float) -> list[dict]:
    """One row per workload and implementation: device and end-to-end medians, GB/s over the
    floor's bytes, TFLOP/s over its flops, the ratio to the floor (at the measured copy
    bandwidth and the datasheet peak) and to the fastest other implementation."""
    rows = []
    for w in workloads:
        found = results.get(w.id, {})
        f = floor(family, w, hardware, bandwidth)
        ok = {i: r["device_us"]["median"] for i, r in found.items() if r.get("status") == "ok"}
        for impl, r in found.items():
            row = {"workload": w.id, "kind": w.kind, "implementation": impl, "status": r.get("status"),
                   "floor_us": round(f.us, 4), "bound": f.bound, "bytes": f.bytes, "flops": f.flops}
            if impl in ok:
                us = ok[impl]
                peers = {p: t for p, t in ok.items() if p != impl}
                best = min(peers, key=peers.get) if peers else None
                row.update(device_us=r["device_us"], e2e_us=r.get("e2e_us"),
                           gbps=float(f"{f.bytes / (us * 1e3):.4g}"),
                           tflops=float(f"{f.flops / (us * 1e6):.4g}") if f.flops else None,
                           x_floor=round(us / f.us, 3), best_peer=best,
                           x_best_peer=round(us / peers[best], 3) if best else None, note=r.get("note"))
            else:
                row["error"] = (r.get("error") or "")[:300]
            rows.append(row)
    return rows


def render(family, hardware, bandwidth: float, rows: list[dict], note: str = "") -> Table:
    compute = family.arithmetic is not None
    table = Table(title=f"{family.id} on {hardware.id}: device µs, median (p20–p80); floor at the measured copy "
                        f"bandwidth {bandwidth} GB/s"
                        + (f" and the datasheet {family.arithmetic.peak} peak" if compute else "")
                        + (f"; tensors: {note}" if note else ""))
    for name, justify in (("workload", "left"), ("implementation", "left"), ("device µs", "right"),
                          ("e2e µs", "right"), ("TFLOP/s" if compute else "GB/s", "right"),
                          ("× floor", "right"), ("× best peer", "right")):
        table.add_column(name, justify=justify)
    for row in rows:
        if "device_us" not in row:
            table.add_row(row["workload"], row["implementation"], row["status"], "", "", "", "")
            continue
        d = row["device_us"]
        e2e = row.get("e2e_us") or {}
        rate = row["tflops"] if compute else row["gbps"]
        peer = f"{row['x_best_peer']:.3f} ({row['best_peer']})" if row.get("best_peer") else "—"
        table.add_row(row["workload"], row["implementation"], f"{d['median']:g} ({d['p20']:g}–{d['p80']:g})",
                      f"{e2e['median']:g}" if e2e else "", f"{rate:g}" if rate is not None else "",
                      f"{row['x_floor']:.3f}", peer)
    return table


if __name__ == "__main__":  # the shape subprocess of family_shapes (imports the family package)
    if len(sys.argv) == 3 and sys.argv[1] == "--shapes":
        try:
            print(json.dumps(_shapes_main(json.loads(sys.argv[2]))))
        except UserError as exc:
            print(json.dumps({"error": str(exc)}))
        sys.exit(0)
    sys.exit("usage: python -m site_builder.runner.bench --shapes JSON (used by kernel-records bench)")
