"""A refresh's jobs and how one is carried out on one slot (a GPU and its CPUs): the same code
runs them for the per-host scheduler (schedule.py) and inside a Ray task (cluster.py).

A job is a JSON-able dict: "measure" (one implementation over a list of workloads, a fresh
worker after every crash or hang) or "e2e" (the interleaved end-to-end pass of one family on
one host, run after all of that family's measure jobs there), plus what every worker needs
(kernels_root, family, device, seed, protocol, l2_bytes, timing_cpu). A job's failure, hang or
crash is recorded in its results and loses only that job. No torch here.
"""

from __future__ import annotations

import time
from typing import Callable

from ..errors import UserError
from .devices import Slot
from .spawn import Worker, WorkerTimeout

#: on_event(implementation or None, workload id, result or None): a workload started (result
#: None) or settled
OnEvent = Callable[[str | None, str, dict | None], None]


class Clock:
    """The run's time budget as a wall-clock deadline (comparable across the hosts of a cluster)."""

    def __init__(self, budget_s: float | None = None, deadline: float | None = None):
        self.deadline = deadline if deadline is not None else (
            None if budget_s is None else time.time() + budget_s)

    def left(self, limit: float) -> float:
        if self.deadline is None:
            return limit
        return max(0.0, min(limit, self.deadline - time.time()))

    @property
    def spent(self) -> bool:
        return self.deadline is not None and time.time() >= self.deadline

    def share(self, slots: int, jobs_left: int) -> "Clock":
        """A job's deadline within the run's: what is left split evenly over the measure jobs not
        yet started (this one included) on `slots` slots, so that a budget too small for the run
        cuts every implementation's last workloads instead of never reaching the last
        implementations (time a job leaves unused goes to the jobs after it)."""
        if self.deadline is None:
            return self
        now = time.time()
        part = max(0.0, self.deadline - now) * max(1, slots) / max(1, jobs_left, slots)
        return Clock(deadline=min(self.deadline, now + part))


def _quiet(impl, wid, result) -> None:
    pass


def crash_text(status: str, worker: Worker) -> str:
    tail = worker.log_tail()
    return f"worker process {status}" + (f"; its last output:\n{tail}" if tail else "")


def worker_job(job: dict, slot: Slot) -> dict:
    """The job as a worker on `slot` reads it: pinned to the slot's CPUs."""
    return {**job, "cpus": sorted(slot.cpus)} if slot.cpus else dict(job)


def probe(job: dict, slot: Slot, timeout: float) -> dict:
    """The probe worker's answer on `slot` (device, environment, every family's registry)."""
    worker = Worker(worker_job(job, slot), env=slot.env())
    try:
        event = worker.next_event(timeout)
        if event is None or event.get("event") != "probe":
            raise UserError(f"the probe worker on {slot.label()} failed ({worker.exit_status()}):\n{worker.log_tail()}")
        return event
    except WorkerTimeout:
        raise UserError(f"the probe worker on {slot.label()} gave no answer within {timeout:.0f} s") from None
    finally:
        worker.close()


def run_measure(job: dict, slot: Slot, timeout: float, clock: Clock, on_event: OnEvent = _quiet) -> dict:
    """Results by workload id for one implementation; a fresh worker after every crash or hang."""
    results: dict[str, dict] = {}
    impl = job["implementation"]

    def settle(wid: str, result: dict) -> None:
        results[wid] = result
        on_event(impl, wid, result)

    remaining = list(job["workloads"])
    while remaining:
        if clock.spent:
            for w in remaining:
                settle(w["id"], {"status": "not-run", "error": "not run: the run's time budget was spent"
                                  " (each implementation gets an even share of it)"})
            break
        worker = Worker(worker_job({**job, "kind": "measure", "workloads": remaining}, slot), env=slot.env())
        current, produced = None, 0
        try:
            while True:
                event = worker.next_event(clock.left(timeout))
                if event is None:  # the worker exited
                    status = worker.exit_status()
                    if current is not None:
                        settle(current, {"status": "crashed", "error": crash_text(status, worker)})
                    elif produced == 0:  # died before its first workload: nothing would run
                        for w in remaining:
                            settle(w["id"], {"status": "crashed", "error": crash_text(status, worker)})
                    break
                if event["event"] == "start":
                    current = event["workload"]
                    on_event(impl, current, None)
                elif event["event"] == "result":
                    settle(event["workload"], event["result"])
                    current, produced = None, produced + 1
        except WorkerTimeout:
            worker.kill()
            budget = clock.spent  # the budget ended, not the time limit: nothing is known of the code
            why = ("the run's time budget was spent" if budget
                   else f"no result within the time limit of {timeout:.0f} s")
            status = "not-run" if budget else "timeout"
            if current is not None:
                settle(current, {"status": status, "error": f"killed: {why}"})
            elif produced == 0:
                for w in remaining:
                    settle(w["id"], {"status": status, "error": f"killed before its first workload: {why}"})
        finally:
            worker.close()
        remaining = [w for w in remaining if w["id"] not in results]
    return results


