"""The runner's protocol: what run records say about how they were measured, and the
settings the timing core (measure.py) measures with. No torch here: the runner's own process,
the bench and the site read it.
"""

from __future__ import annotations

SEED = 1234
#: How the timing core (measure.py) measures, as settings: cold_factor × the L2 is what one
#: pass over the rotating input sets must exceed; device_samples and e2e_samples within
#: budget_s seconds; a CUDA graph of about target_graph_us; the interleaved end-to-end pass
#: takes e2e_rounds rounds of e2e_block calls per implementation.
GPU_SETTINGS = {"cold_factor": 3.0, "max_sets": 8192, "budget_s": 0.2, "device_samples": 100,
                "e2e_samples": 300, "target_graph_us": 2000.0, "e2e_rounds": 10, "e2e_block": 30}
CPU_SETTINGS = {"cold_factor": 0.0, "max_sets": 1, "budget_s": 0.05, "device_samples": 30,
                "e2e_samples": 30, "target_graph_us": 0.0, "e2e_rounds": 3, "e2e_block": 10}
COPY_BYTES = {"cuda": 2**31, "cpu": 2**26}

GPU_PROTOCOL = {
    "id": "kr-device-cold-l2", "version": 5, "clock": "device", "l2": "cold", "timing": "cuda-graph",
    "statistic": "median", "quantiles": [0.2, 0.8],
    "description": (
        "Outputs checked first against a float64 reference (outputs poisoned with NaN, inputs "
        "unmodified, no aliasing). Device time: each sample replays a CUDA graph of calls over "
        "rotating input sets that together exceed 3× the L2 (cold L2), each call writing its own "
        "outputs (a pass keeps them all, so outputs rotate as the inputs do), after warm-up; the time "
        "per call is the replay time over the calls; median, p20, p80, min, max over samples. "
        "End-to-end: wall time of one Python call followed by a device synchronize, taken "
        "after every implementation's device times, in one process that holds all of a "
        "workload's implementations and times them in turn, 30 calls each, for 10 rounds "
        "(a busy host then weighs on all alike). Timing loops run pinned to one CPU: the "
        "allowed CPU that ran a short calibration loop fastest just before (the result's note "
        "names it), or the one given by --timing-cpu (environment.timing_cpu)."),
}
CPU_PROTOCOL = {
    "id": "kr-cpu-wall", "version": 2, "clock": "device", "l2": "warm", "timing": "cpu-wall",
    "statistic": "median", "quantiles": [0.2, 0.8],
    "description": ("CPU mode (tests, no GPU): wall time per Python call; same correctness gate; "
                    "end-to-end re-timed with a workload's implementations in turn, as on a GPU."),
}
#: How the worker measures; recorded as the protocol's version 4. Version 1: the timing loops
#: on whichever CPU the scheduler chose, end-to-end timed in each implementation's own worker;
#: 2: on one CPU per run, calibrated at its start; 3: on the CPU fastest just before each
#: workload. Under 1-3 the end-to-end medians of one implementation still jumped by half from one
#: workload to the next while its neighbours' did not (the first family's lab NOTES.md): a busy
#: host for seconds at a time, which only timing the implementations in turn removes (version 4).
#: Version 5: each call of a pass keeps its outputs until the pass ends (measure.one_pass), so every
#: call writes its own memory. Under 1-4 a call's output was freed before the next call, which got
#: the same block back: an output that fits in the L2 stayed there from call to call, and one H100
#: result came out under its floor (lab/device-2026-12-06/a/README.md).


def settings_for(device: str) -> dict:
    return GPU_SETTINGS if device == "cuda" else CPU_SETTINGS


def protocol_for(device: str) -> dict:
    return GPU_PROTOCOL if device == "cuda" else CPU_PROTOCOL
