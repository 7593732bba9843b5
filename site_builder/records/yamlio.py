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
    #: (line, message, fix) of what was cleaned on reading: control characters of captured output
    warnings: list[tuple[int, str, str]] = field(default_factory=list)
    text: str | None = field(default=None, repr=False)  # the text it was read from
    _lines: dict[tuple, int] | None = field(default=None, repr=False, compare=False)

    @property
    def lines(self) -> dict[tuple, int]:
        """The line of every value, by its path (("results", 3, "device_us")); found from the text
        when first asked for (a message or warning about the file), not on every read."""
        if self._lines is None:
            self._lines = line_map(self.text) if self.text is not None else {}
        return self._lines

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
    depth = 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        is_key = isinstance(parent, yaml.MappingNode) and index is None  # _walk checks values only
        if self.depth > MAX_DEPTH and not is_key:  # the node's depth: the same limit as _walk's (the fast path)
            raise YamlProblem(event.start_mark.line + 1, "the document is nested too deeply",
                              f"records nest at most {MAX_DEPTH} levels")
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise YamlProblem(event.start_mark.line + 1,
                              "YAML anchors and aliases are not allowed in records",
                              "write the repeated values out in full")
        self.nodes += 1
        if self.nodes > MAX_NODES:  # composing is slow: a megabyte of tiny values takes many seconds
            raise YamlProblem(event.start_mark.line + 1, f"more than {MAX_NODES:,} values in one file",
                              "split the results into several run files")
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


# Scalars are read with their YAML 1.2 (core schema) meaning, in both paths: `yes`, `no`, `on`,
# `off`, `y`, `n` are text (YAML 1.1 made them booleans); `010` is ten and `1:20` is text (1.1 read
# octal and base 60); `1_000` is text; `1e-6` is a float (1.1 needs a dot there).
_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL_12 = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT_12 = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT_12 = re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                       r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
#: The largest whole number a record may hold (JSON and JavaScript count exactly up to 2**53).
MAX_INT = 2**53


def _yaml12(cls) -> None:
    """Replace PyYAML's YAML 1.1 resolvers and constructors of bool, int and float on `cls`."""
    cls.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in pairs if tag not in (_BOOL, _INT, _FLOAT)]
        for first, pairs in cls.yaml_implicit_resolvers.items()}
    cls.add_implicit_resolver(_BOOL, _BOOL_12, list("tTfF"))
    cls.add_implicit_resolver(_INT, _INT_12, list("-+0123456789"))
    cls.add_implicit_resolver(_FLOAT, _FLOAT_12, list("-+.0123456789"))
    cls.add_constructor(_BOOL, lambda loader, node: loader.construct_scalar(node).lower() == "true")
    cls.add_constructor(_INT, _construct_int)


def _construct_int(loader, node) -> int:
    text = loader.construct_scalar(node)
    if len(text) > 40:  # never hand the parser a 10,000-digit number
        raise _TooLarge(text)
    value = int(text[2:], 8 if text[1] == "o" else 16) if text.startswith(("0o", "0x")) else int(text, 10)
    if abs(value) > MAX_INT:
        raise _TooLarge(text)
    return value


class _TooLarge(ValueError):
    pass


_yaml12(_Loader)

#: Fields that hold captured process output (a worker's error text): their control characters
#: (terminal colour codes) are stripped with a warning instead of refused.
CAPTURED_FIELDS = frozenset({"error"})
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]")

