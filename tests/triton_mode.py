"""Test files whose kernels need Triton in one mode: interpreted on the CPU (TRITON_INTERPRET=1,
set before triton is first imported) or compiled for the GPU. Triton reads that variable once,
at import: when another test file already imported it in the other mode, a file's tests are
skipped in this process and one test runs the whole file again in a fresh process, which must
pass. Each such file starts with

    ELSEWHERE, test_cpu_suite_in_fresh_process, _only_here = triton_in_mode(__file__, interpreted=True, timeout=900)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def triton_in_mode(file: str, *, interpreted: bool, timeout: int, pytest_args: tuple = ()):
    """(elsewhere, the fresh-process test, an autouse fixture that skips the file's other tests
    when they run elsewhere). Skips the module when triton is not installed. `pytest_args` go to
    the fresh process's pytest (e.g. ("-s",) to keep what the tests print)."""
    if interpreted:
        os.environ["TRITON_INTERPRET"] = "1"
    triton = pytest.importorskip("triton")
    in_interpreter = type(triton.language.standard.sum).__name__ == "InterpretedFunction"
    elsewhere = in_interpreter != interpreted
    if not interpreted and os.environ.get("TRITON_INTERPRET") == "1":
        # triton was imported compiled, but a file collected since asked for the interpreter:
        # kernels decorated from now on in this process would be interpreted
        elsewhere = True
    name = "test_cpu_suite_in_fresh_process" if interpreted else "test_gpu_suite_in_fresh_process"
    mode = "interpreted" if interpreted else "compiled"

    def fresh_process():
        if not elsewhere:
            pytest.skip(f"Triton is {mode} in this process: the tests of this file run here")
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        if interpreted:
            env["TRITON_INTERPRET"] = "1"
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", *pytest_args, "-p", "no:cacheprovider", file],
                           env=env, cwd=str(ROOT), capture_output=True, text=True, timeout=timeout)
        assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]

    fresh_process.__name__ = name

    @pytest.fixture(autouse=True)
    def only_here(request):
        if elsewhere and request.node.name != name:
            pytest.skip(f"run by {name}")

    return elsewhere, fresh_process, only_here


def compile_script(script: str, timeout: int = 600) -> str:
    """Run `script` (Python that compiles kernels with Triton's real front end, passes and ptxas
    for a GPU target, no GPU needed) in a fresh process without TRITON_INTERPRET; its stdout.
    Skips when this Triton install has no ptxas; fails with the script's stderr otherwise."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    p = subprocess.run([sys.executable, "-c", script], cwd=str(ROOT), env=env, capture_output=True, text=True,
                       timeout=timeout)
    if p.returncode != 0 and ("ptxas" in p.stderr and "not found" in p.stderr):
        pytest.skip("no ptxas with this Triton install")
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout
