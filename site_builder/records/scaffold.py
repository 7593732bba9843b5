"""`kernel-records new ...`: a record to fill in, valid as written, at the right path.

Every value to change is marked with a `TODO` comment; `kernel-records check` lists each TODO
left as a warning (and `--strict` fails on them), so a scaffold cannot be merged unfilled.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ..errors import UserError
from .load import load_catalog
from .newfiles import require_slug, write_new
from .schema import Family, Hardware, Implementation, Run
from .schemas import schema_line
from .yamlio import parse

FAMILY = """\
{schema}
# A kernel family: what one operation computes, declared once; workloads are its exact sizes.
# Change every line marked TODO, then run `kernel-records check`.
schema_version: 1
id: {id}
title: {id}  # TODO: the operation's name as pages show it, e.g. Row softmax
tag: {id}  # TODO: a short slug tag, e.g. softmax
summary: >-
  TODO: one or two sentences (markdown): what it computes and where it is used.
semantics:
  axes:  # named axes: `variable` (each workload gives a size) or `{{fixed: 128}}`
    rows: variable  # TODO: the axes of the operation
    cols: variable
  inputs:  # TODO: every input tensor; dtype `float` follows the workload's dtype
    x: {{dtype: float, shape: [rows, cols]}}
  outputs:  # TODO: every output tensor (the floor counts every input and output once)
    y: {{dtype: float, shape: [rows, cols]}}
  determinism: unspecified  # deterministic | nondeterministic | unspecified
  constraints:
    - no mutation of inputs
    - outputs do not alias inputs
  definition: "y = f(x)"  # TODO: the exact formula
  parameters: {{}}  # scalar parameters the semantics fix, e.g. {{eps: 1.0e-6}}
baseline: {baseline}  # the implementation that speed-ups are quoted against
headline: r2048-c4096-bf16  # the workload of "fastest usable today"
scaling:
  axis: cols  # the axis on the scaling chart's x axis; the others are held constant
workloads:  # TODO: the exact parameter sets to rank (id, a size per variable axis, dtype)
  - {{id: r2048-c4096-bf16, rows: 2048, cols: 4096, dtype: bfloat16}}
  - {{id: r2048-c8192-bf16, rows: 2048, cols: 8192, dtype: bfloat16}}
"""

IMPLEMENTATION = """\
{schema}
# An implementation: who wrote a kernel, where it lives, its license and how to install it.
# Its runnable code (when the runner should measure it) is registered in kernels/<family>/
# under this id. Change every line marked TODO, then run `kernel-records check`.
schema_version: 1
id: {id}
name: {id}  # TODO: the name pages show, e.g. Liger fused
project: {id}  # TODO: the project it comes from, e.g. Liger-Kernel
language: triton  # TODO: language or runtime: triton, python, cuda, cute-dsl, ...
license: Apache-2.0  # TODO: its SPDX license identifier, or proprietary
source_url: https://github.com/OWNER/REPO  # TODO: a link to its source (http or https only)
install: pip install PACKAGE  # TODO: the command that installs it, or null when there is none
version: null  # the version these records describe, e.g. 0.8.5
released: null  # the release date of that version, YYYY-MM-DD
numerics: >-
  TODO: the numerics convention it follows (what is rounded to the input dtype, what is
  computed in float32).
notes: null  # anything a reader should know (markdown)
"""

HARDWARE = """\
{schema}
# A GPU: datasheet figures for the floors. Change every line marked TODO.
schema_version: 1
id: {id}
name: {id}  # TODO: the name pages show, e.g. NVIDIA H200
vendor: NVIDIA  # TODO: the vendor
device_names: []  # TODO: the names the driver reports (torch.cuda.get_device_name())
memory_gb: 80  # TODO: memory size in GB
memory_bandwidth_gbps: 3350  # TODO: datasheet DRAM bandwidth in GB/s
peak_tflops: {{}}  # datasheet dense peaks, e.g. {{fp32: 67, bf16_tensor: 989}}
sms: null  # number of multiprocessors
l2_mb: null  # L2 cache size in MB
datasheet_url: https://example.org/  # TODO: the datasheet (http or https only)
"""

RUN = """\
{schema}
# Reported results: numbers someone else published, with where they came from.
# (Measured runs are written by `kernel-records run`, never by hand.)
# Change every line marked TODO; add one result line per implementation and workload.
schema_version: 1
family: {family}
hardware: {hardware}
trust: reported
observed: {today}  # TODO: the date the source measured (UTC), YYYY-MM-DD
source:
  name: {name}  # TODO: who published the numbers, e.g. Liger-Kernel benchmark data
  url: https://example.org/  # TODO: where they are published (http or https only)
  license: unknown  # TODO: the license of the published data (SPDX), e.g. BSD-2-Clause
  citation: null  # which file, table or version the numbers come from
  retrieved: {today}  # the date you copied them
