"""`kernel-records run --ray ADDRESS`: the refresh's jobs as Ray tasks that each require one GPU,
on whatever nodes the cluster has; the results come back to this process (the driver), which
validates and writes the run records, one per family × GPU model × host × GPU, so a fleet's
refresh ends in one set of new files for one pull request.

Each task runs on its node exactly what the per-host scheduler runs on a slot (jobs.py): the
slot's probe (cached in the task's process), then the job's workers, pinned to the CPUs the
node deals that GPU (devices.py), with the same time limits; a worker's crash or hang is
recorded in the job's results, a task that dies (its node lost) in its workloads' results.
After a family's measure jobs on a host, its interleaved end-to-end pass runs on that host.

Every node needs the same checkout (the same commit, at the same path) and the same Python
environment with `kernel-records[ray]` installed; README.md says how to start a cluster.
Ray is optional: without it, --ray says how to install it. No torch here.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

from rich.console import Console

from ..errors import UserError
from ..records.load import load_catalog
from .devices import Gpu, Slot, host_name, list_gpus, plan_slots, visible
from .families import KERNELS_ROOT
from .jobs import Clock, apply_e2e, e2e_job, execute, probe
from .protocol import COPY_BYTES, SEED, settings_for
from .run import (Collected, _match_hardware, job_failed, measure_units, not_installed, overrides_note,
                  pick_families, plan_families, record_data, write_records)
from .schedule import plan_jobs

#: the Ray release the optional extra pins (pyproject.toml: kernel-records[ray])
RAY_VERSION = "2.60.0"
INSTALL = "pip install 'kernel-records[ray]'"


def import_ray():
    try:
        import ray
    except ImportError:
        raise UserError(f"--ray needs Ray, which is not installed here: install it with `{INSTALL}` "
                        f"(Ray {RAY_VERSION}), on this machine and on every node of the cluster") from None
    return ray


# --- on a node -------------------------------------------------------------------------------

_PROBES: dict[tuple, dict] = {}  # a task process's probes, by GPU and job


def node_slot(gpu_ids: list, node_gpus: int, node_id: str) -> Slot:
    """The slot of the GPU Ray gave this task: its identity from nvidia-smi where there is one
    (else a GPU known only by its index, e.g. a cluster's fake GPUs), CPUs dealt as on a host."""
    index = int(float(gpu_ids[0])) if gpu_ids else 0
    listed = list_gpus()
    gpus = visible(listed, None) if listed else [Gpu(i) for i in range(max(node_gpus, index + 1))]
    host = host_name()
    for slot in plan_slots(gpus, host=host):
        if slot.index == index:
            return Slot(slot.gpu, slot.cpus, slot.numa_node, slot.shared, host, f"{host}/{node_id[:8]}/gpu{index}")
    return Slot(Gpu(index), host=host, key=f"{host}/{node_id[:8]}/gpu{index}")


def _slot_json(slot: Slot) -> dict:
    g = slot.gpu
    return {"index": g.index, "name": g.name, "serial": g.serial, "uuid": g.uuid, "bus_id": g.bus_id,
            "cpus": sorted(slot.cpus), "numa_node": slot.numa_node, "shared": slot.shared, "host": slot.host,
            "key": slot.key}


def slot_from_json(d: dict) -> Slot:
    return Slot(Gpu(d["index"], d["name"], d["serial"], d["uuid"], d["bus_id"]), frozenset(d["cpus"]),
                d["numa_node"], d["shared"], d["host"], d["key"])


def task_body(job: dict, probe_job: dict, timeout: float, deadline: float | None, node_gpus: int) -> dict:
    """What one Ray task does on its node: probe its GPU (once per process), run the job."""
    import ray

    context = ray.get_runtime_context()
    node_id = context.get_node_id()
    slot = node_slot(ray.get_gpu_ids(), node_gpus, node_id)
    key = (slot.index, probe_job["device"], probe_job["kernels_root"], tuple(probe_job["families"]))
    if key not in _PROBES:
        _PROBES[key] = probe(probe_job, slot, timeout)
    info = _PROBES[key]
    outcome = execute(job, slot, timeout, Clock(deadline=deadline)) if job else None
    return {"node_id": node_id, "slot": _slot_json(slot), "probe": info, "outcome": outcome}


# --- the driver ------------------------------------------------------------------------------


def _gpu_nodes(ray) -> list[dict]:
    return [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("GPU", 0) >= 1]


def _failure(exc: BaseException) -> str:
    return f"the Ray task failed ({type(exc).__name__}): {str(exc).strip()[-1200:]}"


def run_cluster(address: str | None, records: Path = Path("records"), *, family: str | Sequence[str] | None = None,
                implementations=(), workloads=(), timeout: float = 600.0, device: str | None = None,
                budget_s: float | None = None, seed: int = SEED, kernels_root: Path = KERNELS_ROOT,
                console: Console | None = None, init: dict | None = None,
                tool: str = "kernel-records run --ray", missing: bool = False,
                retry_failed: bool = False) -> list[Path]:
    """Connect to the cluster at `address` (unless Ray is initialised already, as in tests), run
    every job there, write the records here. Returns their paths."""
    ray = import_ray()
    console = console or Console(stderr=True)
    if not console.is_terminal:
        console.width = max(console.width, 180)
    catalog = load_catalog(records)
    families = [catalog.families[f] for f in pick_families(catalog, family, kernels_root)]
    connected_here = False
    if not ray.is_initialized():
        try:
            ray.init(address=address, log_to_driver=False, **(init or {}))
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise UserError(f"--ray {address}: could not connect to a Ray cluster ({exc}); start one with "
                            "`ray start --head` (README.md, 'A cluster of hosts')") from None
        connected_here = True
    try:
        measured = drive(ray, catalog, families, implementations=implementations, workloads=workloads,
                         timeout=timeout, device=device or "cuda", budget_s=budget_s, seed=seed,
                         kernels_root=kernels_root, console=console, tool=tool, missing=missing,
                         retry_failed=retry_failed)
    finally:
        if connected_here:
            ray.shutdown()
    return write_records(catalog, records, measured, console)


def drive(ray, catalog, families, *, implementations, workloads, timeout, device, budget_s, seed, kernels_root,
          console, tool, missing=False, retry_failed=False):
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    started = time.monotonic()
    nodes = _gpu_nodes(ray)
    if not nodes:
        raise UserError("the Ray cluster has no live node with a GPU — start each GPU host with "
                        "`ray start --address HEAD:6379` (it counts its GPUs; --num-gpus N to say)")
    ids = [f.id for f in families]
    probe_job = {"kernels_root": str(kernels_root), "device": device, "family": ids[0], "families": ids,
                 "kind": "probe", "copy_bytes": COPY_BYTES[device], "timing_cpu": None}
    clock = Clock(budget_s)
    remote = ray.remote(task_body)

    def submit(job, node, *, pin: bool):
        options = {"num_gpus": 1, "num_cpus": 0, "max_retries": 0 if pin else 1}
        if pin:
            options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
        gpus = int(node["Resources"]["GPU"]) if pin else max(int(n["Resources"]["GPU"]) for n in nodes)
        return remote.options(**options).remote(job, probe_job, timeout, clock.deadline, gpus)

    # one probe per node: its hardware, and the registries the plan needs
    probes = {}
    for ref, node in [(submit(None, n, pin=True), n) for n in nodes]:
        try:
            probes[node["NodeID"]] = ray.get(ref)
        except Exception as exc:  # noqa: BLE001 - that node is left out, with the reason
            console.print(f"node {node.get('NodeManagerAddress')} left out of this refresh: {exc}", highlight=False)
    if not probes:
        raise UserError("no node of the Ray cluster answered its probe (see above)")
    nodes = [n for n in nodes if n["NodeID"] in probes]
    node_of = {n["NodeID"]: n for n in nodes}
    hardware_of_node = {nid: _match_hardware(catalog, p["probe"]["device_name"]) for nid, p in probes.items()}
    hw_ids = list(dict.fromkeys(hardware_of_node.values()))
    if len(hw_ids) > 1:
        raise UserError(f"the Ray cluster mixes GPU models ({', '.join(hw_ids)}): run one refresh per model, "
                        "with a cluster of that model's hosts")
    first = next(iter(probes.values()))["probe"]
    registries = {fid: {r["id"]: r for r in first["families"][fid]["registry"]} for fid in ids}
    plans = plan_families(catalog, families, {fid: first["families"][fid]["registry"] for fid in ids},
                          implementations, workloads)
    hw = hw_ids[0]
    if missing:  # leave out the pairs with a current result (missing.py)
        from .missing import leave_out_current, missing_tool

        if not leave_out_current(plans, catalog, [hw], device, registries, retry_failed, console):
            return []
        tool = missing_tool(tool, retry_failed)
    l2 = first["l2_bytes"] or int((catalog.hardware[hw].l2_mb or 50) * 1e6)
    base = {"kernels_root": str(kernels_root), "device": device, "seed": seed, "protocol": settings_for(device),
            "l2_bytes": l2, "timing_cpu": None}
    n_gpus = sum(int(n["Resources"]["GPU"]) for n in nodes)
    jobs = plan_jobs(measure_units(plans, registries, [hw], {hw: base}), n_gpus)
    console.print(f"{len(jobs)} jobs on {n_gpus} GPUs of {len(nodes)} hosts ({hw}).", highlight=False)

    collected = Collected()
    slots: dict[str, Slot] = {}
    infos: dict[str, dict] = {}
    pending: dict = {submit(j, nodes[0], pin=False): j for j in jobs}
    left = {fid: sum(1 for j in jobs if j["family"] == fid) for fid in ids}
    hosts_of_family: dict[str, set[str]] = {fid: set() for fid in ids}
    lost: dict[str, dict] = {}  # results of tasks that died, by family and implementation
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1, timeout=10)
        for ref in done:
            job = pending.pop(ref)
            fid = job["family"]
            try:
                answer = ray.get(ref)
            except Exception as exc:  # noqa: BLE001 - a lost task loses its job alone
                if job["kind"] == "e2e":
                    console.print(f"{fid}: end-to-end pass lost ({_failure(exc)}); implementations keep their "
                                  "own end-to-end times", highlight=False, soft_wrap=True)
                else:
                    console.print(f"{job['implementation']} ({fid}): {_failure(exc)}", highlight=False, soft_wrap=True)
                    lost.setdefault(fid, {}).setdefault(job["implementation"], {}).update(
                        {w["id"]: {"status": "crashed", "error": _failure(exc)} for w in job["workloads"]})
                    left[fid] -= 1
            else:
                slot = slot_from_json(answer["slot"])
                slots[slot.key], infos[slot.key] = slot, answer["probe"]
                outcome = answer["outcome"] or {}
                node_id = answer["node_id"]
                if job["kind"] == "e2e":
                    for wid, result in outcome.get("results", {}).items():
                        apply_e2e(collected.by_host[(fid, hw, node_id)], wid, result,
                                  f" on GPU {slot.gpu.index} of {slot.host}")
                    for message in outcome.get("messages", []):
                        console.print(message, highlight=False, soft_wrap=True)
                else:
                    results = outcome.get("results") if "error" not in outcome else job_failed(job, outcome["error"])
                    collected.add(fid, hw, node_id, slot.key, job["implementation"], results)
                    hosts_of_family[fid].add(node_id)
                    counts = {}
                    for r in results.values():
                        counts[r.get("status")] = counts.get(r.get("status"), 0) + 1
                    console.print(f"{slot.host} GPU {slot.gpu.index}: {fid} · {job['implementation']}: "
                                  + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())), highlight=False)
                    left[fid] -= 1
            if job["kind"] != "e2e" and left[fid] == 0:  # the family's interleaved pass, per host
                for node_id in sorted(hosts_of_family[fid]):
                    more = e2e_job(base, fid, hw, plans[fid].workloads, collected.by_host[(fid, hw, node_id)],
                                   f"{fid}/e2e/{node_id[:8]}")
                    if more and node_id in node_of:
                        pending[submit(more, node_of[node_id], pin=True)] = more
    elapsed = time.monotonic() - started
    from . import record as rec

    moment = rec.utc_now()
    out = []
    for f in families:
        plan, registry = plans[f.id], registries[f.id]
        absent = not_installed(catalog, plan, registry, hw)
        absent.update(lost.get(f.id, {}))  # placed in the family's first record (their GPU is unknown)
        keys = sorted(k for (fid, k) in collected.by_slot if fid == f.id)
        if absent and not keys and slots:
            keys = [sorted(slots)[0]]
        if absent and not keys:
            console.print(f"{f.id}: no task answered, so no record can be written", highlight=False)
        for n, key in enumerate(keys):
            found = dict(collected.by_slot.get((f.id, key), {}))
            if n == 0:
                found.update(absent)
            slot, info = slots[key], infos[key]
            env = {**info["environment"], "packages": info["families"][f.id]["packages"], **slot.identity()}
            notes = (f"Measured by `{tool}` in {elapsed:.0f} s on GPU {slot.gpu.index} of {slot.host} (its workers "
                     f"on {slot.cpu_text()}), one of {n_gpus} GPUs on {len(nodes)} hosts; time limit per workload "
                     f"{timeout:.0f} s; inputs of workload W, set i, drawn from seed {seed} + i "
                     "(see kernels/*/inputs.py)." + overrides_note())
            data = record_data(f, hw, plan, registry, found, {k: v for k, v in env.items() if v is not None},
                               device, seed, notes, moment)
            out.append((f, slot, data, moment))
    return out


__all__ = ["INSTALL", "RAY_VERSION", "import_ray", "run_cluster"]
