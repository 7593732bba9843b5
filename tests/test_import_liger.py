"""`kernel-records import liger-csv`: Liger-Kernel's benchmark CSV as reported run records."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder.build import build
from site_builder.derive.check import check
from site_builder.cli import main
from site_builder.errors import UserError
from site_builder.importers.liger_csv import import_liger_csv, line_ranges
from site_builder.records.load import load_catalog

CSV = Path(__file__).resolve().parent / "fixtures" / "liger-csv" / "benchmark_sample.csv"
H200_NAME = "NVIDIA H200 141GB HBM3e=h200"


def run_cli(records, *extra):
    return CliRunner().invoke(main, ["import", "liger-csv", str(CSV), "--records", str(records), *extra])


def listed(records):
    return [
        f"{CSV}: line 2 (1 row) not imported: superseded by line 18 (same implementation, workload, GPU, "
        "version and day)",
        f"{CSV}: line 8 (1 row) not imported: provider 'liger_rms_norm' of fused_add_rms_norm maps to no "
        "implementation record",
        f"{CSV}: lines 9-10 (2 rows) not imported: full mode: the family fused-add-rmsnorm describes the "
        "forward pass only",
        f"{CSV}: lines 11-12 (2 rows) not imported: kernel 'cross_entropy' has no family in this index",
        f"{CSV}: line 13 (1 row) not imported: no workload hidden=512 rows=2048 float32 declared in family "
        "fused-add-rmsnorm",
        f"{CSV}: line 14 (1 row) not imported: GPU 'NVIDIA A100-SXM4-80GB' matches no hardware record's "
        "device_names (add it there, or pass --hardware-map 'NAME=hardware-id')",
        f"{CSV}: line 15 (1 row) not imported: eps = 1e-05, but family fused-add-rmsnorm fixes eps = 1e-06",
        f"{CSV}: line 16 (1 row) not imported: times are not positive with y_value_20 ≤ y_value_50 ≤ y_value_80",
        f"{CSV}: line 19 (1 row) not imported: extra_benchmark_config_str or x_value cannot be read",
    ]


def test_every_row_is_imported_or_listed_with_its_reason(records_copy):
    result = run_cli(records_copy, "--hardware-map", H200_NAME)
    assert result.exit_code == 0, result.output
    h100 = records_copy / "runs/fused-add-rmsnorm/h100-sxm/2025-03-14-liger-v0.5.5.yaml"
    h200 = records_copy / "runs/fused-add-rmsnorm/h200/2025-06-02-liger-v0.6.0.yaml"
    assert result.output.splitlines() == [
        f"Wrote {h100} (6 results)",
        f"Wrote {h200} (1 result)",
        *listed(records_copy),
        "18 rows read: 7 imported into 2 file(s), 11 not imported (listed above).",
    ]
    catalog = load_catalog(records_copy)
    runs = {lr.path: lr.run for lr in catalog.runs}
    run = runs["runs/fused-add-rmsnorm/h100-sxm/2025-03-14-liger-v0.5.5.yaml"]
    assert (run.trust, run.source.license, run.protocol.id, str(run.observed)) == (
        "reported", "BSD-2-Clause", "liger-benchmark-scripts", "2025-03-14")
    assert run.source.url.startswith("https://github.com/linkedin/Liger-Kernel/")
    got = {(r.implementation, r.workload): (r.e2e_us.median, r.e2e_us.p20, r.e2e_us.p80) for r in run.results}
    assert got[("liger-fused", "r2048-h1024-fp32")] == (20.4, 20.0, 21.0)  # line 18, not line 2
    assert got[("transformers", "r2048-h4096-fp32")] == (149.1, 147.6, 152.1)
    assert len(got) == 6
    [bf16] = runs["runs/fused-add-rmsnorm/h200/2025-06-02-liger-v0.6.0.yaml"].results
    assert (bf16.implementation, bf16.workload, bf16.e2e_us.median) == ("liger-fused", "r2048-h4096-bf16", 20.9)
    assert h100.read_text().splitlines()[0] == "# yaml-language-server: $schema=../../../../schema/run.schema.json"
    assert [w for w in check(records_copy).warnings if "TODO" in w.message] == []


def test_importing_again_rewrites_nothing(records_copy):
    run_cli(records_copy, "--hardware-map", H200_NAME)
    files = {p: p.read_bytes() for p in records_copy.rglob("*.yaml")}
    again = run_cli(records_copy, "--hardware-map", H200_NAME)
    assert again.exit_code == 0
    assert again.output.splitlines()[0] == (
        f"Kept {records_copy}/runs/fused-add-rmsnorm/h100-sxm/2025-03-14-liger-v0.5.5.yaml: it exists and "
        "records are never rewritten (6 results not imported)")
    assert {p: p.read_bytes() for p in records_copy.rglob("*.yaml")} == files
    assert again.output.splitlines()[-1] == ("18 rows read: 0 imported into 0 file(s), 7 already in existing "
                                             "files, 11 not imported (listed above).")


def test_an_unknown_gpu_is_listed_and_a_dry_run_writes_nothing(records_copy):
    before = sorted(records_copy.rglob("*"))
    result = run_cli(records_copy, "--dry-run")
    assert result.exit_code == 0
    assert result.output.splitlines()[0].startswith("Would write ")
    assert (f"{CSV}: line 17 (1 row) not imported: GPU 'NVIDIA H200 141GB HBM3e' matches no hardware "
            "record's device_names (add it there, or pass --hardware-map 'NAME=hardware-id')") in result.output
    assert sorted(records_copy.rglob("*")) == before


def test_a_file_that_is_not_the_liger_csv_is_refused(records_copy, tmp_path):
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(UserError, match=r"other.csv:1: not a Liger-Kernel benchmark CSV: missing column\(s\) "
                                        r"kernel_name, kernel_provider, "):
        import_liger_csv(other, records_copy)
    result = CliRunner().invoke(main, ["import", "liger-csv", str(other), "--records", str(records_copy)])
    assert result.exit_code == 2 and result.output.startswith("error: ")


def test_a_hardware_map_to_an_unknown_record_is_refused(records_copy):
    result = run_cli(records_copy, "--hardware-map", "NVIDIA B200=b200")
    assert result.exit_code == 2
    assert result.output.startswith("error: --hardware-map NVIDIA B200=b200: unknown hardware 'b200' "
                                    "(one of h100-sxm, ")


def test_imported_records_build(records_copy, tmp_path):
    run_cli(records_copy, "--hardware-map", H200_NAME)
    build(records_copy, tmp_path / "out")
    page = (tmp_path / "out/runs/fused-add-rmsnorm/h100-sxm/2025-03-14-liger-v0.5.5.html").read_text()
    assert "Liger-Kernel benchmark data" in page and "BSD-2-Clause" in page


def test_line_ranges():
    assert line_ranges([9, 2, 3, 4, 11, 12, 20]) == "2-4, 9, 11-12, 20"


def test_the_real_rows_give_the_committed_seed_record(records_copy):
    """Liger-Kernel's own rows (v0.7.0, H100) import into the file name and numbers of the
    committed seed record, which was transcribed by hand from the same CSV."""
    seed = records_copy / "runs/fused-add-rmsnorm/h100-sxm/2026-04-07-liger-v0.7.0.yaml"
    by_hand = {(r.implementation, r.workload): r.e2e_us.median
               for lr in load_catalog(records_copy).runs if lr.path.endswith(seed.name) for r in lr.run.results}
    seed.unlink()
    real = CSV.with_name("fused_add_rms_norm_v0.7.0.csv")
    report = import_liger_csv(real, records_copy)
    [planned] = report.written
    assert planned.path == seed
    assert {line for line, _ in report.skipped} == set(range(14, 20)) and all(
        "liger_rms_norm" in reason for _, reason in report.skipped)
    imported = {(r.implementation, r.workload): r.e2e_us for lr in load_catalog(records_copy).runs
                if lr.path.endswith(seed.name) for r in lr.run.results}
    assert imported.keys() == by_hand.keys() and len(imported) == 12
    for key, stat in imported.items():
        assert round(stat.median, 1) == pytest.approx(by_hand[key], abs=0.051), key
        assert stat.p20 <= stat.median <= stat.p80
