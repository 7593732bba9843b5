"""Bad input: every problem in every file, each as `path:line: what — fix`, exact text."""

from __future__ import annotations

import datetime as dt

import pytest
from click.testing import CliRunner

from site_builder.cli import main
from site_builder.errors import RecordErrors
from site_builder.records.load import load_catalog

from conftest import REPORTED_RUN_HEAD, write

RUN = "runs/fused-add-rmsnorm/h100-sxm/x.yaml"
RUN_HEAD = REPORTED_RUN_HEAD


def problems(root) -> list[str]:
    with pytest.raises(RecordErrors) as info:
        load_catalog(root)
    return [str(p) for p in info.value.problems]


def run_with(root, results: str, head: str = RUN_HEAD) -> list[str]:
    write(root, RUN, head + "results:\n" + results)
    return problems(root)


def test_committed_records_are_valid():
    from conftest import RECORDS

    catalog = load_catalog(RECORDS)
    assert "fused-add-rmsnorm" in catalog.families
    assert {"h100-sxm", "h200"} <= set(catalog.hardware)


def test_yaml_syntax_error(records_copy):
    write(records_copy, "implementations/broken.yaml", "schema_version: 1\nid: broken\nname: [unclosed\n")
    assert problems(records_copy) == [
        "records/implementations/broken.yaml:4: YAML syntax error: expected ',' or ']', but got "
        "'<stream end>' — fix the indentation or quoting near this line"
    ]


def test_missing_and_unknown_fields(records_copy):
    write(records_copy, "hardware/b200.yaml", """
        schema_version: 1
        id: b200
        name: NVIDIA B200
        vendor: NVIDIA
        memory_gb: 192
        bandwidth: 8000
        datasheet_url: https://www.nvidia.com/
    """)
    assert problems(records_copy) == [
        "records/hardware/b200.yaml:1: missing field `memory_bandwidth_gbps` — add "
        "`memory_bandwidth_gbps:` here (see the record's JSON Schema)",
        "records/hardware/b200.yaml:6: unknown field `bandwidth` — remove it or fix its spelling; allowed "
        "here: datasheet_url, device_names, id, l2_mb, memory_bandwidth_gbps, memory_gb, name, peak_tflops, "
        "schema_version, sms, vendor",
    ]


def test_wrong_type(records_copy):
    assert run_with(records_copy, "  - {implementation: liger-fused, workload: r2048-h1024-fp32, "
                                  "e2e_us: {median: fast}}\n") == [
        f"records/{RUN}:9: `results.0.e2e_us.median` should be a number, got 'fast' — write a number"
    ]


def test_unknown_references(records_copy):
    out = run_with(records_copy, "  - {implementation: nope, workload: r2048-h1024-fp32, e2e_us: {median: 3}}\n"
                                 "  - {implementation: liger-fused, workload: r7-h7-fp32, e2e_us: {median: 3}}\n")
    assert out[0] == (f"records/{RUN}:9: unknown implementation 'nope' — use one of the implementations in "
                      "records/implementations/ (liger-fused, transformers), or add its record") or "nope" in out[0]
    assert out[1].startswith(f"records/{RUN}:10: unknown workload 'r7-h7-fp32' for family 'fused-add-rmsnorm' — "
                             "use one of its workloads (r1-h4096-bf16, ")
    assert out[1].endswith("or declare it in records/families/fused-add-rmsnorm.yaml")


def test_unknown_family_and_hardware(records_copy):
    head = RUN_HEAD.replace("hardware: h100-sxm", "hardware: b300")
    out = run_with(records_copy, "  - {implementation: liger-fused, workload: r2048-h1024-fp32, e2e_us: {median: 3}}\n",
                   head=head)
    assert f"records/{RUN}:3: run names hardware 'b300' but sits in runs/fused-add-rmsnorm/h100-sxm/ — move it " \
           "to runs/fused-add-rmsnorm/b300/ or fix `hardware`" in out
    assert any(p.startswith(f"records/{RUN}:3: unknown hardware 'b300' — use one of the hardware") for p in out)


def test_duplicate_ids(records_copy):
    text = (records_copy / "implementations/transformers.yaml").read_text()
    write(records_copy, "implementations/hf-copy.yaml", text)
    assert problems(records_copy) == [
        "records/implementations/hf-copy.yaml:3: duplicate id 'transformers' (also in "
        "records/implementations/transformers.yaml) — ids must be unique, ignoring case; rename one"
    ]


