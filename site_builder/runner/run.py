"""The runner: measure every registered implementation of a family under one protocol and
write one new run record per family and hardware.

This process never imports torch: a probe worker reports the registry, the environment and
the copy bandwidth, then one worker per implementation verifies and times it workload by
workload, each with a time limit (see worker.py and spawn.py).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..errors import UserError
from ..load import load_catalog
from ..schema import Family
from . import record as rec
from .families import KERNELS_ROOT, family_dir, has_kernels
from .family import Case
from .protocol import COPY_BYTES, SEED, protocol_for, settings_for
from .spawn import Worker, WorkerTimeout
from .summary import summary_table

@dataclass
class Plan:
    family: Family
    implementations: list[str]
    workloads: list[dict]
    problems: list[str] = field(default_factory=list)


def _case(family: Family, w) -> dict:
    """The workload as the family and the worker see it: a family.Case, as JSON."""
    return Case.from_record(family, w).to_json()


def _select(catalog, family: Family, registered: list[dict], implementations, workloads) -> Plan:
    known = {r["id"] for r in registered}
    plan = Plan(family, [], [])
    wanted = list(implementations) or [r["id"] for r in registered]
    for impl_id in wanted:
        if impl_id not in known:
            plan.problems.append(
                f"implementation {impl_id!r} has no registered code for {family.id} — register a "
                f"factory with @register({impl_id!r}) in kernels/{family.id.replace('-', '_')}/")
        elif impl_id not in catalog.implementations:
            plan.problems.append(
                f"implementation {impl_id!r} is registered but has no record — add "
                f"records/implementations/{impl_id}.yaml")
        else:
            plan.implementations.append(impl_id)
    by_id = {w.id: w for w in family.workloads}
    for wid in workloads or list(by_id):
        if wid in by_id:
            plan.workloads.append(_case(family, by_id[wid]))
        elif workloads:
            plan.problems.append(f"unknown workload {wid!r} for {family.id} — use one of "
                                 f"{', '.join(by_id)}")
    return plan


def _match_hardware(catalog, device_name: str) -> str:
    for hw in catalog.hardware.values():
        if device_name in hw.device_names:
            return hw.id
    raise UserError(f"no hardware record lists the device {device_name!r} — add it to `device_names` "
                    "in the matching records/hardware/<id>.yaml (or add a record for it)")


class _Clock:
    def __init__(self, budget_s: float | None):
        self.deadline = None if budget_s is None else time.monotonic() + budget_s

    def left(self, limit: float) -> float:
        if self.deadline is None:
            return limit
        return max(0.0, min(limit, self.deadline - time.monotonic()))

    @property
    def spent(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline


def _measure(job: dict, workloads: list[dict], timeout: float, clock: _Clock, progress, task) -> dict:
    """Results by workload id for one implementation; a fresh worker after every crash."""
    results: dict[str, dict] = {}

    def settle(wid: str, result: dict) -> None:
        results[wid] = result
        progress.advance(task)
        if not progress.console.is_terminal:  # a log instead of a live bar
            time_us = (result.get("device_us") or {}).get("median")
            progress.console.print(f"{job['implementation']} · {wid}: {result.get('status')}"
                                   + (f" {time_us} µs" if time_us else f" ({(result.get('error') or '')[:160]})"),
                                   highlight=False, soft_wrap=True)

    remaining = list(workloads)
    while remaining:
        if clock.spent:
            for w in remaining:
                settle(w["id"], {"status": "timeout", "error": "not run: the run's time budget was spent"})
            break
        worker = Worker({**job, "workloads": remaining})
        current, produced = None, 0
        try:
            while True:
                event = worker.next_event(clock.left(timeout))
                if event is None:  # the worker exited
                    status = worker.exit_status()
                    if current is not None:
                        settle(current, {"status": "crashed", "error": _crash_text(status, worker)})
                    elif produced == 0:  # died before its first workload: nothing would run
                        for w in remaining:
                            settle(w["id"], {"status": "crashed", "error": _crash_text(status, worker)})
                    break
                if event["event"] == "start":
                    current = event["workload"]
                    progress.update(task, description=f"{job['implementation']} · {current}")
                elif event["event"] == "result":
                    settle(event["workload"], event["result"])
                    current, produced = None, produced + 1
        except WorkerTimeout:
            worker.kill()
            why = ("the run's time budget was spent" if clock.spent
                   else f"no result within the time limit of {timeout:.0f} s")
            if current is not None:
                settle(current, {"status": "timeout", "error": f"killed: {why}"})
            elif produced == 0:
                for w in remaining:
                    settle(w["id"], {"status": "timeout", "error": f"killed before its first workload: {why}"})
        finally:
            worker.close()
        remaining = [w for w in remaining if w["id"] not in results]
    return results


def _e2e_pass(job: dict, workloads: list[dict], found_by_impl: dict, timeout: float, clock: _Clock,
              progress) -> None:
    """Re-time end-to-end with each workload's implementations interleaved in one worker
    (worker.measure_e2e), for every workload with two or more ok results. A workload whose pass
    fails (crash, hang, the run's budget) keeps the figures each implementation's own worker took."""
    todo = {}
    for w in workloads:
        ok = [i for i, found in found_by_impl.items() if found.get(w["id"], {}).get("status") == "ok"]
        if len(ok) >= 2:
            todo[w["id"]] = ok
    remaining = [w for w in workloads if w["id"] in todo]
    if not remaining:
        return
    task = progress.add_task("end-to-end, interleaved", total=len(remaining))
    while remaining and not clock.spent:
        worker = Worker({**job, "kind": "e2e", "workloads": remaining,
                         "implementations_by_workload": {w["id"]: todo[w["id"]] for w in remaining}})
        done: set[str] = set()
        current = None
        try:
            while True:
                event = worker.next_event(clock.left(timeout))
                if event is None:
                    if current is not None:
                        progress.console.print(f"end-to-end pass on {current}: worker {worker.exit_status()}; "
                                               "its implementations keep their own end-to-end times",
                                               highlight=False)
                        done.add(current)
                    break
                if event["event"] == "start":
                    current = event["workload"]
                elif event["event"] == "result":
                    _apply_e2e(found_by_impl, event["workload"], event["result"])
                    for impl_id, error in event["result"].get("errors", {}).items():
                        progress.console.print(f"end-to-end pass, {impl_id} on {event['workload']}: {error[:300]}; "
                                               "it keeps its own end-to-end times", highlight=False, soft_wrap=True)
                    done.add(event["workload"])
                    current = None
                    progress.advance(task)
        except WorkerTimeout:
            worker.kill()
            if current is not None:
                done.add(current)
        finally:
            worker.close()
        if not done:  # died before its first workload: it would again
            break
        remaining = [w for w in remaining if w["id"] not in done]


def _apply_e2e(found_by_impl: dict, wid: str, result: dict) -> None:
    times = result["e2e_us"]
    if len(times) < 2:  # nothing to interleave with: keep the figures of the main pass
        return
    where = f" on CPU {result['cpu']}" if result.get("cpu") is not None else ""
    others = len(times) - 1
    note = f"end-to-end interleaved with {others} other implementation{'s' if others > 1 else ''}{where}"
    for impl_id, stat in times.items():
        found = found_by_impl[impl_id][wid]
        found["e2e_us"] = stat
        found["note"] = "; ".join(n for n in (found.get("note"), note) if n)[:1000]


def _crash_text(status: str, worker: Worker) -> str:
    tail = worker.log_tail()
    return f"worker process {status}" + (f"; its last output:\n{tail}" if tail else "")


def run_family(catalog, records: Path, family: Family, *, implementations=(), workloads=(),
               timeout: float = 600.0, device: str | None = None, seed: int = SEED,
               budget_s: float | None = None, kernels_root: Path = KERNELS_ROOT,
               console: Console | None = None, timing_cpu: int | None = None) -> Path:
    """Measure (measure_family) and write the run record, validated; print the summary."""
    console = console or Console(stderr=True)
    data, moment, elapsed = measure_family(
        catalog, family, implementations=implementations, workloads=workloads, timeout=timeout, device=device,
        seed=seed, budget_s=budget_s, kernels_root=kernels_root, console=console, timing_cpu=timing_cpu)
    hardware = data["hardware"]
    path = rec.write_validated(records / "runs" / family.id / hardware, data, moment)
    console.print(summary_table(family, data, catalog.hardware[hardware]))
    console.print(f"Wrote {path} ({len(data['results'])} results, {elapsed:.0f} s).")
    return path


def measure_family(catalog, family: Family, *, implementations=(), workloads=(), timeout: float = 600.0,
                   device: str | None = None, seed: int = SEED, budget_s: float | None = None,
                   kernels_root: Path = KERNELS_ROOT, console: Console | None = None,
                   timing_cpu: int | None = None, tool: str = "kernel-records run"):
    """Everything a run does but write: probe, then one worker per implementation (a fresh one
    after a crash), then the interleaved end-to-end pass. Returns (the run record's data, its
    moment, seconds taken). `kernel-records bench` prints what this returns."""
    console = console or Console(stderr=True)
    if not console.is_terminal:
        console.width = max(console.width, 180)  # logs keep every column of the summary table
    started = time.monotonic()
    device = device or ("cuda" if cuda_available() else "cpu")
    if timing_cpu is not None and hasattr(os, "sched_getaffinity") and timing_cpu not in os.sched_getaffinity(0):
        allowed = ", ".join(str(c) for c in sorted(os.sched_getaffinity(0)))
        raise UserError(f"--timing-cpu {timing_cpu}: this process may run only on CPUs {allowed}; "
                        "pick one of those, or leave the option out to let the runner choose")
    base = {"kernels_root": str(kernels_root), "family": family.id, "device": device}
    info = _probe({**base, "kind": "probe", "copy_bytes": COPY_BYTES[device],
                   "timing_cpu": timing_cpu}, timeout)
    hardware = _match_hardware(catalog, info["device_name"])
    plan = _select(catalog, family, info["registry"], implementations, workloads)
    if plan.problems:
        raise UserError("\n".join(plan.problems))
    registry = {r["id"]: r for r in info["registry"]}
    settings = settings_for(device)  # the timing core's (measure.py)
    l2 = info["l2_bytes"] or int((catalog.hardware[hardware].l2_mb or 50) * 1e6)
    job = {**base, "kind": "measure", "seed": seed, "protocol": settings, "l2_bytes": l2,
           "timing_cpu": info["environment"].get("timing_cpu")}
    clock = _Clock(budget_s)
    results: list[dict] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(family.id, total=len(plan.implementations) * len(plan.workloads))
        found_by_impl: dict[str, dict] = {}
        for impl_id in plan.implementations:
            meta = registry[impl_id]
            if meta["missing"]:
                found = {w["id"]: {"status": "not-installed", "error": _not_installed(catalog, impl_id, meta)}
                         for w in plan.workloads}
                progress.advance(task, len(plan.workloads))
            else:
                found = _measure({**job, "implementation": impl_id}, plan.workloads, timeout, clock,
                                 progress, task)
            found_by_impl[impl_id] = found
        _e2e_pass(job, plan.workloads, found_by_impl, timeout, clock, progress)
    for impl_id in plan.implementations:
        for w in plan.workloads:
            results.append(_result(impl_id, w["id"], registry[impl_id]["kernel_sha"], found_by_impl[impl_id][w["id"]]))
    elapsed = time.monotonic() - started
    moment = rec.utc_now()
    data = {
        "schema_version": 1, "family": family.id, "hardware": hardware, "trust": "measured",
        "observed": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "protocol": protocol_for(device),
        "environment": info["environment"], "seed": seed,
        "notes": (f"Measured by `{tool}` in {elapsed:.0f} s; time limit per workload "
                  f"{timeout:.0f} s; inputs of workload W, set i, drawn from seed {seed} + i "
                  "(see kernels/*/inputs.py)."),
        "results": results,
    }
    return data, moment, elapsed


def _not_installed(catalog, impl_id: str, meta: dict) -> str:
    install = catalog.implementations[impl_id].install
    return f"module {meta['missing']!r} is not importable here" + (f"; install with `{install}`" if install else "")


def _result(impl_id: str, workload_id: str, sha: str, found: dict) -> dict:
    out = {"implementation": impl_id, "workload": workload_id, "status": found.get("status", "failed"),
           "kernel_sha": sha}
    for key in ("error", "note", "correctness", "device_us", "e2e_us"):
        if found.get(key) is not None:
            out[key] = found[key]
    if out["status"] != "ok" and not out.get("error"):
        out["error"] = "no error text was reported"
    return out


def _probe(job: dict, timeout: float) -> dict:
    worker = Worker(job)
    try:
        event = worker.next_event(timeout)
        if event is None or event.get("event") != "probe":
            raise UserError(f"the probe worker failed ({worker.exit_status()}):\n{worker.log_tail()}")
        return event
    except WorkerTimeout:
        raise UserError(f"the probe worker gave no answer within {timeout:.0f} s") from None
    finally:
        worker.close()


def cuda_available(timeout: float = 120.0) -> bool:
    """Whether torch sees a CUDA GPU, asked in a subprocess (False without torch)."""
    import subprocess
    import sys

    try:
        out = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.is_available())"],
                             capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and out.stdout.strip().endswith("True")


def run_all(records: Path = Path("records"), *, family: str | None = None, implementations=(),
            workloads=(), timeout: float = 600.0, device: str | None = None, budget_s: float | None = None,
            kernels_root: Path = KERNELS_ROOT, console: Console | None = None,
            timing_cpu: int | None = None) -> list[Path]:
    """Run every family with kernels (or `family`), each into one new run record. Returns paths."""
    catalog = load_catalog(records)
    if family is not None and family not in catalog.families:
        raise UserError(f"unknown family {family!r} — use one of {', '.join(sorted(catalog.families))}")
    if family is not None and not has_kernels(kernels_root, family):
        raise UserError(f"family {family!r} has no kernels here (no {family_dir(kernels_root, family)}/__init__.py): "
                        "its records are reported only, so there is nothing to run")
    families = [family] if family else [f for f in sorted(catalog.families) if has_kernels(kernels_root, f)]
    if not families:
        raise UserError(f"no family has kernels under {kernels_root}")
    return [run_family(catalog, Path(records), catalog.families[f], implementations=implementations,
                       workloads=workloads, timeout=timeout, device=device, budget_s=budget_s,
                       kernels_root=kernels_root, console=console, timing_cpu=timing_cpu) for f in families]
