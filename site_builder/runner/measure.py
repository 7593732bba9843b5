"""Verification and timing inside a worker process. This is the only module that uses torch,
and only the worker imports it."""

from __future__ import annotations

import contextlib
import math
import os
import statistics
import time
from pathlib import Path

import torch

#: Only the median's neighbours are published; min and max show the tails.
QUANTILES = (0.2, 0.8)


def stat(samples_us: list[float]) -> dict:
    s = sorted(samples_us)

    def q(p):
        k = (len(s) - 1) * p
        lo, hi = math.floor(k), math.ceil(k)
        return s[lo] + (s[hi] - s[lo]) * (k - lo)

    r = lambda v: float(f"{v:.4g}")  # noqa: E731 - four significant figures
    return {"median": r(statistics.median(s)), "p20": r(q(0.2)), "p80": r(q(0.8)),
            "min": r(s[0]), "max": r(s[-1]), "samples": len(s)}


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


# --- correctness -----------------------------------------------------------------------


def outputs_by_name(out, names: list[str]) -> dict[str, torch.Tensor]:
    """Map what a callable returned (tuple in the family's output order, or dict) to names."""
    if isinstance(out, dict):
        missing = [n for n in names if n not in out]
        if missing:
            raise ValueError(f"the implementation returned no {missing[0]!r}")
        return {n: out[n] for n in names}
    if isinstance(out, torch.Tensor):
        out = (out,)
    out = tuple(out)
    if len(out) < len(names):
        raise ValueError(f"the implementation returned {len(out)} tensors, expected {len(names)} "
                         f"({', '.join(names)})")
    return dict(zip(names, out[: len(names)]))


def _span(t: torch.Tensor) -> tuple[int, int]:
    storage = t.untyped_storage()
    return storage.data_ptr(), storage.data_ptr() + storage.nbytes()


def overlaps(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.device != b.device:
        return False
    (a0, a1), (b0, b1) = _span(a), _span(b)
    return a0 < b1 and b0 < a1 and a1 > a0 and b1 > b0


def poison_allocator(nbytes: int, device: torch.device) -> None:
    """Leave NaN bytes (0xFF) in the caching allocator's free memory, so that outputs an
    implementation allocates start as NaN and an unwritten element cannot pass the check."""
    if device.type != "cuda" or nbytes <= 0:
        return
    block = torch.empty(nbytes, dtype=torch.uint8, device=device)
    block.fill_(0xFF)
    sync(device)
    del block


def verify(outputs: dict, reference: dict, inputs: dict, snapshot: dict, atol: float,
           rtol: float) -> tuple[dict, list[str]]:
    """Compare outputs with the float64 reference elementwise (|out - ref| <= atol + rtol |ref|),
    check inputs are unchanged and no output aliases an input or another output."""
    problems: list[str] = []
    for name, tensor in inputs.items():
        if not torch.equal(tensor, snapshot[name]):
            problems.append(f"input {name} was modified")
    names = list(outputs)
    for i, name in enumerate(names):
        for iname, tensor in inputs.items():
            if overlaps(outputs[name], tensor):
                problems.append(f"output {name} aliases input {iname}")
        for other in names[i + 1:]:
            if overlaps(outputs[name], outputs[other]):
                problems.append(f"outputs {name} and {other} share memory")
    max_abs, max_rel = 0.0, 0.0
    for name in names:
        out, ref = outputs[name], reference[name]
        if tuple(out.shape) != tuple(ref.shape):
            problems.append(f"output {name} has shape {tuple(out.shape)}, expected {tuple(ref.shape)}")
            continue
        o = out.double()
        finite = torch.isfinite(o)
        n_bad_values = int((~finite).sum())
        diff = (o - ref).abs()
        within = diff <= atol + rtol * ref.abs()  # False for NaN
        n_out = int((~within).sum())
        finite_diff = torch.where(finite, diff, torch.zeros_like(diff))
        max_abs = max(max_abs, float(finite_diff.max()) if diff.numel() else 0.0)
        norm = float(ref.norm())
        if n_bad_values == 0 and norm > 0:
            max_rel = max(max_rel, float((o - ref).norm()) / norm)
        if n_bad_values:
            problems.append(f"output {name} has {n_bad_values} non-finite values of {o.numel()} "
                            "(NaN where an element was never written)")
        elif n_out:
            worst = int(diff.flatten().argmax())
            problems.append(f"output {name}: {n_out} of {o.numel()} elements outside tolerance; "
                            f"worst at flat index {worst}: {float(o.flatten()[worst]):.6g} vs "
                            f"{float(ref.flatten()[worst]):.6g}")
    correctness = {"max_abs_error": float(f"{max_abs:.3g}"), "max_rel_error": float(f"{max_rel:.3g}"),
                   "atol": atol, "rtol": rtol, "passed": not problems}
    return correctness, problems


# --- timing ------------------------------------------------------------------------------


def set_bytes(inputs: dict, outputs: dict) -> int:
    """Bytes one input set touches: its inputs and the outputs a call allocates."""
    return sum(t.nbytes for t in inputs.values()) + sum(t.nbytes for t in outputs.values())


def n_sets(bytes_per_set: int, l2_bytes: int, factor: float, max_sets: int) -> int:
    """Input sets to rotate so that one pass moves more than `factor` × the L2."""
    return max(2, min(max_sets, math.ceil(factor * l2_bytes / max(bytes_per_set, 1)) + 1))


def _events():
    return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def device_time_cuda(fns: list, budget_s: float, max_samples: int, target_graph_us: float):
    """µs per call over CUDA-graph replays of passes over the rotating sets; plain event
    timing of the same passes when the graph cannot be captured. Returns (stat, how)."""
    for f in fns:
        f()
    torch.cuda.synchronize()
    start, end = _events()
    start.record()
    for f in fns:
        f()
    end.record()
    end.synchronize()
    est_pass_us = max(start.elapsed_time(end) * 1e3, 1.0)
    passes = max(1, math.ceil(target_graph_us / est_pass_us))
    calls = passes * len(fns)
    how = "cuda-graph"
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for f in fns[:3]:
                f()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(passes):
                for f in fns:
                    f()
        graph.replay()
        torch.cuda.synchronize()
        run_once = graph.replay
    except Exception as exc:  # noqa: BLE001 - any capture failure falls back to events
        torch.cuda.synchronize()
        graph = None
        how = f"events (CUDA-graph capture failed: {type(exc).__name__}: {str(exc)[:200]})"

        def run_once():
            for _ in range(passes):
                for f in fns:
                    f()

    start.record()
    run_once()
    end.record()
    end.synchronize()
    per_sample_us = max(start.elapsed_time(end) * 1e3, 1.0)
    n = max(10, min(max_samples, int(budget_s * 1e6 / per_sample_us)))
    samples = []
    for _ in range(n):
        start.record()
        run_once()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1e3 / calls)
    del graph
    return stat(samples), how, calls