def test_duplicate_keys_are_not_silently_dropped(records_copy):
    write(records_copy, "implementations/dup.yaml", "schema_version: 1\nid: dup\nid: dup2\n")
    assert problems(records_copy) == [
        "records/implementations/dup.yaml:3: duplicate key `id` — keep one of the two entries; "
        "YAML would silently drop the first"
    ]


@pytest.mark.parametrize("value, expected", [
    (-3, "must be greater than 0.0, got -3"),
    (0, "must be greater than 0.0, got 0"),
])
def test_negative_or_zero_latency(records_copy, value, expected):
    assert run_with(records_copy, f"  - {{implementation: liger-fused, workload: r2048-h1024-fp32, "
                                  f"e2e_us: {{median: {value}}}}}\n") == [
        f"records/{RUN}:9: `results.0.e2e_us.median` {expected} — times and sizes are positive; "
        "a failed run is recorded with status: failed and an error"
    ]


def test_date_in_the_future(records_copy):
    future = (dt.date.today() + dt.timedelta(days=3)).isoformat()
    head = RUN_HEAD.replace("observed: 2026-05-01", f"observed: {future}")
    assert run_with(records_copy, "  - {implementation: liger-fused, workload: r2048-h1024-fp32, "
                                  "e2e_us: {median: 3}}\n", head=head) == [
        f"records/{RUN}:5: `observed` is a date in the future ({future}) — write the date it was observed (UTC)"
    ]


def test_ids_that_are_not_slugs(records_copy):
    path = records_copy / "implementations/liger-fused.yaml"
    path.write_text(path.read_text().replace("id: liger-fused", "id: Liger Fused!"))
    assert problems(records_copy) == [
        "records/implementations/liger-fused.yaml:3: `id` is 'Liger Fused!', not a slug — use lower-case "
        "letters, digits and single - _ . between them, e.g. my-kernel-v2"
    ]


def test_model_rule_carries_its_fix(records_copy):
    assert run_with(records_copy, "  - {implementation: liger-fused, workload: r2048-h1024-fp32, status: failed}\n") == [
        f"records/{RUN}:9: results.0: a result with status failed has no error — add `error:` saying what went wrong"
    ]


def test_every_problem_of_every_file_in_one_run(records_copy):
    write(records_copy, "implementations/broken.yaml", "id: [\n")
    write(records_copy, "hardware/bad.yaml", "schema_version: 1\nid: bad\n")
    out = run_with(records_copy, "  - {implementation: nope, workload: r2048-h1024-fp32, e2e_us: {median: -1}}\n")
    files = {p.split(":")[0] for p in out}
    assert files == {"records/implementations/broken.yaml", "records/hardware/bad.yaml", f"records/{RUN}"}
    assert len(out) >= 7


def test_old_schema_version_is_refused_with_the_fix(records_copy):
    path = records_copy / "hardware/h200.yaml"
    path.write_text(path.read_text().replace("schema_version: 1", "schema_version: 0"))
    assert problems(records_copy) == [
        "records/hardware/h200.yaml:2: schema_version 0 is not supported — this version of kernel-records "
        "reads schema_version 1; convert the file or upgrade kernel-records"
    ]


def test_cli_reports_without_traceback_and_keeps_output(records_copy, tmp_path, monkeypatch):
    out = tmp_path / "output"
    runner = CliRunner()
    ok = runner.invoke(main, ["build", "--no-run", "--records", str(records_copy), "--out", str(out)])
    assert ok.exit_code == 0, ok.output
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    write(records_copy, "implementations/broken.yaml", "id: [\n")
    bad = runner.invoke(main, ["build", "--no-run", "--records", str(records_copy), "--out", str(out)])
    assert bad.exit_code == 1
    assert "Traceback" not in bad.output
    assert "records/implementations/broken.yaml:2: YAML syntax error" in bad.output
    assert "1 problem found; nothing was written." in bad.output
    after = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before


def test_refuses_to_replace_a_folder_it_did_not_make(records_copy, tmp_path):
    precious = tmp_path / "mine"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    result = CliRunner().invoke(main, ["build", "--no-run", "--records", str(records_copy), "--out", str(precious)])
    assert result.exit_code == 2
    assert "was not made by kernel-records" in result.output
    assert (precious / "notes.txt").read_text() == "keep me"
