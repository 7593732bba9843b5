"""Safe YAML reading that remembers the line of every value.

PyYAML's SafeLoader composes the document; we walk the node tree ourselves so that each
value's path (("results", 3, "device_us")) maps to its line, duplicate keys are caught instead
of silently dropped, and anchors/aliases (the "billion laughs" vector) are refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml

MAX_BYTES = 1_000_000
MAX_DEPTH = 32
MAX_NODES = 100_000


class YamlProblem(Exception):
    def __init__(self, line: int, message: str, fix: str):
        self.line, self.message, self.fix = line, message, fix
        super().__init__(message)


@dataclass
class Document:
    data: object
    lines: dict[tuple, int] = field(default_factory=dict)

    def line_of(self, loc: tuple) -> int:
        """The line of the deepest known prefix of `loc` (1 for the document itself)."""
        loc = tuple(loc)
        while loc:
            if loc in self.lines:
                return self.lines[loc]
            loc = loc[:-1]
        return self.lines.get((), 1)


class _Loader(yaml.SafeLoader):
    """SafeLoader that refuses anchors and aliases as it composes."""

    nodes = 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise YamlProblem(event.start_mark.line + 1,
                              "YAML anchors and aliases are not allowed in records",
                              "write the repeated values out in full")
        self.nodes += 1
        if self.nodes > MAX_NODES:  # composing is slow: a megabyte of tiny values takes many seconds
            raise YamlProblem(event.start_mark.line + 1, f"more than {MAX_NODES:,} values in one file",
                              "split the results into several run files")
        return super().compose_node(parent, index)


# YAML 1.1 (PyYAML) reads `1e-6` as text: a float needs a dot there. YAML 1.2 and every other
# reader take it as a number, and so do records: `1e-6`, `1E6`, `+2.5e-3` are floats.
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def parse(text: str) -> Document:
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
    if len(text.encode("utf-8", "replace")) > MAX_BYTES:
        raise YamlProblem(1, f"file is larger than {MAX_BYTES // 1000} kB",
                          "split the results into several run files")
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as exc:  # NUL and other control characters
        line = text.count("\n", 0, max(exc.position, 0)) + 1
        raise YamlProblem(line, f"the file contains the control character U+{exc.character:04X}",
                          "remove it; records are plain text") from None
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        what = exc.problem or "YAML syntax error"
        if "expected a single document" in str(exc):
            raise YamlProblem(line, "more than one YAML document in the file",
                              "keep one record per file and remove the `---` separator") from None
        raise YamlProblem(line, f"YAML syntax error: {what}",
                          "fix the indentation or quoting near this line") from None
    except yaml.YAMLError as exc:
        raise YamlProblem(1, f"YAML error: {exc}", "fix the file's syntax") from None
    except RecursionError:
        raise YamlProblem(1, "the document is nested too deeply",
                          f"records nest at most {MAX_DEPTH} levels") from None
    finally:
        loader.dispose()
    if node is None:
        raise YamlProblem(1, "the file is empty", "write the record, or delete the file")
    doc = Document(data=None)
    doc.data = _walk(node, (), doc, loader, 0)
    return doc


#: The tags of plain values; any other (!!python/..., !!binary, !!set, !custom) is refused.
_PLAIN_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "timestamp",
                                                    "seq", "map")}


def _walk(node, path: tuple, doc: Document, loader, depth: int):
    line = node.start_mark.line + 1
    if depth > MAX_DEPTH:
        raise YamlProblem(line, "the document is nested too deeply",
                          f"records nest at most {MAX_DEPTH} levels")
    doc.lines.setdefault(path, line)
    if node.tag not in _PLAIN_TAGS:
        raise YamlProblem(line, f"YAML tag `{node.tag.replace('tag:yaml.org,2002:', '!!')}` is not allowed",
                          "remove the tag: records hold plain strings, numbers, booleans, dates, "
                          "lists and mappings")
    if isinstance(node, yaml.MappingNode):
        out: dict = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise YamlProblem(key_node.start_mark.line + 1, "YAML merge keys (<<) are not allowed",
                                  "write the merged fields out in full")
            if not isinstance(key_node, yaml.ScalarNode):
                raise YamlProblem(key_node.start_mark.line + 1, "a mapping key must be plain text",
                                  "use a simple name as the key")
            key = loader.construct_object(key_node)
            if not isinstance(key, (str, int)):
                key = str(key)
            if key in out:
                raise YamlProblem(key_node.start_mark.line + 1, f"duplicate key `{key}`",
                                  "keep one of the two entries; YAML would silently drop the first")
            doc.lines[path + (key,)] = key_node.start_mark.line + 1
            out[key] = _walk(value_node, path + (key,), doc, loader, depth + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_walk(item, path + (i,), doc, loader, depth + 1) for i, item in enumerate(node.value)]
    try:
        return loader.construct_object(node)
    except yaml.constructor.ConstructorError as exc:
        raise YamlProblem(line, f"unsupported YAML value: {exc.problem}",
                          "use plain strings, numbers, booleans, dates, lists and mappings") from None
    except ValueError as exc:  # e.g. an impossible date such as 2026-02-30
        raise YamlProblem(line, f"invalid value: {exc}", "write a valid value") from None
