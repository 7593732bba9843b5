"""Record models: the single source of truth for validation and for the JSON Schemas.

Every record kind is a frozen pydantic model with unknown fields forbidden. The loader
validates YAML against these models; `json_schemas()` exports the same models as JSON Schema.
Family-specific knowledge never appears here: a family declares its own axes and tensors.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    StringConstraints,
    field_validator,
    model_validator,
)

SCHEMA_VERSION = 1

SLUG_PATTERN = r"^[a-z0-9]+(?:[-_.][a-z0-9]+)*$"
#: Slugs that Windows cannot hold as a file or folder name (with any extension).
WINDOWS_RESERVED_PATTERN = r"^(?:con|prn|aux|nul|com[1-9]|lpt[1-9])(?:\..*)?$"


def _not_windows_reserved(value: str) -> str:
    if re.match(WINDOWS_RESERVED_PATTERN, value, re.IGNORECASE):
        raise ValueError(f"{value!r} is a name reserved on Windows — choose another id (CON, PRN, AUX, NUL, "
                         "COM1-9 and LPT1-9 cannot be file names there)")
    return value


Slug = Annotated[
    str,
    StringConstraints(pattern=SLUG_PATTERN, min_length=1, max_length=80),
    AfterValidator(_not_windows_reserved),
    Field(description="lower-case letters, digits and single - _ . between them"),
]

#: Element sizes in bytes of the dtypes a tensor may declare.
DTYPE_BYTES: dict[str, int] = {
    "float64": 8,
    "float32": 4,
    "bfloat16": 2,
    "float16": 2,
    "float8_e4m3": 1,
    "float8_e5m2": 1,
    "int64": 8,
    "int32": 4,
    "int16": 2,
    "int8": 1,
    "uint8": 1,
    "bool": 1,
}
#: Short names of dtypes, as workload labels show them.
DTYPE_SHORT = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16", "float64": "fp64"}
DType = Literal[
    "float64", "float32", "bfloat16", "float16", "float8_e4m3", "float8_e5m2",
    "int64", "int32", "int16", "int8", "uint8", "bool",
]
#: A tensor dtype of "float" follows the workload's own `dtype`.
TensorDType = Literal[
    "float", "float64", "float32", "bfloat16", "float16", "float8_e4m3", "float8_e5m2",
    "int64", "int32", "int16", "int8", "uint8", "bool",
]


def _http_url(value: str) -> str:
    if not re.match(r"^https?://[^\s/$.?#][^\s]*$", value, re.IGNORECASE):
        raise ValueError("links must be absolute http(s) URLs")
    return value


HttpUrl = Annotated[str, AfterValidator(_http_url), Field(json_schema_extra={  # editors flag other links
    "format": "uri", "pattern": r"^[Hh][Tt][Tt][Pp][Ss]?://[^\s/$.?#][^\s]*$"})]
def _not_future(value: dt.date) -> dt.date:
    if value > dt.datetime.now(dt.timezone.utc).date():
        raise ValueError("date in the future")
    return value


# Dates and times may be written quoted ('2026-04-07T10:00:00Z'): ISO 8601 text is unambiguous.
PastDate = Annotated[dt.date, Strict(False), AfterValidator(_not_future)]
PositiveFloat = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegFloat = Annotated[float, Field(ge=0, allow_inf_nan=False)]
ShortText = Annotated[str, StringConstraints(min_length=1, max_length=200)]
MAX_MARKDOWN_BRACKETS = 500


def _markdown_budget(value: str) -> str:
    # Python-Markdown's link parsing is quadratic in `[`: 20,000 of them take a minute to render.
    if value.count("[") > MAX_MARKDOWN_BRACKETS:
        raise ValueError(f"more than {MAX_MARKDOWN_BRACKETS} `[` in one text — write fewer links")
    return value


_LINKED = re.compile(r"""(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
_SAFE_LINK = re.compile(r"^(?:https?://[^\s/$.?#][^\s]*|#[\w\-.:]*)$", re.IGNORECASE)


def markdown_links(value: str) -> list[str]:
    """Every href and src of `value` rendered as markdown (raw HTML included)."""
    if "](" not in value and "]:" not in value and "<" not in value and "][" not in value:
        return []
    import html

    import markdown as md

    rendered = md.markdown(value, extensions=["tables"], output_format="html")
    return [html.unescape(next(g for g in m.groups() if g is not None)) for m in _LINKED.finditer(rendered)]


def _markdown_links_stay(value: str) -> str:
    for link in markdown_links(value):
        if not _SAFE_LINK.match(link.strip()):
            raise ValueError(f"link {link[:80]!r} does not lead to an http(s) page — links in text are "
                             "absolute https:// URLs (or #anchors of the same page)")
    return value


Markdown = Annotated[str, StringConstraints(max_length=20_000), AfterValidator(_markdown_budget),
                     AfterValidator(_markdown_links_stay)]
Version = Annotated[str, StringConstraints(min_length=1, max_length=80, pattern=r"^[\w.+\-]+$")]


class Record(BaseModel):
    # strict: nothing by guessing — `'16'` is not a number and `'yes'` is not a boolean
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True, strict=True)


