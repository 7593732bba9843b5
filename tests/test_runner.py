"""The runner end to end on the CPU: spawn, verify, time, write a record, load and render it;
misbehaving implementations of a fixture family are recorded while the others' results are kept."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import CPU_HARDWARE, REPO, TOY_KERNELS, results_by_key, write

pytest.importorskip("torch")

from site_builder.cli import main  # noqa: E402
from site_builder.errors import UserError  # noqa: E402
from site_builder.records.load import load_catalog  # noqa: E402
from site_builder.runner import run_all  # noqa: E402


def run_files(records: Path) -> list[Path]:
    return sorted((records / "runs").rglob("*"))


def test_misbehaving_implementations_are_recorded_and_the_others_kept(toy_records):
    impls = ["toy-good", "toy-abort", "toy-segv", "toy-hang", "toy-wrong", "toy-unwritten", "toy-mutate",
             "toy-alias", "toy-missing", "toy-unsupported"]
    [path] = run_all(toy_records, family="toy-scale", implementations=impls, timeout=8, device="cpu",
                     kernels_root=TOY_KERNELS)
    assert path.parent == toy_records / "runs" / "toy-scale" / "cpu"
    results = results_by_key(path)
    status = {key: r["status"] for key, r in results.items()}
    workloads = ["r1-h8", "r2-h8", "r3-h16"]
    for w in workloads:
        good = results[("toy-good", w)]
        assert good["status"] == "ok" and good["correctness"]["passed"] is True
        assert good["device_us"]["median"] > 0 and good["e2e_us"]["samples"] >= 10
        assert 0 <= good["runner_s"] < 60  # the worker's seconds on it, for --plan's estimates
        assert status[("toy-abort", w)] == "crashed"
        assert "SIGABRT" in results[("toy-abort", w)]["error"]
        assert status[("toy-wrong", w)] == "failed"
        assert "outside tolerance" in results[("toy-wrong", w)]["error"]
        assert results[("toy-wrong", w)]["correctness"]["passed"] is False
        assert "non-finite" in results[("toy-unwritten", w)]["error"]
        assert "input x was modified" in results[("toy-mutate", w)]["error"]
        assert "output y aliases input x" in results[("toy-alias", w)]["error"]
        assert status[("toy-missing", w)] == "not-installed"
        assert "kr_no_such_module_for_tests" in results[("toy-missing", w)]["error"]
        assert status[("toy-unsupported", w)] == "unsupported"
    # A crash or a hang on one workload loses only that workload: a fresh worker runs the rest.
    assert [status[("toy-segv", w)] for w in workloads] == ["ok", "ok", "crashed"]
    assert "SIGSEGV" in results[("toy-segv", "r3-h16")]["error"]
    assert [status[("toy-hang", w)] for w in workloads] == ["ok", "timeout", "ok"]
    assert "time limit of 8 s" in results[("toy-hang", "r2-h8")]["error"]
    catalog = load_catalog(toy_records)  # the written record is valid
    [loaded] = catalog.runs
    assert loaded.run.trust == "measured" and loaded.run.protocol.timing == "cpu-wall"
    assert loaded.run.environment.copy_bandwidth_gbps > 0
    assert all(len(r.kernel_sha) == 16 for r in loaded.run.results)


def test_unregistered_implementation_is_an_error(toy_records):
    with pytest.raises(UserError, match="'toy-unregistered' has no registered code for toy-scale"):
        run_all(toy_records, family="toy-scale", implementations=["toy-unregistered"], device="cpu",
                kernels_root=TOY_KERNELS)
    assert not [p for p in run_files(toy_records) if p.suffix == ".yaml"]


def test_unknown_workload_is_an_error(toy_records):
    with pytest.raises(UserError, match="unknown workload 'r9-h9'"):
        run_all(toy_records, family="toy-scale", implementations=["toy-good"], workloads=["r9-h9"],
                device="cpu", kernels_root=TOY_KERNELS)


def test_the_run_budget_records_what_was_not_reached(toy_records):
    [path] = run_all(toy_records, family="toy-scale", implementations=["toy-hang", "toy-good"],
                     workloads=["r2-h8"], timeout=60, budget_s=6, device="cpu", kernels_root=TOY_KERNELS)
    results = results_by_key(path)
    # killed when its share of the budget ended, before its own time limit: not run, not failed
    assert results[("toy-hang", "r2-h8")]["status"] == "not-run"
    assert "budget" in results[("toy-hang", "r2-h8")]["error"]
    # the hang takes its share of the budget, not all of it: the other implementation still runs
    assert results[("toy-good", "r2-h8")]["status"] == "ok"


def test_a_spent_budget_records_not_run(toy_records):
    [path] = run_all(toy_records, family="toy-scale", implementations=["toy-hang", "toy-good"],
                     workloads=["r2-h8"], timeout=60, budget_s=1, device="cpu", kernels_root=TOY_KERNELS)
    results = results_by_key(path)
    assert {r["status"] for r in results.values()} == {"not-run"}  # nothing lost: each is recorded
    assert all("budget was spent" in r["error"] for r in results.values())


def test_budget_shares_split_what_is_left_over_the_jobs_not_started():
    from site_builder.runner.jobs import Clock

    clock = Clock(budget_s=100)
    one = clock.share(slots=1, jobs_left=4)
    assert 24 <= one.deadline - clock.deadline + 100 <= 25.5  # a quarter of what is left
    assert clock.share(slots=2, jobs_left=4).deadline <= clock.deadline
    assert abs(clock.share(slots=2, jobs_left=4).deadline - (clock.deadline - 50)) < 1.5  # two slots: half each
    assert abs(clock.share(slots=1, jobs_left=1).deadline - clock.deadline) < 1e-6  # the last job: all
    assert Clock().share(slots=1, jobs_left=3).deadline is None  # no budget, no share


def test_real_family_end_to_end_on_cpu(records_copy, tmp_path):
    """The committed fused-add-rmsnorm records plus a CPU hardware record: run the CPU-capable
    implementations, then load and render the site with the new record in it."""
    from site_builder.build import render_site

    write(records_copy, "hardware/cpu.yaml", CPU_HARDWARE)
    workloads = ["r16-h4096-bf16", "r2048-h1024-fp32"]
    [path] = run_all(records_copy, family="fused-add-rmsnorm", workloads=workloads, timeout=300,
                     device="cpu", implementations=["transformers", "torch-rms-norm", "kr-triton"])
    results = results_by_key(path)
    for impl in ("transformers", "torch-rms-norm"):
        for w in workloads:
            r = results[(impl, w)]
            assert r["status"] == "ok", r
            assert r["correctness"]["passed"] and r["correctness"]["max_rel_error"] < 1e-2
    assert results[("kr-triton", "r16-h4096-bf16")]["status"] == "unsupported"
    files, _ = render_site(records_copy)
    run_pages = [p for p in files if p.startswith("runs/") and path.stem in p and p.endswith(".html")]
    assert run_pages, sorted(files)[:20]
    assert b"torch-rms-norm" in files[run_pages[0]]


def test_cli_run_writes_a_record(toy_records):
    result = CliRunner().invoke(main, ["run", "--records", str(toy_records), "--family", "toy-scale",
                                       "--implementation", "toy-good", "--device", "cpu", "--kernels", str(TOY_KERNELS)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    written = Path(result.output.strip().splitlines()[-1])
    assert written.is_file() and written.suffix == ".yaml"


def _ctrl_c_on() -> None:
    """In a test's child before exec: SIGINT back to its default, so that Python installs its
    Ctrl-C handler even where the tests run under a shell that started them in the background
    (which leaves SIGINT ignored, and an ignored SIGINT is inherited)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_interrupted_run_leaves_no_file(toy_records):
    proc = subprocess.Popen([sys.executable, "-m", "site_builder.runner", "--records", str(toy_records),
                             "--family", "toy-scale", "--implementation", "toy-hang", "--device", "cpu",
                             "--timeout", "120", "--kernels", str(TOY_KERNELS)],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=_ctrl_c_on)
    time.sleep(8)  # its first workload is done and its second hangs
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    assert proc.returncode != 0
    assert not [p for p in run_files(toy_records) if p.name != ".gitkeep"]


