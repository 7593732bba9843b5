"""The family interface: what a `kernels/<family>/` package declares, and the helpers it shares.

A family package defines one subclass of `KernelFamily` and exposes an instance of it as
`family` in its `__init__.py`::

    from site_builder.runner.family import Case, Close, KernelFamily, normal, generator

    class MyFamily(KernelFamily):
        id = "my-family"                      # the id of records/families/my-family.yaml

        def make_inputs(self, case, seed, device):
            gen = generator(case, seed, device)
            return {"x": normal(case.inputs["x"], gen, device)}

        def reference(self, case, inputs):
            return {"y": inputs["x"].double().softmax(-1)}

    family = MyFamily()
    register = family.registry.register
    from . import impl_eager  # noqa: E402,F401  (each module registers one implementation)

The runner, the bench and the tests use only this interface (`families.load_family` finds the
package); nothing in `site_builder/` names a family. Each workload reaches the family as a
`Case`: the record's workload of one kind (forward, backward or forward+backward) with the
dtypes and shapes of that kind's tensors resolved, the semantics' parameters, and the floor's
bytes and flops as the engine computes them from the family record (`site_builder.derive.floors`),
so there is one truth for the floor.

This module imports no torch at import time: the site builds without it. The helpers that make
tensors import torch when called (only worker processes, the bench and tests call them).
"""

from __future__ import annotations

import abc
import hashlib
from dataclasses import dataclass, field
from typing import Any, Mapping

from .registry import Registry

#: dtypes whose outputs are compared exactly (never with a tolerance).
INTEGER_DTYPES = frozenset({"int64", "int32", "int16", "int8", "uint8", "bool"})
FLOAT_DTYPES = frozenset({"float64", "float32", "bfloat16", "float16", "float8_e4m3", "float8_e5m2"})
#: torch's attribute names for the record dtypes that differ from them.
_TORCH_NAMES = {"float8_e4m3": "float8_e4m3fn", "float8_e5m2": "float8_e5m2"}


def torch_dtype(name: str):
    """The torch dtype of a record dtype name (`bfloat16` -> torch.bfloat16)."""
    import torch

    try:
        return getattr(torch, _TORCH_NAMES.get(name, name))
    except AttributeError:
        raise ValueError(f"unknown dtype {name!r}") from None


# --- tolerances ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Close:
    """Elementwise |out − ref| ≤ atol + rtol·|ref|, ref in float64 (a scalar loss is a 0-d Close);
    plus, where the family's `allowance` gives one for the output, its element-wise allowance."""

    atol: float
    rtol: float


@dataclass(frozen=True)
class Exact:
    """Every element equal to the reference's (integer outputs: class ids, counts, masks)."""

    atol: float = 0.0
    rtol: float = 0.0


@dataclass(frozen=True)
class IndexSet:
    """The same set of indices along `dim` as the reference, in any order (e.g. top-k indices);
    each row's indices compared as sorted integers."""

    dim: int = -1
    atol: float = 0.0
    rtol: float = 0.0


Tolerance = Close | Exact | IndexSet

#: The default tolerance of a floating output per dtype (applied elementwise). bfloat16: 8
#: significant bits, an ulp up to 2^-7 relative; two or three roundings of half an ulp stay
#: under 1.6e-2 (torch's own default). float16: 11 bits. float32: a float32 reduction over
#: 10^5 elements and a few roundings stay near 1e-6 relative. Integer outputs: `Exact()`.
DEFAULT_TOLERANCES: dict[str, Close] = {
    "float64": Close(1e-10, 1e-10),
    "float32": Close(1e-5, 1e-5),
    "bfloat16": Close(1e-3, 1.6e-2),
    "float16": Close(1e-4, 2e-3),
    "float8_e4m3": Close(1e-2, 1.25e-1),
    "float8_e5m2": Close(1e-2, 2.5e-1),
}


def default_tolerance(dtype: str) -> Tolerance:
    if dtype in INTEGER_DTYPES:
        return Exact()
    return DEFAULT_TOLERANCES[dtype]


# --- a workload as the family sees it -------------------------------------------------------