class VersionedRecord(Record):
    schema_version: Literal[1] = Field(
        description="format version of this file; the current version is 1"
    )


# --- families -------------------------------------------------------------------------


class Axis(Record):
    kind: Literal["variable", "fixed"]
    value: int | None = Field(default=None, gt=0, description="the size of a fixed axis")

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data):
        if isinstance(data, str):
            return {"kind": data}
        if isinstance(data, dict) and set(data) == {"fixed"}:
            return {"kind": "fixed", "value": data["fixed"]}
        return data

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema, handler):
        """Also accept the shorthands `variable` and `{fixed: N}`, so editors do not flag them."""
        ref = handler(core_schema)
        full = handler.resolve_ref_schema(ref)
        longhand = dict(full)
        full.clear()
        full.update(title="Axis", anyOf=[
            {"const": "variable", "description": "a size every workload gives"},
            {"type": "object", "properties": {"fixed": {"type": "integer", "exclusiveMinimum": 0}},
             "required": ["fixed"], "additionalProperties": False,
             "description": "a size fixed by the semantics"},
            longhand,
        ])
        return ref

    @model_validator(mode="after")
    def _fixed_needs_value(self):
        if self.kind == "fixed" and self.value is None:
            raise ValueError("a fixed axis needs its size — write {fixed: 128}")
        if self.kind == "variable" and self.value is not None:
            raise ValueError("a variable axis has no size — write `variable`")
        return self


class TensorSpec(Record):
    dtype: TensorDType = Field(description='"float" follows the workload dtype')
    shape: list[Slug] = Field(min_length=0, max_length=8, description="axis names, outermost first")
    touched_pct: Slug | None = Field(
        default=None,
        description="an axis whose size is the percent (1-100) of this tensor a correct call must touch "
                    "(e.g. the logits rows of counted targets); the floor counts only that share",
    )


PeakKey = Literal["fp32", "bf16_tensor", "fp16_tensor", "fp8_tensor"]


class Arithmetic(Record):
    """An arithmetic term for the floor: flops = flops_per_point × the product of `over`."""

    flops_per_point: PositiveFloat
    over: list[Slug] = Field(min_length=1)
    peak: PeakKey = Field(default="fp32", description="the hardware's datasheet peak (peak_tflops key) "
                                                      "the flops run at")
    peak_by_dtype: dict[DType, PeakKey] = Field(
        default_factory=dict,
        description="a different datasheet peak for workloads of these dtypes (e.g. {float32: fp32} in a "
                    "family whose bf16 workloads use bf16_tensor); others use `peak`",
    )
    measured_peak: Literal["none", "best-in-run"] = Field(
        default="none",
        description="best-in-run: the measured floor's compute term also runs at the best rate any "
                    "result of the same run reached on a compute-bound workload of the family (the "
                    "measured peak, as the copy bandwidth is the measured memory rate)",
    )

    def peak_for(self, dtype: str) -> str:
        return self.peak_by_dtype.get(dtype, self.peak)


WorkloadKind = Literal["forward", "backward", "forward+backward"]
WORKLOAD_KINDS: tuple[str, ...] = ("forward", "backward", "forward+backward")


