"""`kernel-records import liger-csv`: Liger-Kernel's benchmark CSV as reported run records.

The fixture tests run in a copy of tests/fixtures/liger-csv/records (one family, its mapping);
the real CSV (data/liger-kernel/) runs through the committed mapping in a copy of records/, and
its counts are checked against the CSV itself.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from site_builder.build import build
from site_builder.check import check
from site_builder.cli import main
from site_builder.errors import RecordErrors, UserError
from site_builder.importers.liger_csv import import_liger_csv, line_ranges
from site_builder.load import load_catalog

from conftest import REPO

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "liger-csv"
CSV = FIXTURES / "benchmark_sample.csv"
REAL = REPO / "data" / "liger-kernel" / "all_benchmark_data.csv"
H200_NAME = "NVIDIA H200 141GB HBM3e=h200"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
HEADER = CSV.read_text(encoding="utf-8").splitlines()[0]
ROW = ('fused_add_rms_norm,liger_fused_add_rms_norm,forward,speed,ms,H,hidden size,{x},{y},{lo},{hi},'
       '"{{""M"": 2048, {dtype}""eps"": 1e-06}}",NVIDIA H100 80GB HBM3,2025-03-14 10:20:30,0.5.5')


@pytest.fixture
def fixture_records(tmp_path) -> Path:
    dest = tmp_path / "records"
    shutil.copytree(FIXTURES / "records", dest)
    return dest


def run_cli(records, *extra, csv_path=CSV):
    return CliRunner().invoke(main, ["import", "liger-csv", str(csv_path), "--records", str(records), *extra])


def row(x="1024", y="0.0205", lo="0.0201", hi="0.021", dtype='""dtype"": ""torch.float32"", '):
    return ROW.format(x=x, y=y, lo=lo, hi=hi, dtype=dtype)


def write_csv(tmp_path, *rows, header=HEADER, name="rows.csv", sep=","):
    path = tmp_path / name
    path.write_text("\n".join([header.replace(",", sep), *rows]) + "\n", encoding="utf-8")
    return path


def listed():
    c = f"{CSV}: line"
    return [
        f"{c} 2 (1 row) not imported: conflicts with line 18: two different values for liger-fused on "
        "r2048-h1024-fp32 (median 20.5 and 20.4 µs); fix the CSV where it is published, then import again",
        f"{c} 8 (1 row) not imported: provider 'liger_rms_norm' of fused_add_rms_norm: no implementation "
        "record for it",
        f"{c} 9 (1 row) not imported: no forward+backward workload hidden=1024 rows=2048 float32 declared in "
        "family fused-add-rmsnorm — declare it in records/families/fused-add-rmsnorm.yaml",
        f"{c} 10 (1 row) not imported: metric 'memory': peak memory, not a time",
        f"{c}s 11-12 (2 rows) not imported: kernel 'cross_entropy': no family for it here",
        f"{c} 13 (1 row) not imported: no forward workload hidden=512 rows=2048 float32 declared in family "
        "fused-add-rmsnorm — declare it in records/families/fused-add-rmsnorm.yaml",
        f"{c} 14 (1 row) not imported: GPU 'NVIDIA A100-SXM4-80GB' matches no hardware record's device_names "
        "(add it there, or under gpus: in records/sources/liger-kernel.yaml, or pass --hardware-map "
        "'NAME=hardware-id')",
        f"{c} 15 (1 row) not imported: eps = 1e-05, but family fused-add-rmsnorm fixes eps = 1e-06",
        f"{c} 16 (1 row) not imported: times are not positive with y_value_20 ≤ y_value_50 ≤ y_value_80; "
        "fix the row",
        f"{c} 18 (1 row) not imported: conflicts with line 2: two different values for liger-fused on "
        "r2048-h1024-fp32 (median 20.5 and 20.4 µs); fix the CSV where it is published, then import again",
        f"{c} 19 (1 row) not imported: extra_benchmark_config_str is not JSON (Expecting property name "
        "enclosed in double quotes); fix the row",
    ]


def test_every_row_is_imported_or_listed_with_its_reason(fixture_records):
    result = run_cli(fixture_records, "--hardware-map", H200_NAME, "--commit", COMMIT)
    h100 = fixture_records / "runs/fused-add-rmsnorm/h100-sxm/2025-03-14-liger-v0.5.5.yaml"
    h200 = fixture_records / "runs/fused-add-rmsnorm/h200/2025-06-02-liger-v0.6.0.yaml"
    assert result.output.splitlines() == [
        f"Wrote {h100} (5 results)",
        f"Wrote {h200} (1 result)",
        *listed(),
        "18 rows read: 6 imported into 2 file(s), 12 not imported (listed above).",
        "Exit status 1: some rows were not imported; pass --allow-skips to accept that.",
    ]
    assert result.exit_code == 1
    catalog = load_catalog(fixture_records)
    runs = {lr.path: lr.run for lr in catalog.runs}
    run = runs["runs/fused-add-rmsnorm/h100-sxm/2025-03-14-liger-v0.5.5.yaml"]
    assert (run.trust, run.source.license, run.protocol.id, str(run.observed)) == (
        "reported", "BSD-2-Clause", "liger-benchmark-scripts", "2025-03-14")
    assert run.source.url == (f"https://github.com/linkedin/Liger-Kernel/blob/{COMMIT}/"
                              "benchmark/data/all_benchmark_data.csv")
    assert run.source.citation == (f"linkedin/Liger-Kernel@{COMMIT[:12]}, benchmark/data/all_benchmark_data.csv, "
                                   "lines 3-7: kernel fused_add_rms_norm, speed, NVIDIA H100 80GB HBM3, "
                                   "Liger-Kernel v0.5.5.")
    got = {(r.implementation, r.workload): (r.e2e_us.median, r.e2e_us.p20, r.e2e_us.p80) for r in run.results}
    assert got[("transformers", "r2048-h4096-fp32")] == (149.1, 147.6, 152.1)
    assert ("liger-fused", "r2048-h1024-fp32") not in got  # lines 2 and 18 conflict: neither is taken
    assert len(got) == 5
    [bf16] = runs["runs/fused-add-rmsnorm/h200/2025-06-02-liger-v0.6.0.yaml"].results
    assert (bf16.implementation, bf16.workload, bf16.e2e_us.median) == ("liger-fused", "r2048-h4096-bf16", 20.9)
    assert h100.read_text().splitlines()[0] == "# yaml-language-server: $schema=../../../../schema/run.schema.json"
    assert [w for w in check(fixture_records).warnings if "TODO" in w.message] == []


def test_allow_skips_exits_zero_and_a_dry_run_writes_nothing(fixture_records):
    before = sorted(fixture_records.rglob("*"))
    result = run_cli(fixture_records, "--dry-run", "--commit", COMMIT, "--allow-skips")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith("Would write ")
    assert (f"{CSV}: line 17 (1 row) not imported: GPU 'NVIDIA H200 141GB HBM3e' matches no hardware "
            "record's device_names") in result.output
    assert sorted(fixture_records.rglob("*")) == before


def test_a_second_import_keeps_what_is_on_record_and_appends_a_new_dated_record(fixture_records, tmp_path):
    run_cli(fixture_records, "--commit", COMMIT)
    files = {p: p.read_bytes() for p in fixture_records.rglob("*.yaml")}
    old = fixture_records / "runs/fused-add-rmsnorm/h100-sxm/2025-03-14-liger-v0.5.5.yaml"
    again = run_cli(fixture_records, "--commit", COMMIT, "--allow-skips")
    assert again.exit_code == 0
    assert again.output.splitlines()[0] == f"Kept {old}: it holds these 5 results already"
    assert again.output.splitlines()[-1] == ("18 rows read: 0 imported into 0 file(s), 5 already on record, "
                                             "13 not imported (listed above).")
    assert {p: p.read_bytes() for p in fixture_records.rglob("*.yaml")} == files
    changed = tmp_path / "changed.csv"  # the same rows, one number republished
    changed.write_text(CSV.read_text(encoding="utf-8").replace("0.1491,", "0.1501,"), encoding="utf-8")
    third = run_cli(fixture_records, "--commit", COMMIT, "--allow-skips", csv_path=changed)
    today = load_catalog(fixture_records).runs[-1].run.source.retrieved.isoformat()
    new = old.with_name(f"2025-03-14-liger-v0.5.5_imported-{today}.yaml")
    assert third.output.splitlines()[0] == f"Wrote {new} (5 results)"
    assert {p: p.read_bytes() for p in files} == files  # the old record is untouched
    assert {r.e2e_us.median for r in load_catalog(fixture_records).runs[-1].run.results} >= {150.1}


def test_the_commit_is_asked_for_unless_the_file_is_a_known_copy(fixture_records):
    result = run_cli(fixture_records)
    assert result.exit_code == 2
    assert re.fullmatch(
        rf"error: {re.escape(str(CSV))}: which commit of https://github.com/linkedin/Liger-Kernel is this file "
        r"from\? It is not a known copy \(sha256 [0-9a-f]{12}…\); pass --commit <40-hex commit> \(git log -1 "
        r"--format=%H -- benchmark/data/all_benchmark_data.csv in a clone\)\n", result.output)
    assert run_cli(fixture_records, "--commit", "abc").output == (
        "error: --commit 'abc': write the full 40-hex commit of https://github.com/linkedin/Liger-Kernel\n")


# --- refusals, each with the line and what to do ---------------------------------------------


def refused(tmp_path, records, *rows, **kw):
    report = import_liger_csv(write_csv(tmp_path, *rows, **kw), records, commit=COMMIT, write=False)
    return report.skipped


def test_a_conflicting_duplicate_refuses_both_rows_and_a_repeated_row_is_listed(tmp_path, fixture_records):
    assert refused(tmp_path, fixture_records, row(), row(y="0.0305", lo="0.03", hi="0.031"), row()) == [
        (2, "conflicts with line 3: two different values for liger-fused on r2048-h1024-fp32 (median 20.5 and "
            "30.5 µs); fix the CSV where it is published, then import again"),
        (3, "conflicts with line 2: two different values for liger-fused on r2048-h1024-fp32 (median 20.5 and "
            "30.5 µs); fix the CSV where it is published, then import again"),
        (4, "another row for liger-fused on r2048-h1024-fp32 conflicts with it (listed above); fix the CSV where "
            "it is published, then import again"),
    ]
    assert refused(tmp_path, fixture_records, row(), row()) == [
        (3, "the same result as line 2 (a repeated row); nothing to do")]


def test_a_row_without_dtype_matching_several_workloads_is_refused(tmp_path, fixture_records):
    assert refused(tmp_path, fixture_records, row(dtype="")) == [
        (2, "the row does not say its dtype and 2 workloads of fused-add-rmsnorm have its sizes "
            "(r2048-h1024-fp32, r2048-h1024-bf16) — add `dtype:` with `dtype_source:` to kernels.fused_add_rms_norm "
            "in records/sources/liger-kernel.yaml")]


@pytest.mark.parametrize("x", ['"1,024"', "1024.5", "1e3"])
def test_a_size_that_is_not_written_as_a_whole_number_is_refused(tmp_path, fixture_records, x):
    assert refused(tmp_path, fixture_records, row(x=x)) == [
        (2, f"x_value = {x.strip(chr(34))!r} is not a whole number, but it gives axis 'hidden' of "
            "fused-add-rmsnorm — write it as digits only (1024, not 1,024 or 1024.5)")]


def test_a_config_size_that_is_not_whole_is_refused(tmp_path, fixture_records):
    assert refused(tmp_path, fixture_records, row().replace('""M"": 2048', '""M"": 2048.5')) == [
        (2, "config M = 2048.5 is not a whole number, but it gives axis 'rows' of fused-add-rmsnorm — write it "
            "as digits only (1024, not 1,024 or 1024.5)")]


@pytest.mark.parametrize("sep, name", [(";", "semicolon"), ("\t", "tab")])
def test_a_file_with_another_delimiter_is_refused_naming_it(tmp_path, fixture_records, sep, name):
    path = write_csv(tmp_path, sep=sep)
    with pytest.raises(UserError) as err:
        import_liger_csv(path, fixture_records, commit=COMMIT)
    assert str(err.value) == (f"{path}:1: the file is {name}-delimited ({sep!r} between columns); Liger-Kernel's "
                              "CSV is comma-separated — export it again with commas")


def test_a_header_name_with_stray_spaces_is_refused_naming_the_column(tmp_path, fixture_records):
    path = write_csv(tmp_path, row(), header=HEADER.replace(",metric_unit,", ", metric_unit ,"))
    result = run_cli(fixture_records, "--commit", COMMIT, csv_path=path)
    assert result.exit_code == 2
    assert result.output == f"error: {path}:1: column ' metric_unit ' has stray spaces — rename it 'metric_unit'\n"


def test_a_file_that_is_not_the_liger_csv_is_refused(fixture_records, tmp_path):
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(UserError, match=r"other.csv:1: not a Liger-Kernel benchmark CSV: missing column\(s\) "
                                        r"kernel_name, kernel_provider, "):
        import_liger_csv(other, fixture_records, commit=COMMIT)


def test_a_config_key_the_mapping_does_not_account_for_is_refused(tmp_path, fixture_records):
    assert refused(tmp_path, fixture_records, row().replace('""eps""', '""casting_mode"": ""llama"", ""eps""')) == [
        (2, "config key 'casting_mode' of fused_add_rms_norm is neither an axis source, a parameter, a requirement "
            "nor ignored — add it to kernels.fused_add_rms_norm.axes, parameters, require or ignore (with why) in "
            "records/sources/liger-kernel.yaml")]


def test_a_bom_at_the_start_of_the_csv_is_stripped(tmp_path, fixture_records):
    path = write_csv(tmp_path, row(x="2048"))
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    report = import_liger_csv(path, fixture_records, commit=COMMIT, write=False)
    assert report.skipped == [] and [p.results for p in report.written] == [1]


# --- the mapping: extended, never replaced ----------------------------------------------------


def test_mapping_files_and_hardware_maps_add_and_never_replace(tmp_path, fixture_records):
    more = tmp_path / "more.yaml"
    more.write_text("schema_version: 1\nextends: liger-kernel\ngpus:\n  NVIDIA H200 141GB HBM3e: h200\n",
                    encoding="utf-8")
    report = import_liger_csv(CSV, fixture_records, commit=COMMIT, write=False, mappings=(more,))
    assert 17 not in {line for line, _ in report.skipped}  # the H200 row maps through the added GPU
    clash = tmp_path / "clash.yaml"
    clash.write_text("schema_version: 1\nextends: liger-kernel\nskip_kernels:\n  fused_add_rms_norm: not here\n",
                     encoding="utf-8")
    with pytest.raises(RecordErrors) as err:
        import_liger_csv(CSV, fixture_records, commit=COMMIT, mappings=(clash,), hardware_map={"NVIDIA B200": "b200"})
    assert sorted(str(p) for p in err.value.problems) == [
        "--hardware-map:1: NVIDIA B200=b200: unknown hardware 'b200' — use one of h100-sxm, h200, or add its record",
        f"{clash}:4: kernel 'fused_add_rms_norm' is already mapped at "
        f"{_shown(fixture_records / 'sources/liger-kernel.yaml')}:21 — change it there; a mapping file only adds",
    ]


def _shown(path: Path) -> str:
    try:
        return path.absolute().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return f"records/{path.relative_to(path.parents[1]).as_posix()}"


def test_imported_records_build(fixture_records, tmp_path):
    run_cli(fixture_records, "--hardware-map", H200_NAME, "--commit", COMMIT)
    build(fixture_records, tmp_path / "out")
    page = (tmp_path / "out/runs/fused-add-rmsnorm/h100-sxm/2025-03-14-liger-v0.5.5.html").read_text()
    assert "Liger-Kernel benchmark data" in page and "BSD-2-Clause" in page


def test_line_ranges():
    assert line_ranges([9, 2, 3, 4, 11, 12, 20]) == "2-4, 9, 11-12, 20"


def test_the_real_rows_give_the_numbers_of_the_seed_record(fixture_records):
    """Liger-Kernel's own rows (v0.7.0, H100) import into the file name and numbers of the seed
    record, which was transcribed by hand from the same CSV (a copy of it is a fixture)."""
    by_hand = {(r.implementation, r.workload): r.e2e_us.median for r in yaml_results(
        REPO / "records/runs/fused-add-rmsnorm/h100-sxm/2026-04-07-liger-v0.7.0.yaml")}
    real = FIXTURES / "fused_add_rms_norm_v0.7.0.csv"
    report = import_liger_csv(real, fixture_records, commit=COMMIT)
    [planned] = report.written
    assert planned.path == fixture_records / "runs/fused-add-rmsnorm/h100-sxm/2026-04-07-liger-v0.7.0.yaml"
    assert {line for line, _ in report.skipped} == set(range(14, 20)) and all(
        "liger_rms_norm" in reason for _, reason in report.skipped)
    imported = {(r.implementation, r.workload): r.e2e_us for lr in load_catalog(fixture_records).runs
                for r in lr.run.results}
    assert imported.keys() == by_hand.keys() and len(imported) == 12
    for key, stat in imported.items():
        assert round(stat.median, 1) == pytest.approx(by_hand[key], abs=0.051), key
        assert stat.p20 <= stat.median <= stat.p80


def yaml_results(path: Path) -> list:
    from site_builder.schema import Run

    return Run.model_validate(yaml.safe_load(path.read_text(encoding="utf-8"))).results


# --- the real CSV, through the committed mapping ----------------------------------------------


def test_the_real_csv_every_row_imported_or_listed_counts_from_the_csv(records_copy):
    for old in records_copy.glob("runs/*/*/*-liger-v*.yaml"):  # what an earlier import wrote
        old.unlink()
    mapping = yaml.safe_load((records_copy / "sources/liger-kernel.yaml").read_text(encoding="utf-8"))
    with open(REAL, encoding="utf-8", newline="") as handle:
        rows = {i: r for i, r in enumerate(csv.DictReader(handle), start=2)}
    report = import_liger_csv(REAL, records_copy)  # a known copy: the commit comes from the mapping
    assert report.commit == mapping["copies"][0]["commit"]
    assert report.rows == len(rows) == 2448
    skipped = dict(report.skipped)
    assert len(skipped) == len(report.skipped)  # no row listed twice
    written = {p.path: p for p in report.written}
    cited: set[int] = set()
    for path in written:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        ranges = re.search(r"lines ([\d, -]+):", data["source"]["citation"]).group(1)
        lines = {n for part in ranges.split(", ") for n in _span(part)}
        assert len(lines) == len(data["results"])
        medians = Counter(r["e2e_us"]["median"] for r in data["results"])
        for n in lines:  # every cited line is a speed row whose median is on the record
            assert rows[n]["metric_name"] == "speed" and n not in skipped
            medians[float(f"{float(rows[n]['y_value_50']) * 1000:.4g}")] -= 1
        assert set(medians.values()) == {0}
        cited |= lines
    assert cited.isdisjoint(skipped) and len(cited) + len(skipped) == len(rows)
    kernels = mapping["kernels"]
    memory = {n for n, r in rows.items() if r["metric_name"] == "memory" and r["kernel_name"] in kernels}
    assert {n for n, why in skipped.items() if why.startswith("metric 'memory': ")} == memory
    for kernel, why in mapping["skip_kernels"].items():
        assert {n for n, r in rows.items() if r["kernel_name"] == kernel} == {
            n for n, w in skipped.items() if w == f"kernel {kernel!r}: {why}"}, kernel
    for kernel, spec in kernels.items():
        for provider, why in spec.get("skip_providers", {}).items():
            assert {n for n, r in rows.items() if (r["kernel_name"], r["kernel_provider"], r["metric_name"]) ==
                    (kernel, provider, "speed")} == {
                n for n, w in skipped.items() if w == f"provider {provider!r} of {kernel}: {why}"}
    unmapped = {n for n, r in rows.items() if r["kernel_name"] not in kernels and
                r["kernel_name"] not in mapping["skip_kernels"]}
    assert {n for n, w in skipped.items() if "is not in the mapping — add it under `kernels:`" in w} == unmapped
    rest = Counter(re.sub(r" workload .*", "", w) for n, w in skipped.items() if not w.startswith(
        ("metric 'memory'", "kernel ", "provider ")))
    catalog = load_catalog(records_copy)
    for n, w in skipped.items():  # what is left: rows of a kind their family declares no workload of
        m = re.match(r"no (\S+) workload", w)
        if m:
            family = catalog.families[kernels[rows[n]["kernel_name"]]["family"]]
            assert m.group(1) not in {wl.kind for wl in family.workloads}, (n, w)
    assert set(rest) <= {"no backward", "no forward+backward"}, rest
    print(f"\nreal CSV: {len(cited)} imported into {len(written)} files; skipped by reason:",
          json.dumps(Counter(re.sub(r"[:(—].*", "", w).strip() for w in skipped.values()), indent=1))


def _span(part: str) -> range:
    a, _, b = part.partition("-")
    return range(int(a), int(b or a) + 1)
