"""The GPUs of this host and the CPUs each one's workers may use. No torch here: the runner's own
process lists GPUs through `nvidia-smi` and reads the CPU topology from /sys.

A refresh runs one worker process per GPU at a time (schedule.py). Each GPU gets CPUs of its
own, so that one GPU's timing loops never share a core with another's: the CPUs the kernel says
are local to the GPU's PCI device (`/sys/bus/pci/devices/<bus id>/local_cpulist`, its NUMA
node) when every GPU has such a list, else all the CPUs this process may use; within a group,
whole cores (hyper-thread siblings together, `topology/thread_siblings_list`) are dealt out in
contiguous blocks. With fewer CPUs than GPUs the GPUs share them, and the slot says so.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UserError

SYSFS = Path("/sys")
NVIDIA_SMI_FIELDS = "index,name,serial,uuid,pci.bus_id"


@dataclass(frozen=True)
class Gpu:
    """One GPU of a host as nvidia-smi lists it (index in PCI bus order)."""

    index: int
    name: str | None = None
    serial: str | None = None
    uuid: str | None = None
    bus_id: str | None = None  # e.g. 0000:18:00.0, as sysfs names PCI devices


@dataclass(frozen=True)
class Slot:
    """Where one worker at a time runs: a GPU with its CPUs, or (index None) the default device."""

    gpu: Gpu | None = None
    cpus: frozenset[int] = frozenset()  # empty: not pinned
    numa_node: int | None = None
    shared: bool = False  # the CPUs are shared with another slot (fewer CPUs than GPUs)
    host: str = ""
    key: str = ""  # unique among the slots of one refresh (host + GPU)

    @property
    def index(self) -> int | None:
        return None if self.gpu is None else self.gpu.index

    def env(self) -> dict[str, str]:
        """The environment a worker on this slot gets: only its GPU visible, in PCI bus order."""
        if self.gpu is None:
            return {}
        return {"CUDA_VISIBLE_DEVICES": str(self.gpu.index), "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}

    def label(self) -> str:
        return "the default device" if self.gpu is None else f"GPU {self.gpu.index}"

    def identity(self) -> dict:
        """The environment fields of a record measured here (schema.Environment)."""
        out: dict = {"host": self.host} if self.host else {}
        if self.gpu is not None:
            out["gpu_index"] = self.gpu.index
            if self.gpu.serial:
                out["gpu_serial"] = self.gpu.serial
            if self.gpu.uuid:
                out["gpu_uuid"] = self.gpu.uuid
        return out

    def cpu_text(self) -> str:
        if not self.cpus:
            return "not pinned"
        where = f" (NUMA node {self.numa_node})" if self.numa_node is not None else ""
        return f"CPUs {format_cpu_list(self.cpus)}{where}{', shared with another GPU' if self.shared else ''}"


def host_name() -> str:
    """This host's short name (KERNEL_RECORDS_HOST overrides it, e.g. to keep an internal name
    out of public records)."""
    name = os.environ.get("KERNEL_RECORDS_HOST") or socket.gethostname().split(".")[0] or "host"
    return name[:200]


def host_slug(name: str) -> str:
    """The host as it appears in record file names: lowercase letters, digits and dashes."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:24] or "host"


# --- GPUs -----------------------------------------------------------------------------------


def _field(value: str) -> str | None:
    value = value.strip()
    return None if not value or value.startswith("[") or value in ("N/A", "Not Supported") else value


def parse_nvidia_smi(text: str) -> list[Gpu]:
    """Rows of `nvidia-smi --query-gpu=index,name,serial,uuid,pci.bus_id --format=csv,noheader`."""
    gpus = []
    for line in text.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 5 or not parts[0].isdigit():
            continue
        bus = _field(parts[4])
        if bus:  # nvidia-smi: 00000000:18:00.0; sysfs: 0000:18:00.0
            domain, _, rest = bus.lower().partition(":")
            try:
                bus = f"{int(domain, 16):04x}:{rest}" if ":" in rest else f"0000:{bus.lower()}"
            except ValueError:
                bus = None
        gpus.append(Gpu(int(parts[0]), _field(parts[1]), _field(parts[2]), _field(parts[3]), bus))
    return gpus


def list_gpus(timeout: float = 30) -> list[Gpu] | None:
    """Every GPU nvidia-smi lists, or None where nvidia-smi is missing or fails."""
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={NVIDIA_SMI_FIELDS}", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return parse_nvidia_smi(out.stdout)


def visible(gpus: list[Gpu], cuda_visible: str | None) -> list[Gpu]:
    """The GPUs CUDA_VISIBLE_DEVICES leaves visible (indices or UUIDs; unset: all)."""
    if cuda_visible is None:
        return gpus
    out = []
    for item in filter(None, (s.strip() for s in cuda_visible.split(","))):
        match = [g for g in gpus if (item.isdigit() and g.index == int(item))
                 or (g.uuid and (g.uuid == item or g.uuid.startswith(item)))]
        if not match:
            break  # CUDA stops at the first invalid entry too
        out.extend(m for m in match if m not in out)
    return out


