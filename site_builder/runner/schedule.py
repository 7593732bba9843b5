"""The per-host scheduler: a refresh's jobs over the slots of one host, one worker per slot at a
time, longest job first.

`plan_jobs` cuts each family × implementation into jobs (split into chunks of workloads when
there are too few jobs to keep every slot busy); `run_jobs` runs them with one thread per slot,
each taking the longest ready job its hardware can run, and calls `on_done`, which may add jobs
(the interleaved end-to-end pass of a family, once its measure jobs are done). A thread only
waits on its worker process (spawn.py), so a crash or a hang in one job stops nothing else.
"""

from __future__ import annotations

import threading
import traceback
from typing import Callable

from .devices import Slot


def split(workloads: list, parts: int) -> list[list]:
    """`workloads` in `parts` contiguous chunks as even as can be."""
    base, extra = divmod(len(workloads), parts)
    out, i = [], 0
    for k in range(parts):
        size = base + (1 if k < extra else 0)
        out.append(workloads[i:i + size])
        i += size
    return [c for c in out if c]


def plan_jobs(units: list[dict], n_slots: int, min_chunk: int = 4) -> list[dict]:
    """Measure jobs from units (one per family × implementation × hardware, each with its
    "workloads"): the unit whole, or, while there are fewer than two jobs per slot, the largest
    halved as long as each half keeps `min_chunk` workloads or more. Cost: the workload count."""
    jobs = [dict(u, cost=float(len(u["workloads"]))) for u in units]
    while len(jobs) < 2 * n_slots:
        big = max(jobs, key=lambda j: j["cost"], default=None)
        if big is None or len(big["workloads"]) < 2 * min_chunk:
            break
        jobs.remove(big)
        jobs.extend(dict(big, workloads=c, cost=float(len(c))) for c in split(big["workloads"], 2))
    for n, job in enumerate(jobs):
        job["id"] = f"{job['family']}/{job['implementation']}/{job['hardware']}/{n}"
    return sorted(jobs, key=lambda j: -j["cost"])


#: seconds between the main thread's checks for a Ctrl-C while it waits on the slots' threads
_JOIN_POLL_S = 0.2


def run_jobs(slots: list[Slot], jobs: list[dict], execute: Callable[[dict, Slot], dict],
             on_done: Callable[[dict, Slot, dict], list[dict]], hardware_of: Callable[[Slot], str]) -> None:
    """Run `jobs` over `slots`, one at a time per slot, the longest ready one that the slot's
    hardware can run first; `execute(job, slot)` returns the job's outcome, `on_done(job, slot,
    outcome)` new jobs. An exception in `execute` becomes the outcome {"error": text}."""
    lock = threading.Condition()
    pending = list(jobs)
    running = [0]

    def take(slot: Slot) -> dict | None:
        with lock:
            while True:
                mine = [j for j in pending if j["hardware"] == hardware_of(slot)
                        and (j.get("host") in (None, slot.host))]
                if mine:
                    job = max(mine, key=lambda j: j["cost"])
                    pending.remove(job)
                    running[0] += 1
                    return job
                if running[0] == 0:  # nothing runs that could add jobs for this slot
                    lock.notify_all()
                    return None
                lock.wait()

    def loop(slot: Slot) -> None:
        while (job := take(slot)) is not None:
            try:
                outcome = execute(job, slot)
            except Exception:  # noqa: BLE001 - a bug in one job's bookkeeping loses that job alone
                outcome = {"error": traceback.format_exc(limit=5)}
            more: list = []
            try:
                more = on_done(job, slot, outcome) or []
            finally:
                with lock:
                    pending.extend(more if isinstance(more, list) else [])
                    running[0] -= 1
                    lock.notify_all()

    threads = [threading.Thread(target=loop, args=(s,), name=f"slot-{s.key}", daemon=True) for s in slots]
    for t in threads:
        t.start()
    join_all(threads)


def join_all(threads: list[threading.Thread]) -> None:
    """Wait for `threads` in short waits. Linux may hand a Ctrl-C to any thread of the process;
    Python then only sets a flag for the main thread, which a join without a timeout sleeps
    through until the thread ends (a hung job: its whole time limit)."""
    for t in threads:
        while t.is_alive():
            t.join(_JOIN_POLL_S)
