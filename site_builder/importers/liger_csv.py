"""Import Liger-Kernel's published benchmark CSV as reported run records.

Liger-Kernel (BSD-2-Clause) publishes its benchmark results as one CSV with the columns
kernel_name, kernel_provider, kernel_operation_mode, metric_name, metric_unit, x_name,
(x_label,) x_value, y_value_50, y_value_20, y_value_80, extra_benchmark_config_str, gpu_name,
timestamp, liger_version. Its times come from `triton.testing.do_bench` around a Python call
(host dispatch included), in milliseconds, with the 20th and 80th percentiles.

A row becomes a result when everything about it maps: the kernel to a family of this index,
the provider to an implementation record, the x axis and the extra config to one declared
workload, the GPU to a hardware record (its `device_names`, or `--hardware-map`), and it is
a forward-pass speed. Every other row is listed with the reason, never dropped silently. One
new record is written per family, hardware, Liger version and day; existing files are never
rewritten.
"""

from __future__ import annotations

import csv
import datetime as dt
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
from ..records.schema import Run
from ..records.schemas import schema_line
from ..records.yamlio import parse

MAX_BYTES = 50_000_000
REQUIRED = ("kernel_name", "kernel_provider", "kernel_operation_mode", "metric_name", "metric_unit",
            "x_name", "x_value", "y_value_50", "y_value_20", "y_value_80", "extra_benchmark_config_str",
            "gpu_name", "timestamp", "liger_version")
SOURCE_URL = "https://github.com/linkedin/Liger-Kernel/blob/main/benchmark/data/all_benchmark_data.csv"
PROTOCOL = {
    "id": "liger-benchmark-scripts",
    "version": 1,
    "clock": "end-to-end",
    "l2": "unspecified",
    "timing": "triton.testing.do_bench around a Python call",
    "statistic": "median",
    "quantiles": [0.2, 0.8],
    "description": "Liger-Kernel's own benchmark scripts; times include host dispatch.",
}
UNITS_TO_US = {"ms": 1000.0, "us": 1.0, "µs": 1.0, "s": 1_000_000.0}


@dataclass(frozen=True)
class KernelMap:
    """How one Liger benchmark kernel maps onto a family of this index."""

    family: str
    x_axes: dict[str, str]  # CSV x_name -> axis
    config_axes: dict[str, str]  # key of extra_benchmark_config -> axis
    providers: dict[str, str]  # kernel_provider -> implementation id


#: Liger kernel_name -> family, as data (the engine knows no family): liger_kernels.json.
MAP_FILE = Path(__file__).with_name("liger_kernels.json")


def load_map(path: Path = MAP_FILE) -> dict[str, KernelMap]:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        return {name: KernelMap(**spec) for name, spec in raw.items() if not name.startswith("_")}
    except (OSError, ValueError, TypeError) as exc:
        raise UserError(f"{path}: not a kernel map ({exc}); see {MAP_FILE.name} for the format") from None


@dataclass
class Planned:
    path: Path
    text: str
    results: int


@dataclass
class ImportReport:
    written: list[Planned] = field(default_factory=list)
    existing: list[Planned] = field(default_factory=list)  # would have been written; the file exists
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (CSV line, reason)
    rows: int = 0


