"""`kernel-records check`: errors as path:line: message — fix, warnings that --strict fails on."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from site_builder.derive.check import check
from site_builder.cli import main
from site_builder.records.kernel_hash import kernel_sha, registered, sha_of
from site_builder.records.schemas import schema_line

from conftest import RECORDS

from conftest import REPORTED_RUN_HEAD, write

RUN = "runs/fused-add-rmsnorm/h100-sxm/2026-05-01-test.yaml"


def write_run(root, text):
    """conftest.write, then the schema line first, as every record has it."""
    path = write(root, RUN, text)
    path.write_text(schema_line(RUN) + "\n" + path.read_text())
    return path


#: Liger fused at 20.5 ns: a thousand times below the floor of its workload.
BELOW_FLOOR = "{implementation: liger-fused, workload: r2048-h1024-fp32, e2e_us: {median: 0.0205}}"


def reported_run(result: str) -> str:
    return REPORTED_RUN_HEAD + f"results:\n  - {result}\n"


def cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def measured_run(root, result: str, packages: str = "{}", observed: str = "2026-05-01T10:00:00Z"):
    """A measured run record with one result (a flow mapping on one line)."""
    path = root / RUN
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([
        "schema_version: 1",
        "family: fused-add-rmsnorm",
        "hardware: h100-sxm",
        "trust: measured",
        f"observed: {observed}",
        "protocol: {id: kernel-records-device, version: 1, clock: device, l2: cold, timing: cuda-graph}",
        "environment:",
        "  gpu: NVIDIA H100 80GB HBM3",
        f"  packages: {packages}",
        "results:",
        f"  - {result}",
        "",
    ]), encoding="utf-8")
    return path


OK_LIGER = ("{implementation: liger-fused, workload: r2048-h1024-fp32, device_us: {median: 12.0}, "
            "correctness: {max_abs_error: 0.0, atol: 1.0e-5, rtol: 1.0e-5, passed: true}}")


def mine(report):
    """The warnings about the run file this test wrote (the committed records may have their own)."""
    return [w for w in report.warnings if w.path.endswith("2026-05-01-test.yaml")
            and not w.message.startswith("the first line does not name")]  # files written here lack it


def test_the_committed_records_pass_check():
    """No errors; warnings only of the kinds that time brings (code changed or released since)."""
    result = cli("check")
    assert result.exit_code == 0, result.output
    assert "records OK" in result.output.splitlines()[-1]
    for warning in check(RECORDS).warnings:
        assert warning.message.startswith("stale kernel hash") or " ran " in warning.message \
            or "before version" in warning.message, str(warning)


def test_strict_on_some_paths_counts_only_their_warnings(records_copy):
    write_run(records_copy, reported_run(BELOW_FLOOR))
    other = records_copy / "implementations" / "transformers.yaml"
    assert cli("check", "--strict", "--records", str(records_copy), str(other)).exit_code == 0
    for target in (records_copy / RUN, records_copy / "runs"):
        result = cli("check", "--strict", "--records", str(records_copy), str(target))
        assert result.exit_code == 1
        assert "2026-05-01-test.yaml:10: warning: liger-fused on r2048-h1024-fp32" in result.output


def test_errors_are_listed_with_file_line_and_fix(records_copy):
    write_run(records_copy, reported_run("{implementation: nobody, workload: r2048-h1024-fp32, e2e_us: {median: -3}}"))
    result = CliRunner().invoke(main, ["check", "--records", str(records_copy)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert ("records/runs/fused-add-rmsnorm/h100-sxm/2026-05-01-test.yaml:10: `results.0.e2e_us.median` "
            "must be greater than 0.0, got -3 — times and sizes are positive; a failed run is recorded "
            "with status: failed and an error") in lines
    assert any(line.startswith("records/runs/fused-add-rmsnorm/h100-sxm/2026-05-01-test.yaml:10: "
                               "unknown implementation 'nobody'") for line in lines)
    assert lines[-1] == "2 problems found; nothing was written."


def test_a_result_below_the_floor_is_a_warning_and_fails_strict(records_copy):
    write_run(records_copy, reported_run(BELOW_FLOOR))
    [warning] = mine(check(records_copy))
    assert str(warning) == (
        "records/runs/fused-add-rmsnorm/h100-sxm/2026-05-01-test.yaml:10: warning: liger-fused on "
        "r2048-h1024-fp32: end-to-end time 0.0205 µs is below the floor of 10.02 µs on h100-sxm "
        "(33,558,528 bytes at 3,350 GB/s); it is not ranked — check the unit (µs, not ms), the "
        "workload and the hardware of this result")
    relaxed = cli("check", "--records", str(records_copy), str(records_copy / RUN))
    assert relaxed.exit_code == 0 and "1 warning." in relaxed.output
    strict = cli("check", "--records", str(records_copy), "--strict", str(records_copy / RUN))
    assert strict.exit_code == 1
    assert strict.output.splitlines()[-1] == "1 warning; --strict treats them as errors."


def test_a_run_with_another_package_version_is_a_warning(records_copy):
    measured_run(records_copy, OK_LIGER, packages="{liger_kernel: 0.7.0}")
    [warning] = mine(check(records_copy, kernels=records_copy / "no-kernels"))
    assert str(warning) == (
        "records/runs/fused-add-rmsnorm/h100-sxm/2026-05-01-test.yaml:11: warning: liger-fused on "
        "r2048-h1024-fp32 ran liger-kernel 0.7.0, but records/implementations/liger-fused.yaml "
        "describes version 0.8.5 — re-run it with liger-kernel 0.8.5, or keep it as history: a "
        "newer run supersedes it")


def test_a_second_package_is_checked_against_its_own_pin_not_the_version(records_copy):
    """The record's `version` is the first package's (the implementation's own); a library it
    runs on (FlashInfer's nvidia-cutlass-dsl) is checked against its own `==` pin, or not at all."""
    impl = records_copy / "implementations" / "liger-fused.yaml"
    text = impl.read_text()
    assert 'install: pip install "liger-kernel==0.8.5"\n' in text
    impl.write_text(text.replace('install: pip install "liger-kernel==0.8.5"\n',
                                 'install: pip install "liger-kernel==0.8.5" "triton==3.4.0" numpy\n'))
    kernels = records_copy / "no-kernels"
    measured_run(records_copy, OK_LIGER, packages="{liger-kernel: 0.8.5, triton: 3.4.0, numpy: 2.4.6}")
    assert mine(check(records_copy, kernels=kernels)) == []
    measured_run(records_copy, OK_LIGER, packages="{liger-kernel: 0.8.5, triton: 3.6.0, numpy: 2.4.6}")
    [warning] = mine(check(records_copy, kernels=kernels))
    assert str(warning) == (
        "records/runs/fused-add-rmsnorm/h100-sxm/2026-05-01-test.yaml:11: warning: liger-fused on "
        "r2048-h1024-fp32 ran triton 3.6.0, but the install command in "
        "records/implementations/liger-fused.yaml pins triton==3.4.0 — re-run it with triton 3.4.0, "
        "or keep it as history: a newer run supersedes it")


def test_a_run_observed_before_the_release_is_a_warning(records_copy):
    impl = records_copy / "implementations" / "liger-fused.yaml"
    impl.write_text(impl.read_text() + "released: 2026-06-01\n")
    measured_run(records_copy, OK_LIGER, packages="{liger-kernel: 0.8.5}")
    [warning] = mine(check(records_copy, kernels=records_copy / "no-kernels"))
    assert warning.message == ("liger-fused on r2048-h1024-fp32 was observed on 2026-05-01, "
                               "before version 0.8.5 was released (2026-06-01)")


def kernels_tree(root):
    write(root, "kernels/fused_add_rmsnorm/__init__.py", "registry = None\n")
    write(root, "kernels/fused_add_rmsnorm/impl_liger.py", """
        from . import register

        @register("liger-fused", requires=["liger_kernel"], packages=["liger-kernel"],
                  extra_sources=["helper.py"])
        def liger(inputs, params):
            return lambda: None
        """)
    write(root, "kernels/fused_add_rmsnorm/helper.py", "X = 1\n")
    return root / "kernels"


def test_registered_code_is_found_without_importing_it(tmp_path):
    kernels = kernels_tree(tmp_path)
    [(impl_id, entry)] = registered(kernels, "fused-add-rmsnorm").items()
    assert impl_id == "liger-fused" and entry.packages == ("liger-kernel",)
    assert [p.name for p in entry.sources] == ["impl_liger.py", "helper.py"]
    assert kernel_sha(kernels, "fused-add-rmsnorm", "liger-fused") == sha_of(entry.sources)
    assert kernel_sha(kernels, "fused-add-rmsnorm", "nobody") is None


def test_a_stale_kernel_hash_is_a_warning(records_copy):
    kernels = kernels_tree(records_copy.parent)
    current = kernel_sha(kernels, "fused-add-rmsnorm", "liger-fused")
    measured_run(records_copy, OK_LIGER.replace("{implementation: liger-fused,",
                                                 f"{{implementation: liger-fused, kernel_sha: {current},"))
    assert mine(check(records_copy)) == []
    (kernels / "fused_add_rmsnorm" / "helper.py").write_text("X = 2\n")
    [warning] = mine(check(records_copy))
    now = kernel_sha(kernels, "fused-add-rmsnorm", "liger-fused")
    assert warning.message == (f"stale kernel hash: liger-fused on r2048-h1024-fp32 was measured with "
                               f"source {current}, the code in impl_liger.py now hashes to {now}")
    assert warning.line == 11


def test_a_measured_result_without_registered_code_is_a_warning(records_copy):
    kernels_tree(records_copy.parent)
    measured_run(records_copy, OK_LIGER.replace("liger-fused", "transformers"))
    [warning] = mine(check(records_copy))
    assert warning.message == ("measured result for 'transformers', which no code in "
                               "kernels/fused_add_rmsnorm/ registers")


def test_the_hash_is_the_runners(tmp_path):
    """kernel_hash.sha_of and the runner's Registered.kernel_sha agree on the same files."""
    registry_mod = pytest.importorskip("site_builder.runner.registry")
    kernels = kernels_tree(tmp_path)
    folder = kernels / "fused_add_rmsnorm"
    (folder / "__init__.py").write_text(
        "from site_builder.runner.registry import Registry\nregistry = Registry()\nregister = registry.register\n"
        "from . import impl_liger  # noqa\n")
    from site_builder.runner.families import import_module, package_name

    try:
        module = import_module("fused-add-rmsnorm", kernels_root=kernels)
        assert isinstance(module.registry, registry_mod.Registry)
        assert module.registry["liger-fused"].kernel_sha() == kernel_sha(kernels, "fused-add-rmsnorm",
                                                                         "liger-fused")
    finally:
        for name in [n for n in sys.modules if n.startswith(package_name(kernels))]:
            del sys.modules[name]


def test_build_prints_the_same_warnings(records_copy, tmp_path):
    write_run(records_copy, reported_run(BELOW_FLOOR))
    result = CliRunner().invoke(
        main, ["build", "--no-run", "--records", str(records_copy), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "warning: liger-fused on r2048-h1024-fp32: end-to-end time 0.0205 µs" in result.stderr


def test_a_record_without_its_schema_line_is_a_warning(records_copy):
    path = records_copy / "hardware" / "h200.yaml"
    path.write_text("\n".join(path.read_text().splitlines()[1:]) + "\n")
    [warning] = check(records_copy, only=[path]).warnings
    assert str(warning) == (
        "records/hardware/h200.yaml:1: warning: the first line does not name the record's JSON Schema — make "
        "`# yaml-language-server: $schema=../../schema/hardware.schema.json` the first line, so editors check "
        "the record as you type")
