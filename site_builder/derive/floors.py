"""The floor model: the time below which no kernel can run on given hardware.

Memory term: every declared input read once and every declared output written once, in the
workload's dtype, over a bandwidth (the datasheet's, or a copy bandwidth measured on the same
machine). Arithmetic term, when a family declares one: flops over the datasheet peak rate.
Launch term, only where the run measured one (`launch_floor_us` on its environment: the device
time of an empty kernel on the same GPU in the same run): no kernel finishes faster than one
launch, so at decode sizes, where the memory term is a fraction of a microsecond, the floor is
that launch. The floor is the largest of the terms; each is shown separately.

Measured compute term, only where the family asks for it (`arithmetic.measured_peak:
best-in-run`) and the run reached one: the flops over the best rate any result of the same run
reached on a compute-bound workload of the family (`measured_peak`: a workload whose datasheet
floor is set by its arithmetic term). It is to the datasheet peak what the copy bandwidth is to
the datasheet bandwidth: what this machine was seen to do, not what its sheet promises.

Arithmetic intensity is flops over bytes moved (FLOP/byte); a workload is compute-bound at a
peak P and bandwidth W when its intensity exceeds the ridge point P / W.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..records.schema import DTYPE_BYTES, Family, Hardware, TensorSpec, Workload

MODEL_ID = "kr-floor-v1"


def _size(family: Family, workload: Workload, axis: str) -> int:
    sizes = workload.sizes
    return sizes[axis] if axis in sizes else family.semantics.axes[axis].value


def tensor_elements(family: Family, workload: Workload, spec: TensorSpec) -> int:
    """Elements of `spec` a call must touch: all of them, or the `touched_pct` share (rounded up)."""
    n = math.prod(_size(family, workload, a) for a in spec.shape)
    if spec.touched_pct is not None:
        n = -(-n * min(_size(family, workload, spec.touched_pct), 100) // 100)
    return n


def element_bytes(workload: Workload, spec: TensorSpec) -> int:
    return DTYPE_BYTES[workload.dtype if spec.dtype == "float" else spec.dtype]


def bytes_moved(family: Family, workload: Workload) -> int:
    inputs, outputs = family.semantics.tensors(workload.kind)
    tensors = [*inputs.values(), *outputs.values()]
    return sum(tensor_elements(family, workload, t) * element_bytes(workload, t) for t in tensors)


def flops(family: Family, workload: Workload) -> float | None:
    """The family's arithmetic term for `workload` (None when the family declares none)."""
    term = family.arithmetic
    if term is None:
        return None
    sizes = workload.sizes
    axes = family.semantics.axes
    return term.flops_per_point * math.prod(sizes[a] if a in sizes else axes[a].value for a in term.over)


@dataclass(frozen=True)
class Floor:
    bytes: int
    bandwidth_gbps: float
    memory_us: float
    flops: float | None
    peak_tflops: float | None
    compute_us: float | None
    launch_us: float | None = None  # the per-launch term, measured in the run (None: not measured)
    measured_peak_tflops: float | None = None  # best compute rate seen in the run (arithmetic.measured_peak)

    @property
    def measured_compute_us(self) -> float | None:
        """The flops at the measured peak (None without a measured peak)."""
        if self.flops and self.measured_peak_tflops:
            return self.flops / (self.measured_peak_tflops * 1e6)
        return None

    @property
    def compute_term_us(self) -> float:
        return max(self.compute_us or 0.0, self.measured_compute_us or 0.0)

    @property
    def us(self) -> float:
        return max(self.memory_us, self.compute_term_us, self.launch_us or 0.0)

    @property
    def bound(self) -> str:
        if (self.launch_us or 0.0) > max(self.memory_us, self.compute_term_us):
            return "launch"
        return "compute" if self.compute_term_us > self.memory_us else "bandwidth"

    @property
    def intensity(self) -> float | None:
        """Arithmetic intensity, FLOP per byte moved (None without an arithmetic term)."""
        return self.flops / self.bytes if (self.flops and self.bytes) else None

    @property
    def ridge(self) -> float | None:
        """The intensity (FLOP/byte) above which this floor is compute-bound: the peak in use
        (the measured one where it is lower) over the bandwidth."""
        peak = min(p for p in (self.peak_tflops, self.measured_peak_tflops) if p) if (
            self.peak_tflops or self.measured_peak_tflops) else None
        return ridge_point(peak, self.bandwidth_gbps) if peak else None


def ridge_point(peak_tflops: float, bandwidth_gbps: float) -> float:
    """FLOP per byte at which `peak_tflops` of arithmetic and `bandwidth_gbps` of memory take equal time."""
    return peak_tflops * 1e12 / (bandwidth_gbps * 1e9)


def achieved_tflops(nflops: float | None, time_us: float | None) -> float | None:
    """The rate a result reached: flops over its median time, in TFLOP/s."""
    return nflops / (time_us * 1e6) if (nflops and time_us) else None


def datasheet_peak(family: Family, workload: Workload, hardware: Hardware) -> float | None:
    """The hardware's datasheet peak for the family's arithmetic at `workload`'s dtype."""
    if family.arithmetic is None:
        return None
    return hardware.peak_tflops.get(family.arithmetic.peak_for(workload.dtype))


def floor(family: Family, workload: Workload, hardware: Hardware, bandwidth_gbps: float | None = None,
          launch_us: float | None = None, measured_peak_tflops: float | None = None) -> Floor:
    """The floor on `hardware`; `bandwidth_gbps` replaces the datasheet bandwidth when given;
    `launch_us` (measured in the same run) adds the per-launch term; `measured_peak_tflops`
    (the best rate seen in the same run, see `measured_peak`) adds the measured compute term."""
    bw = bandwidth_gbps or hardware.memory_bandwidth_gbps
    nbytes = bytes_moved(family, workload)
    nflops = flops(family, workload)
    peak = datasheet_peak(family, workload, hardware)
    compute_us = nflops / (peak * 1e6) if (nflops and peak) else None
    return Floor(nbytes, bw, nbytes / (bw * 1e3), nflops, peak, compute_us, launch_us,
                 measured_peak_tflops if nflops else None)


def measured_peak(family: Family, hardware: Hardware, timed) -> float | None:
    """The measured peak of one run (`arithmetic.measured_peak: best-in-run`): the best rate,
    TFLOP/s, among `timed` — (workload, median µs) pairs of the run's results that may rank —
    on workloads whose datasheet floor is compute-bound. A time below the datasheet floor is
    impossible and never counts. None when the family does not ask for it or no such result."""
    if family.arithmetic is None or family.arithmetic.measured_peak != "best-in-run":
        return None
    best = None
    for workload, time_us in timed:
        fl = floor(family, workload, hardware)
        if fl.bound != "compute" or not time_us or time_us < fl.us:
            continue
        rate = achieved_tflops(fl.flops, time_us)
        best = rate if best is None else max(best, rate)
    return best
