"""The timing core: one protocol for every published or compared number.

Correctness first (outputs from NaN-poisoned memory against the family's float64 reference,
inputs unchanged, no aliasing), then device time (CUDA-graph replay over rotating input sets
that exceed 3x the L2: cold L2), end-to-end time (one call + synchronize), the copy bandwidth,
the CPU the timing loops are pinned to, and the spread (median, p20, p80, min, max). Used by
the runner's worker processes (worker.py), and so by `kernel-records bench` (a run that prints
instead of recording), and by any sweep tool: a benchmark and a run record of the same code are
the same measurement.

This module imports torch; only worker processes, sweep tools and tests import it.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import statistics
import time
import traceback
from pathlib import Path

import torch

from .family import Case, Close, Exact, IndexSet, Tolerance


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
    """Map what a callable returned (tuple in the case's output order, a dict, or one tensor)
    to names."""
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


def dtype_name(dtype: torch.dtype) -> str:
    """The record's name of a torch dtype (torch.float8_e4m3fn -> float8_e4m3)."""
    name = str(dtype).removeprefix("torch.")
    return {"float8_e4m3fn": "float8_e4m3"}.get(name, name)


def _where(shape: tuple[int, ...], flat: int) -> str:
    """A flat index and, for a tensor of two or more dimensions, its position: `17 [1, 5]`."""
    if len(shape) < 2:
        return str(flat)
    coords, rest = [], flat
    for size in reversed(shape):
        rest, c = divmod(rest, size)
        coords.append(c)
    return f"{flat} [{', '.join(str(c) for c in reversed(coords))}]"


def _compare(name: str, out: torch.Tensor, ref: torch.Tensor, tol: Tolerance, problems: list[str],
             allowance: torch.Tensor | None = None):
    """(max abs error, relative error or None) of one output; problems appended. `allowance`
    (Close only): an element-wise absolute error the family allows on top of atol (see
    `KernelFamily.allowance`)."""
    if tuple(out.shape) != tuple(ref.shape):
        problems.append(f"output {name} has shape {tuple(out.shape)}, expected {tuple(ref.shape)}")
        return 0.0, None
    if isinstance(tol, (Exact, IndexSet)):
        o, r = out.detach().to("cpu", torch.float64), ref.detach().to("cpu", torch.float64)
        if isinstance(tol, IndexSet):
            o, r = o.sort(dim=tol.dim).values, r.sort(dim=tol.dim).values
        wrong = int((o != r).sum())
        if wrong:
            what = "index sets" if isinstance(tol, IndexSet) else "elements"
            problems.append(f"output {name}: {wrong} of {o.numel()} {what} differ from the reference "
                            f"({'the same set of indices' if isinstance(tol, IndexSet) else 'exact match'} required)")
        return (float((o - r).abs().max()) if o.numel() else 0.0), None
    return _compare_close(name, out.detach().reshape(-1), ref.detach().reshape(-1), tuple(ref.shape), tol,
                          problems, None if allowance is None else allowance.reshape(-1))


#: Elements compared at a time: the float64 temporaries of a comparison stay under ~0.3 GB each
#: whatever the output's size (a 16384 x 131072 fp32 gradient would need ~100 GB at once).
COMPARE_CHUNK = 1 << 25


def _compare_close(name: str, of: torch.Tensor, rf: torch.Tensor, shape: tuple, tol: Close,
                   problems: list[str], af: torch.Tensor | None):
    """_compare for a `Close` tolerance over flat views (of: output, rf: reference, af: the
    allowance), in chunks of COMPARE_CHUNK elements: |out - ref| <= atol + rtol |ref| (+ the
    allowance), elementwise, in float64. Returns (max abs error over finite outputs, the
    relative error ||out - ref|| / ||ref|| or None)."""
    n_bad = n_out = 0
    max_abs, sq_diff, sq_ref = 0.0, 0.0, 0.0
    worst: tuple | None = None  # (no tolerance holds, key, flat index): see _worst_key
    largest: tuple | None = None  # (|diff|, NaN as inf; flat index)
    for lo in range(0, rf.numel(), COMPARE_CHUNK):
        o, r = of[lo:lo + COMPARE_CHUNK].double(), rf[lo:lo + COMPARE_CHUNK].double()
        finite = torch.isfinite(o)
        n_bad += int((~finite).sum())
        delta = o - r
        sq_diff += float(delta.square().sum())
        sq_ref += float(r.square().sum())
        diff = delta.abs_()
        bound = r.abs().mul_(tol.rtol).add_(tol.atol)  # atol + rtol |ref|, elementwise
        if af is not None:
            bound.add_(af[lo:lo + COMPARE_CHUNK])
        within = diff <= bound  # False for NaN
        outside = int((~within).sum())
        n_out += outside
        chunk_max = float(torch.where(finite, diff, torch.zeros_like(diff)).max())
        # a NaN (where the reference is NaN) stays NaN, as one max over the whole output gives
        max_abs = math.nan if math.isnan(max_abs) or math.isnan(chunk_max) else max(max_abs, chunk_max)
        key = diff.nan_to_num(nan=math.inf, posinf=math.inf)
        at = int(key.argmax())
        if largest is None or float(key[at]) > largest[0]:
            largest = (float(key[at]), lo + at)
        if outside:
            endless, value, at = _worst_key(diff, bound, within)
            if worst is None or (endless, value) > worst[:2]:
                worst = (endless, value, lo + at)
        del o, r, finite, delta, diff, bound, within, key
    norm = math.sqrt(sq_ref)
    rel = math.sqrt(sq_diff) / norm if (n_bad == 0 and norm > 0) else None
    if n_bad:
        problems.append(f"output {name} has {n_bad} non-finite values of {rf.numel()} "
                        "(NaN where an element was never written)")
    elif n_out:
        problems.append(f"output {name}: {n_out} of {rf.numel()} elements outside tolerance; "
                        + _worst(of, rf, af, shape, worst[2], largest[1], tol))
    return max_abs, rel


def _worst_key(diff, bound, within) -> tuple[bool, float, int]:
    """The element of a chunk furthest outside its tolerance: (no tolerance holds there, key,
    index). The key is |diff| / tolerance (> 1 exactly where outside); where the tolerance is 0
    or the reference NaN the ratio is infinite, and among those elements the largest |diff|
    (NaN first) is the worst, so they rank above every finite ratio."""
    ratio = diff.div(bound).masked_fill_(within, 0.0).nan_to_num_(nan=math.inf, posinf=math.inf)
    endless = torch.isinf(ratio)
    if bool(endless.any()):
        key = diff.nan_to_num(nan=math.inf, posinf=math.inf).masked_fill_(~endless, -1.0)
        at = int(key.argmax())
        return True, float(key[at]), at
    at = int(ratio.argmax())
    return False, float(ratio[at]), at


def _worst(of, rf, af, shape: tuple, worst: int, largest: int, tol: Close) -> str:
    """The element furthest outside its tolerance (flat index `worst`): value, reference, |diff|
    and the tolerance there (atol + rtol |ref|, + the family's allowance); then the largest
    |diff| (flat index `largest`) where that is another element. Values in float64, computed
    as the chunked comparison computed them."""
    def at(i):
        o, r = float(of[i].double()), float(rf[i].double())
        b = abs(r) * tol.rtol + tol.atol
        a = float(af[i]) if af is not None else None
        if a is not None:
            b += a
        return o, r, abs(o - r), b, a

    od, rd, dd, bd, ad = at(worst)
    parts = f"atol {tol.atol:.3g} + rtol·|ref| {tol.rtol * abs(rd):.3g}"
    if ad is not None:
        parts += f" + allowance {ad:.3g}"
    if bd > 0:
        times = f"is {dd / bd:.3g}× the tolerance there"
    elif bd == 0:
        times = "against a zero tolerance there"
    else:  # NaN: no tolerance holds
        times = f"(the reference is {rd:.6g} there: no tolerance holds)"
    text = (f"furthest outside at flat index {_where(shape, worst)}: {od:.6g} vs {rd:.6g}, "
            f"|diff| {dd:.3g} {times}, {bd:.3g} ({parts})")
    if largest != worst:
        ol, rl, dl, bl, _ = at(largest)
        state = "within" if dl <= bl else "outside"
        text += (f"; largest |diff| at flat index {_where(shape, largest)}: {ol:.6g} vs {rl:.6g}, "
                 f"|diff| {dl:.3g}, tolerance there {bl:.3g} ({state})")
    return text


def verify(outputs: dict, reference: dict, inputs: dict, snapshot: dict, tolerances: dict,
           declared: dict | None = None, destroyed=(), allowances: dict | None = None) -> tuple[dict, list[str]]:
    """Compare each output with the reference under its tolerance (`Close`: |out - ref| <=
    atol + rtol |ref| elementwise, plus the output's entry in `allowances` where the family
    gives one; `Exact`; `IndexSet`), check its dtype against the declared one (`declared`:
    name -> family.Tensor), check inputs are unchanged and no output aliases an input or
    another output. Inputs in `destroyed` (the implementation overwrites them and was given
    copies) are exempt from the last two checks."""
    problems: list[str] = []
    for name, tensor in inputs.items():
        if name not in destroyed and not torch.equal(tensor, snapshot[name]):
            problems.append(f"input {name} was modified")
    names = list(outputs)
    for i, name in enumerate(names):
        for iname, tensor in inputs.items():
            if iname not in destroyed and overlaps(outputs[name], tensor):
                problems.append(f"output {name} aliases input {iname}")
        for other in names[i + 1:]:
            if overlaps(outputs[name], outputs[other]):
                problems.append(f"outputs {name} and {other} share memory")
    max_abs, max_rel = 0.0, 0.0
    for name in names:
        out = outputs[name]
        if declared and name in declared and dtype_name(out.dtype) != declared[name].dtype:
            problems.append(f"output {name} is {dtype_name(out.dtype)}, the family declares {declared[name].dtype}")
            continue
        err, rel = _compare(name, out, reference[name], tolerances[name], problems,
                            (allowances or {}).get(name))
        max_abs = max(max_abs, err)
        if rel is not None:
            max_rel = max(max_rel, rel)
    atol = max((t.atol for t in tolerances.values()), default=0.0)
    rtol = max((t.rtol for t in tolerances.values()), default=0.0)
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


#: (family, implementation, kind) triples whose CUDA-graph capture failed in this process, with the
#: workload and error of the first failure. A failed capture leaks its graph's private memory
#: pool in the torch builds the runner meets (pytorch/pytorch#190348, fixed in later builds):
#: its memory stays reserved until the process ends. Trying again at every workload stacked
#: those pools until later workloads of the same implementation ran out of memory (Liger's
#: cross entropy on an H100, 2026-12-06: three fwd+bwd workloads failed with 5.5 GB free of 80),
#: so an implementation whose capture failed once for a kind is timed by events for the rest of
#: the process.
UNCAPTURABLE: dict[tuple[str, str, str], str] = {}


def device_time_cuda(fns: list, budget_s: float, max_samples: int, target_graph_us: float,
                     capture: bool = True):
    """µs per call over CUDA-graph replays of passes over the rotating sets; plain event
    timing of the same passes when the graph cannot be captured (or `capture` is False).
    Returns (stat, how, calls): how is "cuda-graph" or "events (why)"."""
    one_pass(fns)
    torch.cuda.synchronize()
    start, end = _events()
    start.record()
    one_pass(fns)
    end.record()
    end.synchronize()
    est_pass_us = max(start.elapsed_time(end) * 1e3, 1.0)
    passes = max(1, math.ceil(target_graph_us / est_pass_us))
    calls = passes * len(fns)
    how = "cuda-graph" if capture else "events"
    graph = None
    if capture:
        try:
            graph = capture_graph(fns, passes)
        except Exception as exc:  # noqa: BLE001 - any capture failure falls back to events
            torch.cuda.synchronize()
            how = f"events (CUDA-graph capture failed: {type(exc).__name__}: {str(exc)[:200]})"
            del exc  # and the outputs its traceback holds
            gc.collect()
            torch.cuda.empty_cache()
    if graph is not None:
        run_once = graph.replay
    else:
        def run_once():
            for _ in range(passes):
                one_pass(fns)

    start.record()
    run_once()
    end.record()
    end.synchronize()
    per_sample_us = max(start.elapsed_time(end) * 1e3, 1.0)
    n = max(10, min(max_samples, int(budget_s * 1e6 / per_sample_us)))
    samples = replay_samples(run_once, calls, n)
    del graph
    return stat(samples), how, calls


def one_pass(fns: list) -> int:
    """Call each of fns once, keeping every call's outputs alive until the pass ends, so that each
    call writes its own memory: the outputs rotate as the input sets do (protocol version 5).
    Dropped at once, an output's block would be the next call's output (the caching allocator,
    and a CUDA graph's pool, hand the freed block straight back), and an output that fits in the
    L2 would stay there from call to call: below-floor times (the H100's 10.0 µs against a
    10.02 µs floor, lab/device-2026-12-06/a). Returns how many calls it made."""
    kept = [f() for f in fns]
    del kept
    return len(fns)


def capture_graph(fns: list, passes: int):
    """A CUDA graph of `passes` passes over the callables fns, captured after a warm-up on a
    side stream, replayed once (raises what capture raises)."""
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
            one_pass(fns)
    graph.replay()
    torch.cuda.synchronize()
    return graph


def replay_samples(run_once, calls: int, n: int) -> list[float]:
    """n device-time samples of run_once (event-timed), each in µs per one of its `calls` calls."""
    start, end = _events()
    samples = []
    for _ in range(n):
        start.record()
        run_once()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1e3 / calls)
    return samples


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


