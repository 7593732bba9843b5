"""`kernel-records check`: the build's validation, plus the warnings that `--strict` turns into
failures. Errors come from `load_catalog` (it raises `RecordErrors` with every problem); the
warnings are about records that are valid but probably wrong or out of date:

- a result faster than the physical floor of its workload on its hardware (impossible: a
  wrong unit, a wrong workload, or a measurement that did not do the work);
- a result obtained with another version than the one the implementation record describes
  (the package version in the run's environment differs, or the run was observed before the
  described version was released);
- a measured result whose `kernel_sha` is not the hash of the implementation's current
  source in `kernels/<family>/` (the code changed since: the number is stale), or whose
  implementation has no registered code there any more;
- a `TODO` left in a record (the scaffolds of `kernel-records new` mark what to fill in);
- a record whose first line does not point editors at its JSON Schema.

Version and hash warnings concern only the results that rank: a superseded result is history.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .entries import Entry, build_entries
from ..errors import Problem, RecordErrors
from ..records.kernel_hash import registered, same_kernel, sha_of
from ..records.load import Catalog, _shown, load_catalog, record_files
from ..records.schemas import KIND_OF_FOLDER, schema_line


@dataclass
class CheckReport:
    catalog: Catalog
    warnings: list[Problem]

    @property
    def records(self) -> int:
        c = self.catalog
        return len(c.families) + len(c.implementations) + len(c.hardware) + len(c.runs)


def check(records: Path, kernels: Path | None = None, only=()) -> CheckReport:
    """Validate every record under `records`; raises RecordErrors, else returns the warnings
    (only those about files in or under the paths of `only`, when given)."""
    records = Path(records)
    catalog = load_catalog(records)
    from ..records.sources import check_sources  # records/sources/*.yaml: source mappings

    _, problems = check_sources(records, catalog)
    if problems:
        raise RecordErrors(problems)
    entries = build_entries(catalog)
    return CheckReport(catalog, record_warnings(catalog, entries, records, kernels, only))


def record_warnings(catalog: Catalog, entries: list[Entry], records: Path,
                    kernels: Path | None = None, only=()) -> list[Problem]:
    """Every warning about valid records, each with the file and line of the result it is about.

    `kernels` defaults to the `kernels/` folder beside `records/`; without one, kernel hashes
    are not compared. `only` (files or folders) keeps the warnings about the files among them.
    """
    records = Path(records)
    kernels = Path(kernels) if kernels is not None else records.resolve().parent / "kernels"
    limits = [Path(os.path.realpath(p)) for p in only]

    def wanted(path: Path) -> bool:
        if not limits:
            return True
        real = Path(os.path.realpath(path))
        return any(real == p or real.is_relative_to(p) for p in limits)

    out: list[Problem] = []
    code: dict[str, dict] = {}
    hashes: dict[tuple, str] = {}  # the current hash of each registered source set
    has_kernels = kernels.is_dir()
    run_shown: dict[str, str | None] = {}  # per run file: its path as shown, None when not wanted
    for e in entries:
        if e.lr.path not in run_shown:
            path = records / e.lr.path
            run_shown[e.lr.path] = _shown(path, records) if wanted(path) else None
        shown = run_shown[e.lr.path]
        if shown is None:
            continue
        found = _floor_warning(e)
        if e.superseded_by is None:
            found += _version_warning(e, catalog)
            if e.run.trust == "measured" and has_kernels:
                if e.family.id not in code:
                    code[e.family.id] = registered(kernels, e.family.id)
                found += _hash_warning(e, code[e.family.id], kernels, hashes)
        # the line is looked up only for a warning: finding it reads the file's structure again
        out.extend(Problem(shown, e.lr.doc.line_of(("results", e.index, *at)), message, fix, "warning")
                   for at, message, fix in found)
    files = [p for p in record_files(records) if wanted(p)]
    out.extend(placeholder_warnings(records, files))
    out.extend(schema_line_warnings(records, files))
    return sorted(set(out))


def schema_line_warnings(records: Path, files) -> list[Problem]:
    """A record should start with the line that lets editors validate it against its schema."""
    out = []
    for path in files:
        rel = path.relative_to(records).as_posix()
        if rel.split("/", 1)[0] not in KIND_OF_FOLDER:
            continue
        expected = schema_line(rel)
        with open(path, encoding="utf-8-sig") as handle:
            first = handle.readline().rstrip("\r\n")
        if first != expected:
            out.append(Problem(_shown(path, records), 1, "the first line does not name the record's JSON Schema",
                               f"make `{expected}` the first line, so editors check the record as you type",
                               "warning"))
    return out


def placeholder_warnings(records: Path, files=None) -> list[Problem]:
    """One warning per line that still holds a scaffold's TODO."""
    out = []
    for path in record_files(records) if files is None else files:
        whole = path.read_text(encoding="utf-8-sig")
        if "TODO" not in whole:  # most files: no line to look at
            continue
        shown = _shown(path, records)
        for number, text in enumerate(whole.splitlines(), 1):
            if re.search(r"(^\s*|#\s*|:\s*)TODO\b", text):
                hint = text.split("TODO", 1)[1].lstrip(" :")[:100]
                out.append(Problem(shown, number, f"TODO left: {hint}" if hint else "TODO left",
                                   "write the real value and delete the TODO", "warning"))
    return out


