"""The runner: measure every registered implementation of every family under one protocol,
over every GPU of this host, and write one new run record per family and GPU.

This process never imports torch: a probe worker per GPU reports the registry, the environment
and the copy bandwidth, then the jobs (family × implementation, or chunks of its workloads) run
one worker per GPU at a time (schedule.py), each verifying and timing its workloads with a time
limit (jobs.py, worker.py, spawn.py); last, each family's interleaved end-to-end pass. Each
GPU's workers run on CPUs of their own (devices.py). `--ray` runs the same jobs on a cluster
(cluster.py).
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..errors import UserError
from ..records.load import load_catalog
from ..records.schema import Family
from . import record as rec
from .devices import (SYSFS, Gpu, Slot, choose_gpus, host_name, host_slug, list_gpus, parse_gpu_list, plan_slots,
                      visible)
from .families import KERNELS_ROOT, family_dir, has_kernels
from .family import Case
from .jobs import Clock, apply_e2e, e2e_job
from .jobs import execute as execute_job
from .jobs import probe as probe_job
from .protocol import COPY_BYTES, SEED, protocol_for, settings_for
from .schedule import join_all, plan_jobs, run_jobs
from .summary import summary_table

@dataclass
class Plan:
    family: Family
    implementations: list[str]
    workloads: list[dict]
    problems: list[str] = field(default_factory=list)
    #: --missing: by hardware id, each (implementation, workload id) pair's standing in the
    #: committed records (missing.Standing); a settled pair is not run on that hardware
    standing: dict[str, dict[tuple[str, str], object]] = field(default_factory=dict)

    def todo(self, hardware: str, impl_id: str) -> list[dict]:
        """The workloads `impl_id` runs on `hardware`: the plan's, less the settled ones."""
        known = self.standing.get(hardware, {})
        return [w for w in self.workloads
                if not getattr(known.get((impl_id, w["id"])), "settled", False)]


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


def _base(family_ids: list[str], device: str, kernels_root: Path) -> dict:
    return {"kernels_root": str(kernels_root), "device": device, "family": family_ids[0], "families": family_ids}


def check_timing_cpu(timing_cpu: int | None, n_slots: int) -> None:
    if timing_cpu is None:
        return
    if n_slots > 1:
        raise UserError(f"--timing-cpu {timing_cpu} pins every timing loop to one CPU, which {n_slots} GPUs "
                        "would share: leave it out (each GPU then times on CPUs of its own), or add --gpus N")
    if hasattr(os, "sched_getaffinity") and timing_cpu not in os.sched_getaffinity(0):
        allowed = ", ".join(str(c) for c in sorted(os.sched_getaffinity(0)))
        raise UserError(f"--timing-cpu {timing_cpu}: this process may run only on CPUs {allowed}; "
                        "pick one of those, or leave the option out to let the runner choose")


def probe_slots(slots: list[Slot], job: dict, timeout: float, console: Console) -> dict[str, dict]:
    """Every slot's probe at once (one thread each); a slot whose probe fails is left out, with
    a message. Raises when none answered."""
    answers: dict[str, dict] = {}
    errors: dict[str, str] = {}

    def one(slot: Slot) -> None:
        try:
            answers[slot.key] = probe_job(job, slot, timeout)
        except UserError as exc:
            errors[slot.key] = str(exc)

    threads = [threading.Thread(target=one, args=(s,), daemon=True) for s in slots]
    for t in threads:
        t.start()
    join_all(threads)
    if not answers:
        raise UserError("\n".join(errors[s.key] for s in slots))
    for s in slots:
        if s.key in errors:
            console.print(f"{s.label()} left out of this refresh: {errors[s.key]}", highlight=False, soft_wrap=True)
    return answers


def plan_families(catalog, families: list[Family], registry_of: dict[str, list[dict]], implementations,
                  workloads) -> dict[str, Plan]:
    plans = {f.id: _select(catalog, f, registry_of[f.id], implementations, workloads) for f in families}
    problems = [p for plan in plans.values() for p in plan.problems]
    if problems:
        raise UserError("\n".join(problems))
    return plans