def launch_floor_us(device: torch.device, reps: int = 21, launches: int = 100) -> float | None:
    """The device time of one launch of a (nearly) empty kernel — a one-element fill — the way
    results are timed: `launches` fills captured in one CUDA graph, the graph replayed between
    CUDA events, elapsed time over `launches`, median of `reps` replays. This is the per-launch
    term of the floor, measured on the run's own GPU. Events around a single launch outside a
    graph would time the host's submission instead (13.4 µs on the H200 of 2026-12-01, where
    graph replays of real kernels took 1.2 µs). None off CUDA (a CPU has no launch to measure)."""
    if device.type != "cuda":
        return None
    x = torch.empty(1, dtype=torch.float32, device=device)
    stream = torch.cuda.Stream(device)
    stream.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(stream):
        for _ in range(3):
            x.fill_(0.0)
    torch.cuda.current_stream(device).wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(launches):
            x.fill_(1.0)
    graph.replay()
    sync(device)
    times = []
    for _ in range(reps):
        start, end = _events()
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / launches)
    del graph, x
    return round(statistics.median(times), 3)


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


# --- one implementation on one case: check, then time --------------------------------------


FATAL_MARKERS = ("illegal memory access", "illegal address", "unspecified launch failure",
                 "device-side assert", "misaligned address", "CUDA error: an illegal",
                 "cudaErrorLaunchFailure", "CUDA_ERROR_ILLEGAL")


def is_fatal(exc: BaseException) -> bool:
    """Whether an error leaves the device unusable for the rest of the process."""
    text = f"{type(exc).__name__}: {exc}"
    return type(exc).__name__ == "AcceleratorError" or any(m in text for m in FATAL_MARKERS)


def short_error(exc: BaseException) -> str:
    lines = traceback.format_exception_only(type(exc), exc)
    return "".join(lines).strip()[:1500]


def given_inputs(inputs: dict, impl) -> dict:
    """The inputs an implementation is given: fresh copies of those it declares it destroys."""
    if not impl.destroys:
        return inputs
    return {k: (v.clone() if k in impl.destroys else v) for k, v in inputs.items()}


def rotating_calls(family, impl, case: Case, job: dict, fn, set_bytes: int, at_most: int | None = None) -> list:
    """fn and fresh callables on further input sets (seed + i), enough for one pass over them
    to exceed the protocol's multiple of the L2 (cold L2), and no more than `at_most` (the calls
    a loop will make, where that is fewer: the sets past it would never be called); on a CPU,
    fn alone. Each set is made anew, so an implementation that destroys its inputs overwrites
    only its own copy."""
    device, proto = torch.device(job["device"]), job["protocol"]
    if device.type != "cuda":
        return [fn]
    count = n_sets(set_bytes, job["l2_bytes"], proto["cold_factor"], proto["max_sets"])
    if at_most is not None:
        count = min(count, at_most)
    return [fn] + [impl.factory(family.make_inputs(case, job["seed"] + i, device), case)
                   for i in range(1, count)]