class KindSemantics(Record):
    """The tensors of one workload kind other than the forward pass (e.g. a backward pass)."""

    inputs: dict[Slug, TensorSpec] = Field(min_length=1)
    outputs: dict[Slug, TensorSpec] = Field(min_length=1)
    definition: Annotated[str, StringConstraints(min_length=1, max_length=2000)] | None = None


class Semantics(Record):
    axes: dict[Slug, Axis] = Field(min_length=1)
    inputs: dict[Slug, TensorSpec] = Field(min_length=1)
    outputs: dict[Slug, TensorSpec] = Field(min_length=1)
    determinism: Literal["deterministic", "nondeterministic", "unspecified"] = "unspecified"
    constraints: list[ShortText] = Field(default_factory=list)
    definition: Annotated[str, StringConstraints(min_length=1, max_length=2000)]
    parameters: dict[Slug, float | int | str] = Field(
        default_factory=dict, description="scalar parameters fixed by the semantics, e.g. eps"
    )
    kinds: dict[Literal["backward", "forward+backward"], KindSemantics] = Field(
        default_factory=dict,
        description="tensors of the workload kinds other than forward (the top-level inputs and outputs)",
    )

    def percent_axes(self) -> set[str]:
        """The axes that some tensor names as its touched_pct."""
        groups = [self.inputs, self.outputs, *(g for k in self.kinds.values() for g in (k.inputs, k.outputs))]
        return {spec.touched_pct for group in groups for spec in group.values() if spec.touched_pct}

    def tensors(self, kind: str = "forward") -> tuple[dict[str, TensorSpec], dict[str, TensorSpec]]:
        """(inputs, outputs) of a workload kind: the top-level ones for `forward`."""
        if kind == "forward":
            return self.inputs, self.outputs
        k = self.kinds[kind]
        return k.inputs, k.outputs

    @model_validator(mode="after")
    def _shapes_use_axes(self):
        groups = [self.inputs, self.outputs]
        for k in self.kinds.values():
            groups += [k.inputs, k.outputs]
        for group in groups:
            for name, spec in group.items():
                unknown = [a for a in spec.shape if a not in self.axes]
                if spec.touched_pct is not None and spec.touched_pct not in self.axes:
                    unknown.append(spec.touched_pct)
                if unknown:
                    raise ValueError(
                        f"tensor {name!r} uses undeclared axis {unknown[0]!r}; "
                        f"— use one of the declared axes: {', '.join(self.axes)}"
                    )
        for kind in ("forward", *self.kinds):
            ins, outs = self.tensors(kind)
            clash = set(ins) & set(outs)
            if clash:
                raise ValueError(f"{sorted(clash)[0]!r} is both an input and an output of the {kind} kind "
                                 f"— rename one of them")
        return self


class Workload(Record):
    """One exact parameter set. Axis sizes sit beside `id` and `dtype` (flat in YAML)."""

    model_config = ConfigDict(extra="allow", frozen=True, str_strip_whitespace=True, strict=True)

    id: Slug
    dtype: DType
    kind: WorkloadKind = Field(default="forward", description="forward, backward or forward+backward")
    label: ShortText | None = None

    @model_validator(mode="after")
    def _sizes_are_positive_ints(self):
        for key, value in (self.model_extra or {}).items():
            if not re.match(SLUG_PATTERN, key):
                raise ValueError(f"{key!r} is not an axis name — axis names are slugs such as `batch`")
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"axis {key!r} must be a positive whole number, got {value!r} — write its size, e.g. 4096")
        return self

    @property
    def sizes(self) -> dict[str, int]:
        return dict(self.model_extra or {})


class ScalingAxis(Record):
    axis: Slug = Field(description="the axis on this chart's x axis (e.g. rows, for the decode sizes)")
    together: list[Slug] = Field(default_factory=list, max_length=8,
                                 description="axes that change with it, so they are not held constant "
                                             "(e.g. pos_batch, when it equals batch)")
    title: ShortText | None = Field(default=None, description="what these sizes are, named over the chart "
                                                              "(e.g. 'decode sizes')")


