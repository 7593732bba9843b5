"""A worker subprocess with a result channel and time limits, killable as a whole group."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time

from .families import REPO_ROOT


class WorkerTimeout(Exception):
    pass


#: The CUDA caching allocator's settings in a worker unless the caller's environment sets its own:
#: expandable segments, so that the cache a workload leaves can be handed back whatever tensors
#: outlive it. Without them, on an H100 (2026-12-06, 11:25), Liger's cross entropy worker held
#: 51 GiB reserved but unallocated that torch.cuda.empty_cache could not release (segments
#: pinned by a few live tensors each) and failed at three workloads asking for 16 GiB, even when
#: tried again after emptying the cache. Kernel timings do not depend on it (it maps the same
#: device memory in 2 MB pages); the CE sweep (lab/cross_entropy/sweep.py) has run with it since
#: 2026-12-02, CUDA graphs included.
ALLOC_CONF = "expandable_segments:True"


def worker_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """A worker's environment: this process's, then `extra`, the repository on PYTHONPATH,
    unbuffered output, and PYTORCH_CUDA_ALLOC_CONF = ALLOC_CONF unless already set."""
    env = {**os.environ, **(extra or {})}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    env.setdefault("PYTHONUNBUFFERED", "1")
    env.setdefault("PYTORCH_CUDA_ALLOC_CONF", ALLOC_CONF)
    return env


class Worker:
    """`python -m site_builder.runner.worker`, fed `job` on stdin, answering JSON lines on a pipe.

    The worker starts its own session, so a kill takes its children too (e.g. torch.compile's
    compile workers); its stdout and stderr go to a temporary log whose tail explains a crash.
    """

    def __init__(self, job: dict, env: dict[str, str] | None = None):
        """`env`: variables set for this worker only (a slot's CUDA_VISIBLE_DEVICES)."""
        read_fd, write_fd = os.pipe()
        self._log = tempfile.TemporaryFile()
        env = worker_env(env)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "site_builder.runner.worker", "--fd", str(write_fd)],
                stdin=subprocess.PIPE, stdout=self._log, stderr=subprocess.STDOUT,
                pass_fds=(write_fd,), env=env, cwd=str(REPO_ROOT), start_new_session=True)
        finally:
            os.close(write_fd)
        self._fd = read_fd
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(read_fd, selectors.EVENT_READ)
        try:
            self.proc.stdin.write(json.dumps(job).encode())
            self.proc.stdin.close()
        except BrokenPipeError:
            pass

    def next_event(self, timeout: float) -> dict | None:
        """The next JSON line, None when the worker closed its channel (it exited)."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                raise WorkerTimeout()
            chunk = os.read(self._fd, 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def exit_status(self, timeout: float = 30) -> str:
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return "did not exit after closing its channel (killed)"
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
            return f"killed by signal {name}"
        return f"exit code {code}"

    def log_tail(self, chars: int = 1200) -> str:
        self._log.flush()
        size = self._log.seek(0, os.SEEK_END)
        self._log.seek(max(0, size - chars))
        return self._log.read().decode("utf-8", "replace").strip()

    def kill(self) -> None:
        """Kill the worker's process group (its own session): the worker and its children."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            if self.proc.poll() is None:
                self.proc.kill()
        self.proc.wait()

    def close(self) -> None:
        self.kill()
        self._selector.close()
        os.close(self._fd)
        self._log.close()
