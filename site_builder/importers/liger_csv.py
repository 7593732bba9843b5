"""Import Liger-Kernel's published benchmark CSV as reported run records.

Liger-Kernel (BSD-2-Clause) publishes its benchmark results as one CSV with the columns
kernel_name, kernel_provider, kernel_operation_mode, metric_name, metric_unit, x_name,
(x_label,) x_value, y_value_50, y_value_20, y_value_80, extra_benchmark_config_str, gpu_name,
timestamp, liger_version. Its times come from `triton.testing.do_bench` around a Python call
(host dispatch included), with the 20th and 80th percentiles.

How a row maps is data: `records/sources/liger-kernel.yaml` (see `sources.py`). A row becomes
a result when everything about it maps, without a guess: the kernel to a family, the provider
to an implementation record, the mode to a workload kind, the metric to a time, the x value and
every key of its config to the family's axes, parameters, requirements or declared-irrelevant
keys, the sizes, dtype and kind to exactly one declared workload, the GPU to a hardware record.
Every other row is listed with its line and the reason, and what to do about it.

One record per family, hardware, Liger version and day, citing the repository, path, commit
and CSV lines. A group whose file exists with the same results is kept; with other results a
new file dated today is written beside it. No file is ever rewritten.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import json
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..errors import UserError
from ..records.load import Catalog, load_catalog
from ..records.newfiles import write_new
from ..records.schema import DTYPE_SHORT, Run
from ..records.schemas import schema_line
from ..records.yamlio import CONTROL, parse
from ..records.yamlio import dump as yaml_dump
from ..records.sources import Mapping, load_mapping, names_of, terms_of

SOURCE_ID = "liger-kernel"
MAX_BYTES = 50_000_000
#: Longest field of a row: Liger's longest (a JSON config) is a few hundred characters; Python's
#: csv module gives up at 131,072.
MAX_FIELD = 10_000
#: Deepest nesting of the JSON config column (the config is a flat object).
MAX_JSON_DEPTH = 8
REQUIRED = ("kernel_name", "kernel_provider", "kernel_operation_mode", "metric_name", "metric_unit",
            "x_name", "x_value", "y_value_50", "y_value_20", "y_value_80", "extra_benchmark_config_str",
            "gpu_name", "timestamp", "liger_version")
DTYPES = {"float32": "float32", "float": "float32", "fp32": "float32", "bfloat16": "bfloat16", "bf16": "bfloat16",
          "float16": "float16", "half": "float16", "fp16": "float16", "float64": "float64", "double": "float64"}
WHOLE = re.compile(r"^[0-9]+$")


@dataclass
class Planned:
    path: Path
    text: str
    results: int
    kept: bool = False  # the same results are already on record in `path`


@dataclass
class ImportReport:
    written: list[Planned] = field(default_factory=list)
    existing: list[Planned] = field(default_factory=list)  # already on record with the same results
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (CSV line, reason)
    rows: int = 0
    commit: str = ""


class Skip(Exception):
    """A row that is not imported; the message is the reason and what to do."""


def import_liger_csv(csv_path: Path, records: Path, hardware_map: dict[str, str] | None = None,
                     today: dt.date | None = None, write: bool = True, mappings: tuple[Path, ...] = (),
                     commit: str | None = None) -> ImportReport:
    """Turn the CSV into new reported run records under `records`; see the module docstring."""
    records, csv_path = Path(records), Path(csv_path)
    catalog = load_catalog(records)
    mapping = load_mapping(records, SOURCE_ID, catalog, tuple(mappings), hardware_map or {})
    data = _read(csv_path)
    report = ImportReport(commit=_commit(mapping, data, commit, csv_path))
    hw_of = _hardware_names(catalog, mapping)
    groups: dict[tuple, dict[tuple, tuple[int, dict]]] = defaultdict(dict)
    meta: dict[tuple, dict] = {}
    refused: dict[tuple, set[int]] = defaultdict(set)
    for line, row in _rows(csv_path, data):
        report.rows += 1
        try:
            key, result, info = _map_row(row, catalog, hw_of, mapping)
        except Skip as why:
            report.skipped.append((line, str(why)))
            continue
        slot = (result["implementation"], result["workload"])
        results = groups[key]
        if slot in refused[key]:
            report.skipped.append((line, f"another row for {slot[0]} on {slot[1]} conflicts with it (listed "
                                         "above); fix the CSV where it is published, then import again"))
            continue
        if slot in results:
            first, other = results[slot]
            if other["e2e_us"] == result["e2e_us"]:
                report.skipped.append((line, f"the same result as line {first} (a repeated row); nothing to do"))
                continue
            del results[slot]
            refused[key].add(slot)
            a, b = other["e2e_us"]["median"], result["e2e_us"]["median"]
            for n, m in ((first, line), (line, first)):
                report.skipped.append((n, f"conflicts with line {m}: two different values for {slot[0]} on "
                                          f"{slot[1]} (median {a} and {b} µs); fix the CSV where it is "
                                          "published, then import again"))
            continue
        results[slot] = (line, result)
        meta.setdefault(key, {"kernels": set(), "gpu": info["gpu"]})["kernels"] |= info["kernels"]
    today = today or dt.datetime.now(dt.timezone.utc).date()
    for key in sorted(groups):
        if not groups[key]:
            continue
        family, hardware, version, day = key
        results = [r for _, r in sorted(groups[key].values(), key=lambda item: item[0])]
        lines = sorted(line for line, _ in groups[key].values())
        base = f"runs/{family}/{hardware}/{day.isoformat()}-liger-v{_slug(version)}"
        rel = f"{base}.yaml"
        text = _record_text(rel, key, today, results, meta[key], lines, mapping, report.commit)
        Run.model_validate(parse(text).data)  # what we write must load
        target = records / rel
        if target.exists():
            if _same_results(target, results):
                report.existing.append(Planned(target, text, len(results), kept=True))
                continue
            # `_` sorts after the `.` of `.yaml`: the new record is the later one of the same day
            rel = _free_name(records, f"{base}_imported-{today.isoformat()}")
            text = _record_text(rel, key, today, results, meta[key], lines, mapping, report.commit)
            target = records / rel
        planned = Planned(target, text, len(results))
        if write:
            write_new(planned.path, text)
        report.written.append(planned)
    report.skipped.sort()
    return report


# --- the file ----------------------------------------------------------------------------


def _read(path: Path) -> str:
    if not path.is_file():
        raise UserError(f"{path} not found")
    if path.stat().st_size > MAX_BYTES:
        raise UserError(f"{path} is larger than {MAX_BYTES // 1_000_000} MB; split it")
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"{path} is not UTF-8 text; save it as UTF-8") from None


def _commit(mapping: Mapping, data: str, commit: str | None, path: Path) -> str:
    """The commit of the source repository that this file is from: given, or known by its hash."""
    digest = hashlib.sha256(data.encode("utf-8")).hexdigest()
    known = {c.sha256: c.commit for c in mapping.source.copies}
    if commit is not None:
        if not re.match(r"^[0-9a-f]{40}$", commit):
            raise UserError(f"--commit {commit!r}: write the full 40-hex commit of {mapping.source.repository}")
        if digest in known and known[digest] != commit:
            raise UserError(f"--commit {commit}: {path} is the copy of commit {known[digest]} "
                            f"(records/sources/{SOURCE_ID}.yaml, copies); leave --commit out")
        return commit
    if digest in known:
        return known[digest]
    raise UserError(f"{path}: which commit of {mapping.source.repository} is this file from? It is not a known "
                    f"copy (sha256 {digest[:12]}…); pass --commit <40-hex commit> (git log -1 --format=%H "
                    f"-- {mapping.source.path} in a clone)")


def _rows(path: Path, text: str):
    header = text.split("\n", 1)[0].rstrip("\r")
    if "," not in header:
        for name, char in (("semicolon", ";"), ("tab", "\t"), ("pipe", "|")):
            if char in header:
                raise UserError(f"{path}:1: the file is {name}-delimited ({char!r} between columns); Liger-Kernel's "
                                "CSV is comma-separated — export it again with commas")
        raise UserError(f"{path}:1: not a Liger-Kernel benchmark CSV: no comma-separated header")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    names = reader.fieldnames or []
    for name in names:
        if name != name.strip():
            raise UserError(f"{path}:1: column {name!r} has stray spaces — rename it {name.strip()!r}")
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise UserError(f"{path}:1: not a Liger-Kernel benchmark CSV: missing column(s) {', '.join(missing)}")
    rows = iter(reader)
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as exc:  # line_num counts the lines before the record that fails
            raise UserError(f"{path}:{reader.line_num + 1}: the CSV cannot be read there ({exc}); a field has at most "
                            f"{MAX_FIELD:,} characters — fix the file where it is published") from None
        if None in row or any(v is None for v in row.values()):
            yield reader.line_num, {"_bad": f"{len(names)} columns expected, the row has another number"}
        elif any(len(v) > MAX_FIELD for v in row.values()):
            column = next(k for k, v in row.items() if len(v) > MAX_FIELD)
            yield reader.line_num, {"_bad": f"column {column} holds more than {MAX_FIELD:,} characters"}
        elif any(CONTROL.search(v) for v in row.values()):
            column, value = next((k, v) for k, v in row.items() if CONTROL.search(v))
            code = ord(CONTROL.search(value).group())
            yield reader.line_num, {"_bad": f"column {column} holds the control character U+{code:04X}; "
                                            "remove it where the CSV is made, fix the row"}
        else:
            yield reader.line_num, row


def _json_depth(text: str) -> int:
    """The deepest bracket nesting of a JSON text (brackets inside strings included: an upper bound)."""
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _hardware_names(catalog: Catalog, mapping: Mapping) -> dict[str, str]:
    names = {}
    for hid, hw in catalog.hardware.items():
        for name in hw.device_names:
            names[name.strip().lower()] = hid
    for name, hid in mapping.gpus.items():
        names[name.strip().lower()] = hid
    return names


# --- one row -----------------------------------------------------------------------------

MAPPING_FILE = f"records/sources/{SOURCE_ID}.yaml"


def _map_row(row: dict, catalog: Catalog, hw_of: dict[str, str], mapping: Mapping):
    """(group key, result, info) for a row that maps; raises Skip with the reason otherwise."""
    if "_bad" in row:
        raise Skip(row["_bad"] if row["_bad"].endswith("fix the row") else row["_bad"] + "; fix the quoting of the row")
    get = lambda col: (row.get(col) or "").strip()  # noqa: E731
    kernel, provider, mode, metric = get("kernel_name"), get("kernel_provider"), get("kernel_operation_mode"), \
        get("metric_name")
    if kernel in mapping.skip_kernels:
        raise Skip(f"kernel {kernel!r}: {mapping.skip_kernels[kernel]}")
    spec = mapping.kernels.get(kernel)
    if spec is None:
        raise Skip(f"kernel {kernel!r} is not in the mapping — add it under `kernels:` (or `skip_kernels:` with "
                   f"the reason) in {MAPPING_FILE}")
    metric_spec = mapping.source.metrics.get(metric)
    if metric_spec is None:
        raise Skip(f"metric {metric!r} is not in the mapping's metrics ({', '.join(mapping.source.metrics)}) — "
                   f"add it to {MAPPING_FILE}")
    if not metric_spec.time:
        raise Skip(f"metric {metric!r}: {metric_spec.skip}")
    if provider in spec.skip_providers:
        raise Skip(f"provider {provider!r} of {kernel}: {spec.skip_providers[provider]}")
    impl = spec.providers.get(provider)
    if impl is None:
        raise Skip(f"provider {provider!r} of {kernel} is not in the mapping — add it under "
                   f"kernels.{kernel}.providers (or skip_providers, with the reason) in {MAPPING_FILE}")
    kind = mapping.source.modes.get(mode)
    if kind is None:
        raise Skip(f"mode {mode!r} is not in the mapping's modes ({', '.join(mapping.source.modes)}) — add it to "
                   f"{MAPPING_FILE}")
    family = catalog.families[spec.family]
    unit = get("metric_unit")
    scale = metric_spec.units.get(unit)
    if scale is None:
        raise Skip(f"unit {unit!r} of metric {metric} is not one of {', '.join(metric_spec.units)} — add it under "
                   f"metrics.{metric}.units in {MAPPING_FILE}")
    raw = row.get("extra_benchmark_config_str") or "{}"
    if _json_depth(raw) > MAX_JSON_DEPTH:
        raise Skip(f"extra_benchmark_config_str nests deeper than {MAX_JSON_DEPTH} levels; it is a flat JSON object "
                   "— fix the row")
    try:
        config = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise Skip(f"extra_benchmark_config_str is not JSON ({exc.msg}); fix the row") from None
    if not isinstance(config, dict):
        raise Skip("extra_benchmark_config_str is not a JSON object; fix the row")
    config = {k: v for k, v in config.items() if v is not None}  # `"T": null` where T is the x
    dtype_raw = config.pop("dtype", None)
    x_name = get("x_name")
    values: dict[str, object] = dict(config)
    if x_name in values and str(values[x_name]) != get("x_value"):
        raise Skip(f"x {x_name} = {get('x_value')} but the config says {x_name} = {values[x_name]!r}; fix the row")
    values[x_name] = ("x_value", get("x_value"))
    used: set[str] = set()
    sizes = {}
    for axis, alternatives in spec.axes.items():
        found = []
        for expression in alternatives:
            names = names_of(expression)
            if all(n in values for n in names):
                size = 1
                for op, term in terms_of(expression):
                    number = int(term) if term.isdigit() else _whole(values[term], term, axis, family.id)
                    if op == "/" and size % number:
                        raise Skip(f"axis {axis!r} = {expression} is {size} / {number}, not a whole number; fix the "
                                   f"row or kernels.{kernel}.axes.{axis} in {MAPPING_FILE}")
                    size = size // number if op == "/" else size * number
                found.append((expression, size))
                used.update(names)
        if not found:
            raise Skip(f"no size for axis {axis!r} of {family.id}: the row has none of "
                       f"{', '.join(alternatives)} — add its source under kernels.{kernel}.axes.{axis} in "
                       f"{MAPPING_FILE}")
        if len({v for _, v in found}) > 1:
            shown = ", ".join(f"{e} = {v}" for e, v in found)
            raise Skip(f"axis {axis!r} has two sizes in this row ({shown}) — keep one source under "
                       f"kernels.{kernel}.axes.{axis} in {MAPPING_FILE}")
        sizes[axis] = found[0][1]
    for axis, spec_axis in family.semantics.axes.items():
        if spec_axis.kind == "fixed" and axis in sizes and sizes[axis] != spec_axis.value:
            raise Skip(f"{axis} = {sizes[axis]}, but family {family.id} fixes {axis} = {spec_axis.value}")
        if spec_axis.kind == "fixed":
            sizes.pop(axis, None)
    for key, param in spec.parameters.items():
        used.add(key)
        fixed = family.semantics.parameters[param]
        if key in config and not _same(config[key], fixed):
            raise Skip(f"{key} = {config[key]!r}, but family {family.id} fixes {param} = {fixed!r}")
    for key, want in spec.require.items():
        used.add(key)
        if key not in config:
            raise Skip(f"the row does not say {key}; the mapping of {kernel} requires {key} = {want!r}")
        if not _equal(config[key], want):
            raise Skip(f"{key} = {config[key]!r}, but the mapping of {kernel} requires {key} = {want!r}")
    extra = [k for k in values if k not in used and k not in spec.ignore]
    if extra:
        what = "x name" if extra[0] == x_name else "config key"
        raise Skip(f"{what} {extra[0]!r} of {kernel} is neither an axis source, a parameter, a requirement nor "
                   f"ignored — add it to kernels.{kernel}.axes, parameters, require or ignore (with why) in "
                   f"{MAPPING_FILE}")
    if dtype_raw is not None:
        dtype = DTYPES.get(str(dtype_raw).removeprefix("torch."))
        if dtype is None:
            raise Skip(f"dtype {dtype_raw!r} is not one the index knows (float32, bfloat16, float16, float64)")
    else:
        dtype = spec.dtype
    candidates = [w for w in family.workloads if w.kind == kind and w.sizes == sizes
                  and (dtype is None or w.dtype == dtype)]
    shown_sizes = " ".join(f"{k}={v}" for k, v in sorted(sizes.items()))
    if not candidates:
        raise Skip(f"no {kind} workload {shown_sizes}{' ' + dtype if dtype else ''} declared in family {family.id} "
                   f"— declare it in records/families/{family.id}.yaml")
    if len(candidates) > 1:
        raise Skip(f"the row does not say its dtype and {len(candidates)} workloads of {family.id} have its sizes "
                   f"({', '.join(w.id for w in candidates)}) — add `dtype:` with `dtype_source:` to "
                   f"kernels.{kernel} in {MAPPING_FILE}")
    workload = candidates[0]
    gpu = get("gpu_name")
    hardware = hw_of.get(gpu.lower())
    if hardware is None:
        raise Skip(f"GPU {gpu!r} matches no hardware record's device_names (add it there, or under gpus: in "
                   f"{MAPPING_FILE}, or pass --hardware-map 'NAME=hardware-id')")
    try:
        p50, p20, p80 = (float(row[c]) * scale for c in ("y_value_50", "y_value_20", "y_value_80"))
    except (TypeError, ValueError):
        raise Skip("y_value_50/20/80 are not numbers; fix the row") from None
    if not all(math.isfinite(v) and v > 0 for v in (p50, p20, p80)) or not p20 <= p50 <= p80:
        raise Skip("times are not positive with y_value_20 ≤ y_value_50 ≤ y_value_80; fix the row")
    version = get("liger_version")
    if not re.match(r"^[\w.+\-]{1,80}$", version):
        raise Skip(f"liger_version {version!r} is not a version; fix the row")
    try:
        day = dt.datetime.fromisoformat(get("timestamp")).date()
    except ValueError:
        raise Skip(f"timestamp {get('timestamp')!r} is not a date and time; fix the row") from None
    if day > dt.datetime.now(dt.timezone.utc).date():
        raise Skip(f"timestamp {get('timestamp')!r} is in the future; fix the row")
    result = {"implementation": impl, "workload": workload.id,
              "e2e_us": {"median": _round(p50), "p20": _round(p20), "p80": _round(p80)}}
    if dtype_raw is None:
        result["note"] = (f"dtype {workload.dtype}: {spec.dtype_source}" if spec.dtype else
                          f"the row does not say its dtype; {workload.id} is the only workload of its sizes")
    info = {"kernels": {kernel}, "gpu": gpu}
    return (spec.family, hardware, version, day), result, info


def _whole(value, name: str, axis: str, family: str) -> int:
    """A size written as a whole number: `1024`, never `1,024`, `1024.5` or `1e3`."""
    raw = value[1] if isinstance(value, tuple) else value
    where = "x_value" if isinstance(value, tuple) else f"config {name}"
    if isinstance(raw, bool) or not (isinstance(raw, int) or (isinstance(raw, str) and WHOLE.match(raw))):
        raise Skip(f"{where} = {raw!r} is not a whole number, but it gives axis {axis!r} of {family} — write it "
                   "as digits only (1024, not 1,024 or 1024.5)")
    number = int(raw)
    if number <= 0 or number > 2**62:
        raise Skip(f"{where} = {raw!r} is not a positive size (axis {axis!r} of {family})")
    return number


def _same(a, b) -> bool:
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9)
    except (TypeError, ValueError):
        return str(a) == str(b)


def _equal(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return _same(a, b)


def _round(us: float) -> float:
    return float(f"{us:.4g}")


def _slug(version: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", version.lower()).strip("-.") or "unknown"


# --- the record --------------------------------------------------------------------------


def _same_results(path: Path, results: list[dict]) -> bool:
    try:
        data = parse(path.read_text(encoding="utf-8-sig")).data
        on_record = data.get("results") if isinstance(data, dict) else None
    except Exception:  # an unreadable file is never rewritten: the new one goes beside it
        return False
    strip = lambda rs: sorted(json.dumps(r, sort_keys=True, default=str) for r in rs)  # noqa: E731
    return isinstance(on_record, list) and strip(on_record) == strip(results)


def _free_name(records: Path, base: str) -> str:
    rel, n = f"{base}.yaml", 2
    while (records / rel).exists():
        rel, n = f"{base}-{n}.yaml", n + 1
    return rel


def _record_text(rel, key, today, results, info, lines, mapping: Mapping, commit: str) -> str:
    family, hardware, version, day = key
    src = mapping.source
    kernels = ", ".join(sorted(info["kernels"]))
    head = {
        "schema_version": 1,
        "family": family,
        "hardware": hardware,
        "trust": "reported",
        "observed": day,
        "source": {
            "name": src.name,
            "url": f"{src.repository}/blob/{commit}/{src.path}",
            "license": src.license,
            "citation": (f"{src.repository.removeprefix('https://github.com/')}@{commit[:12]}, {src.path}, "
                         f"lines {line_ranges(lines)}: kernel {kernels}, speed, {info['gpu']}, "
                         f"Liger-Kernel v{version}."),
            "retrieved": today,
        },
        "protocol": src.protocol.model_dump(exclude_none=True),
        "environment": {"gpu": info["gpu"], "packages": {"liger-kernel": version}},
        "notes": (f"Figures for Liger-Kernel v{version} as the project published them; not reproduced "
                  f"here. Imported with `kernel-records import liger-csv` through {MAPPING_FILE}."),
    }
    lines_out = [schema_line(rel),
                 "# Imported by `kernel-records import liger-csv`; from here on, edited by hand only.",
                 yaml_dump(head, sort_keys=False, allow_unicode=True, width=100).rstrip("\n"),
                 "results:"]
    for r in results:
        flow = yaml_dump(r, default_flow_style=True, sort_keys=False, width=10_000, allow_unicode=True).strip()
        lines_out.append(f"  - {flow}")
    return "\n".join(lines_out) + "\n"


def line_ranges(lines: list[int]) -> str:
    """[2, 3, 4, 9] -> '2-4, 9'."""
    out, start, prev = [], None, None
    for n in sorted(set(lines)):
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(f"{start}-{prev}" if prev != start else f"{start}")
            start = prev = n
    if start is not None:
        out.append(f"{start}-{prev}" if prev != start else f"{start}")
    return ", ".join(out)
