"""Source mappings (records/sources/*.yaml): their schema and catalog errors with file:line, and
the record rules issue 19 added (float spellings, a BOM, an implementation of another family)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder.derive.check import check
from site_builder.cli import main
from site_builder.errors import RecordErrors
from site_builder.records.load import load_catalog
from site_builder.records.yamlio import parse

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "liger-csv" / "records"


@pytest.fixture
def records(tmp_path, monkeypatch) -> Path:
    dest = tmp_path / "records"
    shutil.copytree(FIXTURES, dest)
    monkeypatch.chdir(tmp_path)
    return dest


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def problems(records: Path) -> list[str]:
    with pytest.raises(RecordErrors) as err:
        check(records)
    return [str(p) for p in err.value.problems]


MAP = "records/sources/liger-kernel.yaml"


def test_the_fixture_mapping_checks(records):
    assert check(records).catalog.families.keys() == {"fused-add-rmsnorm"}


@pytest.mark.parametrize("old, new, expected", [
    ("family: fused-add-rmsnorm", "family: fused-add-rms-norm",
     f"{MAP}:22: kernel 'fused_add_rms_norm' maps to unknown family 'fused-add-rms-norm' — use one of "
     "fused-add-rmsnorm, or add records/families/fused-add-rms-norm.yaml"),
    ("huggingface: transformers", "huggingface: hf-transformers",
     f"{MAP}:23: provider 'huggingface' of fused_add_rms_norm maps to unknown implementation 'hf-transformers' — "
     "add records/implementations/hf-transformers.yaml, or use an existing id"),
    ("axes: {rows: M, hidden: H}", "axes: {rows: M, hidden: H, heads: NH}",
     f"{MAP}:25: kernel 'fused_add_rms_norm' maps unknown axis 'heads' of fused-add-rmsnorm — use one of rows, "
     "hidden"),
    ("axes: {rows: M, hidden: H}", "axes: {rows: M}",
     f"{MAP}:25: kernel 'fused_add_rms_norm' gives no source for axis 'hidden' of fused-add-rmsnorm — add "
     "`hidden: <x name or config keys>` under axes"),
    ("parameters: {eps: eps}", "parameters: {eps: epsilon}",
     f"{MAP}:26: kernel 'fused_add_rms_norm' maps 'eps' to unknown parameter 'epsilon' of fused-add-rmsnorm — "
     "use one of eps"),
    ("modes: {", "mode_names: {",
     (f"{MAP}:3: missing field `modes` — add `modes:` here (see the record's JSON Schema)",
      f"{MAP}:16: unknown field `mode_names` — remove it or fix its spelling; allowed here: copies, gpus, id, "
      "kernels, license, metrics, modes, name, path, protocol, repository, schema_version, skip_kernels")),
    ("full: forward+backward", "full: both",
     f"{MAP}:16: `modes.full` is 'both', not an allowed value — use 'forward', 'backward' or 'forward+backward'"),
    ("  memory: {time: false, skip: \"peak memory, not a time\"}", "  memory: {time: false}",
     f"{MAP}:19: metrics.memory: a metric that is not a time needs `skip:` saying why its rows are not imported "
     "— correct the values so they agree"),
    ("skip_kernels:\n", "skip_kernels:\n  fused_add_rms_norm: twice\n",
     f"{MAP}:3: the record: kernel 'fused_add_rms_norm' is both mapped and skipped — keep one"),
])
def test_a_mapping_mistake_is_reported_with_file_and_line(records, old, new, expected):
    edit(records / "sources/liger-kernel.yaml", old, new)
    expected = [expected] if isinstance(expected, str) else list(expected)
    assert problems(records) == expected
    result = CliRunner().invoke(main, ["check", "--records", str(records)])
    assert result.exit_code == 1 and all(line in result.output for line in expected)


def test_a_provider_mapped_to_an_implementation_of_another_family_is_refused(records):
    edit(records / "implementations/transformers.yaml", "notes:", "families: [rmsnorm-x]\nnotes:")
    assert problems(records) == [
        "records/implementations/transformers.yaml:13: unknown family 'rmsnorm-x' — use one of the families in "
        "records/families/ (fused-add-rmsnorm), or add its record"]


RUN = """\
schema_version: 1
family: fused-add-rmsnorm
hardware: h100-sxm
trust: reported
observed: 2026-04-07
source: {{name: a paper, url: "https://example.org/paper", license: CC-BY-4.0}}
protocol: {{id: paper, version: 1, clock: end-to-end, timing: do_bench}}
results:
  - {{implementation: {impl}, workload: r2048-h1024-fp32, e2e_us: {{median: {median}}}}}