def parse_gpu_list(text: str) -> list[int]:
    """`--gpus 0,1,3` -> [0, 1, 3]."""
    try:
        indices = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise UserError(f"--gpus {text}: give GPU indices separated by commas, e.g. --gpus 0,1,2,3") from None
    if not indices or any(i < 0 for i in indices) or len(set(indices)) != len(indices):
        raise UserError(f"--gpus {text}: give distinct GPU indices (0 or more), e.g. --gpus 0,1,2,3")
    return indices


def choose_gpus(wanted: list[int] | None, found: list[Gpu] | None) -> list[Gpu] | None:
    """The GPUs a refresh uses: those of `--gpus`, else every visible one; None: nvidia-smi
    listed nothing (the default device alone is used)."""
    if found is None:
        if wanted:
            raise UserError("--gpus: nvidia-smi is not available here, so GPUs cannot be listed; "
                            "leave --gpus out to use the default device")
        return None
    if wanted is None:
        return found
    by_index = {g.index: g for g in found}
    unknown = [i for i in wanted if i not in by_index]
    if unknown:
        have = ", ".join(str(g.index) for g in found) or "none"
        raise UserError(f"--gpus: no visible GPU {unknown[0]} (visible: {have}) — pick among those")
    return [by_index[i] for i in wanted]


# --- CPUs -----------------------------------------------------------------------------------


def parse_cpu_list(text: str) -> set[int]:
    """The kernel's CPU list format: "0-3,8,10-11"."""
    cpus: set[int] = set()
    for part in filter(None, text.strip().split(",")):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def format_cpu_list(cpus) -> str:
    """{0, 1, 2, 5} -> "0-2,5"."""
    out, run = [], []
    for c in sorted(cpus):
        if run and c == run[-1] + 1:
            run.append(c)
            continue
        if run:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [c]
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ",".join(out)


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def local_cpus(gpu: Gpu, sysfs: Path = SYSFS) -> tuple[set[int] | None, int | None]:
    """(the CPUs local to the GPU's PCI device, its NUMA node), None where /sys does not say."""
    if not gpu.bus_id:
        return None, None
    device = sysfs / "bus" / "pci" / "devices" / gpu.bus_id
    text = _read(device / "local_cpulist")
    node_text = _read(device / "numa_node")
    node = int(node_text) if node_text and node_text.strip().lstrip("-").isdigit() else None
    try:
        cpus = parse_cpu_list(text) if text else None
    except ValueError:
        cpus = None
    return cpus or None, (node if node is not None and node >= 0 else None)


def cores(cpus: set[int], sysfs: Path = SYSFS) -> list[list[int]]:
    """`cpus` grouped into physical cores (hyper-thread siblings together), by lowest CPU."""
    seen: set[int] = set()
    out = []
    for c in sorted(cpus):
        if c in seen:
            continue
        text = _read(sysfs / "devices" / "system" / "cpu" / f"cpu{c}" / "topology" / "thread_siblings_list")
        try:
            siblings = (parse_cpu_list(text) if text else {c}) & cpus
        except ValueError:
            siblings = {c}
        siblings.add(c)
        seen |= siblings
        out.append(sorted(siblings))
    return out


def _deal(units: list[list[int]], n: int) -> list[list[int]]:
    """Split `units` (cores) into n contiguous blocks as even as can be."""
    base, extra = divmod(len(units), n)
    out, i = [], 0
    for k in range(n):
        size = base + (1 if k < extra else 0)
        out.append([c for u in units[i:i + size] for c in u])
        i += size
    return out


def allowed_cpus() -> set[int]:
    return set(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else set()


def plan_slots(gpus: list[Gpu] | None, allowed: set[int] | None = None, sysfs: Path = SYSFS,
               host: str | None = None) -> list[Slot]:
    """One slot per GPU with CPUs of its own (NUMA-local where /sys says so); one unpinned slot
    for the default device when `gpus` is None (no GPU list)."""
    host = host if host is not None else host_name()
    if gpus is None:
        return [Slot(host=host, key=host)]
    allowed = allowed_cpus() if allowed is None else set(allowed)
    local = {g.index: local_cpus(g, sysfs) for g in gpus}
    groups: dict[frozenset, list[Gpu]] = {}
    numa: dict[frozenset, int | None] = {}
    known = all(cpus and (cpus & allowed) for cpus, _ in local.values())
    if known:
        for g in gpus:
            cpus, node = local[g.index]
            key = frozenset(cpus & allowed)
            groups.setdefault(key, []).append(g)
            numa[key] = node
        keys = list(groups)
        if any(a & b for i, a in enumerate(keys) for b in keys[i + 1:]):  # overlapping lists: ignore them
            known = False
    if not known:
        groups = {frozenset(allowed): list(gpus)}
        numa = {frozenset(allowed): None}
    slots: dict[int, Slot] = {}
    for key, members in groups.items():
        units = cores(set(key), sysfs)
        if len(units) < len(members):  # fewer cores than GPUs: deal out logical CPUs
            units = [[c] for c in sorted(key)]
        shared = len(units) < len(members)
        blocks = (_deal(units, len(members)) if not shared
                  else [[units[k % len(units)][0]] if units else [] for k in range(len(members))])
        for g, block in zip(members, blocks):
            slots[g.index] = Slot(g, frozenset(block), numa[key], shared, host, f"{host}/gpu{g.index}")
    return [slots[g.index] for g in gpus]
