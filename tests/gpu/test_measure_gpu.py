"""GPU tests of the timing core (site_builder/runner/measure.py), skipped without CUDA: under the
CUDA graph the device time replays, every call of a pass writes its own output memory (protocol
version 5: outputs rotate as the input sets do), and a pass's outputs are released when it ends.

    python -m pytest -q tests/gpu/test_measure_gpu.py
"""

import pytest

torch = pytest.importorskip("torch")

if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from site_builder.runner import measure as m  # noqa: E402


def _calls(n_sets, n, seen):
    """n_sets callables, each scaling its own input into a freshly allocated output (as an
    implementation that allocates its result does), noting where each output lives."""
    inputs = [torch.full((n,), float(i + 1), device="cuda") for i in range(n_sets)]

    def make(x):
        def call():
            y = torch.empty_like(x)
            torch.mul(x, 2.0, out=y)
            seen.append(y.data_ptr())  # the address only: holding y would keep it alive
            return y
        return call

    return [make(x) for x in inputs]


def test_each_call_of_a_captured_pass_writes_its_own_output():
    seen = []
    fns = _calls(6, 1 << 20, seen)  # 4 MB outputs: each one fits in the L2
    m.capture_graph(fns, passes=2)
    first, second = seen[-12:-6], seen[-6:]  # the two passes recorded into the graph
    assert len(set(first)) == 6, first  # one block per call of a pass (version 4: one block for all)
    assert len(set(second)) == 6 and set(second) == set(first)  # released at the pass's end: reused


def test_device_time_over_rotating_outputs_is_a_time():
    fns = _calls(4, 1 << 22, [])
    us, how, calls = m.device_time_cuda(fns, budget_s=0.05, max_samples=20, target_graph_us=500.0)
    assert how == "cuda-graph" and calls % 4 == 0
    assert 0 < us["median"] < 10_000, us


def _uncapturable(n):
    """A callable that reads a value back to the host mid-call (as some library kernels do):
    CUDA-graph capture of it fails, after it allocated its output in the graph's pool."""
    x = torch.ones(n, device="cuda")

    def call():
        y = x * 2.0
        if y[0].item() != 2.0:  # a device-to-host copy: not allowed while capturing
            raise AssertionError("wrong value")
        return y
    return call


def test_a_failed_capture_falls_back_to_events_and_can_be_skipped():
    fns = [_uncapturable(1 << 22) for _ in range(2)]
    us, how, _ = m.device_time_cuda(fns, budget_s=0.05, max_samples=20, target_graph_us=500.0)
    assert how.startswith("events (CUDA-graph capture failed"), how
    assert 0 < us["median"] < 10_000, us
    # told not to capture (what measure_one does for a pair whose capture failed before in the
    # process), no new graph pool is tried: the device's reserved memory stays where it was
    torch.cuda.synchronize()
    reserved = torch.cuda.memory_reserved()
    for _ in range(3):
        us, how, _ = m.device_time_cuda(fns, budget_s=0.02, max_samples=10, target_graph_us=500.0, capture=False)
        assert how == "events" and us["median"] > 0
    torch.cuda.synchronize()
    assert torch.cuda.memory_reserved() <= reserved, (torch.cuda.memory_reserved(), reserved)