class Scaling(Record):
    axis: Slug = Field(description="the axis on the chart's x axis; the others are held constant")
    also: list[ScalingAxis] = Field(default_factory=list, max_length=8,
                                    description="more scaling charts, over other axes (for example rows, where "
                                                "the family declares decode sizes); each drawn where at least "
                                                "three sizes were measured with the others held constant")


class Family(VersionedRecord):
    id: Slug
    title: ShortText
    tag: Slug
    summary: Markdown
    semantics: Semantics
    arithmetic: Arithmetic | None = None
    baseline: Slug = Field(description="implementation id that speed-ups are quoted against")
    headline: Slug = Field(description="workload id of 'fastest usable today'")
    scaling: Scaling
    charts: list[Literal["roofline"]] = Field(
        default_factory=list,
        description="chart kinds the family page draws beside the scaling chart: roofline (achieved "
                    "TFLOP/s against arithmetic intensity, log-log; needs `arithmetic`)",
    )
    workloads: list[Workload] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self):
        axes = self.semantics.axes
        seen: dict[str, int] = {}
        for i, w in enumerate(self.workloads):
            if w.id in seen:
                raise ValueError(f"[at workloads.{i}] duplicate workload id {w.id!r} (items {seen[w.id]} and {i}) "
                                 "— give each workload its own id")
            seen[w.id] = i
            sizes = w.sizes
            for name, axis in axes.items():
                if axis.kind == "variable" and name not in sizes:
                    raise ValueError(f"workload {w.id!r} lacks a size for axis {name!r} — add `{name}: <size>` to it")
            if w.kind != "forward" and w.kind not in self.semantics.kinds:
                raise ValueError(f"workload {w.id!r} is of kind {w.kind!r}, which semantics.kinds does not declare "
                                 f"— add `kinds: {{{w.kind}: {{inputs: ..., outputs: ...}}}}` under semantics")
            for pct_axis in self.semantics.percent_axes():
                value = sizes.get(pct_axis, getattr(axes.get(pct_axis), "value", None))
                if value is not None and value > 100:
                    raise ValueError(f"workload {w.id!r} gives {pct_axis} = {value}, but {pct_axis} is a percent "
                                     f"(a tensor's touched_pct) — write a whole number from 1 to 100")
            extra = [k for k in sizes if k not in axes]
            if extra:
                raise ValueError(f"workload {w.id!r} sizes undeclared axis {extra[0]!r} — declare the axis under semantics.axes or remove the size")
        if self.headline not in seen:
            raise ValueError(f"headline {self.headline!r} is not one of this family's workloads — use one of the ids under `workloads`")
        if self.scaling.axis not in axes:
            raise ValueError(f"scaling axis {self.scaling.axis!r} is not a declared axis — use one of semantics.axes")
        views = [(self.scaling.axis, ())]
        for i, more in enumerate(self.scaling.also):
            for name in (more.axis, *more.together):
                if name not in axes:
                    raise ValueError(f"[at scaling.also.{i}] axis {name!r} is not a declared axis — use one of "
                                     "semantics.axes")
            if more.axis in more.together:
                raise ValueError(f"[at scaling.also.{i}] {more.axis!r} is both the chart's axis and in `together` "
                                 "— list only the axes that change with it")
            view = (more.axis, tuple(sorted(more.together)))
            if view in views:
                raise ValueError(f"[at scaling.also.{i}] a chart over {more.axis!r} is already declared — "
                                 "remove the duplicate")
            views.append(view)
        if self.arithmetic:
            for name in self.arithmetic.over:
                if name not in axes:
                    raise ValueError(f"arithmetic term uses undeclared axis {name!r} — use one of semantics.axes")
        if "roofline" in self.charts and self.arithmetic is None:
            raise ValueError("a roofline chart needs the family's flops — add `arithmetic: {flops_per_point: ..., "
                             "over: [...], peak: ...}` or remove `roofline` from `charts`")
        if len(set(self.charts)) != len(self.charts):
            raise ValueError("a chart kind is listed twice under `charts` — list each once")
        return self


# --- implementations and hardware -----------------------------------------------------