def timing_cpu(job: dict, device) -> int | None:
    """The CPU to time on: the one --timing-cpu gave, else (GPU runs) the least busy one now;
    None in CPU mode, where torch's threads use every core."""
    cpu = job.get("timing_cpu")
    if cpu is None and device.type == "cuda":
        cpu = pick_timing_cpu()
    return cpu


def checked_allowances(family, case: Case, inputs: dict, reference: dict, tolerances: dict) -> dict:
    """The family's element-wise allowances (`KernelFamily.allowance`), checked: only for
    `Close` outputs, float64, the reference's shape and device, finite and not negative. A
    family that breaks this gets an error naming its hook (every result of the case then fails
    with it), never a silently looser check."""
    hook = getattr(family, "allowance", None)
    given = dict(hook(case, inputs, reference) or {}) if hook else {}
    where = f"family {getattr(family, 'id', '?')!r}: allowance(case {case.id!r})"
    for name, a in given.items():
        if name not in reference:
            raise ValueError(f"{where} gives {name!r}, which is not an output of the case "
                             f"({', '.join(reference)}): return allowances keyed by output name")
        if not isinstance(tolerances[name], Close):
            raise ValueError(f"{where} gives {name!r}, compared {type(tolerances[name]).__name__}: "
                             "an allowance applies to Close outputs only")
        ref = reference[name]
        if not isinstance(a, torch.Tensor) or a.dtype != torch.float64 or tuple(a.shape) != tuple(ref.shape) \
                or a.device != ref.device:
            got = f"{a.dtype} {tuple(a.shape)} on {a.device}" if isinstance(a, torch.Tensor) else type(a).__name__
            raise ValueError(f"{where}[{name!r}] is {got}; it must be a float64 tensor of the reference's "
                             f"shape {tuple(ref.shape)} on {ref.device}")
        if a.numel() and not bool(((a >= 0) & torch.isfinite(a)).all()):
            raise ValueError(f"{where}[{name!r}] has negative or non-finite elements: an allowance is an "
                             "absolute error, finite and >= 0")
    return given