#: Characters refused in every text value: control characters other than newline and tab
#: (C0, DEL, C1) and the Unicode line and paragraph separators.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def decode(data: bytes) -> str:
    """UTF-8 text of a file; a YamlProblem on the line of the first invalid byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise YamlProblem(data.count(b"\n", 0, exc.start) + 1, "file is not UTF-8 text",
                          "save it as UTF-8") from None


#: Names Windows cannot hold as a file, whatever the case or extension (CON.yaml, nul.txt).
WINDOWS_RESERVED = re.compile(r"^(?:con|prn|aux|nul|com[1-9]|lpt[1-9])(?:\..*)?$", re.IGNORECASE)


def windows_reserved(name: str) -> bool:
    return bool(WINDOWS_RESERVED.match(name))


def parse(text: str) -> Document:
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
    if len(text.encode("utf-8", "replace")) > MAX_BYTES:
        raise YamlProblem(1, f"file is larger than {MAX_BYTES // 1000} kB",
                          "split the results into several run files")
    fast = _fast(text)
    if fast is not None:
        return fast
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
    doc = Document(data=None, text=text)
    doc.data = _walk(node, (), doc, loader, 0)
    return doc


def line_map(text: str) -> dict[tuple, int]:
    """The line of every value of a document `parse` has read, by its path: the node's first line,
    and for a mapping's value the line of its key."""
    fast = CLoader is not None and not _FAST_REFUSES.search(text)
    loader = (CLoader if fast else _Loader)(text)
    try:
        node = loader.get_single_node()
        lines: dict[tuple, int] = {}
        if node is not None:
            _lines_of(node, (), lines, loader)
        return lines
    finally:
        loader.dispose()


def _lines_of(node, path: tuple, lines: dict, loader) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = _scalar(key_node, loader)
            if not isinstance(key, (str, int)):
                key = str(key)
            lines[path + (key,)] = key_node.start_mark.line + 1
            _lines_of(value_node, path + (key,), lines, loader)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _lines_of(item, path + (i,), lines, loader)


#: What sends a file to the checked path: an anchor (`&`), alias (`*`) or tag (`!`) where a node
#: can start (a line's first character, or after `-`, `?`, `:`, `[`, `{` or `,`), a merge key, a
#: directive, a document marker, a control character. `q * cos` inside a text does not; `**bold**`
#: at a line's start does (harmless: the checked path reads the same values, only slower).
_FAST_REFUSES = re.compile(r"(?:^|[-?:\[{,])[ \t]*[&*!]|<<|^%|^---|^\.\.\."
                           r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff]", re.M)


def _fast(text: str) -> Document | None:
    """libyaml's composer, for a file that cannot hold an anchor, alias, tag, merge key, directive,
    second document or control character (none of the characters that start them): the same
    Document as the checked path, many times faster. None when the file needs the checked path
    (which also gives every message about a bad file)."""
    if CLoader is None or _FAST_REFUSES.search(text):
        return None
    loader = CLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        doc = Document(data=None, text=text)
        counter = [0]
        doc.data = _walk(node, (), doc, loader, 0, counter, controls="\\" in text or bool(CONTROL.search(text)))
        return doc
    except Exception:  # anything unusual: the checked path reads it again and says what is wrong
        return None
    finally:
        loader.dispose()


if hasattr(yaml, "CSafeLoader"):
    class CLoader(yaml.CSafeLoader):
        """libyaml's loader with the checked path's scalar rules (YAML 1.2 scalars)."""

        def resolve(self, kind, value, implicit):
            """PyYAML's `BaseResolver.resolve` for a loader without path resolvers or wildcard
            implicit ones (asserted below), in fewer steps: libyaml calls it for every value."""
            if kind is yaml.ScalarNode:
                if implicit[0]:
                    for tag, regexp in self.yaml_implicit_resolvers.get(value[:1], ()):
                        if regexp.match(value):
                            return tag
                return self.DEFAULT_SCALAR_TAG
            return self.DEFAULT_SEQUENCE_TAG if kind is yaml.SequenceNode else self.DEFAULT_MAPPING_TAG

    _yaml12(CLoader)
    assert not CLoader.yaml_path_resolvers and None not in CLoader.yaml_implicit_resolvers
else:
    CLoader = None

#: The tags of plain values; any other (!!python/..., !!binary, !!set, !custom) is refused.
_PLAIN_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "timestamp",
                                                    "seq", "map")}