class Implementation(VersionedRecord):
    id: Slug
    name: ShortText
    project: ShortText
    language: Slug = Field(description="language or runtime: triton, python, cuda, cute-dsl, ...")
    license: ShortText = Field(description="SPDX identifier, or 'proprietary'")
    source_url: HttpUrl
    install: Annotated[str, StringConstraints(max_length=300)] | None = Field(
        default=None, description="the command that installs it; null when there is none"
    )
    version: Version | None = None
    released: PastDate | None = Field(default=None, description="release date of `version`")
    numerics: Markdown | None = Field(default=None, description="numerics convention it follows")
    families: list[Slug] = Field(
        default_factory=list,
        description="the families this implementation computes; a run of another family naming it is refused "
                    "(empty: not tied to one family)",
    )
    notes: Markdown | None = None


class Hardware(VersionedRecord):
    id: Slug
    name: ShortText
    vendor: ShortText
    device_names: list[ShortText] = Field(
        default_factory=list, description="names the driver reports, to match a local GPU"
    )
    memory_gb: PositiveFloat
    memory_bandwidth_gbps: PositiveFloat = Field(description="datasheet DRAM bandwidth, GB/s")
    peak_tflops: dict[PeakKey, PositiveFloat] = (
        Field(default_factory=dict, description="datasheet dense peak rates")
    )
    sms: int | None = Field(default=None, gt=0)
    l2_mb: PositiveFloat | None = None
    datasheet_url: HttpUrl


# --- run records ------------------------------------------------------------------------


class Source(Record):
    name: ShortText
    url: HttpUrl
    license: ShortText
    citation: Annotated[str, StringConstraints(max_length=1000)] | None = None
    retrieved: PastDate | None = None


class Protocol(Record):
    id: Slug
    version: int = Field(ge=1)
    clock: Literal["device", "end-to-end"] = Field(description="which clock ranks results")
    l2: Literal["cold", "warm", "unspecified"] = "unspecified"
    timing: ShortText = Field(description="how time was taken: cuda-graph, events, do_bench, cpu-wall ...")
    statistic: Literal["median", "mean", "min"] = "median"
    quantiles: list[Annotated[float, Field(gt=0, lt=1)]] = Field(default_factory=list)
    description: Markdown | None = None


class Environment(Record):
    gpu: ShortText
    sms: int | None = Field(default=None, gt=0)
    memory_gb: PositiveFloat | None = None
    driver: Version | None = None
    cuda: Version | None = None
    torch: Version | None = None
    triton: Version | None = None
    python: Version | None = None
    platform: ShortText | None = None
    packages: dict[ShortText, Version] = Field(default_factory=dict)
    copy_bandwidth_gbps: PositiveFloat | None = Field(
        default=None, description="large device-to-device copy, bytes read + written, this run"
    )
    launch_floor_us: PositiveFloat | None = Field(
        default=None, description="device time of one launch of an empty kernel, median, this run: the floor's per-launch term"
    )
    timing_cpu: int | None = Field(
        default=None, ge=0, description="the CPU every timing loop was pinned to, where the run fixed one (--timing-cpu)"
    )
    host: ShortText | None = Field(default=None, description="the host the run was measured on (its short name)")
    gpu_index: int | None = Field(default=None, ge=0, description="the GPU's index on its host (nvidia-smi's, PCI bus order)")
    gpu_serial: ShortText | None = Field(default=None, description="the GPU's board serial number (nvidia-smi)")
    gpu_uuid: ShortText | None = Field(default=None, description="the GPU's UUID (nvidia-smi), where it has no serial too")


class Stat(Record):
    median: PositiveFloat
    p20: PositiveFloat | None = None
    p80: PositiveFloat | None = None
    min: PositiveFloat | None = None
    max: PositiveFloat | None = None
    samples: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _ordered(self):
        chain = [v for v in (self.min, self.p20, self.median, self.p80, self.max) if v is not None]
        if chain != sorted(chain):
            raise ValueError("statistics out of order — they must satisfy min ≤ p20 ≤ median ≤ p80 ≤ max")
        return self


