"""Nothing lost: an interrupted build leaves the previous site whole and no partial file; tools
never rewrite a record; two writers at once write distinct files."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import shutil
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

import site_builder.build.pages as pages_module
import site_builder.build.write as write_module
from site_builder.build import build, render_site, write_site
from site_builder.cli import main
from site_builder.errors import UserError
from site_builder.records.newfiles import write_new

from conftest import RECORDS


def snapshot(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    """Every file of the site, rendered once: the write tests only need write_site."""
    return render_site(RECORDS)[0]


@pytest.fixture(scope="module")
def good_site(tmp_path_factory, files) -> Path:
    out = tmp_path_factory.mktemp("good") / "output"
    write_site(files, out)
    return out


@pytest.fixture
def site(tmp_path, good_site) -> Path:
    shutil.copytree(good_site, tmp_path / "output")
    return tmp_path / "output"


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}."))


def test_a_render_step_failing_midway_keeps_the_previous_site(site, monkeypatch):
    before = snapshot(site)
    real, calls = pages_module.render, []

    def flaky(*args, **kwargs):
        calls.append(args[1])
        if len(calls) == 5:
            raise RuntimeError("template blew up")
        return real(*args, **kwargs)

    monkeypatch.setattr(pages_module, "render", flaky)
    with pytest.raises(RuntimeError, match="template blew up"):
        build(RECORDS, site)
    assert snapshot(site) == before and leftovers(site) == []


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()])
@pytest.mark.parametrize("how", ["written", "linked"])
def test_a_write_failing_midway_keeps_the_previous_site(site, files, monkeypatch, error, how):
    """The tenth file fails, whether it is written (new bytes) or linked from the current site
    (the same bytes as there): the site stays as it was and no temporary folder is left."""
    before = snapshot(site)
    calls = []
    if how == "written":
        todo = {rel: data + b"\n" for rel, data in files.items()}  # every file changed: each is written
        real_write = Path.write_bytes

        def failing(self, data):
            calls.append(self)
            if len(calls) == 10:
                raise error
            return real_write(self, data)

        monkeypatch.setattr(Path, "write_bytes", failing)
    else:
        todo = files  # every file as the site holds it: each is linked
        real_link = os.link

        def failing(src, dst, *args, **kwargs):
            calls.append(Path(dst))
            if len(calls) == 10:
                raise error
            return real_link(src, dst, *args, **kwargs)

        def no_copy(*args, **kwargs):  # a link that fails falls back to a copy: on a full disk, so does it
            raise error

        monkeypatch.setattr(os, "link", failing)
        monkeypatch.setattr(shutil, "copy2", no_copy)
    with pytest.raises(type(error)):
        write_site(todo, site)
    monkeypatch.undo()
    assert len(calls) == 10
    assert all(".output.tmp-" in str(p) for p in calls)  # never into the live site
    assert snapshot(site) == before and leftovers(site) == []


def test_a_failure_of_the_exchange_keeps_the_previous_site(site, files, monkeypatch):
    before = snapshot(site)

    def fails(a, b):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(write_module, "_exchange", fails)
    with pytest.raises(OSError):
        write_site(files, site)
    monkeypatch.undo()
    assert snapshot(site) == before and leftovers(site) == []


def test_a_failure_during_the_swap_puts_the_previous_site_back(site, files, monkeypatch):
    """The fallback swap (no renameat2 exchange): two renames, the old site put back on failure."""
    monkeypatch.setattr(write_module, "_exchange", lambda a, b: False)
    before = snapshot(site)
    real, calls = os.replace, []

    def second_fails(src, dst):
        calls.append((src, dst))
        if len(calls) == 2:
            raise OSError(5, "Input/output error")
        return real(src, dst)

    monkeypatch.setattr(write_module.os, "replace", second_fails)
    with pytest.raises(OSError):
        write_site(files, site)
    monkeypatch.undo()
    assert snapshot(site) == before and leftovers(site) == []


def test_a_successful_build_replaces_the_site_whole(site, files):
    (site / "stale-page.html").write_text("from an older build")
    write_site(files, site)
    assert not (site / "stale-page.html").exists() and leftovers(site) == []


def test_a_failed_first_build_leaves_nothing(records_copy, tmp_path):
    (records_copy / "hardware" / "h200.yaml").write_text("schema_version: [\n")
    result = CliRunner().invoke(main, ["build", "--no-run", "--records", str(records_copy),
                                       "--out", str(tmp_path / "fresh")])
    assert result.exit_code == 1
    assert result.output.splitlines()[-1].endswith(" found; nothing was written.")
    assert not (tmp_path / "fresh").exists() and leftovers(tmp_path / "fresh") == []


def test_the_build_never_replaces_a_folder_it_did_not_make(records_copy, files):
    before = snapshot(records_copy)
    with pytest.raises(UserError, match="exists and was not made by kernel-records"):
        write_site(files, records_copy)
    assert snapshot(records_copy) == before


def test_no_command_rewrites_a_record(records_copy, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = snapshot(records_copy)
    runner = CliRunner()
    for args in (["check", "--strict"], ["build", "--no-run", "--out", "out"], ["new", "implementation", "x-new"],
                 ["new", "implementation", "x-new"], ["new", "run", "fused-add-rmsnorm", "h200"]):
        runner.invoke(main, [*args, "--records", str(records_copy)])
    after = snapshot(records_copy)
    assert {k: v for k, v in after.items() if k in before} == before  # only additions
    assert sorted(set(after) - set(before)) == [
        "implementations/x-new.yaml",
        f"runs/fused-add-rmsnorm/h200/{dt.datetime.now(dt.timezone.utc).date()}-reported.yaml"]


def test_two_writers_of_one_name_never_overwrite(tmp_path):
    target = tmp_path / "records" / "implementations" / "same.yaml"
    outcomes, barrier = [], threading.Barrier(16)

    def writer(i):
        barrier.wait()
        try:
            write_new(target, f"writer {i}\n")
            outcomes.append(("wrote", i))
        except UserError:
            outcomes.append(("refused", i))

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    [(_, winner)] = [o for o in outcomes if o[0] == "wrote"]
    assert target.read_text() == f"writer {winner}\n"
    assert len(outcomes) == 16 and sorted(p.name for p in target.parent.iterdir()) == ["same.yaml"]


def test_an_interrupted_write_leaves_no_file(tmp_path, monkeypatch):
    target = tmp_path / "runs" / "x.yaml"

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "link", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_new(target, "half\n")
    assert list(target.parent.iterdir()) == []


def test_two_runs_at_once_write_distinct_files(tmp_path):
    record = pytest.importorskip("site_builder.runner.record")
    moment = dt.datetime(2026, 11, 29, 12, 0, 0, tzinfo=dt.timezone.utc)
    paths, barrier = [], threading.Barrier(32)

    def run(i):
        barrier.wait()
        paths.append(record.write_new(tmp_path, f"run {i}\n", moment))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(paths)) == 32
    assert sorted(p.read_text() for p in paths) == sorted(f"run {i}\n" for i in range(32))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)  # no temporary left
