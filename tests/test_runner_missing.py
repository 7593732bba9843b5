"""`kernel-records run --missing` and `--plan`: the pairs with a current result in the run
records are skipped, the plan is printed without measuring, on fixture records written here."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from conftest import TOY_KERNELS, results_by_key, write

from site_builder.cli import main
from site_builder.records.kernel_hash import registered, sha_of
from site_builder.records.load import load_catalog
from site_builder.runner import missing as m
from site_builder.runner import plan as plan_mod
from site_builder.runner import record as rec
from site_builder.runner.protocol import CPU_PROTOCOL, GPU_PROTOCOL

SHA = sha_of(registered(TOY_KERNELS, "toy-scale")["toy-good"].sources)  # the toy module's current hash
OLD = "0123456789abcdef"  # a hash of code that changed since
WORKLOADS = ["r1-h8", "r2-h8", "r3-h16"]


def write_run(records: Path, results: list[tuple], *, observed: str, protocol: dict = CPU_PROTOCOL,
              packages: dict | None = None, seconds: dict | None = None, notes: str | None = None) -> Path:
    """A measured toy-scale run on `cpu`; results as (implementation, workload, status, kernel_sha);
    `seconds`: runner_s by (implementation, workload)."""
    rows = []
    for impl, wid, status, sha in results:
        row = {"implementation": impl, "workload": wid, "status": status, "kernel_sha": sha}
        if seconds and (impl, wid) in seconds:
            row["runner_s"] = seconds[(impl, wid)]
        if status == "ok":
            row["device_us"] = {"median": 5.0}
        else:
            row["error"] = f"{status} in a fixture"
        rows.append(row)
    data = {"schema_version": 1, "family": "toy-scale", "hardware": "cpu", "trust": "measured",
            "observed": observed, "protocol": protocol,
            "environment": {"gpu": "CPU (tests)", "packages": packages or {}}, "seed": 1234, "results": rows}
    if notes:
        data["notes"] = notes
    moment = dt.datetime.strptime(observed, "%Y-%m-%dT%H:%M:%SZ")
    return rec.write_new(records / "runs" / "toy-scale" / "cpu", rec.dump(data), moment)


@pytest.fixture
def history(toy_records) -> Path:
    """Fixture records where each pair has a different standing (see the test below)."""
    write(toy_records, "implementations/toy-where.yaml", """
        schema_version: 1
        id: toy-where
        name: toy-where
        project: Kernel Records tests
        language: python
        license: Apache-2.0
        source_url: https://example.com/toy-where
        install: pip install "toy-where-pkg==1.2.0"
        version: 1.2.0
    """)
    write_run(toy_records, [("toy-good", "r1-h8", "ok", SHA), ("toy-good", "r2-h8", "ok", OLD),
                            ("toy-good", "r3-h16", "ok", SHA), ("toy-wrong", "r1-h8", "failed", SHA),
                            ("toy-unsupported", "r1-h8", "unsupported", SHA),
                            ("toy-unsupported", "r2-h8", "unsupported", SHA),
                            ("toy-unsupported", "r3-h16", "unsupported", SHA),
                            ("toy-hang", "r1-h8", "timeout", SHA)],
              observed="2026-11-30T10:00:00Z")
    # later: budget ran out (says nothing of the code), and a stale failure re-measured as ok
    write_run(toy_records, [("toy-good", "r3-h16", "not-run", SHA), ("toy-wrong", "r2-h8", "not-run", SHA)],
              observed="2026-11-30T11:00:00Z")
    write_run(toy_records, [("toy-where", "r1-h8", "ok", SHA)], observed="2026-11-30T12:00:00Z",
              packages={"toy-where-pkg": "1.1.0"})
    write_run(toy_records, [("toy-where", "r2-h8", "ok", SHA)], observed="2026-11-30T12:30:00Z",
              packages={"toy-where-pkg": "1.2.0"})
    write_run(toy_records, [("toy-segv", "r1-h8", "ok", SHA)], observed="2026-11-30T13:00:00Z",
              protocol={**CPU_PROTOCOL, "version": 1})
    return toy_records


def standings(records: Path, retry_failed: bool = False) -> dict:
    catalog = load_catalog(records)
    shas = {i: SHA for i in registered(TOY_KERNELS, "toy-scale")}
    found = m.standings(catalog, "toy-scale", "cpu", CPU_PROTOCOL, shas, retry_failed)
    return {pair: (s.settled, s.why) for pair, s in found.items()}


def test_each_pair_stands_as_its_newest_result_says(history):
    got = standings(history)
    assert got[("toy-good", "r1-h8")] == (True, "ok")
    assert got[("toy-good", "r2-h8")] == (False, "stale kernel hash")
    assert got[("toy-good", "r3-h16")] == (True, "ok")  # a later not-run does not replace it
    assert got[("toy-wrong", "r1-h8")] == (True, "failed")  # the same code fails the same way
    assert got[("toy-wrong", "r2-h8")] == (False, "not-run")
    assert ("toy-wrong", "r3-h16") not in got  # no result: runs
    assert all(got[("toy-unsupported", w)] == (True, "unsupported") for w in WORKLOADS)
    assert got[("toy-hang", "r1-h8")] == (False, "timeout")
    assert got[("toy-where", "r1-h8")] == (False, "other package version")
    assert got[("toy-where", "r2-h8")] == (True, "ok")
    assert got[("toy-segv", "r1-h8")] == (False, "protocol version 1")


def test_retry_failed_runs_failures_again(history):
    assert standings(history, retry_failed=True)[("toy-wrong", "r1-h8")] == (False, "failed (--retry-failed)")


def test_results_of_another_hardware_or_protocol_do_not_count(history):
    catalog = load_catalog(history)
    shas = {"toy-good": SHA}
    assert m.standings(catalog, "toy-scale", "other-hw", CPU_PROTOCOL, shas) == {}
    assert m.standings(catalog, "toy-scale", "cpu", {**CPU_PROTOCOL, "id": "kr-device-cold-l2"}, shas) == {}


def plan(records: Path, *args: str):
    result = CliRunner().invoke(main, ["run", "--records", str(records), "--kernels", str(TOY_KERNELS),
                                       "--family", "toy-scale", "--plan", *args])
    return result.exit_code, result.output


def test_plan_lists_what_runs_and_why_the_rest_is_skipped(history):
    before = sorted((history / "runs").rglob("*.yaml"))
    code, out = plan(history, "--missing", "--hardware", "cpu", "--implementation", "toy-good",
                     "--implementation", "toy-wrong", "--implementation", "toy-unsupported")
    assert code == 0, out
    assert "protocol kr-cpu-wall v2; --missing" in out
    assert "toy-scale on cpu: 3 implementations, 3 workloads" in out
    lines = out.splitlines()
    good = lines.index("  toy-good: 1 of 3 to run; skipped: 2 current (ok 2)")
    assert lines[good + 1:good + 3] == ["    why they run: stale kernel hash 1", "    run: r2-h8"]
    wrong = lines.index("  toy-wrong: 2 of 3 to run; skipped: 1 current (failed 1)")
    assert lines[wrong + 1:wrong + 3] == ["    why they run: no result 1, not-run 1", "    run: r2-h8 r3-h16"]
    assert "  toy-unsupported: 0 of 3 to run; skipped: 3 current (unsupported 3)" in lines
    assert "filtered out by --implementation: toy-lonely" in out  # among the others
    assert lines[-1] == "Total: 3 implementation × workload pairs to run, 2 implementation jobs."
    assert sorted((history / "runs").rglob("*.yaml")) == before  # nothing written


def test_plan_with_retry_failed_and_a_workload_filter(history):
    code, out = plan(history, "--missing", "--retry-failed", "--hardware", "cpu", "--implementation", "toy-wrong",
                     "--implementation", "toy-good", "--workload", "r1-h8", "--budget", "100")
    assert code == 0, out
    assert "toy-scale on cpu: 2 implementations, 3 workloads (2 filtered out by --workload)" in out
    assert "  toy-good: 0 of 3 to run; skipped: 1 current (ok 1), 2 filtered" in out
    assert ("  toy-wrong: 1 of 3 to run; skipped: 0 current, 2 filtered\n"
            "    why they run: failed (--retry-failed) 1") in out
    assert "Total: 1 implementation × workload pair to run, 1 implementation job; --budget 100 s" in out


def test_plan_without_missing_runs_every_selected_pair(history):
    code, out = plan(history, "--hardware", "cpu", "--implementation", "toy-good")
    assert code == 0, out
    assert "  toy-good: 3 of 3 to run\n    run: r1-h8 r2-h8 r3-h16" in out
    assert "--missing" not in out


def test_plan_estimates_the_runner_time_from_past_runs(toy_records):
    # an old run that predates runner_s: its notes' total over its 3 results, 10 s a result
    write_run(toy_records, [("toy-good", "r1-h8", "ok", OLD), ("toy-good", "r2-h8", "ok", OLD),
                            ("toy-wrong", "r1-h8", "ok", OLD)], observed="2026-11-29T10:00:00Z",
              notes="Measured by `kernel-records run` in 30 s on GPU 0 of host; time limit per workload 60 s.")
    write_run(toy_records, [("toy-good", "r1-h8", "ok", OLD)], observed="2026-11-30T10:00:00Z",
              seconds={("toy-good", "r1-h8"): 2.0})
    write_run(toy_records, [("toy-good", "r2-h8", "ok", OLD)], observed="2026-11-30T11:00:00Z",
              seconds={("toy-good", "r2-h8"): 4.0})
    code, out = plan(toy_records, "--hardware", "cpu", "--implementation", "toy-good", "--implementation",
                     "toy-wrong", "--budget", "20")
    assert code == 0, out
    # toy-good: its own last times (2 + 4) and, for r3-h16, its median (3)
    assert "    about 9 s of runner time, from past runs (its last time 2, the implementation's median 1)" in out
    assert "    about 30 s of runner time, from past runs (a run's average per result 3)" in out  # toy-wrong
    assert out.splitlines()[-1] == (
        "Estimated from past runs on this hardware: about 39 s of runner time on one GPU (measuring only: add "
        "the GPU's start, the probe and the end-to-end pass); more than the --budget of 20 s: the pairs it "
        "does not reach are recorded as not-run.")
    # another protocol's runs do not count: no past time at all, no estimate
    past = plan_mod.past_seconds(load_catalog(toy_records), "toy-scale", "cpu", "kr-device-cold-l2")
    assert past == {"pair": {}, "impl": {}, "run": None}
    assert plan_mod.estimate(past, "toy-good", WORKLOADS) == (None, {"unknown": 3})


def test_a_plan_without_past_times_gives_no_estimate(history):
    code, out = plan(history, "--hardware", "cpu", "--implementation", "toy-good")
    assert code == 0, out
    assert "runner time" not in out and "Estimated" not in out


def test_plan_with_nothing_left(history):
    code, out = plan(history, "--missing", "--hardware", "cpu", "--implementation", "toy-unsupported")
    assert code == 0, out
    assert out.strip().endswith("Nothing to run: every selected implementation × workload has a current "
                                "result (--missing).")


def test_plan_needs_the_hardware_where_no_gpu_is_listed(history, monkeypatch):
    monkeypatch.setattr(plan_mod, "list_gpus", lambda: None)  # as on a machine without nvidia-smi
    code, out = plan(history, "--missing")
    assert code == 2
    assert "--plan without --hardware reads the GPU model from nvidia-smi, and it lists no GPU here" in out
    assert "add --hardware ID" in out and "h200" in out and "cpu" in out
    code, out = plan(history, "--missing", "--device", "cpu")  # a CPU run: hardware `cpu`, as a run finds it
    assert code == 0 and "toy-scale on cpu:" in out
    code, out = plan(history, "--hardware", "h999")
    assert code == 2 and "--hardware 'h999': no such hardware record — use one of cpu" in out


def test_plan_reads_the_hardware_from_nvidia_smi(history, monkeypatch):
    from site_builder.runner.devices import Gpu

    monkeypatch.setattr(plan_mod, "list_gpus", lambda: [Gpu(0, "cpu")])  # the fixture hardware's device name
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    code, out = plan(history, "--implementation", "toy-good")
    assert code == 0, out
    assert "toy-scale on cpu:" in out and f"protocol kr-device-cold-l2 v{GPU_PROTOCOL['version']}" in out  # a GPU run's


def test_options_that_go_with_another(history):
    result = CliRunner().invoke(main, ["run", "--records", str(history), "--hardware", "cpu"])
    assert result.exit_code == 2 and "--hardware cpu goes with --plan" in result.output
    result = CliRunner().invoke(main, ["run", "--records", str(history), "--retry-failed"])
    assert result.exit_code == 2 and "--retry-failed goes with --missing" in result.output


def test_units_carry_only_the_workloads_left(history):
    """With --missing the jobs (and so the budget's shares) are made of what is left only."""
    from site_builder.runner.run import measure_units, plan_families
    from site_builder.runner.schedule import plan_jobs

    catalog = load_catalog(history)
    family = catalog.families["toy-scale"]
    registry = [{"id": i, "kernel_sha": SHA, "missing": None} for i in ("toy-good", "toy-unsupported", "toy-wrong")]
    plans = plan_families(catalog, [family], {"toy-scale": registry}, ["toy-good", "toy-unsupported", "toy-wrong"], [])
    registries = {"toy-scale": {r["id"]: r for r in registry}}
    m.mark_current(plans, catalog, ["cpu"], "cpu", registries)
    units = measure_units(plans, registries, ["cpu"], {"cpu": {}})
    assert {u["implementation"]: [w["id"] for w in u["workloads"]] for u in units} == {
        "toy-good": ["r2-h8"], "toy-wrong": ["r2-h8", "r3-h16"]}
    assert len(plan_jobs(units, 1)) == 2  # toy-unsupported takes no share of a budget
    assert not m.nothing_left(plans, registries, ["cpu"])


def test_a_missing_run_measures_only_what_is_left_then_nothing(history, monkeypatch):
    pytest.importorskip("torch")
    from site_builder.runner import run_all

    monkeypatch.setenv("KR_TOY_KNOB", "forced=1")  # a kernel knob in the environment: the record says so

    [path] = run_all(history, family="toy-scale", implementations=["toy-good", "toy-wrong", "toy-unsupported"],
                     timeout=30, budget_s=300, device="cpu", kernels_root=TOY_KERNELS, missing=True)
    results = results_by_key(path)
    assert sorted(results) == [("toy-good", "r2-h8"), ("toy-wrong", "r2-h8"), ("toy-wrong", "r3-h16")]
    assert results[("toy-good", "r2-h8")]["status"] == "ok"
    assert results[("toy-good", "r2-h8")]["kernel_sha"] == SHA
    assert results[("toy-wrong", "r3-h16")]["status"] == "failed"
    # its notes say it holds only what was left (the peers' results stand in earlier records)
    notes = yaml.safe_load(path.read_text())["notes"]
    assert notes.startswith("Measured by `kernel-records run --missing` in ")
    assert "Set in the workers' environment: " in notes and "KR_TOY_KNOB=forced=1" in notes
    before = sorted((history / "runs").rglob("*.yaml"))
    result = CliRunner().invoke(main, ["run", "--records", str(history), "--kernels", str(TOY_KERNELS),
                                       "--family", "toy-scale", "--implementation", "toy-good",
                                       "--implementation", "toy-wrong", "--device", "cpu", "--missing"])
    assert result.exit_code == 0, result.output
    assert "Nothing to run: every selected implementation × workload has a current result" in result.output
    assert sorted((history / "runs").rglob("*.yaml")) == before  # no empty record


def test_the_notes_name_every_kr_knob_of_the_environment():
    from site_builder.runner.run import overrides_note

    assert overrides_note({"PATH": "/bin", "HOME": "/root"}) == ""
    assert overrides_note({"KR_CE_FWDBWD": "path=twopass", "PATH": "/bin", "KR_A": "1"}) == (
        " Set in the workers' environment: KR_A=1; KR_CE_FWDBWD=path=twopass.")


def test_family_is_repeatable_and_each_one_named_is_planned(history):
    """Two `--family` options plan both families (a run once kept only the last one)."""
    result = CliRunner().invoke(main, ["run", "--records", str(history), "--kernels", str(TOY_KERNELS),
                                       "--family", "toy-scale", "--family", "toy-loss", "--family", "toy-scale",
                                       "--plan", "--hardware", "cpu"])
    assert result.exit_code == 0, result.output
    heads = [line.split(" on cpu:")[0] for line in result.output.splitlines() if " on cpu: " in line]
    assert heads == ["toy-scale", "toy-loss"]  # in the order given, each once


def test_an_unknown_family_among_several_is_refused_by_name(history):
    result = CliRunner().invoke(main, ["run", "--records", str(history), "--kernels", str(TOY_KERNELS),
                                       "--family", "toy-scale", "--family", "toy-nope", "--plan", "--hardware", "cpu"])
    assert result.exit_code != 0
    assert "unknown family 'toy-nope' — use one of" in result.output
