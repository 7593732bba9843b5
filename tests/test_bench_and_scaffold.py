"""`kernel-records bench` (the runner's timing core, printed instead of recorded) and
`kernel-records new kernels` (a family package that satisfies the interface as written), on
the CPU."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

pytest.importorskip("torch")

from site_builder.cli import main  # noqa: E402
from site_builder.records.load import load_catalog  # noqa: E402
from site_builder.runner import run_all  # noqa: E402
from site_builder.runner.families import load_family  # noqa: E402
from site_builder.runner.family import test_cases  # noqa: E402
from site_builder.runner.measure import check  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TOY_KERNELS = FIXTURES / "kernels"
TOY_RECORDS = FIXTURES / "runner-records"


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_bench_prints_rates_and_ratios_and_writes_no_record(tmp_path):
    records = tmp_path / "records"
    shutil.copytree(TOY_RECORDS, records)
    out, log = tmp_path / "b.json", tmp_path / "results.jsonl"
    result = invoke("bench", "--records", records, "--kernels", TOY_KERNELS, "--family", "toy-matmul",
                    "--device", "cpu", "--json", out, "--append", log)
    assert result.exit_code == 0, result.output
    assert "TFLOP/s" in result.output and "× best peer" in result.output
    rows = json.loads(out.read_text())["rows"]
    assert {(r["workload"], r["implementation"]) for r in rows} == {
        (w, i) for w in ("m16-n16-k64-fp32", "m8-n32-k128-fp32") for i in ("toy-mm-eager", "toy-mm-split-k")}
    for r in rows:
        assert r["status"] == "ok"
        if r["workload"] == "m16-n16-k64-fp32":
            assert r["flops"] == 2 * 16 * 16 * 64 and r["bound"] in ("compute", "bandwidth")
        assert r["tflops"] > 0 and r["x_floor"] > 0 and r["best_peer"] in ("toy-mm-eager", "toy-mm-split-k")
        assert r["e2e_us"]["samples"] == 30  # re-timed interleaved, as a run does
    assert len(log.read_text().splitlines()) == 4 and json.loads(log.read_text().splitlines()[0])["hardware"] == "cpu"
    assert not list((records / "runs").rglob("*.yaml"))


def test_bench_checks_correctness_first_as_a_run_does(tmp_path):
    result = invoke("bench", "--records", TOY_RECORDS, "--kernels", TOY_KERNELS, "--family", "toy-scale",
                    "--device", "cpu", "--impls", "toy-good,toy-wrong", "--random", "1", "--seed", "3",
                    "--json", tmp_path / "b.json")
    assert result.exit_code == 0, result.output
    rows = json.loads((tmp_path / "b.json").read_text())["rows"]
    assert len({r["workload"] for r in rows}) == 1
    status = {r["implementation"]: r for r in rows}
    assert status["toy-good"]["status"] == "ok"
    assert status["toy-wrong"]["status"] == "failed" and "outside tolerance" in status["toy-wrong"]["error"]


def test_bench_measures_shapes_outside_the_record(tmp_path):
    """--random draws from the family's sampler, --set takes a named set; shapes the record does
    not list are ad-hoc workloads, checked against the reference before timing; a shape with
    other tensor dtypes runs in its own group (a record copy declaring them)."""
    out = tmp_path / "b.json"
    result = invoke("bench", "--records", TOY_RECORDS, "--kernels", TOY_KERNELS, "--family", "toy-scale",
                    "--device", "cpu", "--impls", "toy-good,toy-wrong", "--random", "2", "--seed", "5",
                    "--set", "tiny", "--json", out)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    rows = data["rows"]
    ids = list(dict.fromkeys(r["workload"] for r in rows))
    assert "r2-h8" in ids and "x-rows3-hidden7-fp32-weight-fp64-y-fp64" in ids and len(ids) == 4, ids
    import random

    rng = random.Random(5)
    drawn = [(rng.randint(1, 4), rng.randint(5, 40)) for _ in range(2)]
    for rows_, hidden in drawn:
        assert f"x-rows{rows_}-hidden{hidden}-fp32" in ids or (rows_, hidden) in ((1, 8), (2, 8), (3, 16))
    for r in rows:
        if r["implementation"] == "toy-good":
            assert r["status"] == "ok" and r["x_floor"] > 0, r
        else:
            assert r["status"] == "failed" and "outside tolerance" in r["error"], r
    mixed = [r for r in rows if r["tensors"]]
    assert mixed and all(r["tensors"] == {"weight": "float64", "y": "float64"} for r in mixed)
    assert mixed[0]["bytes"] == 3 * 7 * 4 + 3 * 7 * 8 + 7 * 8  # x float32; y and the weight float64
    assert len(data["groups"]) == 2 and {s for r in rows for s in r["sets"]} == {"random-5", "tiny"}
    unknown = CliRunner().invoke(main, ["bench", "--records", str(TOY_RECORDS), "--kernels", str(TOY_KERNELS),
                                        "--family", "toy-scale", "--device", "cpu", "--models"])
    assert unknown.exit_code == 2 and "offers no shape set 'models'" in unknown.output, unknown.output


def test_bench_groups_ad_hoc_shapes_by_their_tensor_dtypes():
    """plan_groups: a shape equal to a record workload keeps its id, repeats are measured once,
    each tensor-dtype variant gets its own validated record copy."""
    from site_builder.runner.bench import plan_groups

    fam = load_catalog(TOY_RECORDS).families["toy-scale"]
    f32 = {"sizes": {"rows": 2, "hidden": 8}, "dtype": "float32"}
    odd = {"sizes": {"rows": 5, "hidden": 7}, "dtype": "float32"}
    wide = {"sizes": {"rows": 5, "hidden": 7}, "dtype": "float32", "tensors": {"weight": "float64", "y": "float64"}}
    groups = plan_groups(fam, ["r1-h8"], [("a", f32), ("a", odd), ("b", odd), ("b", wide)])
    assert [g["ids"] for g in groups] == [["r1-h8", "r2-h8", "x-rows5-hidden7-fp32"],
                                          ["x-rows5-hidden7-fp32-weight-fp64-y-fp64"]]
    assert groups[0]["sets"] == {"r1-h8": ["record"], "r2-h8": ["a"], "x-rows5-hidden7-fp32": ["a", "b"]}
    plain, variant = groups[0]["family"], groups[1]["family"]
    assert plain.semantics.inputs["weight"].dtype == "float" and "x-rows5-hidden7-fp32" in {w.id for w in plain.workloads}
    assert variant.semantics.inputs["weight"].dtype == "float64" and variant.semantics.outputs["y"].dtype == "float64"
    from site_builder.errors import UserError

    with pytest.raises(UserError, match="does not declare"):
        plan_groups(fam, [], [("c", {**odd, "tensors": {"bias": "float32"}})])


def test_bench_refuses_an_unknown_implementation():
    result = CliRunner().invoke(main, ["bench", "--records", str(TOY_RECORDS), "--kernels", str(TOY_KERNELS),
                                       "--family", "toy-scale", "--device", "cpu", "--impls", "toy-nope"])
    assert result.exit_code == 2 and "'toy-nope' has no registered code for toy-scale" in result.output


def test_new_kernels_writes_a_family_that_passes_its_tests_and_runs(tmp_path):
    records, kernels = tmp_path / "records", tmp_path / "kernels"
    shutil.copytree(TOY_RECORDS, records)
    (records / "hardware" / "cpu.yaml").unlink()  # a clone's records have no CPU hardware
    kernels.mkdir()
    result = invoke("new", "kernels", "toy-softmax", "--records", records, "--kernels", kernels)
    assert result.exit_code == 0, result.output
    for rel in ("families/toy-softmax.yaml", "implementations/toy-softmax-eager.yaml", "hardware/cpu.yaml"):
        assert f"Wrote {records / rel}" in result.output
    assert sorted(p.name for p in (kernels / "toy_softmax").iterdir()) == ["__init__.py", "impl_eager.py"]
    catalog = load_catalog(records)
    plugin = load_family(kernels, "toy-softmax")
    cases = test_cases(plugin, catalog.families["toy-softmax"])
    assert len(cases) == 6  # 3 sizes x 2 dtypes
    for case in cases:  # what tests/test_families.py checks for a family in kernels/
        _, correctness, problems, _ = check(plugin, plugin.registry["toy-softmax-eager"], case, 7, "cpu")
        assert problems == [] and correctness["passed"], case.id
    [path] = run_all(records, family="toy-softmax", device="cpu", timeout=300, kernels_root=kernels)
    data = yaml.safe_load(path.read_text())
    assert {r["status"] for r in data["results"]} == {"ok"} and len(data["results"]) == 3
    assert invoke("check", "--records", records).exit_code == 0
    again = CliRunner().invoke(main, ["new", "kernels", "toy-softmax", "--records", str(records),
                                      "--kernels", str(kernels)])
    assert again.exit_code == 2 and "exists" in again.output