@dataclass(frozen=True)
class Tensor:
    """One declared tensor of a case: its dtype (resolved: `float` is the workload's) and shape."""

    dtype: str
    shape: tuple[int, ...]

    @property
    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n


@dataclass(frozen=True)
class Case:
    """One workload of one kind, resolved: what the family's hooks and factories receive.

    `case["rows"]` is the size of axis `rows`, else a parameter (`case["eps"]`); also
    `case["id"]`, `case["dtype"]`, `case["kind"]`: a case reads like the record's workload
    and its parameters.
    """

    id: str
    dtype: str
    kind: str = "forward"
    sizes: Mapping[str, int] = field(default_factory=dict)
    params: Mapping[str, Any] = field(default_factory=dict)
    inputs: Mapping[str, Tensor] = field(default_factory=dict)
    outputs: Mapping[str, Tensor] = field(default_factory=dict)
    floor_bytes: int | None = None  # site_builder.floors.bytes_moved of the record
    floor_flops: float | None = None  # site_builder.floors.flops of the record (its arithmetic term)

    def __getitem__(self, key: str):
        if key in ("id", "dtype", "kind"):
            return getattr(self, key)
        if key in self.sizes:
            return self.sizes[key]
        return self.params[key]

    def get(self, key: str, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    @classmethod
    def from_record(cls, family, workload) -> "Case":
        """The case of `workload` of the family record `family` (site_builder.records.schema models)."""
        from ..derive.floors import bytes_moved, flops  # one truth for the floor

        axes = family.semantics.axes
        sizes = {**{a: ax.value for a, ax in axes.items() if ax.kind == "fixed"}, **workload.sizes}
        ins, outs = family.semantics.tensors(workload.kind)

        def resolve(group):
            return {name: Tensor(workload.dtype if spec.dtype == "float" else spec.dtype,
                                 tuple(sizes[a] for a in spec.shape)) for name, spec in group.items()}

        return cls(id=workload.id, dtype=workload.dtype, kind=workload.kind, sizes=sizes,
                   params=dict(family.semantics.parameters), inputs=resolve(ins), outputs=resolve(outs),
                   floor_bytes=bytes_moved(family, workload), floor_flops=flops(family, workload))

    def to_json(self) -> dict:
        return {"id": self.id, "dtype": self.dtype, "kind": self.kind, "sizes": dict(self.sizes),
                "params": dict(self.params),
                "inputs": {k: [t.dtype, list(t.shape)] for k, t in self.inputs.items()},
                "outputs": {k: [t.dtype, list(t.shape)] for k, t in self.outputs.items()},
                "floor_bytes": self.floor_bytes, "floor_flops": self.floor_flops}

    @classmethod
    def from_json(cls, data: dict) -> "Case":
        return cls(id=data["id"], dtype=data["dtype"], kind=data.get("kind", "forward"),
                   sizes=dict(data.get("sizes", {})), params=dict(data.get("params", {})),
                   inputs={k: Tensor(d, tuple(s)) for k, (d, s) in data.get("inputs", {}).items()},
                   outputs={k: Tensor(d, tuple(s)) for k, (d, s) in data.get("outputs", {}).items()},
                   floor_bytes=data.get("floor_bytes"), floor_flops=data.get("floor_flops"))


def declared_bytes(case: Case) -> int:
    """Every declared input read once and every declared output written once (the floor's
    memory term, as site_builder.derive.floors counts it)."""
    from ..records.schema import DTYPE_BYTES

    return sum(t.numel * DTYPE_BYTES[t.dtype] for t in (*case.inputs.values(), *case.outputs.values()))


@dataclass(frozen=True)
class Shape:
    """A workload that the family record may not list, for the bench's --random and named sets
    (`KernelFamily.sample_shapes`, `KernelFamily.shape_set`): axis sizes, the workload dtype and
    kind, and optional dtypes of declared tensors that differ from the record's (e.g. a float32
    weight with bfloat16 input: {"weight": "float32", "y": "float32"})."""

    sizes: Mapping[str, int]
    dtype: str
    kind: str = "forward"
    tensors: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"sizes": dict(self.sizes), "dtype": self.dtype, "kind": self.kind, "tensors": dict(self.tensors)}

    @classmethod
    def from_json(cls, data: dict) -> "Shape":
        return cls(sizes={k: int(v) for k, v in data["sizes"].items()}, dtype=data["dtype"],
                   kind=data.get("kind", "forward"), tensors=dict(data.get("tensors") or {}))


