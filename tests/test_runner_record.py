"""Run records are written atomically under new names and never overwrite earlier ones."""

from __future__ import annotations

import datetime as dt

import pytest

from site_builder.runner import record


MOMENT = dt.datetime(2026, 11, 29, 16, 2, 11, tzinfo=dt.timezone.utc)


def test_names_carry_the_time_and_a_random_suffix(tmp_path):
    a = record.write_new(tmp_path, "a: 1\n", MOMENT)
    b = record.write_new(tmp_path, "b: 2\n", MOMENT)
    assert a != b
    assert a.name.startswith("2026-11-29T16-02-11-") and len(a.stem) == len("2026-11-29T16-02-11-") + 6
    assert a.read_text() == "a: 1\n" and b.read_text() == "b: 2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([a.name, b.name])


def test_an_existing_name_is_never_replaced(tmp_path, monkeypatch):
    first = record.write_new(tmp_path, "first\n", MOMENT)
    names = iter([first.name, first.name, "2026-11-29T16-02-11-abcdef.yaml"])
    monkeypatch.setattr(record, "record_name", lambda moment, tag=None: next(names))
    second = record.write_new(tmp_path, "second\n", MOMENT)
    assert second.name == "2026-11-29T16-02-11-abcdef.yaml"
    assert first.read_text() == "first\n"


@pytest.mark.parametrize("where", ["fsync", "link"])
def test_an_interrupted_write_leaves_no_file(tmp_path, monkeypatch, where):
    def interrupt(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(record.os, where, interrupt)
    with pytest.raises(KeyboardInterrupt):
        record.write_new(tmp_path / "runs", "x: 1\n" * 1000, MOMENT)
    assert list((tmp_path / "runs").iterdir()) == []