class Correctness(Record):
    max_abs_error: NonNegFloat
    max_rel_error: NonNegFloat | None = None
    atol: NonNegFloat
    rtol: NonNegFloat
    passed: bool


# not-run: the run's time budget ended before the workload started (nothing failed; run it again
# with a larger --budget). timeout: it started and did not finish within the time limit.
Status = Literal["ok", "failed", "not-installed", "timeout", "crashed", "unsupported", "not-run"]


class Result(Record):
    implementation: Slug
    workload: Slug
    status: Status = "ok"
    exact: bool = Field(default=True, description="false when the source measured a near workload")
    kernel_sha: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{8,64}$")] | None = None
    error: Annotated[str, StringConstraints(max_length=4000)] | None = None
    note: Annotated[str, StringConstraints(max_length=1000)] | None = None
    correctness: Correctness | None = None
    device_us: Stat | None = None
    e2e_us: Stat | None = None
    runner_s: float | None = Field(
        default=None, ge=0, le=86400,
        description="wall seconds the runner's worker spent on this result (inputs, the reference check, "
                    "compiling, timing; not the end-to-end pass): what `kernel-records run --plan` estimates "
                    "the next run's time from")

    @model_validator(mode="after")
    def _status_consistent(self):
        if self.status == "ok" and self.device_us is None and self.e2e_us is None:
            raise ValueError("a result with status ok has no time — add device_us or e2e_us, or set another status with an error")
        if self.status != "ok" and not self.error:
            raise ValueError(f"a result with status {self.status} has no error — add `error:` saying what went wrong")
        if self.status == "ok" and self.correctness is not None and not self.correctness.passed:
            raise ValueError("correctness did not pass but status is ok — set status: failed and an error")
        return self


class Run(VersionedRecord):
    family: Slug
    hardware: Slug
    trust: Literal["reported", "measured"]
    observed: Annotated[dt.datetime, Strict(False)] | Annotated[dt.date, Strict(False)]
    protocol: Protocol
    source: Source | None = None
    environment: Environment | None = None
    seed: int | None = None
    notes: Markdown | None = None
    results: list[Result] = Field(min_length=1)

    @field_validator("observed")
    @classmethod
    def _not_in_future(cls, value):
        now = dt.datetime.now(dt.timezone.utc)
        if isinstance(value, dt.datetime):
            moment = value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
            if moment > now + dt.timedelta(minutes=5):
                raise ValueError("date in the future")
        elif value > now.date():
            raise ValueError("date in the future")
        return value

    @model_validator(mode="after")
    def _trust_consistent(self):
        if self.trust == "reported" and self.source is None:
            raise ValueError("a reported run has no source — add `source:` with name, url and license")
        if self.trust == "measured" and self.environment is None:
            raise ValueError("a measured run has no environment — add `environment:` (gpu, driver, versions, ...)")
        clock_field = "device_us" if self.protocol.clock == "device" else "e2e_us"
        seen: dict[tuple[str, str], int] = {}
        for i, r in enumerate(self.results):
            key = (r.implementation, r.workload)
            if key in seen:
                raise ValueError(
                    f"results {seen[key]} and {i} both give {r.implementation} on {r.workload} — keep one result per implementation and workload in a run"
                )
            seen[key] = i
            if r.status == "ok" and getattr(r, clock_field) is None:
                raise ValueError(
                    f"result {i} lacks `{clock_field}`, the clock this protocol ranks by — add it, or change protocol.clock"
                )
        return self

    @property
    def observed_at(self) -> dt.datetime:
        value = self.observed
        if isinstance(value, dt.datetime):
            return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)


RECORD_KINDS: dict[str, type[VersionedRecord]] = {
    "families": Family,
    "implementations": Implementation,
    "hardware": Hardware,
    "runs": Run,
}


def json_schemas() -> dict[str, dict]:
    """The JSON Schema of every record kind, generated from the models above."""
    names = {"families": "family", "implementations": "implementation", "hardware": "hardware", "runs": "run"}
    out = {}
    for folder, model in RECORD_KINDS.items():
        schema = model.model_json_schema()
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["$id"] = f"{names[folder]}.schema.json"
        out[names[folder]] = schema
    return out