def check(family, impl, case: Case, seed: int, device) -> tuple:
    """Correctness first: the implementation's outputs on one input set (drawn from `seed`),
    computed from NaN-poisoned memory, against the family's reference under each output's
    tolerance; inputs unchanged (bar those it destroys, given as copies), no aliasing.
    Returns (the callable, correctness, problems, bytes of one input set with its outputs)."""
    device = torch.device(device)
    inputs = family.make_inputs(case, seed, device)
    if sorted(inputs) != sorted(case.inputs):
        raise ValueError(f"make_inputs gave {sorted(inputs)}, the family declares {sorted(case.inputs)} "
                         f"for the {case.kind} kind")
    snapshot = {k: v.clone() for k, v in inputs.items()}
    reference = family.reference(case, inputs)
    tolerances = {name: family.tolerance(case, name) for name in case.outputs}
    allowances = checked_allowances(family, case, inputs, reference, tolerances)
    elsize = max(t.element_size() for t in inputs.values())
    given = given_inputs(inputs, impl)
    poison_allocator(2 * elsize * sum(r.numel() for r in reference.values()), device)
    fn = impl.factory(given, case)
    outputs = outputs_by_name(fn(), list(case.outputs))
    sync(device)
    correctness, problems = verify(outputs, reference, given, snapshot, tolerances, case.outputs, impl.destroys,
                                   allowances)
    return fn, correctness, problems, set_bytes(inputs, outputs)


