"""The build's fast paths write exactly what the plain ones do."""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass

from site_builder.build.pages import page_key, engine_digest
from site_builder.site.charts import Chart
from site_builder.site.models import dumps_data, plain
from site_builder.site.publish import Page


@dataclass(frozen=True)
class _Model:
    name: str
    rows: list
    chart: Chart | None
    extra: dict


def _chart(i: int) -> Chart:
    return Chart(f"key-{i}", make=lambda: {})


def _value(rng: random.Random, depth: int):
    kinds = ["str", "int", "float", "none", "bool"] + (["list", "dict", "model", "chart", "tuple"] if depth < 4 else [])
    kind = rng.choice(kinds)
    if kind == "str":
        return rng.choice(["", "a", "µs · 2×", "<b>&amp;</b>", 'quote " and \\ back', "line\nbreak", "\u2028", "é"])
    if kind == "int":
        return rng.choice([0, -1, 7, 2**70])
    if kind == "float":
        return rng.choice([0.0, -0.0, 1e-6, 1.5, 1e16, 123456.789, math.inf, -math.inf, math.nan, 1 / 3])
    if kind == "none":
        return None
    if kind == "bool":
        return rng.random() < 0.5
    if kind in ("list", "tuple"):
        items = [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
        return tuple(items) if kind == "tuple" else items
    if kind == "dict":
        return {rng.choice(["b", "a", "z", "µ", "10", "2"]) + str(i): _value(rng, depth + 1) for i in range(rng.randrange(4))}
    if kind == "chart":
        return _chart(rng.randrange(100))
    return _Model(name="m", rows=[_value(rng, depth + 1)], chart=_chart(1) if rng.random() < 0.5 else None,
                  extra={"k": _value(rng, depth + 1), "c": _chart(2)})


def _data(obj):
    """The JSON twins' rule, spelled out: a model is its fields without its charts, a chart
    anywhere else is its key."""
    if isinstance(obj, Chart):
        return obj.key
    if isinstance(obj, _Model):
        return {k: _data(v) for k, v in vars(obj).items() if not isinstance(v, Chart)}
    if isinstance(obj, dict):
        return {k: _data(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_data(v) for v in obj]
    return obj


def _chartless(obj):
    """The value with every chart that sits in a mapping removed (as models never hold them)."""
    if isinstance(obj, dict):
        return {k: _chartless(v) for k, v in obj.items() if not isinstance(v, Chart)}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_chartless(v) for v in obj)
    if isinstance(obj, _Model):
        return _Model(obj.name, _chartless(obj.rows), obj.chart, _chartless(obj.extra))
    return obj


def test_dumps_data_is_compact_json_of_plain():
    rng = random.Random(12)
    for _ in range(400):
        obj = {"page": _value(rng, 0), "m": _Model("x", [1, 2.5, None], _chart(3), {"ints": {1: "int key", 20: "i"}, "f": {2.5: "f"}, "n": {None: 0}, "t": {True: 1}})}
        compact = dict(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
        assert dumps_data(obj) == json.dumps(_data(obj), **compact)
        clean = _chartless(obj)  # what models hold: then it is exactly json.dumps of plain()
        assert dumps_data(clean) == json.dumps(plain(clean), **compact)
        assert json.loads(dumps_data(clean)) == json.loads(json.dumps(plain(clean), default=str))
    assert dumps_data([]) == "[]" and dumps_data({}) == "{}" and dumps_data(_chart(5)) == '"key-5"'
    assert dumps_data(object.__new__(_Path)) == json.dumps(plain(object.__new__(_Path)), default=str)


def test_family_json_leaves_the_drawings_out():
    from site_builder.site.models import FamilyPage
    from site_builder.site.publishers.family import family_data

    fields = {f: [] for f in FamilyPage.__dataclass_fields__}
    page = FamilyPage(**dict(fields, charts=[{"title": "t", "chart": _chart(1), "relative": _chart(2), "table": {"xs": [1]}}]))
    data = json.loads(dumps_data(family_data(page)))
    assert data["charts"] == [{"title": "t", "table": {"xs": [1]}}]


class _Path:
    def __str__(self):
        return "a/path"


def test_page_key_hashes_json_of_plain():
    import hashlib

    rng = random.Random(3)
    nav = ({"title": "T", "url": "u/"},)
    for _ in range(100):
        ctx = {"model": _Model("n", [_value(rng, 1)], _chart(1), {"x": _value(rng, 1)}), "other": _value(rng, 1)}
        page = Page("a/b.html", "t.html", ctx)
        data = [engine_digest(), "tpl", page.template, page.path, plain(page.context, charts=True), nav]
        expected = hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
                                  .encode()).hexdigest()
        assert page_key(page, nav, "tpl") == expected

