"""The floor model: the time below which no kernel can run on given hardware.

Memory term: every declared input read once and every declared output written once, in the
workload's dtype, over a bandwidth (the datasheet's, or a copy bandwidth measured on the same
machine). Arithmetic term, when a family declares one: flops over the datasheet peak rate.
Launch term, only where the run measured one (`launch_floor_us` on its environment: the device
time of an empty kernel on the same GPU in the same run): no kernel finishes faster than one
launch, so at decode sizes, where the memory term is a fraction of a microsecond, the floor is
that launch. The floor is the largest of the terms; each is shown separately.
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

    @property
    def us(self) -> float:
        return max(self.memory_us, self.compute_us or 0.0, self.launch_us or 0.0)

    @property
    def bound(self) -> str:
        if (self.launch_us or 0.0) > max(self.memory_us, self.compute_us or 0.0):
            return "launch"
        return "compute" if (self.compute_us or 0.0) > self.memory_us else "bandwidth"


def floor(family: Family, workload: Workload, hardware: Hardware, bandwidth_gbps: float | None = None,
          launch_us: float | None = None) -> Floor:
    """The floor on `hardware`; `bandwidth_gbps` replaces the datasheet bandwidth when given;
    `launch_us` (measured in the same run) adds the per-launch term."""
    bw = bandwidth_gbps or hardware.memory_bandwidth_gbps
    nbytes = bytes_moved(family, workload)
    nflops = flops(family, workload)
    peak = hardware.peak_tflops.get(family.arithmetic.peak) if family.arithmetic else None
    compute_us = nflops / (peak * 1e6) if (nflops and peak) else None
    return Floor(nbytes, bw, nbytes / (bw * 1e3), nflops, peak, compute_us, launch_us)