# --- seeds and inputs ------------------------------------------------------------------------


def derived_seed(seed: int, workload_id: str) -> int:
    """Fresh inputs per workload, fixed by the run's seed (the runner passes seed + i for
    rotating input set i)."""
    text = f"{seed}:{workload_id}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "little") & (2**63 - 1)


def generator(case: Case, seed: int, device):
    """A torch.Generator on `device` seeded from the run's seed and the workload id."""
    import torch

    return torch.Generator(device=device).manual_seed(derived_seed(seed, case.id))


def normal(spec: Tensor, gen, device, *, mean: float = 0.0, std: float = 1.0):
    """N(mean, std) drawn in float32 and rounded to the tensor's dtype."""
    import torch

    t = torch.randn(spec.shape, generator=gen, device=device, dtype=torch.float32)
    if (mean, std) != (0.0, 1.0):
        t = t * std + mean
    return t.to(torch_dtype(spec.dtype))


def uniform(spec: Tensor, gen, device, low: float, high: float):
    """U(low, high) drawn in float32 and rounded to the tensor's dtype (keep 0 outside [low,
    high) where a zero would hide a bug, e.g. a weight)."""
    import torch

    t = torch.rand(spec.shape, generator=gen, device=device, dtype=torch.float32)
    return (low + (high - low) * t).to(torch_dtype(spec.dtype))


def integers(spec: Tensor, gen, device, low: int, high: int):
    """Integers in [low, high) in the tensor's dtype (class targets, indices)."""
    import torch

    return torch.randint(low, high, spec.shape, generator=gen, device=device, dtype=torch_dtype(spec.dtype))


# --- the interface ---------------------------------------------------------------------------


