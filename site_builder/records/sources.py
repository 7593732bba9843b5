"""Source mappings: how a published benchmark's names map onto this index, as data.

`records/sources/<id>.yaml` says, for one source (Liger-Kernel's benchmark CSV), which of its
kernels is which family, which provider is which implementation record, where each of the
family's axes comes from (the row's x value or keys of its config), which config keys are
parameters, requirements or irrelevant, how its modes map onto workload kinds, which metrics
are times, and which GPU name is which hardware record. It is validated like every record
(`path:line: what is wrong — how to fix it`) and against the catalog: a mapped family,
implementation, axis, parameter or hardware record that does not exist is an error naming it.

Extra mapping files (`import liger-csv --mapping FILE`) and `--hardware-map` add to it; a
kernel or GPU mapped twice is an error, never a silent replacement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from pydantic import Field, StringConstraints, field_validator, model_validator

from ..errors import Problem, RecordErrors
from .load import Catalog, _shown, _validate
from .schema import DType, HttpUrl, Protocol, Record, ShortText, Slug, VersionedRecord, WorkloadKind
from .yamlio import MAX_BYTES, Document, YamlProblem, decode, parse

Name = Annotated[str, StringConstraints(min_length=1, max_length=120, pattern=r"^[^\s*]([^*]*[^\s*])?$")]
Reason = Annotated[str, StringConstraints(min_length=1, max_length=500)]
Value = str | int | float | bool
Expression = Annotated[str, StringConstraints(min_length=1, max_length=200)]


def terms_of(expression: str) -> list[tuple[str, str]]:
    """`"H / num_q_heads"` -> `[("*", "H"), ("/", "num_q_heads")]`: names or whole numbers, each
    multiplied or (exactly) divided in turn, left to right."""
    parts = re.split(r"\s*([*/])\s*", expression.strip())
    return [("*", parts[0])] + [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


def names_of(expression: str) -> list[str]:
    """The source names an axis expression reads (`"B * T"` -> `["B", "T"]`; numbers are constants)."""
    return [term for _, term in terms_of(expression) if not term.isdigit()]


class KernelMapping(Record):
    """One kernel of the source, mapped onto a family of this index."""

    family: Slug
    providers: dict[Name, Slug] = Field(min_length=1, description="the source's provider -> implementation id")
    skip_providers: dict[Name, Reason] = Field(default_factory=dict,
                                               description="providers not imported, each with the reason")
    axes: dict[Slug, Expression | list[Expression]] = Field(
        min_length=1,
        description="family axis -> where its size comes from: the x name or config keys, `B * T` for a "
                    "product, `H / heads` for an exact quotient, a whole number for a constant; several "
                    "alternatives are tried in turn (the row must have exactly one)")
    dtype: DType | None = Field(default=None, description="the dtype of rows whose config does not say it")
    dtype_source: Reason | None = Field(default=None, description="where `dtype` is stated (required with it)")
    parameters: dict[Name, Slug] = Field(default_factory=dict,
                                         description="config key -> family parameter it must equal")
    require: dict[Name, Value] = Field(default_factory=dict,
                                       description="config key -> the value every imported row must have")
    ignore: dict[Name, Reason] = Field(default_factory=dict,
                                       description="config keys that do not change the workload, each with why")
    note: Reason | None = None

    @field_validator("axes", mode="before")
    @classmethod
    def _one_or_many(cls, value):
        if isinstance(value, dict):
            return {k: [v] if isinstance(v, str) else v for k, v in value.items()}
        return value

    @model_validator(mode="after")
    def _consistent(self):
        for axis, alternatives in self.axes.items():
            if not alternatives:
                raise ValueError(f"axis {axis!r} has no source — write the x name or config keys, e.g. `B * T`")
            for expression in alternatives:
                if any(not term or not re.match(r"^[^\s*/]+$", term) for _, term in terms_of(expression)):
                    raise ValueError(f"axis {axis!r}: {expression!r} is not names and whole numbers joined by * "
                                     "or / — write e.g. `B * T` or `H / num_heads`")
        if (self.dtype is None) != (self.dtype_source is None):
            raise ValueError("`dtype` and `dtype_source` go together — say where the source states the dtype")
        both = set(self.providers) & set(self.skip_providers)
        if both:
            raise ValueError(f"provider {sorted(both)[0]!r} is both mapped and skipped — keep one")
        used = {n for alts in self.axes.values() for e in alts for n in names_of(e)}
        for what, keys in (("parameters", self.parameters), ("require", self.require), ("ignore", self.ignore)):
            clash = used & set(keys)
            if clash:
                raise ValueError(f"config key {sorted(clash)[0]!r} is both an axis source and under `{what}` "
                                 "— keep one")
        return self


class Metric(Record):
    """A metric of the source: a time (with its units in microseconds) or skipped with a reason."""

    time: bool = Field(description="true: the metric is a time; false: rows of it are skipped with `skip`")
    units: dict[Name, Annotated[float, Field(gt=0)]] = Field(default_factory=dict,
                                                             description="unit -> microseconds per unit")
    skip: Reason | None = None

    @model_validator(mode="after")
    def _consistent(self):
        if self.time and not self.units:
            raise ValueError("a time metric needs its units — write e.g. `units: {ms: 1000}`")
        if not self.time and not self.skip:
            raise ValueError("a metric that is not a time needs `skip:` saying why its rows are not imported")
        return self


class Copy(Record):
    """A copy of the source file known to be from one commit."""

    sha256: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
    commit: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")]
    path: ShortText | None = Field(default=None, description="where the copy is committed in this repository")


class SourceMapping(VersionedRecord):
    id: Slug
    name: ShortText
    repository: HttpUrl = Field(description="the source's repository, e.g. https://github.com/linkedin/Liger-Kernel")
    path: ShortText = Field(description="the file's path inside that repository")
    license: ShortText
    copies: list[Copy] = Field(default_factory=list,
                               description="copies of the file by sha256, so the commit is cited without asking")
    protocol: Protocol
    modes: dict[Name, WorkloadKind] = Field(min_length=1, description="the source's mode -> workload kind")
    metrics: dict[Name, Metric] = Field(min_length=1)
    gpus: dict[Name, Slug] = Field(default_factory=dict,
                                   description="GPU names not in any hardware record's device_names")
    kernels: dict[Name, KernelMapping] = Field(default_factory=dict)
    skip_kernels: dict[Name, Reason] = Field(default_factory=dict,
                                             description="kernels not imported, each with the reason")

    @model_validator(mode="after")
    def _disjoint(self):
        both = set(self.kernels) & set(self.skip_kernels)
        if both:
            raise ValueError(f"kernel {sorted(both)[0]!r} is both mapped and skipped — keep one")
        return self


class SourceExtension(VersionedRecord):
    """A file given with `--mapping`: more kernels and GPUs for a source, never replacing any."""

    extends: Slug = Field(description="id of the source mapping it adds to")
    gpus: dict[Name, Slug] = Field(default_factory=dict)
    kernels: dict[Name, KernelMapping] = Field(default_factory=dict)
    skip_kernels: dict[Name, Reason] = Field(default_factory=dict)


@dataclass
class Mapping:
    """A source mapping with its extensions merged, and where each entry was written."""

    source: SourceMapping
    kernels: dict[str, KernelMapping]
    skip_kernels: dict[str, str]
    gpus: dict[str, str]
    where: dict[tuple, str] = field(default_factory=dict)  # ("kernels", name) -> "path:line"


SOURCES = "sources"


def source_path(records: Path, source_id: str) -> Path:
    return Path(records) / SOURCES / f"{source_id}.yaml"


def _read(path: Path, root: Path, problems: list) -> tuple[Document | None, str]:
    shown = _shown(path, root) if path.is_relative_to(root) else str(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise YamlProblem(1, f"file is larger than {MAX_BYTES // 1000} kB", "split it")
        return parse(decode(data)), shown
    except FileNotFoundError:
        problems.append(Problem(shown, 1, "file not found", "give the path of a mapping file"))
    except OSError as exc:
        problems.append(Problem(shown, 1, f"cannot read the file: {exc.strerror}", "replace it with a plain text file"))
    except UnicodeDecodeError:
        problems.append(Problem(shown, 1, "file is not UTF-8 text", "save it as UTF-8"))
    except YamlProblem as exc:
        problems.append(Problem(shown, exc.line, exc.message, exc.fix))
    return None, shown


def load_mapping(records: Path, source_id: str, catalog: Catalog, extra: tuple[Path, ...] = (),
                 gpus: dict[str, str] | None = None) -> Mapping:
    """The source mapping `records/sources/<source_id>.yaml` with `extra` files and `gpus` added,
    checked against `catalog`; raises RecordErrors with every problem."""
    records = Path(records)
    problems: list[Problem] = []
    path = source_path(records, source_id)
    doc, shown = _read(path, records, problems)
    source = _validate(SourceMapping, doc, shown, problems) if doc else None
    if source is not None and source.id != source_id:
        problems.append(Problem(shown, doc.line_of(("id",)), f"id {source.id!r} does not match the file name",
                                f"change the id to {source_id!r}"))
    if source is None:
        raise RecordErrors(problems)
    problems += mapping_problems(source, doc, shown, catalog)
    merged = Mapping(source, dict(source.kernels), dict(source.skip_kernels), dict(source.gpus))
    for section in ("kernels", "skip_kernels", "gpus"):
        for name in getattr(source, section):
            merged.where[(section, name)] = f"{shown}:{doc.line_of((section, name))}"
    for extra_path in extra:
        edoc, eshown = _read(Path(extra_path), records, problems)
        ext = _validate(SourceExtension, edoc, eshown, problems) if edoc else None
        if ext is None:
            continue
        if ext.extends != source_id:
            problems.append(Problem(eshown, edoc.line_of(("extends",)),
                                    f"extends {ext.extends!r}, but this import reads {source_id!r}",
                                    f"write `extends: {source_id}`"))
            continue
        problems += mapping_problems(ext, edoc, eshown, catalog)
        for section in ("kernels", "skip_kernels", "gpus"):
            for name, value in getattr(ext, section).items():
                other = "kernels" if section == "skip_kernels" else "skip_kernels" if section == "kernels" else None
                first = merged.where.get((section, name)) or (other and merged.where.get((other, name)))
                if first:
                    problems.append(Problem(eshown, edoc.line_of((section, name)),
                                            f"{'GPU' if section == 'gpus' else 'kernel'} {name!r} is already mapped "
                                            f"at {first}", "change it there; a mapping file only adds"))
                    continue
                getattr(merged, section)[name] = value
                merged.where[(section, name)] = f"{eshown}:{edoc.line_of((section, name))}"
    for name, hid in (gpus or {}).items():
        if hid not in catalog.hardware:
            problems.append(Problem("--hardware-map", 1, f"{name}={hid}: unknown hardware {hid!r}",
                                    f"use one of {', '.join(sorted(catalog.hardware))}, or add its record"))
        elif name in merged.gpus and merged.gpus[name] != hid:
            problems.append(Problem("--hardware-map", 1, f"{name!r} is already mapped to {merged.gpus[name]!r} "
                                    f"at {merged.where[('gpus', name)]}", "change it there; options only add"))
        else:
            merged.gpus[name] = hid
    if problems:
        raise RecordErrors(problems)
    return merged


def mapping_problems(mapping, doc: Document, shown: str, catalog: Catalog) -> list[Problem]:
    """Every name of `mapping` (a SourceMapping or SourceExtension) that the catalog lacks."""
    out: list[Problem] = []

    def add(loc: tuple, message: str, fix: str) -> None:
        out.append(Problem(shown, doc.line_of(loc), message, fix))

    for name, hid in mapping.gpus.items():
        if hid not in catalog.hardware:
            add(("gpus", name), f"GPU {name!r} maps to unknown hardware {hid!r}",
                f"use one of {', '.join(sorted(catalog.hardware))}, or add records/hardware/{hid}.yaml")
    for kernel, spec in mapping.kernels.items():
        family = catalog.families.get(spec.family)
        if family is None:
            add(("kernels", kernel, "family"), f"kernel {kernel!r} maps to unknown family {spec.family!r}",
                f"use one of {', '.join(sorted(catalog.families))}, or add records/families/{spec.family}.yaml")
            continue
        for provider, iid in spec.providers.items():
            impl = catalog.implementations.get(iid)
            if impl is None:
                add(("kernels", kernel, "providers", provider),
                    f"provider {provider!r} of {kernel} maps to unknown implementation {iid!r}",
                    f"add records/implementations/{iid}.yaml, or use an existing id")
            elif impl.families and spec.family not in impl.families:
                add(("kernels", kernel, "providers", provider),
                    f"provider {provider!r} of {kernel} maps to {iid!r}, an implementation of "
                    f"{', '.join(impl.families)}, not {spec.family}",
                    "implementation ids are global: add an implementation record for this family")
        axes = family.semantics.axes
        for axis in spec.axes:
            if axis not in axes:
                add(("kernels", kernel, "axes", axis), f"kernel {kernel!r} maps unknown axis {axis!r} of {family.id}",
                    f"use one of {', '.join(axes)}")
        for axis, spec_axis in axes.items():
            if spec_axis.kind == "variable" and axis not in spec.axes:
                add(("kernels", kernel, "axes"), f"kernel {kernel!r} gives no source for axis {axis!r} of {family.id}",
                    f"add `{axis}: <x name or config keys>` under axes")
        for key, param in spec.parameters.items():
            if param not in family.semantics.parameters:
                add(("kernels", kernel, "parameters", key),
                    f"kernel {kernel!r} maps {key!r} to unknown parameter {param!r} of {family.id}",
                    f"use one of {', '.join(family.semantics.parameters) or 'none: the family has no parameters'}")
    return out


def check_sources(records: Path, catalog: Catalog) -> tuple[int, list[Problem]]:
    """Validate every `records/sources/*.yaml` (schema and catalog): (files, problems)."""
    records = Path(records)
    folder = records / SOURCES
    problems: list[Problem] = []
    files = sorted(folder.glob("*")) if folder.is_dir() else []
    count = 0
    for path in files:
        if path.is_dir() or path.suffix != ".yaml":
            problems.append(Problem(_shown(path, records), 1, "not a source mapping (records/sources/<id>.yaml)",
                                    "move it out of records/sources/"))
            continue
        count += 1
        doc, shown = _read(path, records, problems)
        source = _validate(SourceMapping, doc, shown, problems) if doc else None
        if source is None:
            continue
        if source.id != path.stem:
            problems.append(Problem(shown, doc.line_of(("id",)), f"id {source.id!r} does not match the file name",
                                    f"rename the file to {source.id}.yaml or change the id"))
        problems += mapping_problems(source, doc, shown, catalog)
    return count, problems


def json_schema() -> dict:
    schema = SourceMapping.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "source.schema.json"
    return schema


