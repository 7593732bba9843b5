"""The timing core's bookkeeping of CUDA-graph captures (measure.measure_one, UNCAPTURABLE),
run on a CPU with device_time_cuda standing in for the GPU."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from site_builder.runner import measure  # noqa: E402


def test_a_kind_whose_capture_failed_is_timed_by_events_for_the_rest_of_the_process(monkeypatch):
    """A failed CUDA-graph capture keeps its memory pool in the torch builds the runner meets, so
    measure_one does not try again for the same family, implementation and kind: later workloads
    go straight to event timing and their note says why; another kind is tried again. The GPU
    side (a real failed capture, no new memory reserved when skipped) is tests/gpu/test_measure_gpu.py;
    here device_time_cuda stands in so the bookkeeping runs on a CPU."""
    asked = []

    def device_time(fns, budget_s, max_samples, target_graph_us, capture=True):
        asked.append(capture)
        how = ("events (CUDA-graph capture failed: RuntimeError: operation not permitted when stream is capturing)"
               if capture else "events")
        return measure.stat([1.0] * 10), how, 2

    monkeypatch.setattr(measure, "UNCAPTURABLE", {})
    monkeypatch.setattr(measure, "device_time_cuda", device_time)
    monkeypatch.setattr(measure, "check", lambda family, impl, case, seed, device: (
        lambda: None, {"passed": True}, [], 1000))
    monkeypatch.setattr(measure, "rotating_calls", lambda family, impl, case, job, fn, nbytes: [fn, fn])
    monkeypatch.setattr(measure, "wall_time", lambda *a, **k: measure.stat([2.0] * 10))
    family = SimpleNamespace(id="fam", notes=lambda case: None)
    impl = SimpleNamespace(id="impl", note=None, declines=lambda kind: None, destroys=())
    job = {"device": "cuda", "seed": 1, "timing_cpu": None,
           "protocol": {"budget_s": 0.1, "device_samples": 10, "target_graph_us": 100.0, "e2e_samples": 10}}
    monkeypatch.setattr(measure, "timing_cpu", lambda job, device: None)
    monkeypatch.setattr(measure, "free_cache", lambda device, slack=measure.CACHE_SLACK: 0)

    def note(case_id, kind):
        result = measure.measure_one(family, impl, SimpleNamespace(id=case_id, kind=kind), job)
        assert result["status"] == "ok", result
        return result["note"]

    first = note("w1", "forward")
    assert "device time by events (CUDA-graph capture failed: RuntimeError" in first
    second = note("w2", "forward")
    assert ("device time by events: CUDA-graph capture of this forward failed earlier in this run (at w1: "
            "CUDA-graph capture failed: RuntimeError") in second and "not tried again" in second
    note("w1", "backward")  # another kind: its own capture
    assert asked == [True, False, True]
    assert set(measure.UNCAPTURABLE) == {("fam", "impl", "forward"), ("fam", "impl", "backward")}


def test_free_cache_hands_back_a_large_idle_cache_only(monkeypatch):
    """free_cache empties the caching allocator when more than `slack` bytes are reserved but
    unallocated (fake allocator figures: this runs on a CPU), and never touches a CPU device."""
    emptied = []
    state = {"reserved": 60 << 30, "allocated": 14 << 30}
    monkeypatch.setattr(torch.cuda, "memory_reserved", lambda device=None: state["reserved"])
    monkeypatch.setattr(torch.cuda, "memory_allocated", lambda device=None: state["allocated"])
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: emptied.append(True))
    cuda = torch.device("cuda")
    assert measure.free_cache(cuda) == 46 << 30 and emptied == [True]
    state["reserved"] = state["allocated"] + (512 << 20)  # half a GiB idle: kept
    assert measure.free_cache(cuda) == 512 << 20 and emptied == [True]
    assert measure.free_cache(cuda, slack=0) == 512 << 20 and emptied == [True, True]
    assert measure.free_cache(torch.device("cpu")) == 0 and emptied == [True, True]


def test_an_out_of_memory_try_is_made_once_more_after_freeing_the_cache(monkeypatch):
    """A workload that runs out of device memory (the allocator's cache fragmented by the
    workloads before it) is measured once more after the cache is freed, and its note says so;
    a second out-of-memory stays a failure, and other failures are not retried."""
    tries, freed = [], []
    outcomes = []

    def once(family, impl, case, job):
        tries.append(case)
        return dict(outcomes.pop(0))

    def free(device, slack=measure.CACHE_SLACK):
        freed.append(slack)
        return 51 << 30

    monkeypatch.setattr(measure, "_measure_once", once)
    monkeypatch.setattr(measure, "free_cache", free)
    oom = {"status": "failed", "error": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 GiB",
           "note": None}
    ok = {"status": "ok", "error": None, "note": "3 rotating input sets"}
    job = {"device": "cuda"}
    outcomes[:] = [oom, ok]
    got = measure.measure_one(None, None, "w", job)
    assert got["status"] == "ok" and tries == ["w", "w"] and freed == [measure.CACHE_SLACK, 0]
    assert got["note"] == ("the first try ran out of device memory (51.0 GiB cached but unallocated then); "
                           "tried again after freeing the cache; 3 rotating input sets")
    outcomes[:] = [oom, oom]
    got = measure.measure_one(None, None, "w2", job)
    assert got["status"] == "failed" and "OutOfMemoryError" in got["error"] and "tried again" in got["note"]
    outcomes[:] = [{"status": "failed", "error": "wrong result", "note": None}]
    tries.clear()
    assert measure.measure_one(None, None, "w3", job)["status"] == "failed" and tries == ["w3"]
    outcomes[:] = [oom]
    tries.clear()
    assert measure.measure_one(None, None, "w4", {"device": "cpu"})["status"] == "failed" and tries == ["w4"]


def test_workers_get_expandable_segments_unless_the_caller_sets_the_allocator(monkeypatch):
    """A worker's allocator uses expandable segments (its idle cache can be handed back whatever
    tensors outlive a workload); a PYTORCH_CUDA_ALLOC_CONF of the caller's, or one given for the
    worker, is kept as it is."""
    from site_builder.runner import spawn

    monkeypatch.delenv("PYTORCH_CUDA_ALLOC_CONF", raising=False)
    env = spawn.worker_env({"CUDA_VISIBLE_DEVICES": "1"})
    assert env["PYTORCH_CUDA_ALLOC_CONF"] == "expandable_segments:True" and env["CUDA_VISIBLE_DEVICES"] == "1"
    assert env["PYTHONPATH"].split(os.pathsep)[0] == str(spawn.REPO_ROOT)
    assert spawn.worker_env({"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:512"})["PYTORCH_CUDA_ALLOC_CONF"] == \
        "max_split_size_mb:512"
    monkeypatch.setenv("PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync")
    assert spawn.worker_env()["PYTORCH_CUDA_ALLOC_CONF"] == "backend:cudaMallocAsync"
