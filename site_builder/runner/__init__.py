"""The runner: verify and time registered kernels on the local device, write run records.

Importing this package never imports torch; only worker processes do.
"""

from pathlib import Path

from ..errors import UserError
from .run import cuda_available, run_family, run_here


def run_all(records: Path = Path("records"), *, ray_address: str | None = None, **options) -> list[Path]:
    """`run_here` (every GPU of this host, or `gpus`), or with `ray_address` the same jobs on the
    GPUs of that Ray cluster (cluster.py). Returns the paths of the new run records."""
    if ray_address is None:
        return run_here(records, **options)
    if options.get("gpus") or options.get("devices") or options.get("timing_cpu") is not None:
        raise UserError("--ray runs on every GPU of the cluster, each node pinning its own CPUs: "
                        "leave out --gpus and --timing-cpu")
    from .cluster import run_cluster

    keep = ("family", "implementations", "workloads", "timeout", "device", "budget_s", "kernels_root", "console",
            "missing", "retry_failed")
    return run_cluster(ray_address, records, **{k: v for k, v in options.items() if k in keep})


__all__ = ["cuda_available", "run_all", "run_family", "run_here"]