def test_a_ctrl_c_handed_to_another_thread_still_stops_the_wait():
    """Linux may hand a Ctrl-C to any thread; Python then only sets a flag for the main thread.
    The runner's waits on its slot and probe threads (schedule.join_all) still end within a
    moment, not when the thread does (a hung job: its whole time limit). In a subprocess: the
    SIGINT goes to a sleeping thread with pthread_kill."""
    code = """
import signal, sys, threading, time
from site_builder.runner.schedule import join_all
sleeper = threading.Thread(target=time.sleep, args=(20,), daemon=True)
sleeper.start()
threading.Timer(0.3, lambda: signal.pthread_kill(sleeper.ident, signal.SIGINT)).start()
t0 = time.monotonic()
try:
    join_all([sleeper])
except KeyboardInterrupt:
    print(f"interrupted after {time.monotonic() - t0:.1f} s")
    sys.exit(0)
sys.exit(f"not interrupted: the wait ended with the thread, after {time.monotonic() - t0:.1f} s")
"""
    t0 = time.monotonic()
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60,
                         preexec_fn=_ctrl_c_on)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "interrupted after" in out.stdout
    assert time.monotonic() - t0 < 15


def test_runner_and_cli_do_not_import_torch():
    code = ("import sys, site_builder.cli, site_builder.runner, site_builder.runner.run; "
            "import site_builder.runner.family, site_builder.runner.protocol, site_builder.runner.commands, "
            "site_builder.runner.bench, site_builder.runner.scaffold_kernels; "
            "assert 'torch' not in sys.modules; assert 'kernels' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_a_timing_cpu_this_process_may_not_use_is_refused_before_anything_runs(toy_records):
    result = CliRunner().invoke(main, ["run", "--records", str(toy_records), "--family", "toy-scale",
                                       "--device", "cpu", "--kernels", str(TOY_KERNELS), "--timing-cpu", "100000"])
    assert result.exit_code != 0
    assert "--timing-cpu 100000: this process may run only on CPUs" in result.output
    assert "leave the option out" in result.output
    assert not [p for p in run_files(toy_records) if p.name != ".gitkeep"]


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="CPU affinity is Linux-only")
def test_timing_loops_are_pinned_to_one_cpu_and_the_affinity_comes_back():
    from site_builder.runner import measure as m

    before = os.sched_getaffinity(0)
    cpu = m.pick_timing_cpu(reps=2)
    assert cpu in before
    assert os.sched_getaffinity(0) == before
    with m.pinned(cpu):
        assert os.sched_getaffinity(0) == {cpu}
    assert os.sched_getaffinity(0) == before
    with m.pinned(None):
        assert os.sched_getaffinity(0) == before
    assert m.parse_cpu_list("0-2,5,7-8\n") == {0, 1, 2, 5, 7, 8}
    assert m.parse_cpu_list("\n") == set()