# Each check below returns its warnings about one result as (where in the result, message, fix).

def _floor_warning(e: Entry) -> list[tuple]:
    if e.result.status != "ok" or e.time_us is None or e.time_us >= e.floor.us:
        return []
    clock = "device" if e.run.protocol.clock == "device" else "end-to-end"
    return [(
        (),
        f"{e.implementation.id} on {e.workload.id}: {clock} time {e.time_us:.4g} µs is below the "
        f"floor of {e.floor.us:.4g} µs on {e.hardware.id} ({e.floor.bytes:,} bytes at "
        f"{e.floor.bandwidth_gbps:,.0f} GB/s); it is not ranked",
        "check the unit (µs, not ms), the workload and the hardware of this result")]


def version_mismatch(e: Entry, catalog: Catalog) -> str | None:
    """Why `e` was not obtained with the version its implementation record describes (check's
    version warning), or None. `kernel-records run --missing` re-runs such results."""
    found = _version_warning(e, catalog)
    return found[0][1] if found else None


def _version_warning(e: Entry, catalog: Catalog) -> list[tuple]:
    impl = e.implementation
    env = e.run.environment
    packages = {_norm(k): v for k, v in (env.packages if env else {}).items()}
    for name, expected, pinned in _expected_versions(impl):
        used = packages.get(_norm(name))
        if used is not None and used != expected:
            where = (f"the install command in {catalog_path(catalog, impl.id)} pins {name}=={expected}"
                     if pinned else f"{catalog_path(catalog, impl.id)} describes version {expected}")
            return [(
                (),
                f"{impl.id} on {e.workload.id} ran {name} {used}, but {where}",
                f"re-run it with {name} {expected}, or keep it as history: a newer run supersedes it")]
    if impl.version is not None and impl.released is not None and e.run.observed_at.date() < impl.released:
        return [(
            (),
            f"{impl.id} on {e.workload.id} was observed on {e.run.observed_at.date()}, before "
            f"version {impl.version} was released ({impl.released})",
            f"re-run it with version {impl.version}, or add a newer run that supersedes it")]
    return []


def _hash_warning(e: Entry, code: dict, kernels: Path, hashes: dict) -> list[tuple]:
    r = e.result
    entry = code.get(r.implementation)
    if entry is None:
        if r.status == "not-installed":
            return []
        return [(
            ("kernel_sha",),
            f"measured result for {r.implementation!r}, which no code in "
            f"{kernels.name}/{e.family.id.replace('-', '_')}/ registers",
            f"register it with @register({r.implementation!r}) in the family's kernels package, "
            "or remove the result")]
    if not r.kernel_sha:
        return []
    if entry.sources not in hashes:
        hashes[entry.sources] = sha_of(entry.sources) if all(p.is_file() for p in entry.sources) else ""
    current = hashes[entry.sources]
    if not current:
        return []
    if not same_kernel(r.kernel_sha, current):
        return [(
            ("kernel_sha",),
            f"stale kernel hash: {r.implementation} on {r.workload} was measured with source "
            f"{r.kernel_sha}, the code in {entry.module.name} now hashes to {current}",
            "run `kernel-records run` again to measure the current code; this record stays as history")]
    return []


def catalog_path(catalog: Catalog, impl_id: str) -> str:
    return catalog.paths.get(("implementations", impl_id), f"implementations/{impl_id}.yaml")


def _package_names(impl) -> list[tuple[str, str | None]]:
    """Distribution names an implementation is installed as, read from its install command, each
    with its `==` pin (None where it has none)."""
    if not impl.install:
        return []
    names = []
    for match in re.finditer(r"pip3?\s+install\s+([^;&|]+)", impl.install):
        for token in match.group(1).split():
            token = token.strip("'\"")
            if token.startswith("-"):
                continue
            name = re.split(r"[\[<>=!~;@ ]", token, maxsplit=1)[0]
            pin = re.search(r"==\s*([^,;\s]+)", token)
            if name:
                names.append((name, pin.group(1) if pin else None))
    return names


def _expected_versions(impl) -> list[tuple[str, str, bool]]:
    """(package, the version a run should have used, whether the install command pins it): the
    first package of the install command is the implementation's own and expects its `version`;
    the others (libraries it runs on, e.g. FlashInfer's `nvidia-cutlass-dsl`) expect their own
    `==` pin and are not checked without one."""
    out = []
    for i, (name, pin) in enumerate(_package_names(impl)):
        if i == 0:
            if impl.version is not None:
                out.append((name, impl.version, False))
        elif pin is not None:
            out.append((name, pin, True))
    return out


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