def import_liger_csv(csv_path: Path, records: Path, hardware_map: dict[str, str] | None = None,
                     today: dt.date | None = None, write: bool = True,
                     kernel_map: Path | None = None) -> ImportReport:
    """Turn the CSV into new reported run records under `records`; see the module docstring."""
    records = Path(records)
    kernels = load_map(kernel_map or MAP_FILE)
    catalog = load_catalog(records)
    hw_of = _hardware_names(catalog, hardware_map or {})
    report = ImportReport()
    groups: dict[tuple, dict[tuple, tuple[int, dict]]] = defaultdict(dict)
    meta: dict[tuple, dict] = {}
    for line, row in _rows(Path(csv_path)):
        report.rows += 1
        mapped = _map_row(row, catalog, hw_of, kernels)
        if isinstance(mapped, str):
            report.skipped.append((line, mapped))
            continue
        key, result, info = mapped
        results = groups[key]
        slot = (result["implementation"], result["workload"])
        if slot in results:
            report.skipped.append((results[slot][0], f"superseded by line {line} (same implementation, "
                                                     "workload, GPU, version and day)"))
        results[slot] = (line, result)
        meta.setdefault(key, info)
    today = today or dt.datetime.now(dt.timezone.utc).date()
    for key in sorted(groups):
        family, hardware, version, day = key
        results = [r for _, r in sorted(groups[key].values(), key=lambda item: item[0])]
        rel = f"runs/{family}/{hardware}/{day.isoformat()}-liger-v{_slug(version)}.yaml"
        text = _record_text(rel, family, hardware, version, day, today, results, meta[key], Path(csv_path).name)
        Run.model_validate(parse(text).data)  # what we write must load
        planned = Planned(records / rel, text, len(results))
        if planned.path.exists():
            report.existing.append(planned)
        elif write:
            try:
                write_new(planned.path, text)
                report.written.append(planned)
            except UserError:  # created since we looked
                report.existing.append(planned)
        else:
            report.written.append(planned)
    report.skipped.sort()
    return report


def _rows(path: Path):
    if not path.is_file():
        raise UserError(f"{path} not found")
    if path.stat().st_size > MAX_BYTES:
        raise UserError(f"{path} is larger than {MAX_BYTES // 1_000_000} MB; split it")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"{path} is not UTF-8 text") from None
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise UserError(f"{path}:1: not a Liger-Kernel benchmark CSV: missing column(s) {', '.join(missing)}")
    for row in reader:
        yield reader.line_num, row


def _hardware_names(catalog: Catalog, overrides: dict[str, str]) -> dict[str, str]:
    names = {}
    for hid, hw in catalog.hardware.items():
        for name in hw.device_names:
            names[name.strip().lower()] = hid
    for name, hid in overrides.items():
        if hid not in catalog.hardware:
            raise UserError(f"--hardware-map {name}={hid}: unknown hardware {hid!r} "
                            f"(one of {', '.join(sorted(catalog.hardware))})")
        names[name.strip().lower()] = hid
    return names