def _walk(node, path: tuple, doc: Document, loader, depth: int, counter: list | None = None,
          controls: bool = True):
    """The value of `node`, checked. `controls`: whether a value may hold a control character
    (False when the text has none and no backslash escape that could make one)."""
    line = node.start_mark.line + 1
    if counter is not None:  # the fast path counts here what _Loader counts as it composes
        counter[0] += 1
        if counter[0] > MAX_NODES:
            raise YamlProblem(line, f"more than {MAX_NODES:,} values in one file",
                              "split the results into several run files")
    if depth > MAX_DEPTH:
        raise YamlProblem(line, "the document is nested too deeply",
                          f"records nest at most {MAX_DEPTH} levels")
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
            if controls and CONTROL.search(key_node.value):
                raise YamlProblem(key_node.start_mark.line + 1, "a key contains the control character "
                                  f"U+{ord(CONTROL.search(key_node.value).group()):04X}",
                                  "remove it: keys are plain names")
            key = _scalar(key_node, loader)
            if not isinstance(key, (str, int)):
                key = str(key)
            if key in out:
                raise YamlProblem(key_node.start_mark.line + 1, f"duplicate key `{key}`",
                                  "keep one of the two entries; YAML would silently drop the first")
            out[key] = _walk(value_node, path + (key,), doc, loader, depth + 1, counter, controls)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_walk(item, path + (i,), doc, loader, depth + 1, counter, controls)
                for i, item in enumerate(node.value)]
    bad = CONTROL.search(node.value) if controls else None
    if bad and path and path[-1] in CAPTURED_FIELDS and node.tag.endswith(":str"):
        value = CONTROL.sub("", _ANSI.sub("", loader.construct_object(node)))
        doc.warnings.append((line, f"control characters removed from `{path[-1]}` (captured output)",
                             "nothing to do; write the text without terminal colour codes"))
        return value
    if bad:
        char = bad.group()
        raise YamlProblem(line, f"text contains the control character U+{ord(char):04X}",
                          "remove it: text fields hold printable characters, newlines and tabs only")
    try:
        return _scalar(node, loader)
    except _TooLarge as exc:
        raise YamlProblem(line, f"the number {str(exc)[:20]}… is too large",
                          f"whole numbers in records are at most 2**53 ({MAX_INT:,})") from None
    except yaml.constructor.ConstructorError as exc:
        raise YamlProblem(line, f"unsupported YAML value: {exc.problem}",
                          "use plain strings, numbers, booleans, dates, lists and mappings") from None
    except ValueError as exc:  # e.g. an impossible date such as 2026-02-30
        raise YamlProblem(line, f"invalid value: {exc}", "write a valid value") from None


_STR, _NULL = "tag:yaml.org,2002:str", "tag:yaml.org,2002:null"


def _scalar(node, loader):
    """A plain scalar's value, as `loader.construct_object` makes it (the YAML 1.2 rules above),
    without its bookkeeping for the common tags; timestamps, the special floats and the rest go
    through the constructor."""
    tag, text = node.tag, node.value
    if tag == _STR:
        return text
    if tag == _INT:
        return _construct_int(loader, node)
    if tag == _FLOAT and (text[-1:].isdigit() or text[-1:] == "."):  # not .inf / .nan
        return float(text)
    if tag == _NULL:
        return None
    if tag == _BOOL:
        return text.lower() == "true"
    return loader.construct_object(node)


class Dumper(yaml.SafeDumper):
    """PyYAML's safe writer, quoting every text that either YAML 1.1 or the 1.2 reading above
    would take for something else: a hex hash such as `3416e21` is written `'3416e21'`."""


Dumper.add_implicit_resolver(_INT, _INT_12, list("-+0123456789"))
Dumper.add_implicit_resolver(_FLOAT, _FLOAT_12, list("-+.0123456789"))


def dump(data, **options) -> str:
    """YAML text of `data` that `parse` reads back as the same values (see `Dumper`)."""
    return yaml.dump(data, Dumper=Dumper, **options)