class KernelFamily(abc.ABC):
    """What a kernel family declares. Subclass it in `kernels/<family>/__init__.py` and expose
    an instance as `family`.

    Required: `id` (the family record's id), `make_inputs`, `reference`. Everything else has a
    default; override to change it. Implementations register on `registry` (a fresh one per
    subclass) under the ids of their implementation records, exactly one with `baseline=True`.
    """

    #: the id of records/families/<id>.yaml
    id: str = ""
    #: the numerics convention the reference follows (a sentence; shown in notes and tests)
    numerics: str | None = None
    #: small sizes (axis -> size) that the CPU correctness test (tests/test_families.py) checks
    #: with every dtype and kind of the record's workloads; empty: the record's own workloads
    #: of at most 16 MB (see `test_cases`)
    test_sizes: tuple[dict, ...] = ()
    registry: Registry

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "registry" not in cls.__dict__:
            cls.registry = Registry()

    # required ---------------------------------------------------------------------------

    @abc.abstractmethod
    def make_inputs(self, case: Case, seed: int, device) -> dict:
        """One input set for `case`, keyed by the case's input names (`case.inputs`), in their
        declared dtypes and shapes, drawn from `seed` (use `generator(case, seed, device)`):
        random, never all zeros, integer inputs in their valid range. The runner calls it with
        seed + i for rotating input set i."""

    @abc.abstractmethod
    def reference(self, case: Case, inputs: dict) -> dict:
        """The outputs of `case` keyed by `case.outputs` names: floating outputs in float64
        (computed in float64 from the inputs), integer outputs exact. Parameters are in
        `case.params` (e.g. eps)."""

    # optional ---------------------------------------------------------------------------

    def tolerance(self, case: Case, output: str) -> Tolerance:
        """How output `output` of `case` is compared with the reference: `Close(atol, rtol)`,
        `Exact()` or `IndexSet()`. Default: `default_tolerance` of the output's dtype."""
        return default_tolerance(case.outputs[output].dtype)

    def allowance(self, case: Case, inputs: dict, reference: dict) -> dict:
        """Element-wise absolute-error allowances for `Close` outputs, keyed by output name: a
        float64 tensor of the output's shape (on the reference's device), finite, >= 0, which
        the check adds to atol there: |out − ref| ≤ atol + rtol·|ref| + allowance. For outputs
        whose attainable accuracy varies element by element with the inputs, where one scalar
        (atol, rtol) would be too loose at most elements or too tight at a few: e.g. a result
        that cancels (softmax's dx = y·(dy − Σ y·dy) where dy ≈ Σ y·dy), where one rounding of
        an intermediate in the output dtype costs far more than rtol·|ref|. Derive it from an
        error model stated in a comment (which roundings it allows, in which dtype), computed
        from `inputs` (and `reference`) in float64, in slices where the output is large; test
        that a wrong output still fails under it. Called once per check, after `reference`.
        Default: none (`{}`), and the check is (atol, rtol) alone. Outputs left out get none."""
        return {}

    def bytes_moved(self, case: Case) -> int:
        """Bytes the floor counts for `case` (default: every declared tensor once, the engine's
        count from the family record). Override only with a test that says why they differ."""
        return case.floor_bytes if case.floor_bytes is not None else declared_bytes(case)

    def flops(self, case: Case) -> float | None:
        """Floating-point operations of `case` for the floor's compute term (default: the
        family record's `arithmetic` term; None when it declares none)."""
        return case.floor_flops

    def notes(self, case: Case) -> str | None:
        """A note every result of `case` carries (e.g. a limit of the reference); default none."""
        return None

    def sample_shapes(self, n: int, seed: int) -> list[Shape]:
        """`n` shapes drawn with `seed` from realistic ranges, for `kernel-records bench --random N
        --seed S` (measured as ad-hoc workloads through the same timing core). Default: none
        offered (NotImplementedError), and the bench draws N of the record's own workloads."""
        raise NotImplementedError

    def shape_sets(self) -> tuple[str, ...]:
        """Names of the fixed shape sets the family offers (`kernel-records bench --set NAME`,
        e.g. `models`); default none."""
        return ()

    def shape_set(self, name: str) -> list[Shape]:
        """The shapes of set `name` (one of `shape_sets()`)."""
        raise KeyError(name)

    # derived ----------------------------------------------------------------------------

    def implementations(self) -> list[str]:
        return self.registry.ids()

    def baseline(self) -> str | None:
        ids = [i for i, r in self.registry.items.items() if r.baseline]
        return ids[0] if len(ids) == 1 else None

    def check(self) -> list[str]:
        """Problems with this declaration (empty when it satisfies the interface)."""
        problems = []
        if not self.id:
            problems.append("the family class sets no `id` (the id of its family record)")
        baselines = [i for i, r in self.registry.items.items() if r.baseline]
        if len(baselines) != 1:
            problems.append(f"exactly one implementation must be registered with baseline=True, "
                            f"found {len(baselines)}: {', '.join(baselines) or 'none'}")
        return problems


def test_cases(plugin: KernelFamily, record, max_bytes: float = 16e6) -> list[Case]:
    """The cases the CPU correctness test checks: each of `plugin.test_sizes` with every (dtype,
    kind) of the family record's workloads; without test_sizes, the record's workloads whose
    declared tensors take at most `max_bytes`."""
    from ..records.schema import Workload

    if not plugin.test_sizes:
        cases = [Case.from_record(record, w) for w in record.workloads]
        return [c for c in cases if declared_bytes(c) <= max_bytes]
    combos = list(dict.fromkeys((w.dtype, w.kind) for w in record.workloads))
    out = []
    for sizes in plugin.test_sizes:
        for dtype, kind in combos:
            label = "-".join(f"{k}{v}" for k, v in sizes.items())
            w = Workload(id=f"t-{label}-{dtype}-{kind.replace('+', '-')}", dtype=dtype, kind=kind, **sizes)
            out.append(Case.from_record(record, w))
    return out


test_cases.__test__ = False  # not a pytest test


__all__ = ["Case", "Close", "DEFAULT_TOLERANCES", "Exact", "FLOAT_DTYPES", "INTEGER_DTYPES", "IndexSet",
           "KernelFamily", "Shape", "Tensor", "Tolerance", "declared_bytes", "default_tolerance", "derived_seed",
           "generator", "integers", "normal", "test_cases", "torch_dtype", "uniform"]
