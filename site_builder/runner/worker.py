"""One implementation in its own process: `python -m site_builder.runner.worker --fd N`.

Reads a JSON job on stdin and writes JSON lines to file descriptor N (stdout and stderr stay
free for whatever the libraries print). A "probe" job reports the registry, the environment
and the copy bandwidth; a "measure" job runs one implementation over a list of workloads,
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
import traceback
from pathlib import Path

FATAL_MARKERS = ("illegal memory access", "illegal address", "unspecified launch failure",
                 "device-side assert", "misaligned address", "CUDA error: an illegal",
                 "cudaErrorLaunchFailure", "CUDA_ERROR_ILLEGAL")


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

    from .measure import copy_bandwidth_gbps

    device = torch.device(job["device"])
    registry = []
    packages: dict[str, str] = {}
    for impl in family.registry.items.values():
        missing = impl.missing()
        registry.append({"id": impl.id, "baseline": impl.baseline, "missing": missing,
                         "kernel_sha": impl.kernel_sha(), "note": impl.note})
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
    env["copy_bandwidth_gbps"] = copy_bandwidth_gbps(device, job["copy_bytes"])
    if device.type == "cuda" and job.get("timing_cpu") is not None:  # fixed by --timing-cpu
        env["timing_cpu"] = job["timing_cpu"]
    return {"registry": registry, "environment": {k: v for k, v in env.items() if v is not None},
            "device_name": name, "l2_bytes": l2_bytes}


def _is_fatal(exc: BaseException) -> bool:
    text = f"{type(exc).__name__}: {exc}"
    return type(exc).__name__ == "AcceleratorError" or any(m in text for m in FATAL_MARKERS)


def _short(exc: BaseException) -> str:
    lines = traceback.format_exception_only(type(exc), exc)
    return "".join(lines).strip()[:1500]


def _rotating_calls(family, impl, workload: dict, job: dict, fn, set_bytes: int,
                    at_most: int | None = None) -> list:
    """fn and fresh callables on further input sets (seed + i), enough for one pass over them
    to exceed the protocol's multiple of the L2 (cold L2), and no more than `at_most` (the calls
    a loop will make, where that is fewer: the sets past it would never be called); on a CPU,
    fn alone."""
    import torch

    from . import measure as m

    device, proto = torch.device(job["device"]), job["protocol"]
    if device.type != "cuda":
        return [fn]
    count = m.n_sets(set_bytes, job["l2_bytes"], proto["cold_factor"], proto["max_sets"])
    if at_most is not None:
        count = min(count, at_most)
    return [fn] + [impl.factory(family.make_inputs(workload, job["seed"] + i, device), job["params"])
                   for i in range(1, count)]


def _timing_cpu(job: dict, device) -> int | None:
    """The CPU to time on: the one --timing-cpu gave, else (GPU runs) the least busy one now;
    None in CPU mode, where torch's threads use every core."""
    from . import measure as m

    cpu = job.get("timing_cpu")
    if cpu is None and device.type == "cuda":
        cpu = m.pick_timing_cpu()
    return cpu