def wall_time(fns: list, device: torch.device, budget_s: float, max_samples: int, min_samples: int = 10):
    """µs of wall time per Python call, synchronised after each call (what a caller waits for)."""
    for f in fns[:3]:
        f()
    sync(device)
    samples: list[float] = []
    deadline = time.perf_counter() + budget_s
    i = 0
    while len(samples) < max_samples and (len(samples) < min_samples or time.perf_counter() < deadline):
        f = fns[i % len(fns)]
        i += 1
        t0 = time.perf_counter()
        f()
        sync(device)
        samples.append((time.perf_counter() - t0) * 1e6)
    return stat(samples)


# --- the CPU the timing loops run on ----------------------------------------------------


def _spin_us(loops: int = 20000) -> float:
    t0 = time.perf_counter()
    x = 0
    for i in range(loops):
        x += i * i
    return (time.perf_counter() - t0) * 1e6


def parse_cpu_list(text: str) -> set[int]:
    """The kernel's CPU list format: "0-3,8,10-11"."""
    cpus: set[int] = set()
    for part in filter(None, text.strip().split(",")):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def _isolated_cpus() -> set[int]:
    """CPUs the kernel keeps other tasks off (isolcpus=), from sysfs; empty where none."""
    try:
        return parse_cpu_list(Path("/sys/devices/system/cpu/isolated").read_text())
    except (OSError, ValueError):
        return set()


def pick_timing_cpu(reps: int = 5) -> int | None:
    """The CPU to pin a workload's timing loops to: among the allowed CPUs (the isolated ones
    where the kernel has any), the one that runs a short pure-Python loop fastest now (median
    of `reps`, about 0.1 s for 16 CPUs). On a virtual machine a virtual CPU's host core can be
    busy for seconds at a time: on our H200 machine one call + synchronize of a decode-size
    workload measured 33 µs on such a CPU and 20 µs on another, for every implementation alike,
    and with one CPU chosen at the start of a run, one implementation's figures still rose by
    half for five workloads in a row (NOTES.md, run D). None where CPU
    affinity cannot be set."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = os.sched_getaffinity(0)
    cpus = sorted((_isolated_cpus() & allowed) or allowed)
    if len(cpus) == 1:
        return cpus[0]
    speed = {}
    try:
        for cpu in cpus:
            os.sched_setaffinity(0, {cpu})
            _spin_us(2000)
            speed[cpu] = statistics.median(_spin_us() for _ in range(reps))
    finally:
        os.sched_setaffinity(0, allowed)
    return min(speed, key=speed.get)


@contextlib.contextmanager
def pinned(cpu: int | None):
    """Run the block on one CPU (this thread only), then restore the affinity."""
    if cpu is None or not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError:  # that CPU is not ours here: time unpinned rather than fail
        yield
        return
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def wall_time_interleaved(groups: dict[str, list], device: torch.device, rounds: int, block: int) -> dict:
    """µs of wall time per Python call + synchronize for several implementations at once: in
    each round every implementation takes `block` samples in turn (who goes first rotating),
    each cycling through its own callables (rotating input sets). A host that is busier at one
    moment than at another then weighs on all of them alike. {name: [samples]}"""
    for group in groups.values():
        for f in group[:3]:
            f()
    sync(device)
    names = list(groups)
    samples: dict[str, list[float]] = {name: [] for name in names}
    position = dict.fromkeys(names, 0)
    for k in range(rounds):
        for name in names[k % len(names):] + names[:k % len(names)]:
            group, i = groups[name], position[name]
            for j in range(block):
                f = group[(i + j) % len(group)]
                t0 = time.perf_counter()
                f()
                sync(device)
                samples[name].append((time.perf_counter() - t0) * 1e6)
            position[name] = i + block
    return samples


def copy_bandwidth_gbps(device: torch.device, nbytes: int, reps: int = 10) -> float:
    """A large device-to-device copy outside any CUDA graph: (bytes read + written) / median time."""
    src = torch.empty(nbytes // 4, dtype=torch.float32, device=device).uniform_()
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    sync(device)
    times = []
    for _ in range(reps):
        if device.type == "cuda":
            start, end = _events()
            start.record()
            dst.copy_(src)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1e-3)
        else:
            t0 = time.perf_counter()
            dst.copy_(src)
            times.append(time.perf_counter() - t0)
    del src, dst
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return round(2 * (nbytes // 4) * 4 / statistics.median(times) / 1e9, 1)