def measure_units(plans: dict[str, Plan], registries: dict[str, dict], hardware_ids: list[str],
                  job_of_hardware: dict[str, dict]) -> list[dict]:
    """One unit per family × implementation × hardware that can run here (not the missing ones)."""
    units = []
    for hw in hardware_ids:
        for fid, plan in plans.items():
            for impl_id in plan.implementations:
                todo = plan.todo(hw, impl_id)
                if todo and not registries[fid][impl_id]["missing"]:
                    units.append({**job_of_hardware[hw], "kind": "measure", "family": fid, "hardware": hw,
                                  "implementation": impl_id, "workloads": todo})
    return units


def not_installed(catalog, plan: Plan, registry: dict, hardware: str) -> dict[str, dict]:
    """The `not-installed` results of the plan's implementations whose module is missing here."""
    return {impl_id: {w["id"]: {"status": "not-installed", "error": _not_installed(catalog, impl_id, registry[impl_id])}
                      for w in plan.todo(hardware, impl_id)}
            for impl_id in plan.implementations if registry[impl_id]["missing"] and plan.todo(hardware, impl_id)}


class Collected:
    """What a refresh found: results by (family, slot key) -> implementation -> workload id,
    and the same result dicts by (family, hardware, host) for the interleaved pass."""

    def __init__(self):
        self.by_slot: dict[tuple[str, str], dict[str, dict]] = {}
        self.by_host: dict[tuple[str, str, str], dict[str, dict]] = {}
        self.lock = threading.Lock()

    def add(self, family: str, hardware: str, host: str, slot_key: str, impl: str, results: dict) -> None:
        with self.lock:
            self.by_slot.setdefault((family, slot_key), {}).setdefault(impl, {}).update(results)
            self.by_host.setdefault((family, hardware, host), {}).setdefault(impl, {}).update(results)


def job_failed(job: dict, error: str) -> dict:
    """Results for every workload of a job whose bookkeeping failed (not the implementation)."""
    return {w["id"]: {"status": "failed", "error": f"the runner failed on this job: {error[-1200:]}"}
            for w in job["workloads"]}


def record_data(family: Family, hardware: str, plan: Plan, registry: dict, found: dict, environment: dict,
                device: str, seed: int, notes: str, moment) -> dict:
    """A run record's data from the results one slot found (in the plan's order)."""
    results = [_result(impl_id, w["id"], registry[impl_id]["kernel_sha"], found[impl_id][w["id"]])
               for impl_id in plan.implementations if impl_id in found
               for w in plan.workloads if w["id"] in found[impl_id]]
    return {"schema_version": 1, "family": family.id, "hardware": hardware, "trust": "measured",
            "observed": moment.strftime("%Y-%m-%dT%H:%M:%SZ"), "protocol": protocol_for(device),
            "environment": environment, "seed": seed, "notes": notes, "results": results}


def _notes(tool: str, elapsed: float, slot: Slot, n_slots: int, timeout: float, seed: int) -> str:
    where = ""
    if slot.gpu is not None:
        where = (f" on GPU {slot.gpu.index} of {n_slots} in use on {slot.host} (its workers on "
                 f"{slot.cpu_text()})" if n_slots > 1 else f" on GPU {slot.gpu.index} of {slot.host}")
    return (f"Measured by `{tool}` in {elapsed:.0f} s{where}; time limit per workload {timeout:.0f} s; "
            f"inputs of workload W, set i, drawn from seed {seed} + i (see kernels/*/inputs.py)."
            + overrides_note())


def overrides_note(environ=None) -> str:
    """The `KR_*` variables set in the environment the workers inherit, as a sentence for the
    run's notes ("" when none): kernels read such knobs (a forced launch, a sweep candidate), and a
    result measured under one must say so, since its kernel_sha names the source, not the knob."""
    env = os.environ if environ is None else environ
    knobs = sorted((k, v) for k, v in env.items() if k.startswith("KR_"))
    if not knobs:
        return ""
    return " Set in the workers' environment: " + "; ".join(f"{k}={v}" for k, v in knobs) + "."