#: Cached but unallocated device memory (bytes) above which the caching allocator's free blocks
#: are handed back before the next workload. Workloads of very different sizes leave the cache
#: in blocks that fit none of the next one's tensors: on an H100 (2026-12-06, 11:11) Liger's
#: cross entropy asked for 16 GiB with 51 GiB "reserved by PyTorch but unallocated" and 13 GiB
#: free, and failed as out of memory.
CACHE_SLACK = 1 << 30


def free_cache(device: torch.device, slack: int = CACHE_SLACK) -> int:
    """Hand the caching allocator's unused blocks back to the device when more than `slack`
    bytes sit reserved but unallocated (any amount when slack is 0). Returns the bytes that were
    cached but unallocated before (0 off CUDA)."""
    if device.type != "cuda":
        return 0
    idle = torch.cuda.memory_reserved(device) - torch.cuda.memory_allocated(device)
    if idle > slack:
        gc.collect()
        torch.cuda.empty_cache()
    return idle


def is_out_of_memory(result: dict) -> bool:
    return result.get("status") == "failed" and "OutOfMemoryError" in (result.get("error") or "")


def measure_one(family, impl, case: Case, job: dict) -> dict:
    """Check `impl` on `case` against the family's reference, then time it (device and
    end-to-end). `job`: device, seed, protocol (GPU_SETTINGS or CPU_SETTINGS), l2_bytes,
    timing_cpu. Returns a result dict (status, error, note, correctness, device_us, e2e_us;
    `fatal` when the device is unusable afterwards); never raises for the implementation's
    failures. On a GPU the allocator's idle cache is freed first when large (free_cache), and a
    try that runs out of memory is made once more after freeing all of it (noted)."""
    device = torch.device(job["device"])
    free_cache(device)
    result = _measure_once(family, impl, case, job)
    if device.type == "cuda" and is_out_of_memory(result):
        idle = free_cache(device, slack=0)
        retry = _measure_once(family, impl, case, job)
        first = f"the first try ran out of device memory ({idle / 2**30:.1f} GiB cached but unallocated then); " \
                "tried again after freeing the cache"
        retry["note"] = f"{first}; {retry['note']}" if retry.get("note") else first
        return retry
    return result