protocol:  # how the source measured; results rank only against the same protocol id
  id: {name}  # TODO: a slug naming the source's protocol, e.g. liger-benchmark-scripts
  version: 1
  clock: end-to-end  # TODO: device (kernel alone) or end-to-end (one Python call, host included)
  l2: unspecified  # cold | warm | unspecified
  timing: unspecified  # TODO: how time was taken, e.g. triton.testing.do_bench
  statistic: median  # median | mean | min
  quantiles: []  # the quantiles given besides it, e.g. [0.2, 0.8]
notes: null  # anything a reader should know (markdown)
results:  # times in microseconds; p20/p80/samples when the source gives them
  - {{implementation: {implementation}, workload: {workload}, e2e_us: {{median: 1000.0}}}}  # TODO: real values
"""


def new_family(records: Path, family_id: str, baseline: str) -> Path:
    require_slug(family_id, "family id")
    require_slug(baseline, "baseline implementation id")
    catalog = load_catalog(records)
    if baseline not in catalog.implementations:
        raise UserError(f"baseline {baseline!r} is not a known implementation: add it first with "
                        f"`kernel-records new implementation {baseline}`")
    rel = f"families/{family_id}.yaml"
    text = FAMILY.format(schema=schema_line(rel), id=family_id, baseline=baseline)
    return _write(records, rel, text, Family)


def new_implementation(records: Path, implementation_id: str) -> Path:
    require_slug(implementation_id, "implementation id")
    rel = f"implementations/{implementation_id}.yaml"
    text = IMPLEMENTATION.format(schema=schema_line(rel), id=implementation_id)
    return _write(records, rel, text, Implementation)


def new_hardware(records: Path, hardware_id: str) -> Path:
    require_slug(hardware_id, "hardware id")
    rel = f"hardware/{hardware_id}.yaml"
    return _write(records, rel, HARDWARE.format(schema=schema_line(rel), id=hardware_id), Hardware)


def new_run(records: Path, family_id: str, hardware_id: str, name: str = "reported",
            implementation: str | None = None, workload: str | None = None,
            today: dt.date | None = None) -> Path:
    for value, what in ((family_id, "family id"), (hardware_id, "hardware id"), (name, "run name")):
        require_slug(value, what)
    catalog = load_catalog(records)
    family = catalog.families.get(family_id)
    if family is None:
        raise UserError(f"unknown family {family_id!r}: one of {', '.join(sorted(catalog.families)) or 'none'}")
    if hardware_id not in catalog.hardware:
        raise UserError(f"unknown hardware {hardware_id!r}: one of {', '.join(sorted(catalog.hardware))}, "
                        f"or add it with `kernel-records new hardware {hardware_id}`")
    implementation = implementation or family.baseline
    if implementation not in catalog.implementations:
        raise UserError(f"unknown implementation {implementation!r}: add it with "
                        f"`kernel-records new implementation {implementation}`")
    workload = workload or family.headline
    if workload not in {w.id for w in family.workloads}:
        raise UserError(f"unknown workload {workload!r} for family {family_id!r}: declare it in "
                        f"records/families/{family_id}.yaml")
    today = today or dt.datetime.now(dt.timezone.utc).date()
    rel = f"runs/{family_id}/{hardware_id}/{today.isoformat()}-{name}.yaml"
    text = RUN.format(schema=schema_line(rel), family=family_id, hardware=hardware_id, today=today,
                      name=name, implementation=implementation, workload=workload)
    return _write(records, rel, text, Run)


def _write(records: Path, rel: str, text: str, model) -> Path:
    model.model_validate(parse(text).data)  # a scaffold that does not validate is our bug
    return write_new(Path(records) / rel, text)