def _map_row(row: dict, catalog: Catalog, hw_of: dict[str, str], kernels: dict[str, KernelMap]):
    """(group key, result, info) for a row that maps, else the reason it does not."""
    kernel, provider = (row.get("kernel_name") or "").strip(), (row.get("kernel_provider") or "").strip()
    spec = kernels.get(kernel)
    if spec is None or spec.family not in catalog.families:
        return f"kernel {kernel!r} has no family in this index"
    family = catalog.families[spec.family]
    impl = spec.providers.get(provider)
    if impl is None or impl not in catalog.implementations:
        return f"provider {provider!r} of {kernel} maps to no implementation record"
    mode, metric = (row.get("kernel_operation_mode") or "").strip(), (row.get("metric_name") or "").strip()
    if mode != "forward":
        return f"{mode or 'empty'} mode: the family {spec.family} describes the forward pass only"
    if metric != "speed":
        return f"metric {metric!r} is not a time"
    scale = UNITS_TO_US.get((row.get("metric_unit") or "").strip())
    if scale is None:
        return f"unit {row.get('metric_unit')!r} is not a time unit (ms, us, s)"
    axis = spec.x_axes.get((row.get("x_name") or "").strip())
    if axis is None:
        return f"x axis {row.get('x_name')!r} is not one of {', '.join(spec.x_axes)}"
    try:
        config = json.loads(row.get("extra_benchmark_config_str") or "{}")
        if not isinstance(config, dict):
            raise ValueError
        sizes = {axis: _whole(row.get("x_value"))}
        sizes.update({a: _whole(config[k]) for k, a in spec.config_axes.items() if k in config})
    except (ValueError, TypeError, KeyError, json.JSONDecodeError):
        return "extra_benchmark_config_str or x_value cannot be read"
    dtype = _dtype(config.get("dtype"))
    for name, value in family.semantics.parameters.items():
        if name in config and not _same(config[name], value):
            return f"{name} = {config[name]!r}, but family {family.id} fixes {name} = {value!r}"
    workload = next((w for w in family.workloads if w.sizes == sizes and (dtype is None or w.dtype == dtype)),
                    None)
    if workload is None:
        shown = " ".join(f"{k}={v}" for k, v in sorted(sizes.items())) + (f" {dtype}" if dtype else "")
        return f"no workload {shown} declared in family {family.id}"
    hardware = hw_of.get((row.get("gpu_name") or "").strip().lower())
    if hardware is None:
        return (f"GPU {row.get('gpu_name')!r} matches no hardware record's device_names "
                "(add it there, or pass --hardware-map 'NAME=hardware-id')")
    try:
        p50, p20, p80 = (float(row[c]) * scale for c in ("y_value_50", "y_value_20", "y_value_80"))
    except (TypeError, ValueError):
        return "y_value_50/20/80 are not numbers"
    if not all(math.isfinite(v) and v > 0 for v in (p50, p20, p80)) or not p20 <= p50 <= p80:
        return "times are not positive with y_value_20 ≤ y_value_50 ≤ y_value_80"
    version = (row.get("liger_version") or "").strip()
    if not re.match(r"^[\w.+\-]{1,80}$", version):
        return f"liger_version {version!r} is not a version"
    try:
        day = dt.datetime.fromisoformat((row.get("timestamp") or "").strip()).date()
    except ValueError:
        return f"timestamp {row.get('timestamp')!r} is not a date and time"
    if day > dt.datetime.now(dt.timezone.utc).date():
        return f"timestamp {row.get('timestamp')!r} is in the future"
    result = {"implementation": impl, "workload": workload.id,
              "e2e_us": {"median": _round(p50), "p20": _round(p20), "p80": _round(p80)}}
    info = {"kernel": kernel, "x_label": (row.get("x_label") or row.get("x_name") or "").strip(),
            "config": {k: v for k, v in config.items()}, "gpu": (row.get("gpu_name") or "").strip()}
    return (spec.family, hardware, version, day), result, info


def _record_text(rel, family, hardware, version, day, today, results, info, csv_name) -> str:
    config = ", ".join(f"{k} {v}" for k, v in info["config"].items())
    head = {
        "schema_version": 1,
        "family": family,
        "hardware": hardware,
        "trust": "reported",
        "observed": day,
        "source": {
            "name": "Liger-Kernel benchmark data",
            "url": SOURCE_URL,
            "license": "BSD-2-Clause",
            "citation": (f"Liger-Kernel v{version}, {csv_name}, kernel {info['kernel']}, "
                         f"forward, speed, x = {info['x_label']}, {config}, {info['gpu']}."),
            "retrieved": today,
        },
        "protocol": PROTOCOL,
        "environment": {"gpu": info["gpu"], "packages": {"liger-kernel": version}},
        "notes": (f"Figures for Liger-Kernel v{version} as published by the project; not reproduced "
                  "here. Imported with `kernel-records import liger-csv`."),
    }
    lines = [schema_line(rel),
             "# Imported by `kernel-records import liger-csv`; from here on, edited by hand only.",
             yaml.safe_dump(head, sort_keys=False, allow_unicode=True, width=100).rstrip("\n"),
             "results:"]
    for r in results:
        flow = yaml.safe_dump(r, default_flow_style=True, sort_keys=False, width=10_000).strip()
        lines.append(f"  - {flow}")
    return "\n".join(lines) + "\n"


def _whole(value) -> int:
    number = float(value)
    if not number.is_integer() or number <= 0 or number > 2**62:
        raise ValueError(value)
    return int(number)


def _dtype(value) -> str | None:
    if value is None:
        return None
    name = str(value).removeprefix("torch.")
    return {"float": "float32", "half": "float16", "bf16": "bfloat16", "fp32": "float32",
            "fp16": "float16"}.get(name, name)


def _same(a, b) -> bool:
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9)
    except (TypeError, ValueError):
        return str(a) == str(b)


def _round(us: float) -> float:
    return float(f"{us:.4g}")


def _slug(version: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", version.lower()).strip("-.") or "unknown"


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
