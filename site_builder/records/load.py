"""Read every record under records/, validate it, and return one frozen catalog.

Every problem in every file is collected; if there is any, `RecordErrors` is raised once with
all of them, each as `path:line: what is wrong — how to fix it`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ValidationError

from ..errors import Problem, RecordErrors
from .schema import SCHEMA_VERSION, Family, Hardware, Implementation, Run, SLUG_PATTERN
from .yamlio import MAX_BYTES, Document, YamlProblem, decode, parse, windows_reserved

import re

KINDS = {"families": Family, "implementations": Implementation, "hardware": Hardware}


@dataclass(frozen=True)
class LoadedRun:
    id: str  # the file's stem; unique within runs/<family>/<hardware>/
    path: str  # relative to the records root, with forward slashes
    run: Run
    doc: Document = field(repr=False, compare=False)

    @property
    def key(self) -> str:
        return f"{self.run.family}/{self.run.hardware}/{self.id}"


@dataclass(frozen=True)
class Catalog:
    families: dict[str, Family]
    implementations: dict[str, Implementation]
    hardware: dict[str, Hardware]
    runs: list[LoadedRun]
    paths: dict[tuple[str, str], str]  # (kind, id) -> relative path
    warnings: list[Problem] = field(default_factory=list)
    parsed_keys: tuple = field(default=(), repr=False, compare=False)  # the `parsed` entries read
    #: sha256 of every record file's bytes as read, by its path relative to the root: what a
    #: build's cache keys pages by (the parts of the site that read only unchanged files are kept)
    digests: dict[str, str] = field(default_factory=dict, repr=False, compare=False)


def record_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and (p.is_file() or p.is_symlink()))


def load_catalog(root: Path, today: dt.date | None = None, parsed: dict | None = None) -> Catalog:
    """`parsed`, when given, maps (kind, hash of a file's bytes) to its (Document, record) from an
    earlier load: an unchanged file is not parsed and validated again (new ones are added)."""
    root = Path(root)
    used: list = []
    digests: dict[str, str] = {}
    if not root.is_dir():
        raise RecordErrors([Problem(str(root), 1, "records folder not found",
                                    "run from the repository root or pass --records DIR")])
    problems: list[Problem] = []
    found: dict[str, dict[str, tuple[BaseModel, str, Document]]] = {k: {} for k in KINDS}
    runs: list[LoadedRun] = []
    raw_runs: list[tuple[Document, str]] = []
    candidates: dict[str, list] = {k: [] for k in KINDS}
    broken: set[str] = set()
    cleaned: list[Problem] = []

    for link in sorted(p for p in root.rglob("*") if p.is_symlink() and p.is_dir()):
        if _escapes(link, root):  # never followed, but never silently ignored either
            problems.append(Problem(_shown(link, root), 1, "symbolic link to a folder outside the records folder",
                                    "replace the link with the files themselves"))
    for path in record_files(root):
        rel = path.relative_to(root).as_posix()
        shown = _shown(path, root)
        parts = path.relative_to(root).parts
        if _escapes(path, root):
            problems.append(Problem(shown, 1, "symbolic link pointing outside the records folder",
                                    "replace the link with the file itself"))
            continue
        kind = parts[0]
        if kind == "sources":  # source mappings: validated by site_builder.records.sources (check, import)
            continue
        if kind not in (*KINDS, "runs") or (kind == "runs" and len(parts) != 4) or (
            kind != "runs" and len(parts) != 2
        ):
            problems.append(Problem(shown, 1, "record in an unexpected place",
                                    "put it in families/, implementations/, hardware/ or "
                                    "runs/<family>/<hardware>/"))
            continue
        if path.suffix == ".yml":
            problems.append(Problem(shown, 1, "record files end in .yaml", f"rename it to {path.stem}.yaml"))
            continue
        if not re.match(SLUG_PATTERN, path.stem) and not re.match(r"^[0-9A-Za-z][\w.\-]*$", path.stem, re.ASCII):
            problems.append(Problem(shown, 1, f"file name {path.name!r} is not a slug",
                                    "use lower-case letters, digits and - _ ."))
            continue
        if windows_reserved(path.name):
            problems.append(Problem(shown, 1, f"file name {path.name!r} is reserved on Windows",
                                    "rename it: CON, PRN, AUX, NUL, COM1-9 and LPT1-9 cannot be file names there"))
            continue
        try:
            with open(path, "rb") as handle:  # never more than the limit into memory
                data = handle.read(MAX_BYTES + 1)
            if len(data) > MAX_BYTES:
                raise YamlProblem(1, f"file is larger than {MAX_BYTES // 1000} kB",
                                  "split the results into several run files")
            sha = digests[rel] = hashlib.sha256(data).hexdigest()
            key = (kind, sha) if parsed is not None else None
            hit = parsed.get(key) if key else None
            if hit is None:
                doc = parse(decode(data))
        except OSError as exc:
            problems.append(Problem(shown, 1, f"cannot read the file: {exc.strerror}",
                                    "replace it with a plain text file"))
            broken.add(path.stem)
            continue
        except YamlProblem as exc:
            problems.append(Problem(shown, exc.line, exc.message, exc.fix))
            broken.add(path.stem)  # names pointing at it are not reported again
            continue
        if hit is None:
            model = Run if kind == "runs" else KINDS[kind]
            record = _validate(model, doc, shown, problems)
            if key and record is not None:
                parsed[key] = (doc, record)
        else:
            doc, record = hit
        for line, message, fix in doc.warnings:
            cleaned.append(Problem(shown, line, message, fix, "warning"))
        if key:
            used.append(key)
        if kind == "runs":
            raw_runs.append((doc, shown))
            if record is not None:
                _check_run_path(record, parts, doc, shown, problems)
                runs.append(LoadedRun(id=path.stem, path=rel, run=record, doc=doc))
        elif record is not None:
            candidates[kind].append((record, path.stem, shown, doc))
        else:  # reported already; names pointing at it are not reported again
            broken.add(path.stem)

    for kind, items in candidates.items():
        owners: dict[str, str] = {}
        for record, stem, shown, doc in sorted(items, key=lambda c: (c[0].id != c[1], c[2])):
            key = record.id.lower()
            if key in owners:
                problems.append(Problem(shown, doc.line_of(("id",)),
                                        f"duplicate id {record.id!r} (also in {owners[key]})",
                                        "ids must be unique, ignoring case; rename one"))
            elif record.id != stem:
                problems.append(Problem(shown, doc.line_of(("id",)),
                                        f"id {record.id!r} does not match the file name {stem + '.yaml'!r}",
                                        f"rename the file to {record.id}.yaml or change the id"))
            else:
                owners[key] = shown
                found[kind][record.id] = (record, shown, doc)

    families = {k: v[0] for k, v in found["families"].items()}
    implementations = {k: v[0] for k, v in found["implementations"].items()}
    hardware = {k: v[0] for k, v in found["hardware"].items()}
    for fid, (family, shown, doc) in found["families"].items():
        if family.baseline not in implementations and family.baseline not in broken:
            problems.append(Problem(shown, doc.line_of(("baseline",)),
                                    f"baseline {family.baseline!r} is not a known implementation",
                                    _known("implementations", implementations)))
    for iid, (impl, shown, doc) in found["implementations"].items():
        for j, fid in enumerate(impl.families):
            if fid not in families and fid not in broken:
                problems.append(Problem(shown, doc.line_of(("families", j)), f"unknown family {fid!r}",
                                        _known("families", families)))
    for doc, shown in raw_runs:
        _check_run_refs(doc, families, implementations, hardware, shown, problems, broken)
    run_names: dict[str, str] = {}
    for lr in sorted(runs, key=lambda lr: lr.path):  # their pages would share one file on macOS and Windows
        first = run_names.setdefault(lr.path.lower(), lr.path)
        if first != lr.path:
            problems.append(Problem(_shown(root / lr.path, root), 1,
                                    f"run file name differs only in case from {first.rsplit('/', 1)[-1]!r}",
                                    "rename one: file names must be unique, ignoring case"))
    if problems:
        raise RecordErrors(problems)
    runs.sort(key=lambda lr: (lr.run.observed_at, lr.path))
    paths = {(kind, rid): found[kind][rid][1] for kind in KINDS for rid in found[kind]}
    return Catalog(families, implementations, hardware, runs, paths, warnings=cleaned, parsed_keys=tuple(used),
                   digests=digests)


def _shown(path: Path, root: Path) -> str:
    """The path as the user would type it: relative to the working folder when inside it."""
    try:
        return path.absolute().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return f"{root.name}/{path.relative_to(root).as_posix()}"


def _escapes(path: Path, root: Path) -> bool:
    """Whether the file, followed through any symbolic links, lies outside the records folder."""
    real = Path(os.path.realpath(path))  # unlike Path.resolve, never raises on a symlink loop
    return not real.is_relative_to(Path(os.path.realpath(root)))


def _known(what: str, mapping: dict) -> str:
    names = ", ".join(sorted(mapping)) or "none yet"
    return f"use one of the {what} in records/{what}/ ({names}), or add its record"


def _check_run_path(run: Run, parts: tuple, doc: Document, shown: str, problems: list) -> None:
    if parts[1] != run.family:
        problems.append(Problem(shown, doc.line_of(("family",)),
                                f"run names family {run.family!r} but sits in runs/{parts[1]}/",
                                f"move it to runs/{run.family}/{run.hardware}/ or fix `family`"))
    elif parts[2] != run.hardware:
        problems.append(Problem(shown, doc.line_of(("hardware",)),
                                f"run names hardware {run.hardware!r} but sits in runs/{parts[1]}/{parts[2]}/",
                                f"move it to runs/{run.family}/{run.hardware}/ or fix `hardware`"))


def _check_run_refs(doc: Document, families, implementations, hardware, shown, problems, broken) -> None:
    """Check the names a run refers to, from its raw data, so that they are reported even when
    other fields of the same file are wrong."""
    data = doc.data if isinstance(doc.data, dict) else {}
    fid, hid = data.get("family"), data.get("hardware")
    family = families.get(fid) if isinstance(fid, str) else None
    if isinstance(fid, str) and family is None and fid not in broken:
        problems.append(Problem(shown, doc.line_of(("family",)), f"unknown family {fid!r}",
                                _known("families", families)))
    if isinstance(hid, str) and hid not in hardware and hid not in broken:
        problems.append(Problem(shown, doc.line_of(("hardware",)), f"unknown hardware {hid!r}",
                                _known("hardware", hardware)))
    workloads = {w.id for w in family.workloads} if family else set()
    results = data.get("results") if isinstance(data.get("results"), list) else []
    for i, result in enumerate(results):
        if not isinstance(result, dict):
            continue
        impl, wl = result.get("implementation"), result.get("workload")
        if isinstance(impl, str) and impl not in implementations and impl not in broken:
            problems.append(Problem(shown, doc.line_of(("results", i, "implementation")),
                                    f"unknown implementation {impl!r}",
                                    _known("implementations", implementations)))
        elif family and isinstance(impl, str) and implementations.get(impl) is not None \
                and implementations[impl].families and family.id not in implementations[impl].families:
            problems.append(Problem(shown, doc.line_of(("results", i, "implementation")),
                                    f"implementation {impl!r} computes {', '.join(implementations[impl].families)}, "
                                    f"not {family.id}",
                                    "implementation ids are global: use the id of the implementation of this "
                                    "family, or add one (records/implementations/)"))
        if family and isinstance(wl, str) and wl not in workloads:
            problems.append(Problem(shown, doc.line_of(("results", i, "workload")),
                                    f"unknown workload {wl!r} for family {family.id!r}",
                                    f"use one of its workloads ({', '.join(sorted(workloads))}) "
                                    f"or declare it in records/families/{family.id}.yaml"))


# --- pydantic errors into user messages ------------------------------------------------

_TYPE_WORDS = {
    "int": "a whole number", "float": "a number", "string": "text", "bool": "true or false",
    "dict": "a mapping (key: value lines)", "list": "a list", "date": "a date (YYYY-MM-DD)",
    "datetime": "a date and time (YYYY-MM-DDTHH:MM:SSZ)", "model": "a mapping (key: value lines)",
}


def _validate(model: type[BaseModel], doc: Document, shown: str, problems: list):
    data = doc.data
    if isinstance(data, dict) and "schema_version" in data and data["schema_version"] != SCHEMA_VERSION:
        problems.append(Problem(shown, doc.line_of(("schema_version",)),
                                f"schema_version {data['schema_version']!r} is not supported",
                                f"this version of kernel-records reads schema_version {SCHEMA_VERSION}; "
                                "convert the file or upgrade kernel-records"))
        return None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            loc = tuple(x for x in err["loc"] if not _is_union_tag(x))
            at = _AT.match(err["msg"])
            if at:  # a model-level check that names the item it is about
                loc += tuple(int(x) if x.isdigit() else x for x in at.group(1).split("."))
                err = dict(err, msg="Value error, " + err["msg"][at.end():])
            line = doc.line_of(loc)
            message, fix = _describe(model, err, loc)
            problems.append(Problem(shown, line, message, fix))
        return None


_AT = re.compile(r"^Value error, \[at ([\w.\-]+)\] ")


def _is_union_tag(part) -> bool:
    return isinstance(part, str) and ("[" in part or part in ("function-after", "function-before"))


def _describe(model, err: dict, loc: tuple) -> tuple[str, str]:
    kind, msg = err["type"], err["msg"]
    where = ".".join(str(x) for x in loc) or "the record"
    if kind == "missing":
        return f"missing field `{where}`", f"add `{loc[-1]}:` here (see the record's JSON Schema)"
    if kind == "extra_forbidden":
        allowed = _allowed_fields(model, loc[:-1])
        hint = f"; allowed here: {', '.join(allowed)}" if allowed else ""
        return f"unknown field `{where}`", f"remove it or fix its spelling{hint}"
    if kind == "string_pattern_mismatch" and "a-z0-9" in str(err.get("ctx", {}).get("pattern", "")):
        return (f"`{where}` is {err['input']!r}, not a slug",
                "use lower-case letters, digits and single - _ . between them, e.g. my-kernel-v2")
    if kind in ("greater_than", "greater_than_equal"):
        return (f"`{where}` must be {'greater than' if kind == 'greater_than' else 'at least'} "
                f"{err['ctx'].get('gt', err['ctx'].get('ge'))}, got {err['input']!r}",
                "times and sizes are positive; a failed run is recorded with status: failed and an error")
    if kind == "literal_error":
        return f"`{where}` is {err['input']!r}, not an allowed value", f"use {err['ctx']['expected']}"
    if kind == "value_error":
        text = msg.removeprefix("Value error, ")
        if text == "date in the future":
            return f"`{where}` is a date in the future ({err['input']})", "write the date it was observed (UTC)"
        if text.startswith("links must"):
            return f"`{where}` is not an http(s) link: {err['input']!r}", "use an absolute https:// URL"
        text, _, fix = text.partition(" — ")
        return f"{where}: {text}", fix or "correct the values so they agree"
    base = kind.split("_")[0]
    if kind.endswith(("_type", "_parsing")) and base in _TYPE_WORDS:
        return f"`{where}` should be {_TYPE_WORDS[base]}, got {err['input']!r}", f"write {_TYPE_WORDS[base]}"
    if kind in ("too_short", "too_long", "string_too_short", "string_too_long"):
        return f"`{where}`: {msg.lower()}", "shorten or complete the value"
    return f"`{where}`: {msg}", "correct the value (see the record's JSON Schema)"


def _allowed_fields(model, loc: tuple) -> list[str]:
    current = model
    for part in loc:
        if isinstance(part, int) or current is None:
            continue
        info = getattr(current, "model_fields", {}).get(part)
        if info is None:
            return []
        current = _inner_model(info.annotation)
    return sorted(getattr(current, "model_fields", {})) if current else []


def _inner_model(annotation):
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _inner_model(arg)
        if found:
            return found
    return None
