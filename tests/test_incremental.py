"""Incremental builds: after every edit in a sequence, the site built with the cache is byte for
byte the site built from scratch; a rebuild with nothing changed writes nothing; one run added
renders only the pages that depend on it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from site_builder.bench_build import workloads, write_run, write_tree
from site_builder.build import build

IMPLS, WORKLOADS = 3, 6


def files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


@pytest.fixture
def tree(tmp_path) -> Path:
    records = tmp_path / "records"
    write_tree(records, families=2, impls=IMPLS, nworkloads=WORKLOADS, gpus=1, runs=3)
    return records


def same_as_scratch(records: Path, site: Path, tmp: Path, n: int) -> None:
    scratch = tmp / f"scratch-{n}"
    build(records, scratch, cache=False)
    a, b = files(site), files(scratch)
    assert a.keys() == b.keys(), sorted(set(a) ^ set(b))[:10]
    differ = [p for p in a if a[p] != b[p]]
    assert not differ, differ[:10]


def test_incremental_equals_full_over_a_sequence_of_edits(tree, tmp_path):
    site, cache = tmp_path / "site", tmp_path / "cache"
    first = build(tree, site, cache=cache)
    assert first.rendered == first.templated and not first.unchanged
    same_as_scratch(tree, site, tmp_path, 0)

    # nothing changed: nothing rendered, nothing written
    stamps = {p: p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}
    again = build(tree, site, cache=cache)
    assert again.unchanged and again.rendered == 0
    assert {p: p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()} == stamps

    # a run added to one family: its pages again, the other family's run pages untouched
    write_run(tree, "bench-family-00", 0, 3, IMPLS, workloads(WORKLOADS))
    added = build(tree, site, cache=cache)
    assert 0 < added.rendered < added.templated
    same_as_scratch(tree, site, tmp_path, 1)

    # a family's summary edited (it shows on the index and the family page)
    family = tree / "families" / "bench-family-01.yaml"
    family.write_text(family.read_text(encoding="utf-8").replace("operation number 1", "operation, edited"),
                      encoding="utf-8")
    edited = build(tree, site, cache=cache)
    assert 0 < edited.rendered < edited.templated
    assert "operation, edited" in (site / "index.html").read_text(encoding="utf-8")
    same_as_scratch(tree, site, tmp_path, 2)

    # the cache deleted: a full build, the same bytes
    shutil.rmtree(cache)
    fresh = build(tree, site, cache=cache)
    assert fresh.rendered == fresh.templated
    same_as_scratch(tree, site, tmp_path, 3)

    # a run deleted: its pages go, the rest matches a build from scratch
    run = sorted((tree / "runs" / "bench-family-00" / "bench-gpu-0").glob("*.yaml"))[0]
    run.unlink()
    build(tree, site, cache=cache)
    assert not (site / "runs" / "bench-family-00" / "bench-gpu-0" / f"{run.stem}.html").exists()
    same_as_scratch(tree, site, tmp_path, 4)

    # the output edited by hand: the build notices and writes the page again
    page = site / "families" / "bench-family-00.html"
    page.write_text("tampered", encoding="utf-8")
    build(tree, site, cache=cache)
    same_as_scratch(tree, site, tmp_path, 5)


def test_a_corrupt_cache_is_ignored(tree, tmp_path):
    site, cache = tmp_path / "site", tmp_path / "cache"
    build(tree, site, cache=cache)
    parsed = sorted((cache / "parsed").glob("*.pickle"))
    assert parsed, "the cache holds every record file parsed"
    parsed[0].write_bytes(b"not a pickle")  # read again from its file
    parsed[1].write_bytes(parsed[1].read_bytes()[:20])  # truncated
    (cache / "manifest.json").write_text("{", encoding="utf-8")
    for svg in (cache / "charts").glob("*.svg"):
        svg.write_text("", encoding="utf-8")  # an emptied chart is rendered again
        break
    build(tree, site, cache=cache)
    same_as_scratch(tree, site, tmp_path, 0)


def test_a_cache_of_another_engine_version_is_discarded(tree, tmp_path, monkeypatch):
    """A cache written by another engine version (cache.version(): format, engine digest, chart
    renderer) is never read: its parsed records may be objects of classes this engine no longer
    has, its charts drawn by other code. The build deletes it, renders everything again and
    writes exactly what a build from scratch writes."""
    import json
    import pickle

    from site_builder.build import cache as cache_module
    from site_builder.records import schema

    site, cache = tmp_path / "site", tmp_path / "cache"
    first = build(tree, site, cache=cache)
    assert first.charts > 0
    # what an older engine left: a manifest of its version, its parsed records as objects of a class
    # this engine does not have, under the keys this engine looks up, and charts drawn otherwise
    manifest = json.loads((cache / "manifest.json").read_text(encoding="utf-8"))
    other = "2-0123456789abcdef0123-0.0.1"
    assert manifest["version"] == cache_module.version() != other
    manifest["version"] = other
    (cache / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    class RunV1:  # an older engine's record class; gone from this engine's schema module
        pass

    RunV1.__module__, RunV1.__qualname__ = schema.__name__, "RunV1"
    monkeypatch.setattr(schema, "RunV1", RunV1, raising=False)
    old = pickle.dumps({"version": other, "parsed": {("runs", "0" * 64): RunV1()}})
    for parsed in (cache / "parsed").glob("*.pickle"):
        parsed.write_bytes(pickle.dumps((other, RunV1())))
    monkeypatch.delattr(schema, "RunV1")
    (cache / "records.pickle").write_bytes(old)
    with pytest.raises(AttributeError):
        pickle.loads(old)  # what crashed the build before the version check
    charts = sorted((cache / "charts").glob("*.svg"))
    assert charts
    for svg in charts:
        svg.write_text('<svg class="marks" role="img"><text>drawn by another engine</text></svg>', encoding="utf-8")

    again = build(tree, site, cache=cache)
    assert not again.unchanged and again.rendered == again.templated and again.charts == first.charts
    assert not (cache / "records.pickle").exists()
    assert json.loads((cache / "manifest.json").read_text(encoding="utf-8"))["version"] == cache_module.version()
    same_as_scratch(tree, site, tmp_path, 0)
    assert "drawn by another engine" not in "".join(p.read_text(encoding="utf-8") for p in site.rglob("*.html"))


def test_a_parsed_record_of_another_version_is_parsed_again(tree, tmp_path):
    """Each parsed record carries the version it was written under: one of another version, in a
    cache that is otherwise current, is not used."""
    import pickle

    site, cache = tmp_path / "site", tmp_path / "cache"
    build(tree, site, cache=cache)
    run = sorted((tree / "runs" / "bench-family-00" / "bench-gpu-0").glob("*.yaml"))[0]
    parsed = sorted((cache / "parsed").glob("runs-*.pickle"))
    for path in parsed:
        version, (doc, record) = pickle.loads(path.read_bytes())
        path.write_bytes(pickle.dumps(("another-version", (doc, record.model_copy(update={"seed": 999})))))
    run.write_text(run.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # a change: the build runs
    build(tree, site, cache=cache)
    same_as_scratch(tree, site, tmp_path, 0)
