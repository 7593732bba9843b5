"""Incremental builds keep the pages of a family whose inputs did not change (publish.Scope):
after every kind of edit the site built with the cache is byte for byte the site built from
scratch, the families the edit does not touch are not made again, and the ones it touches are."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from site_builder.bench_build import _dump, workloads, write_run, write_tree
from site_builder.build import build
from site_builder.site.publishers import family as family_pub

IMPLS, WORKLOADS = 3, 6
FAMILIES = ("bench-family-00", "bench-family-01", "bench-family-02")


def files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def same_as_scratch(records: Path, site: Path, tmp: Path, name: str):
    """The site is byte for byte a build from scratch; returns that build's report."""
    scratch = tmp / f"scratch-{name}"
    report = build(records, scratch, cache=False)
    a, b = files(site), files(scratch)
    assert a.keys() == b.keys(), sorted(set(a) ^ set(b))[:10]
    differ = [p for p in a if a[p] != b[p]]
    assert not differ, (name, differ[:10])
    return report


@pytest.fixture
def tree(tmp_path) -> Path:
    records = tmp_path / "records"
    write_tree(records, families=3, impls=IMPLS, nworkloads=WORKLOADS, gpus=1, runs=3)
    return records


@pytest.fixture
def made(monkeypatch) -> list[str]:
    """The families whose page model a build makes, in order."""
    calls: list[str] = []
    real = family_pub.family_page

    def counting(index, family, *rest):
        calls.append(family.id)
        return real(index, family, *rest)

    monkeypatch.setattr(family_pub, "family_page", counting)
    return calls


def runs_of(tree: Path, fid: str) -> list[Path]:
    return sorted((tree / "runs" / fid / "bench-gpu-0").glob("*.yaml"))


def edit(path: Path, change) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    _dump(path, data)


def scopes(cache: Path) -> dict:
    return json.loads((cache / "manifest.json").read_text(encoding="utf-8"))["scopes"]


