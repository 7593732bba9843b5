"""The timing core's bookkeeping of CUDA-graph captures (measure.measure_one, UNCAPTURABLE),
run on a CPU with device_time_cuda standing in for the GPU."""

from __future__ import annotations

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