def _measure_once(family, impl, case: Case, job: dict) -> dict:
    """measure_one's single try."""
    from .registry import NotInstalled, Unsupported

    device = torch.device(job["device"])
    proto, seed = job["protocol"], job["seed"]
    result: dict = {"status": "ok", "error": None, "note": None}
    notes = [impl.note] if impl.note else []
    try:
        family_note = family.notes(case)
        if family_note:
            notes.append(family_note)
        declined = impl.declines(case.kind)
        if declined:
            raise Unsupported(declined)
        fn, correctness, problems, set_bytes_ = check(family, impl, case, seed, device)
        result["correctness"] = correctness
        if problems:
            result.update(status="failed", error="; ".join(problems)[:1500])
            return result
        # compiled and checked above on any CPU; timed below on one: the one given, or the least
        # busy one now (a virtual CPU's host core can be busy for seconds at a time)
        cpu = timing_cpu(job, device)
        if cpu is not None and job.get("timing_cpu") is None:
            notes.append(f"timed on CPU {cpu}")
        fns = rotating_calls(family, impl, case, job, fn, set_bytes_)
        if impl.destroys:
            notes.append(f"overwrites its input{'s' if len(impl.destroys) > 1 else ''} {', '.join(impl.destroys)}: "
                         f"checked on a fresh copy, timed on one copy per rotating input set ({len(fns)}), "
                         "so calls after the first on a set see overwritten values")
        with pinned(cpu):
            if device.type == "cuda":
                capture_key = (getattr(family, "id", ""), impl.id, case.kind)
                failed_at = UNCAPTURABLE.get(capture_key)
                result["device_us"], how, calls = device_time_cuda(
                    fns, proto["budget_s"], proto["device_samples"], proto["target_graph_us"],
                    capture=failed_at is None)
                notes.append(f"{len(fns)} rotating input sets ({len(fns) * set_bytes_ / 1e6:.0f} MB), "
                             f"{calls} calls per sample")
                if failed_at is not None:
                    notes.append(f"device time by events: CUDA-graph capture of this {case.kind} failed "
                                 f"earlier in this run ({failed_at}), not tried again (a failed capture "
                                 "keeps its memory until the process ends)")
                elif how != "cuda-graph":
                    UNCAPTURABLE[capture_key] = f"at {case.id}: {how.removeprefix('events (').removesuffix(')')}"[:300]
                    notes.append(f"device time by {how}")
            else:
                result["device_us"] = wall_time(fns, device, proto["budget_s"], proto["device_samples"])
            result["e2e_us"] = wall_time(fns, device, proto["budget_s"], proto["e2e_samples"])
        if callable(getattr(fn, "kr_note", None)):
            notes.insert(0, fn.kr_note())
    except NotInstalled as exc:
        result.update(status="not-installed", error=str(exc) or "not installed")
    except Unsupported as exc:
        result.update(status="unsupported", error=str(exc) or "unsupported")
    except ModuleNotFoundError as exc:
        result.update(status="not-installed", error=short_error(exc))
    except Exception as exc:  # noqa: BLE001 - every failure is recorded, never raised
        fatal = is_fatal(exc)
        result.update(status="crashed" if fatal else "failed", error=short_error(exc), fatal=fatal)
        traceback.print_exc()
    result["note"] = "; ".join(n for n in notes if n)[:1000] or None
    return result


def measure_e2e(family, impl_ids: list[str], case: Case, job: dict) -> dict:
    """End-to-end times of one case's implementations, interleaved (wall_time_interleaved),
    each over its own rotating input sets as in measure_one. Implementations that fail to
    prepare here are left out with their error: {"e2e_us": {id: stat}, "errors": {id: text}}."""
    device = torch.device(job["device"])
    proto = job["protocol"]
    groups: dict[str, list] = {}
    errors: dict[str, str] = {}
    for impl_id in impl_ids:
        impl = family.registry[impl_id]
        try:
            inputs = family.make_inputs(case, job["seed"], device)
            fn = impl.factory(given_inputs(inputs, impl), case)
            outputs = outputs_by_name(fn(), list(case.outputs))
            nbytes = set_bytes(inputs, outputs)
            del outputs
            # each implementation makes rounds x block timed calls, one per set in turn
            groups[impl_id] = rotating_calls(family, impl, case, job, fn, nbytes,
                                             at_most=proto["e2e_rounds"] * proto["e2e_block"])
        except Exception as exc:  # noqa: BLE001 - that implementation keeps its own figure
            errors[impl_id] = short_error(exc)
            if is_fatal(exc):
                raise
    cpu = timing_cpu(job, device)
    with pinned(cpu):
        samples = wall_time_interleaved(groups, device, proto["e2e_rounds"], proto["e2e_block"])
    return {"e2e_us": {k: stat(v) for k, v in samples.items()}, "errors": errors, "cpu": cpu}
