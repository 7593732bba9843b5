"""The runner: verify and time registered kernels on the local device, write run records.

Importing this package never imports torch; only worker processes do.
"""

from .run import cuda_available, run_all, run_family

__all__ = ["cuda_available", "run_all", "run_family"]