def refresh(catalog, families: list[Family], slots: list[Slot], *, implementations=(), workloads=(),
            timeout: float = 600.0, device: str | None = None, seed: int = SEED, budget_s: float | None = None,
            kernels_root: Path = KERNELS_ROOT, console: Console | None = None, timing_cpu: int | None = None,
            tool: str = "kernel-records run", missing: bool = False,
            retry_failed: bool = False) -> list[tuple[Family, Slot, dict, object]]:
    """Everything a run does but write, over the slots of this host: probe every slot, plan
    the jobs (family × implementation, or chunks of its workloads), run them one worker per slot
    at a time (schedule.py), then each family's interleaved end-to-end pass on one slot. Returns
    (family, slot, the run record's data, its moment) per family and slot that measured it.
    `missing`: leave out the pairs with a current result in `catalog` (missing.py); when none
    is left, say so and return nothing."""
    console = console or Console(stderr=True)
    if not console.is_terminal:
        console.width = max(console.width, 180)  # logs keep every column of the summary table
    started = time.monotonic()
    device = device or ("cuda" if cuda_available() else "cpu")
    check_timing_cpu(timing_cpu, len(slots))
    if timing_cpu is not None:  # the CPU given is the one the loops run on, wherever the GPU sits
        slots = [dataclasses.replace(s, cpus=frozenset(), numa_node=None) for s in slots]
    ids = [f.id for f in families]
    base = _base(ids, device, kernels_root)
    info = probe_slots(slots, {**base, "kind": "probe", "copy_bytes": COPY_BYTES[device],
                               "timing_cpu": timing_cpu}, timeout, console)
    slots = [s for s in slots if s.key in info]
    hardware = {s.key: _match_hardware(catalog, info[s.key]["device_name"]) for s in slots}
    first = info[slots[0].key]
    registries = {fid: {r["id"]: r for r in first["families"][fid]["registry"]} for fid in ids}
    plans = plan_families(catalog, families, {fid: first["families"][fid]["registry"] for fid in ids},
                          implementations, workloads)
    settings = settings_for(device)  # the timing core's (measure.py)
    hw_ids = list(dict.fromkeys(hardware[s.key] for s in slots))
    job_of_hw = {}
    for hw in hw_ids:
        probe_info = next(info[s.key] for s in slots if hardware[s.key] == hw)
        l2 = probe_info["l2_bytes"] or int((catalog.hardware[hw].l2_mb or 50) * 1e6)
        job_of_hw[hw] = {"kernels_root": str(kernels_root), "device": device, "seed": seed, "protocol": settings,
                         "l2_bytes": l2, "timing_cpu": probe_info["environment"].get("timing_cpu")}
    if missing:
        from .missing import leave_out_current, missing_tool

        if not leave_out_current(plans, catalog, hw_ids, device, registries, retry_failed, console):
            return []
        tool = missing_tool(tool, retry_failed)
    jobs = plan_jobs(measure_units(plans, registries, hw_ids, job_of_hw), len(slots))
    collected = Collected()
    left = {}  # (family, hardware) -> measure jobs not done yet
    for job in jobs:
        left[(job["family"], job["hardware"])] = left.get((job["family"], job["hardware"]), 0) + 1
    clock = Clock(budget_s)
    family_by_id = {f.id: f for f in families}
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task("refresh" if len(ids) > 1 else ids[0],
                                 total=sum(len(j["workloads"]) for j in jobs))
        many = len(slots) > 1

        def on_event_for(job: dict, slot: Slot):
            who = f"{slot.label()} · " if many else ""

            def on_event(impl, wid, result):
                if job["kind"] == "e2e":
                    return
                if result is None:
                    progress.update(task, description=f"{who}{impl} · {wid}")
                    return
                progress.advance(task)
                if not progress.console.is_terminal:  # a log instead of a live bar
                    time_us = (result.get("device_us") or {}).get("median")
                    progress.console.print(f"{who}{impl} · {wid}: {result.get('status')}"
                                           + (f" {time_us} µs" if time_us else f" ({(result.get('error') or '')[:160]})"),
                                           highlight=False, soft_wrap=True)
            return on_event

        unstarted = [sum(1 for j in jobs if j["kind"] != "e2e")]

        def execute(job: dict, slot: Slot) -> dict:
            if job["kind"] == "e2e":  # the pass after a family's measure jobs: what is left
                return execute_job(job, slot, timeout, clock, on_event_for(job, slot))
            with collected.lock:
                share = clock.share(len(slots), unstarted[0])
                unstarted[0] -= 1
            return execute_job(job, slot, timeout, share, on_event_for(job, slot))

        def on_done(job: dict, slot: Slot, outcome: dict) -> list[dict]:
            fid, hw = job["family"], job["hardware"]
            if job["kind"] == "e2e":
                where = f" on GPU {slot.gpu.index}" if many and slot.gpu is not None else ""
                found = collected.by_host[(fid, hw, slot.host)]
                for wid, result in (outcome.get("results") or {}).items():
                    apply_e2e(found, wid, result, where)
                for message in outcome.get("messages", []) + ([outcome["error"]] if "error" in outcome else []):
                    progress.console.print(message, highlight=False, soft_wrap=True)
                return []
            results = outcome.get("results") if "error" not in outcome else job_failed(job, outcome["error"])
            collected.add(fid, hw, slot.host, slot.key, job["implementation"], results)
            with collected.lock:
                left[(fid, hw)] -= 1
                last = left[(fid, hw)] == 0
            if not last:
                return []
            more = e2e_job(job_of_hw[hw], fid, hw, plans[fid].workloads, collected.by_host[(fid, hw, slot.host)],
                           f"{fid}/e2e/{hw}")
            return [dict(more, host=slot.host)] if more else []

        run_jobs(slots, jobs, execute, on_done, lambda s: hardware[s.key])
    elapsed = time.monotonic() - started
    moment = rec.utc_now()
    out = []
    for f in families:
        plan, registry = plans[f.id], registries[f.id]
        placed: set[str] = set()
        for slot in slots:
            found = dict(collected.by_slot.get((f.id, slot.key), {}))
            absent = not_installed(catalog, plan, registry, hardware[slot.key])
            if hardware[slot.key] not in placed and absent:  # not-installed: on the first slot of each hardware
                found.update(absent)
                placed.add(hardware[slot.key])
            if not found:
                continue
            env = {**info[slot.key]["environment"], "packages": info[slot.key]["families"][f.id]["packages"],
                   **slot.identity()}
            env = {k: v for k, v in env.items() if v is not None}
            data = record_data(f, hardware[slot.key], plan, registry, found, env, device, seed,
                               _notes(tool, elapsed, slot, len(slots), timeout, seed), moment)
            out.append((family_by_id[f.id], slot, data, moment))
    return out


