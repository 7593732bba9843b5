"""`kernel-records new ...`: valid as written, at the right path, never over an existing file."""

from __future__ import annotations

import datetime as dt

import pytest
from click.testing import CliRunner

from site_builder.check import check
from site_builder.cli import main
from site_builder.errors import UserError
from site_builder.load import load_catalog
from site_builder.scaffold import new_family, new_hardware, new_implementation, new_run

TODAY = dt.date(2026, 11, 2)


def todo_lines(path):
    return [i for i, line in enumerate(path.read_text().splitlines(), 1) if "# TODO" in line or ": TODO" in line
            or line.strip().startswith("TODO")]


def test_every_scaffold_validates_as_written_and_flags_its_todos(records_copy):
    made = [
        new_implementation(records_copy, "my-kernel"),
        new_hardware(records_copy, "b300"),
        new_family(records_copy, "my-op", baseline="my-kernel"),
        new_run(records_copy, "my-op", "b300", today=TODAY),
        new_run(records_copy, "fused-add-rmsnorm", "h200", name="paper-2026", implementation="liger-fused",
                today=TODAY),
    ]
    rel = [p.relative_to(records_copy).as_posix() for p in made]
    assert rel == ["implementations/my-kernel.yaml", "hardware/b300.yaml", "families/my-op.yaml",
                   "runs/my-op/b300/2026-11-02-reported.yaml",
                   "runs/fused-add-rmsnorm/h200/2026-11-02-paper-2026.yaml"]
    catalog = load_catalog(records_copy)  # raises on any problem
    assert "my-op" in catalog.families and "my-kernel" in catalog.implementations and "b300" in catalog.hardware
    warnings = check(records_copy).warnings
    for path in made:
        shown = f"records/{path.relative_to(records_copy).as_posix()}"
        flagged = sorted(w.line for w in warnings if w.path == shown and w.message.startswith("TODO left"))
        assert flagged == todo_lines(path) and flagged, shown
        assert path.read_text().splitlines()[0].startswith("# yaml-language-server: $schema=")


def test_the_run_scaffold_names_the_baseline_and_headline(records_copy):
    path = new_run(records_copy, "fused-add-rmsnorm", "h100-sxm", today=TODAY)
    run = next(lr.run for lr in load_catalog(records_copy).runs if lr.path.endswith("2026-11-02-reported.yaml"))
    assert path.name == "2026-11-02-reported.yaml"
    assert (run.trust, run.results[0].implementation, run.results[0].workload) == (
        "reported", "transformers", "r2048-h1024-fp32")


def test_a_scaffold_never_overwrites(records_copy):
    target = records_copy / "implementations" / "liger-fused.yaml"
    before = target.read_bytes()
    with pytest.raises(UserError) as info:
        new_implementation(records_copy, "liger-fused")
    assert str(info.value) == (f"{target} already exists; nothing was written (records are never "
                               "overwritten: choose another name)")
    assert target.read_bytes() == before
    assert [p.name for p in target.parent.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("bad", ["../escape", "/abs", "Upper", "a/b", "", "x" * 81, "dots..", "-lead"])
def test_ids_that_are_not_slugs_are_refused(records_copy, bad):
    before = sorted(p for p in records_copy.parent.rglob("*"))
    with pytest.raises(UserError) as info:
        new_implementation(records_copy, bad)
    assert str(info.value) == (f"implementation id {bad!r} is not a slug: use lower-case letters, digits "
                               "and single - _ . between them, e.g. my-kernel-v2")
    assert sorted(p for p in records_copy.parent.rglob("*")) == before


def test_unknown_references_are_refused_with_the_next_step(records_copy):
    with pytest.raises(UserError, match=r"^baseline 'nobody' is not a known implementation: add it first "
                                        r"with `kernel-records new implementation nobody`$"):
        new_family(records_copy, "my-op", baseline="nobody")
    with pytest.raises(UserError, match=r"^unknown hardware 'b300': one of .*h100-sxm.*, or add it with "):
        new_run(records_copy, "fused-add-rmsnorm", "b300")


def test_the_cli(records_copy):
    runner = CliRunner()
    result = runner.invoke(main, ["new", "implementation", "my-kernel", "--records", str(records_copy)])
    assert result.exit_code == 0
    assert result.output == (f"Wrote {records_copy}/implementations/my-kernel.yaml: fill in every TODO, "
                             "then run `kernel-records check`.\n")
    again = runner.invoke(main, ["new", "implementation", "my-kernel", "--records", str(records_copy)])
    assert again.exit_code == 2 and again.output.startswith("error: ")
    strict = runner.invoke(main, ["check", "--strict", "--records", str(records_copy)])
    assert strict.exit_code == 1
