"""The gemm pointer kernels' alignment hints reach the machine code: kernels/gemm/kr_triton_kernels.py
compiled for sm_90 on the CPU (no GPU needed: Triton's own ptxas), with K and the row strides
multiples of 8 bf16 elements but not of 16 (K = 4008), which Triton alone cannot prove. With
VEC_AB = 8 the loads are 16-byte cp.async; without, 2-byte ld.global. Also: the TMA split-K
fits in the H200's shared memory. lab/gemm/ptx_check.py prints the full table.

Triton must be compiled, not interpreted, in this process (tests/triton_mode.py).
"""

import sys
from pathlib import Path

import pytest
from triton_mode import triton_in_mode

_IN_SUBPROCESS, test_gpu_suite_in_fresh_process, _only_subprocess_runner_here = triton_in_mode(
    __file__, interpreted=False, timeout=600)

ROOT = Path(__file__).resolve().parents[1]
H200_SHARED = 232448


@pytest.fixture(scope="module")
def ptx():
    if _IN_SUBPROCESS:  # a module fixture is set up before the autouse skip: nothing to import here
        pytest.skip("run by test_gpu_suite_in_fresh_process")
    try:
        from triton.backends.compiler import GPUTarget  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"triton without the NVIDIA backend: {exc}")
    sys.path.insert(0, str(ROOT / "lab" / "gemm"))
    import ptx_check

    return ptx_check


def _count(kernel, pattern):
    import re

    return len(re.findall(pattern, kernel.asm["ptx"]))


def test_split_k_hint_makes_the_loads_16_bytes(ptx):
    plain, hinted = ptx.split_k(1, False), ptx.split_k(8, False)
    wide = r"cp\.async\.cg\.shared\.global[^;]*\], 0x10\b"
    assert _count(plain, wide) == 0 and _count(plain, r"ld\.global\.b16") > 0
    assert _count(hinted, wide) > 0 and _count(hinted, r"ld\.global\.b16") == 0


def test_tiles_hint_makes_loads_and_stores_16_bytes(ptx):
    hinted = ptx.tiles(8, 8)
    assert _count(hinted, r"cp\.async\.cg\.shared\.global[^;]*\], 0x10\b") > 0
    assert _count(hinted, r"ld\.global\.b16") == 0 and _count(hinted, r"st\.global\.v4") > 0


def test_tma_split_k_fits_in_shared_memory(ptx):
    k = ptx.tma(3, 128, 256, 8, 3)
    assert k.metadata.shared <= H200_SHARED and _count(k, r"st\.global\.v4") > 0