def measure_family(catalog, family: Family, *, implementations=(), workloads=(), timeout: float = 600.0,
                   device: str | None = None, seed: int = SEED, budget_s: float | None = None,
                   kernels_root: Path = KERNELS_ROOT, console: Console | None = None,
                   timing_cpu: int | None = None, tool: str = "kernel-records run"):
    """Everything a run does but write, for one family on the default device: probe, one worker
    per implementation (a fresh one after a crash), then the interleaved end-to-end pass.
    Returns (the run record's data, its moment, seconds taken). `kernel-records bench` prints
    what this returns."""
    started = time.monotonic()
    [(_, _, data, moment)] = refresh(catalog, [family], [Slot(host=host_name(), key="default")],
                                     implementations=implementations, workloads=workloads, timeout=timeout,
                                     device=device, seed=seed, budget_s=budget_s, kernels_root=kernels_root,
                                     console=console, timing_cpu=timing_cpu, tool=tool)
    return data, moment, time.monotonic() - started


def write_records(catalog, records: Path, measured, console: Console) -> list[Path]:
    """Validate and write each record (runs/<family>/<hardware>/<time>-<host>[-gpuK]-<hex>.yaml),
    print its summary."""
    paths = []
    for family, slot, data, moment in measured:
        tag = host_slug(slot.host) + (f"-gpu{slot.gpu.index}" if slot.gpu is not None else "")
        path = rec.write_validated(Path(records) / "runs" / family.id / data["hardware"], data, moment, tag=tag)
        console.print(summary_table(family, data, catalog.hardware[data["hardware"]]))
        console.print(f"Wrote {path} ({len(data['results'])} results{', ' + slot.label() if slot.gpu else ''}).")
        paths.append(path)
    return paths


def _not_installed(catalog, impl_id: str, meta: dict) -> str:
    install = catalog.implementations[impl_id].install
    return f"module {meta['missing']!r} is not importable here" + (f"; install with `{install}`" if install else "")