def test_rotating_input_sets_stop_at_the_calls_a_loop_makes():
    """GPU runs rotate enough input sets to exceed 3x the L2; the interleaved end-to-end pass
    builds no more sets than its rounds x block calls, and calls each one once, in turn."""
    from types import SimpleNamespace

    import torch

    from site_builder.runner import measure as m
    from site_builder.runner.measure import rotating_calls

    made, called = [], []

    def factory(inputs, case):
        made.append(inputs["seed"])
        return lambda: called.append(inputs["seed"])

    family = SimpleNamespace(make_inputs=lambda case, seed, device: {"seed": seed})
    impl = SimpleNamespace(factory=factory)
    job = {"device": "cuda", "seed": 100, "l2_bytes": 10**6, "protocol": {"cold_factor": 3.0, "max_sets": 1000}}
    fn = factory({"seed": 100}, None)
    assert len(rotating_calls(family, impl, None, job, fn, set_bytes=10**4)) == 301  # 3 MB / 10 kB + 1
    made.clear()
    fns = rotating_calls(family, impl, None, job, fn, set_bytes=10**4, at_most=2 * 5)
    assert len(fns) == 10 and made == list(range(101, 110))
    assert len(rotating_calls(family, impl, None, job, fn, set_bytes=10**6, at_most=10)) == 4  # fewer needed
    samples = m.wall_time_interleaved({"a": fns}, torch.device("cpu"), rounds=2, block=5)
    assert len(samples["a"]) == 10 and called[3:] == list(range(100, 110))  # after 3 warm-up calls


def test_a_pass_keeps_every_calls_outputs_until_it_ends():
    """Protocol version 5: within a pass each call writes its own memory. A call's output is
    still alive when the next call runs (so an allocator cannot hand its block back), and all of
    them are dropped when the pass ends."""
    import gc
    import weakref

    from site_builder.runner.measure import one_pass

    class Out:  # stands for an output tensor: weak-referenceable, counted while alive
        pass

    alive, seen_alive = [], []

    def call():
        seen_alive.append(sum(r() is not None for r in alive))
        out = Out()
        alive.append(weakref.ref(out))
        return out

    assert one_pass([call] * 5) == 5
    assert seen_alive == [0, 1, 2, 3, 4]  # every earlier output of the pass still held
    gc.collect()
    assert all(r() is None for r in alive)  # and none kept after it


def test_end_to_end_is_retimed_with_the_implementations_in_turn(toy_records):
    """Every workload with two or more ok results gets its end-to-end figures from one process
    that times its implementations in turn (CPU mode: 3 rounds of 10 calls each)."""
    [path] = run_all(toy_records, family="toy-scale", implementations=["toy-good", "toy-segv", "toy-wrong"],
                     timeout=30, device="cpu", kernels_root=TOY_KERNELS)
    results = results_by_key(path)
    for w in ("r1-h8", "r2-h8"):  # toy-good and toy-segv ok; toy-wrong failed, not timed
        for impl in ("toy-good", "toy-segv"):
            r = results[(impl, w)]
            assert "end-to-end interleaved with 1 other implementation" in r["note"], r
            assert r["e2e_us"]["samples"] == 30
        assert "e2e_us" not in results[("toy-wrong", w)]
    # r3-h16: toy-segv crashed there, toy-good alone keeps the figure of its own worker
    alone = results[("toy-good", "r3-h16")]
    assert "interleaved" not in (alone.get("note") or "") and alone["e2e_us"]["samples"] >= 10
    assert load_catalog(toy_records).runs[0].run.protocol.version == 2


def test_a_crash_in_the_interleaved_pass_loses_nothing(toy_records):
    """toy-lonely is right in its own worker and crashes beside toy-good: every workload keeps
    the end-to-end figures of the main pass, and the run completes."""
    [path] = run_all(toy_records, family="toy-scale", implementations=["toy-good", "toy-lonely"],
                     timeout=30, device="cpu", kernels_root=TOY_KERNELS)
    results = results_by_key(path)
    for w in ("r1-h8", "r2-h8", "r3-h16"):
        for impl in ("toy-good", "toy-lonely"):
            r = results[(impl, w)]
            assert r["status"] == "ok" and r["e2e_us"]["samples"] >= 10, r
            assert "interleaved" not in (r.get("note") or "")