def measure_one(family, impl, workload: dict, job: dict) -> dict:
    import torch

    from . import measure as m
    from .registry import NotInstalled, Unsupported

    device = torch.device(job["device"])
    proto, seed, params = job["protocol"], job["seed"], job["params"]
    result: dict = {"status": "ok", "error": None, "note": None}
    notes = [impl.note] if impl.note else []
    try:
        inputs = family.make_inputs(workload, seed, device)
        if sorted(inputs) != sorted(job["inputs"]):
            raise ValueError(f"make_inputs gave {sorted(inputs)}, the family declares {sorted(job['inputs'])}")
        reference = family.reference(inputs, params)
        atol, rtol = family.tolerance(workload["dtype"])
        snapshot = {k: v.clone() for k, v in inputs.items()}
        elsize = max(t.element_size() for t in inputs.values())
        m.poison_allocator(2 * elsize * sum(r.numel() for r in reference.values()), device)
        fn = impl.factory(inputs, params)
        outputs = m.outputs_by_name(fn(), job["outputs"])
        m.sync(device)
        correctness, problems = m.verify(outputs, reference, inputs, snapshot, atol, rtol)
        result["correctness"] = correctness
        set_bytes = m.set_bytes(inputs, outputs)
        del outputs, reference, snapshot
        if problems:
            result.update(status="failed", error="; ".join(problems)[:1500])
            return result
        # compiled and checked above on any CPU; timed below on one: the one given, or the least
        # busy one now (a virtual CPU's host core can be busy for seconds at a time)
        cpu = _timing_cpu(job, device)
        if cpu is not None and job.get("timing_cpu") is None:
            notes.append(f"timed on CPU {cpu}")
        fns = _rotating_calls(family, impl, workload, job, fn, set_bytes)
        with m.pinned(cpu):
            if device.type == "cuda":
                result["device_us"], how, calls = m.device_time_cuda(
                    fns, proto["budget_s"], proto["device_samples"], proto["target_graph_us"])
                notes.append(f"{len(fns)} rotating input sets ({len(fns) * set_bytes / 1e6:.0f} MB), "
                             f"{calls} calls per sample")
                if how != "cuda-graph":
                    notes.append(f"device time by {how}")
            else:
                result["device_us"] = m.wall_time(fns, device, proto["budget_s"], proto["device_samples"])
            result["e2e_us"] = m.wall_time(fns, device, proto["budget_s"], proto["e2e_samples"])
        if callable(getattr(fn, "kr_note", None)):
            notes.insert(0, fn.kr_note())
    except NotInstalled as exc:
        result.update(status="not-installed", error=str(exc) or "not installed")
    except Unsupported as exc:
        result.update(status="unsupported", error=str(exc) or "unsupported")
    except ModuleNotFoundError as exc:
        result.update(status="not-installed", error=_short(exc))
    except Exception as exc:  # noqa: BLE001 - every failure is recorded, never raised
        fatal = _is_fatal(exc)
        result.update(status="crashed" if fatal else "failed", error=_short(exc), fatal=fatal)
        traceback.print_exc()
    result["note"] = "; ".join(n for n in notes if n)[:1000] or None
    return result


def measure_e2e(family, impl_ids: list[str], workload: dict, job: dict) -> dict:
    """End-to-end times of one workload's implementations, interleaved (measure.wall_time_interleaved),
    each over its own rotating input sets as in measure_one. Implementations that fail to
    prepare here are left out with their error: {"e2e_us": {id: stat}, "errors": {id: text}}."""
    import torch

    from . import measure as m

    device = torch.device(job["device"])
    proto = job["protocol"]
    groups: dict[str, list] = {}
    errors: dict[str, str] = {}
    for impl_id in impl_ids:
        impl = family.registry[impl_id]
        try:
            inputs = family.make_inputs(workload, job["seed"], device)
            fn = impl.factory(inputs, job["params"])
            outputs = m.outputs_by_name(fn(), job["outputs"])
            set_bytes = m.set_bytes(inputs, outputs)
            del outputs
            # each implementation makes rounds x block timed calls, one per set in turn
            groups[impl_id] = _rotating_calls(family, impl, workload, job, fn, set_bytes,
                                              at_most=proto["e2e_rounds"] * proto["e2e_block"])
        except Exception as exc:  # noqa: BLE001 - that implementation keeps its own figure
            errors[impl_id] = _short(exc)
            if _is_fatal(exc):
                raise
    cpu = _timing_cpu(job, device)
    with m.pinned(cpu):
        samples = m.wall_time_interleaved(groups, device, proto["e2e_rounds"], proto["e2e_block"])
    return {"e2e_us": {k: m.stat(v) for k, v in samples.items()}, "errors": errors, "cpu": cpu}


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

    def emit(obj):
        channel.write(json.dumps(obj) + "\n")
        channel.flush()

    from .families import load_family

    family = load_family(Path(job["kernels_root"]), job["family"])
    if job["kind"] == "probe":
        emit({"event": "probe", **probe(job, family)})
        return 0
    if job["kind"] == "e2e":  # one workload at a time, every implementation in this process
        for workload in job["workloads"]:
            emit({"event": "start", "workload": workload["id"]})
            ids = job["implementations_by_workload"][workload["id"]]
            emit({"event": "result", "workload": workload["id"],
                  "result": measure_e2e(family, ids, workload, job)})
            if not _cleanup():
                return 3
        return 0
    impl = family.registry[job["implementation"]]
    for workload in job["workloads"]:
        emit({"event": "start", "workload": workload["id"]})
        result = measure_one(family, impl, workload, job)
        fatal = result.pop("fatal", False)
        emit({"event": "result", "workload": workload["id"], "result": result})
        if fatal or not _cleanup():
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