def test_each_edit_remakes_only_the_families_it_touches(tree, tmp_path, made):
    site, cache = tmp_path / "site", tmp_path / "cache"
    first = build(tree, site, cache=cache)
    assert sorted(made) == list(FAMILIES) and first.rendered == first.templated
    assert {f"{kind}:{fid}" for kind in ("family", "compare", "runs", "history") for fid in FAMILIES} <= set(scopes(cache))
    same_as_scratch(tree, site, tmp_path, "first")

    def step(name: str, remade: set[str]) -> None:
        made.clear()
        report = build(tree, site, cache=cache)
        assert set(made) == remade, (name, made)
        # the global pages and the pages of the families remade; all of them when the
        # navigation every page shows changed
        assert 0 < report.rendered <= report.templated
        assert (report.rendered == report.templated) == (name == "family title edited")
        # kept pages count as pages of the site, as in a build from scratch
        assert report.templated == same_as_scratch(tree, site, tmp_path, name).templated
        made.clear()

    # a run added to one family: that family's pages only
    write_run(tree, "bench-family-00", 0, 3, IMPLS, workloads(WORKLOADS))
    step("run added", {"bench-family-00"})

    # an older run of another family edited: a result's time (it changes that family's history)
    def slower(data):
        data["results"][0]["device_us"]["median"] *= 3
        data["results"][0]["device_us"]["p80"] *= 3
    edit(runs_of(tree, "bench-family-01")[0], slower)
    step("run edited", {"bench-family-01"})

    # a run deleted: that family's pages, and the run's own pages are gone
    gone = runs_of(tree, "bench-family-02")[1]
    gone.unlink()
    step("run deleted", {"bench-family-02"})
    assert not (site / "runs" / "bench-family-02" / "bench-gpu-0" / f"{gone.stem}.html").exists()

    # an implementation record edited: its name shows on every family's pages
    edit(tree / "implementations" / "bench-impl-1.yaml", lambda d: d.update(name="Renamed kernel"))
    step("implementation edited", set(FAMILIES))
    assert "Renamed kernel" in (site / "families" / "bench-family-01.html").read_text(encoding="utf-8")

    # a hardware record edited: every family
    edit(tree / "hardware" / "bench-gpu-0.yaml", lambda d: d.update(name="Renamed GPU"))
    step("hardware edited", set(FAMILIES))

    # one family record edited: that family (and the navigation, when its title changes: all)
    edit(tree / "families" / "bench-family-02.yaml", lambda d: d.update(summary="An edited summary."))
    step("family summary edited", {"bench-family-02"})
    edit(tree / "families" / "bench-family-01.yaml", lambda d: d.update(title="Retitled operation"))
    step("family title edited", set(FAMILIES))

    # a kernel's source edited (kernels/ beside the records): that family, whose page marks
    # results measured on other code
    package = tree.parent / "kernels" / "bench_family_00"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    impl = package / "impl_one.py"
    impl.write_text('from .registry import register\n\n\n@register("bench-impl-0")\ndef make(inputs):\n'
                    '    return lambda: None\n', encoding="utf-8")
    step("kernel registered", {"bench-family-00"})
    impl.write_text(impl.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    step("kernel source edited", {"bench-family-00"})

    # nothing changed: nothing made
    made.clear()
    assert build(tree, site, cache=cache).unchanged and made == []


def test_a_copy_bandwidth_from_another_family_reaches_the_families_that_use_it(tree, tmp_path, made):
    """A cohort whose runs measured no copy bandwidth takes the GPU's newest one, which may come
    from another family's run: adding that run changes the other family's floors too."""
    for path in runs_of(tree, "bench-family-01"):
        edit(path, lambda d: d["environment"].pop("copy_bandwidth_gbps"))
    site, cache = tmp_path / "site", tmp_path / "cache"
    build(tree, site, cache=cache)
    made.clear()
    new = write_run(tree, "bench-family-00", 0, 9, IMPLS, workloads(WORKLOADS))
    assert new
    edit(runs_of(tree, "bench-family-00")[-1], lambda d: d["environment"].update(copy_bandwidth_gbps=1234.5))
    build(tree, site, cache=cache)
    assert set(made) == {"bench-family-00", "bench-family-01"}
    same_as_scratch(tree, site, tmp_path, "bandwidth")


def test_a_kept_file_edited_by_hand_is_made_again(tree, tmp_path, made):
    site, cache = tmp_path / "site", tmp_path / "cache"
    build(tree, site, cache=cache)
    (site / "families" / "bench-family-01.json").write_text("tampered", encoding="utf-8")
    write_run(tree, "bench-family-00", 0, 3, IMPLS, workloads(WORKLOADS))
    made.clear()
    build(tree, site, cache=cache)
    assert set(made) == {"bench-family-00", "bench-family-01"}
    same_as_scratch(tree, site, tmp_path, "tampered")


def test_the_kept_spare_tree_is_never_trusted(tree, tmp_path):
    """The write keeps the replaced site in the cache (spare-site/) and fills its folders next
    time: whatever was put there or changed there, the site is the one a build from scratch
    writes, and the current site's files are never written into."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    build(tree, site, cache=cache)
    write_run(tree, "bench-family-00", 0, 3, IMPLS, workloads(WORKLOADS))
    build(tree, site, cache=cache)
    spare = cache / "spare-site"
    assert (spare / "index.html").is_file() and sorted(p.name for p in tmp_path.iterdir()) == [
        "cache", "records", "site"]
    before = files(site)
    # junk of every kind in the spare tree
    (spare / "stray.html").write_text("stray", encoding="utf-8")
    (spare / "stray-folder" / "deep").mkdir(parents=True)
    (spare / "stray-folder" / "deep" / "x.json").write_text("{}", encoding="utf-8")
    (spare / "families" / "link.html").symlink_to(site / "index.html")
    page = spare / "families" / "bench-family-01.html"
    page.unlink()
    page.write_text("a spare file that is not the site's", encoding="utf-8")
    family_json = spare / "families" / "bench-family-02.json"
    family_json.unlink()
    family_json.mkdir()  # a folder where the site has a file
    (family_json / "inside.txt").write_text("x", encoding="utf-8")
    shutil.rmtree(spare / "history")  # folders missing
    assert files(site) == before  # none of that touched the site
    write_run(tree, "bench-family-01", 0, 3, IMPLS, workloads(WORKLOADS))
    build(tree, site, cache=cache)
    same_as_scratch(tree, site, tmp_path, "spare")
    # no change in records, the spare tree replaced by a file: the build still writes the site
    shutil.rmtree(cache / "spare-site")
    (cache / "spare-site").write_text("not a folder", encoding="utf-8")
    (site / "index.html").unlink()
    build(tree, site, cache=cache)
    same_as_scratch(tree, site, tmp_path, "spare-file")


def test_a_spare_tree_that_cannot_be_cleaned_is_set_aside(tree, tmp_path, monkeypatch):
    """Should removing something from the kept tree fail, the build starts from an empty folder
    instead (and writes the same site)."""
    from site_builder.build import write

    site, cache = tmp_path / "site", tmp_path / "cache"
    build(tree, site, cache=cache)
    write_run(tree, "bench-family-00", 0, 3, IMPLS, workloads(WORKLOADS))
    build(tree, site, cache=cache)
    (cache / "spare-site" / "stray.html").write_text("stray", encoding="utf-8")
    real = os.unlink

    def refuse(path, *a, **k):
        if str(path).endswith("stray.html"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *a, **k)

    monkeypatch.setattr(write.os, "unlink", refuse)
    write_run(tree, "bench-family-01", 0, 3, IMPLS, workloads(WORKLOADS))
    build(tree, site, cache=cache)
    monkeypatch.setattr(write.os, "unlink", real)
    assert not (site / "stray.html").exists()
    same_as_scratch(tree, site, tmp_path, "aside")
