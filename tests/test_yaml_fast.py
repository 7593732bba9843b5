"""The fast YAML path (libyaml's composer) gives the same values and lines as the checked path,
and leaves every file it cannot vouch for to the checked one."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_builder.records import yamlio

from conftest import REPO

FILES = sorted((REPO / "tests" / "fixtures").rglob("*.yaml"))


def checked(text: str) -> yamlio.Document:
    fast, yamlio.CLoader = yamlio.CLoader, None
    try:
        return yamlio.parse(text)
    finally:
        yamlio.CLoader = fast


@pytest.mark.skipif(yamlio.CLoader is None, reason="PyYAML built without libyaml: there is no fast path")
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_fast_path_equals_the_checked_path(path: Path):
    text = path.read_text(encoding="utf-8")
    fast, slow = yamlio._fast(text), checked(text)
    if fast is None:  # the file holds a character the fast path leaves to the checked one
        assert yamlio._FAST_REFUSES.search(text)
        return
    assert fast.data == slow.data and fast.lines == slow.lines


@pytest.mark.skipif(yamlio.CLoader is None, reason="no fast path")
@pytest.mark.parametrize("text", ["a: 1\na: 2\n", "a: &x 1\nb: *x\n", "a: !!python/object:os.system 1\n",
                                  "<<: {a: 1}\n", "a: 1\n---\nb: 2\n", "a: [1, 2\n", "a:\tb\x07\n",
                                  "- &a 1\n- *a\n", "a: {b: &x 1, c: *x}\n", "a: [&x 1,*x]\n",
                                  "? &k a\n: 1\nb: *k\n", '{"a":&x 1, "b":*x}\n',
                                  "a:\n  - b: 1\n    <<: {c: 2}\n"])
def test_files_the_fast_path_refuses_get_the_checked_message(text):
    assert yamlio._fast(text) is None
    with pytest.raises(yamlio.YamlProblem):
        checked(text)


def test_written_records_read_back_as_text():
    """Hex hashes that YAML 1.2 would read as floats (`3416e21`) are quoted when records are written."""
    from site_builder.records.yamlio import dump, parse
    from site_builder.runner.record import dump as run_text

    data = {"kernel_sha": "3416e21", "b": "1e-6", "c": "0x1f", "d": "yes", "e": "abc", "n": 3, "f": 1e-6}
    assert parse(dump(data)).data == data
    assert parse(run_text(data)).data == data


@pytest.mark.skipif(yamlio.CLoader is None, reason="no fast path")
@pytest.mark.parametrize("text", ["note: q * cos, rotate_half(q) * sin\n", "a: 3 < 4 & 5 > 2!\n",
                                  "summary: |\n  uses `x * rstd` & more\n  in 100% of rows\n",
                                  "url: https://example.org/a*b!c\n"])
def test_text_with_star_ampersand_or_bang_inside_takes_the_fast_path(text):
    fast = yamlio._fast(text)
    assert fast is not None
    slow = checked(text)
    assert fast.data == slow.data and fast.lines == slow.lines


@pytest.mark.skipif(yamlio.CLoader is None, reason="no fast path")
@pytest.mark.parametrize("text", ["a: !!str 1\n", "%YAML 1.1\n---\na: 1\n", "a: [1, !!int 2]\n"])
def test_tags_and_directives_take_the_checked_path(text):
    assert yamlio._fast(text) is None
    assert yamlio.parse(text).data == checked(text).data


SCALARS = ["1", "-0", "+7", "010", "0x1F", "0o17", "1.5", "1.", ".5", "+.5", "-1e5", "1E-3", "1e400", ".inf", "-.Inf",
           "+.INF", ".NaN", "true", "False", "TRUE", "null", "Null", "~", "''", "2024-01-01", "2024-01-01T08:00:00Z",
           "yes", "no", "on", "'1'", '"x"', "1_000", "12:30", "0.1.2", "a b", "-x", "3416e21", "0902661409858470"]


@pytest.mark.parametrize("text", SCALARS)
def test_scalars_read_as_the_constructor_reads_them(text):
    """Both paths build plain values themselves (yamlio._scalar, and the fast path's own
    resolver): the same values, of the same types, as PyYAML's constructor with the YAML 1.2 rules."""
    import math

    loader = yamlio._Loader(f"v: {text}\nk: [{text}]\n")
    try:
        node = loader.get_single_node()
        expected = [loader.construct_object(node.value[0][1]), loader.construct_object(node.value[1][1].value[0])]
    finally:
        loader.dispose()
    docs = [checked(f"v: {text}\nk: [{text}]\n")]
    if yamlio.CLoader is not None:
        docs.append(yamlio._fast(f"v: {text}\nk: [{text}]\n"))
    for doc in docs:
        got = [doc.data["v"], doc.data["k"][0]]
        for g, e in zip(got, expected):
            assert type(g) is type(e) and (g == e or (isinstance(e, float) and math.isnan(e) and math.isnan(g))), text