def _result(impl_id: str, workload_id: str, sha: str, found: dict) -> dict:
    out = {"implementation": impl_id, "workload": workload_id, "status": found.get("status", "failed"),
           "kernel_sha": sha}
    for key in ("error", "note", "correctness", "device_us", "e2e_us", "runner_s"):
        if found.get(key) is not None:
            out[key] = found[key]
    if out["status"] != "ok" and not out.get("error"):
        out["error"] = "no error text was reported"
    return out


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


def host_slots(device: str, gpus: list[int] | None = None, devices: list[Gpu] | None = None,
               sysfs: Path = SYSFS) -> list[Slot]:
    """The slots of a refresh on this host: one per GPU (every visible one, those of `gpus`,
    or the given `devices`, e.g. a fake list in tests), each with CPUs of its own; one slot for
    the default device in CPU mode or where nvidia-smi lists no GPU."""
    if devices is not None:
        return plan_slots(list(devices), sysfs=sysfs)
    if device != "cuda":
        if gpus:
            raise UserError("--gpus picks GPUs for a GPU run: leave it out with --device cpu")
        return plan_slots(None)
    found = list_gpus()
    if found is not None:
        found = visible(found, os.environ.get("CUDA_VISIBLE_DEVICES")) or None
    return plan_slots(choose_gpus(gpus, found), sysfs=sysfs)


def run_family(catalog, records: Path, family: Family, **options) -> list[Path]:
    """Measure one family over this host's slots and write its run records (one per slot)."""
    console = options.get("console") or Console(stderr=True)
    return write_records(catalog, records, refresh(catalog, [family], **{**options, "console": console}), console)


def run_here(records: Path = Path("records"), *, family: str | Sequence[str] | None = None, implementations=(),
            workloads=(), timeout: float = 600.0, device: str | None = None, budget_s: float | None = None,
            kernels_root: Path = KERNELS_ROOT, console: Console | None = None,
            timing_cpu: int | None = None, gpus: str | list[int] | None = None,
            devices: list[Gpu] | None = None, missing: bool = False, retry_failed: bool = False) -> list[Path]:
    """Run every family with kernels (or `family`: one id or several) over every visible GPU (or
    `gpus`, "0,1" or [0, 1]; `devices` replaces the GPU list, for tests), one worker per GPU at a time; write one
    new run record per family and GPU that measured it. Returns the paths. `missing` runs only
    the pairs without a current result in `records` (missing.py; failed ones too with
    `retry_failed`). (`run_all` in the package adds the Ray cluster mode, cluster.py.)"""
    if isinstance(gpus, str):
        gpus = parse_gpu_list(gpus)
    catalog = load_catalog(records)
    families = pick_families(catalog, family, kernels_root)
    console = console or Console(stderr=True)
    device = device or ("cuda" if cuda_available() else "cpu")
    slots = host_slots(device, gpus, devices)
    measured = refresh(catalog, [catalog.families[f] for f in families], slots, implementations=implementations,
                       workloads=workloads, timeout=timeout, device=device, budget_s=budget_s,
                       kernels_root=kernels_root, console=console, timing_cpu=timing_cpu, missing=missing,
                       retry_failed=retry_failed)
    return write_records(catalog, records, measured, console)


def pick_families(catalog, family: str | Sequence[str] | None, kernels_root: Path) -> list[str]:
    """The families a run covers: `family` (one id, or several, in the order given, each once),
    or, when it names none, every family with a kernel package under `kernels_root`."""
    wanted = [family] if isinstance(family, str) else list(dict.fromkeys(family or ()))
    for fid in wanted:
        if fid not in catalog.families:
            raise UserError(f"unknown family {fid!r} — use one of {', '.join(sorted(catalog.families))}")
        if not has_kernels(kernels_root, fid):
            raise UserError(f"family {fid!r} has no kernels here (no {family_dir(kernels_root, fid)}/__init__.py): "
                            "its records are reported only, so there is nothing to run")
    families = wanted or [f for f in sorted(catalog.families) if has_kernels(kernels_root, f)]
    if not families:
        raise UserError(f"no family has kernels under {kernels_root}")
    return families