def run_e2e(job: dict, slot: Slot, timeout: float, clock: Clock, on_event: OnEvent = _quiet) -> dict:
    """The interleaved end-to-end pass (worker.measure_e2e) over the job's workloads, each with
    its implementations (`implementations_by_workload`). Returns {"results": {workload id:
    {"e2e_us": {impl: stat}, "errors": {...}, "cpu": ...}}, "messages": [...]}; a workload
    whose pass fails (crash, hang, the budget) is left out: its implementations keep the
    figures their own workers took."""
    done: dict[str, dict] = {}
    messages: list[str] = []
    remaining = list(job["workloads"])
    while remaining and not clock.spent:
        worker = Worker(worker_job({**job, "kind": "e2e", "workloads": remaining}, slot), env=slot.env())
        ended: set[str] = set()
        current = None
        try:
            while True:
                event = worker.next_event(clock.left(timeout))
                if event is None:
                    if current is not None:
                        messages.append(f"end-to-end pass on {current}: worker {worker.exit_status()}; "
                                        "its implementations keep their own end-to-end times")
                        ended.add(current)
                    break
                if event["event"] == "start":
                    current = event["workload"]
                    on_event(None, current, None)
                elif event["event"] == "result":
                    done[event["workload"]] = event["result"]
                    for impl_id, error in event["result"].get("errors", {}).items():
                        messages.append(f"end-to-end pass, {impl_id} on {event['workload']}: {error[:300]}; "
                                        "it keeps its own end-to-end times")
                    ended.add(event["workload"])
                    on_event(None, event["workload"], event["result"])
                    current = None
        except WorkerTimeout:
            worker.kill()
            if current is not None:
                messages.append(f"end-to-end pass on {current}: no result within the time limit; "
                                "its implementations keep their own end-to-end times")
                ended.add(current)
        finally:
            worker.close()
        if not ended:  # died before its first workload: it would again
            break
        remaining = [w for w in remaining if w["id"] not in ended]
    return {"results": done, "messages": messages}


def execute(job: dict, slot: Slot, timeout: float, clock: Clock, on_event: OnEvent = _quiet) -> dict:
    """Carry out one job on `slot`: {"results": ...} (measure: by workload id; e2e: as run_e2e)."""
    if job["kind"] == "e2e":
        return run_e2e(job, slot, timeout, clock, on_event)
    return {"results": run_measure(job, slot, timeout, clock, on_event), "messages": []}


def e2e_job(base: dict, family_id: str, hardware: str, workloads: list[dict], found_by_impl: dict,
            job_id: str) -> dict | None:
    """The interleaved end-to-end job for the workloads with two or more ok results, or None."""
    todo = {}
    for w in workloads:
        ok = [i for i, found in found_by_impl.items() if found.get(w["id"], {}).get("status") == "ok"]
        if len(ok) >= 2:
            todo[w["id"]] = ok
    chosen = [w for w in workloads if w["id"] in todo]
    if not chosen:
        return None
    return {**base, "id": job_id, "kind": "e2e", "family": family_id, "hardware": hardware,
            "workloads": chosen, "implementations_by_workload": todo,
            "cost": 0.1 * sum(len(v) for v in todo.values())}


def apply_e2e(found_by_impl: dict, wid: str, result: dict, where: str = "") -> None:
    """Give each implementation of `wid` its interleaved end-to-end figure, with a note."""
    times = result["e2e_us"]
    if len(times) < 2:  # nothing to interleave with: keep the figures of the main pass
        return
    where = where + (f" on CPU {result['cpu']}" if result.get("cpu") is not None else "")
    others = len(times) - 1
    note = f"end-to-end interleaved with {others} other implementation{'s' if others > 1 else ''}{where}"
    for impl_id, stat in times.items():
        found = found_by_impl[impl_id][wid]
        found["e2e_us"] = stat
        found["note"] = "; ".join(n for n in (found.get("note"), note) if n)[:1000]
