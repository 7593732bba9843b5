"""One implementation in its own process: `python -m site_builder.runner.worker --fd N`.

Reads a JSON job on stdin and writes JSON lines to file descriptor N (stdout and stderr stay
free for whatever the libraries print). A "probe" job reports the registry, the environment
and the copy bandwidth; a "measure" job runs one implementation over a list of workloads (each
a family.Case as JSON) through the timing core (measure.py),
announcing each workload before it starts, so the parent knows which one a crash or a hang
belongs to. After an error that leaves the GPU unusable (illegal address, device assert) the
worker reports it and exits; the parent starts a fresh worker for the remaining workloads.
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _driver() -> str | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0] or None
    except (OSError, subprocess.SubprocessError, IndexError):
        return None


def probe(job: dict, family) -> dict:
    import torch

    from .measure import copy_bandwidth_gbps, launch_floor_us

    device = torch.device(job["device"])
    registry = []
    packages: dict[str, str] = {}
    for impl in family.registry.items.values():
        missing = impl.missing()
        registry.append({"id": impl.id, "baseline": impl.baseline, "missing": missing,
                         "kernel_sha": impl.kernel_sha(), "note": impl.note, "kinds": list(impl.kinds),
                         "destroys": list(impl.destroys)})
        for dist in impl.packages:
            if (v := _version(dist)) is not None:
                packages[dist] = v
    env = {"torch": torch.__version__, "triton": _version("triton"),
           "python": platform.python_version(), "platform": platform.platform(),
           "packages": dict(sorted(packages.items()))}
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        env.update(gpu=props.name, sms=props.multi_processor_count,
                   memory_gb=round(props.total_memory / 1e9, 1), driver=_driver(), cuda=torch.version.cuda)
        l2_bytes = int(getattr(props, "L2_cache_size", 0)) or None
        name = props.name
    else:
        name = "cpu"
        env.update(gpu=f"CPU ({platform.machine()}, {os.cpu_count()} threads)")
        l2_bytes = None
    if job["copy_bytes"]:
        env["copy_bandwidth_gbps"] = copy_bandwidth_gbps(device, job["copy_bytes"])
        try:  # None off CUDA, then left out; a failure only leaves the floor without its launch term
            env["launch_floor_us"] = launch_floor_us(device)
        except RuntimeError as exc:
            print(f"launch floor not measured ({type(exc).__name__}: {exc}); the floor keeps its other terms",
                  file=sys.stderr)
    if device.type == "cuda" and job.get("timing_cpu") is not None:  # fixed by --timing-cpu
        env["timing_cpu"] = job["timing_cpu"]
    return {"registry": registry, "environment": {k: v for k, v in env.items() if v is not None},
            "device_name": name, "l2_bytes": l2_bytes}


def probe_all(job: dict, families: dict) -> dict:
    """The probe of every family at once: the device and its environment once (copy bandwidth
    included), each family's registry and package versions."""
    out: dict = {"families": {}}
    for i, (fid, family) in enumerate(families.items()):
        found = probe({**job, "copy_bytes": job["copy_bytes"] if i == 0 else 0}, family)
        env = found.pop("environment")
        out["families"][fid] = {"registry": found.pop("registry"), "packages": env.pop("packages", {})}
        if i == 0:
            out.update(found, environment=env)
    return out


def _cleanup():
    gc.collect()
    try:
        import torch

        if torch.cuda.is_available() and torch.cuda.is_initialized():
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
    except Exception:  # noqa: BLE001 - a poisoned context: the next result will say so
        return False
    return True


def _die_with_parent() -> None:
    """Linux: get SIGKILL when the runner dies, so a killed run leaves no worker behind."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def main(argv=None) -> int:
    _die_with_parent()
    parser = argparse.ArgumentParser()
    parser.add_argument("--fd", type=int, required=True, help="file descriptor for JSON-line results")
    args = parser.parse_args(argv)
    channel = os.fdopen(args.fd, "w", buffering=1)
    job = json.load(sys.stdin)
    if job.get("cpus") and hasattr(os, "sched_setaffinity"):  # the slot's CPUs, before torch starts threads
        try:
            os.sched_setaffinity(0, set(job["cpus"]))
        except OSError as exc:
            print(f"could not pin to CPUs {job['cpus']}: {exc}", file=sys.stderr)

    def emit(obj):
        channel.write(json.dumps(obj) + "\n")
        channel.flush()

    from .families import load_family
    from .family import Case

    if job["kind"] == "probe":  # one family, or every family of a refresh ("families")
        ids = job.get("families") or [job["family"]]
        emit({"event": "probe", **probe_all(job, {f: load_family(Path(job["kernels_root"]), f) for f in ids})})
        return 0
    family = load_family(Path(job["kernels_root"]), job["family"])
    from .measure import measure_e2e, measure_one

    if job["kind"] == "e2e":  # one workload at a time, every implementation in this process
        for workload in job["workloads"]:
            emit({"event": "start", "workload": workload["id"]})
            ids = job["implementations_by_workload"][workload["id"]]
            emit({"event": "result", "workload": workload["id"],
                  "result": measure_e2e(family, ids, Case.from_json(workload), job)})
            if not _cleanup():
                return 3
        return 0
    impl = family.registry[job["implementation"]]
    for workload in job["workloads"]:
        emit({"event": "start", "workload": workload["id"]})
        started = time.monotonic()
        result = measure_one(family, impl, Case.from_json(workload), job)
        result["runner_s"] = round(time.monotonic() - started, 3)  # what --plan estimates runs from
        fatal = result.pop("fatal", False)
        emit({"event": "result", "workload": workload["id"], "result": result})
        if fatal or not _cleanup():
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