"""


def test_a_run_naming_an_implementation_of_another_family_is_refused(records):
    shutil.copy(records / "families/fused-add-rmsnorm.yaml", records / "families/other-norm.yaml")
    edit(records / "families/other-norm.yaml", "id: fused-add-rmsnorm", "id: other-norm")
    edit(records / "implementations/liger-fused.yaml", "notes:", "families: [other-norm]\nnotes:")
    run = records / "runs/fused-add-rmsnorm/h100-sxm/2026-04-07-paper.yaml"
    run.parent.mkdir(parents=True)
    run.write_text(RUN.format(impl="liger-fused", median=20.5), encoding="utf-8")
    assert problems(records) == [
        "records/runs/fused-add-rmsnorm/h100-sxm/2026-04-07-paper.yaml:9: implementation 'liger-fused' computes "
        "other-norm, not fused-add-rmsnorm — implementation ids are global: use the id of the implementation of "
        "this family, or add one (records/implementations/)"]
    src = records / "sources/liger-kernel.yaml"  # the mapping may not name it for this family either
    run.unlink()
    assert problems(records) == [
        f"{MAP}:23: provider 'liger_fused_add_rms_norm' of fused_add_rms_norm maps to 'liger-fused', an "
        "implementation of other-norm, not fused-add-rmsnorm — implementation ids are global: add an "
        "implementation record for this family"]
    assert src.is_file()


@pytest.mark.parametrize("spelling, value", [("1e-6", 1e-6), ("1E-6", 1e-6), ("+2.5e-3", 0.0025), ("1.0e-6", 1e-6),
                                             ("1e6", 1e6)])
def test_float_spellings_are_read_as_numbers(records, spelling, value):
    assert parse(f"eps: {spelling}\n").data == {"eps": value}
    edit(records / "families/fused-add-rmsnorm.yaml", "eps: 1.0e-6", f"eps: {spelling}")
    assert load_catalog(records).families["fused-add-rmsnorm"].semantics.parameters["eps"] == value


def test_a_byte_order_mark_is_stripped(records):
    path = records / "hardware/h200.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_catalog(records).hardware["h200"].memory_bandwidth_gbps == 4800
    src = records / "sources/liger-kernel.yaml"
    src.write_bytes(b"\xef\xbb\xbf" + src.read_bytes())
    assert check(records).warnings == []


# --- a reported-only family: nothing to run ---------------------------------------------------


def reported_only(records: Path) -> Path:
    """A second family with no kernel package beside one that has one; returns kernels/."""
    shutil.copy(records / "families/fused-add-rmsnorm.yaml", records / "families/other-norm.yaml")
    edit(records / "families/other-norm.yaml", "id: fused-add-rmsnorm", "id: other-norm")
    kernels = records.parent / "kernels"
    (kernels / "fused_add_rmsnorm").mkdir(parents=True)
    (kernels / "fused_add_rmsnorm" / "__init__.py").write_text("", encoding="utf-8")
    return kernels


def test_the_challenges_page_offers_run_only_for_families_with_kernels(records, tmp_path):
    from bs4 import BeautifulSoup

    from site_builder.build import build

    reported_only(records)
    build(records, tmp_path / "site")
    read = lambda rel: BeautifulSoup((tmp_path / "site" / rel).read_text(encoding="utf-8"), "html.parser")
    assert "reported only" in read("challenges.html").find(id="other-norm").get_text(" ", strip=True)
    other = read("challenges/other-norm.html").find(id="other-norm").get_text(" ", strip=True)
    assert "kernel-records run" not in other
    assert ("Reported only: this family has no kernels here yet (no kernels/other_norm/ package), so there is "
            "nothing to run.") in other
    seed = read("challenges/fused-add-rmsnorm.html").find(id="fused-add-rmsnorm").get_text(" ", strip=True)
    assert "kernel-records run --family fused-add-rmsnorm" in seed and "Reported only" not in seed


def test_run_on_a_family_without_kernels_prints_one_line(records):
    kernels = reported_only(records)
    result = CliRunner().invoke(main, ["run", "--family", "other-norm", "--records", str(records),
                                       "--kernels", str(kernels)])
    assert result.exit_code == 2
    assert result.output == (f"error: family 'other-norm' has no kernels here (no {kernels}/other_norm/__init__.py): "
                             "its records are reported only, so there is nothing to run\n")


def test_an_axis_from_a_quotient_or_a_constant(tmp_path, records):
    """`H / 2` divides exactly (a remainder refuses the row); a whole number is a constant."""
    from site_builder.importers.liger_csv import import_liger_csv

    edit(records / "sources/liger-kernel.yaml", "axes: {rows: M, hidden: H}", "axes: {rows: M / 1024 * 1024, hidden: H}")
    header = (FIXTURES.parent / "benchmark_sample.csv").read_text(encoding="utf-8").splitlines()[0]
    line = ('fused_add_rms_norm,huggingface,forward,speed,ms,H,hidden size,4096,0.149,0.147,0.152,'
            '"{""M"": %s, ""dtype"": ""torch.float32"", ""eps"": 1e-06}",NVIDIA H100 80GB HBM3,2025-03-14 10:20:30,0.5.5')
    path = tmp_path / "q.csv"
    path.write_text("\n".join([header, line % 2048, line % 2050]) + "\n", encoding="utf-8")
    report = import_liger_csv(path, records, commit="0" * 40, write=False)
    assert [p.results for p in report.written] == [1]
    assert report.skipped == [(3, "axis 'rows' = M / 1024 * 1024 is 2050 / 1024, not a whole number; fix the row "
                                  "or kernels.fused_add_rms_norm.axes.rows in records/sources/liger-kernel.yaml")]
