"""Random shapes declared, not coded: the sampler behind a family's `sample_shapes` hook.

A family's `shapes.py` declares its axes and calls `Sampler.sample` (standard library only, no
torch, nothing family-specific here)::

    from site_builder.runner.shapes import Cap, Choice, Cycle, LogUniform, Sampler

    SAMPLER = Sampler(
        "my-family",
        axes={"m": LogUniform(1, 32768),
              # even draws a multiple of 64, odd draws arbitrary
              "n": Cycle(LogUniform(128, 32768, multiple=64), LogUniform(128, 32768))},
        dtype=Choice(("bfloat16", "float32"), weights=(2, 1)),
        kind=Choice(("forward", "backward")),
        caps=(Cap(("m", "n"), 2**26, cut="m"),))

    def sample_shapes(n, seed):
        return SAMPLER.sample(n, seed)

Draw i of a set (i = 0 … n−1) takes, from one `random.Random(f"{family} shapes {seed}")`, each
axis in the order declared, then the caps, then the derived axes, then the dtype, then the kind.
So a set is fixed by (family, seed) on every machine (`random` seeded with a string, then only
`uniform`, `randrange` and `randint`: Python 3.10 to 3.13 drew the same 40 shapes of seed 1217
for every family on 2026-12-02),
and the first k shapes of a set of n are the set of k.

Axis specs:

- `LogUniform(lo, hi, multiple=None)`: an integer, log-uniform in [lo, hi] (exp of a uniform
  draw of log, rounded); with `multiple`, rounded to the nearest multiple and kept within the
  multiples in [lo, hi].
- `Uniform(lo, hi)`: an integer, uniform in [lo, hi] (`random.randint`).
- `Choice(values, weights=None)`: one of `values` (whole-number weights, default all 1); a
  value that is a mapping sets several axes at once (a joint draw, e.g. heads_q with heads_kv;
  the name it is declared under is then only a label). A choice of one value draws nothing.
- `Fixed(value)`: always `value`; draws nothing.
- `Cycle(spec, spec, ...)`: draw i uses spec i mod len: alternation, so that every variant is
  in any set of at least that many shapes (e.g. a multiple of 64 on even draws only).
- `Derived(fn)`: fn(sizes) of the other axes after the caps (e.g. pos_batch = batch); draws
  nothing.

`dtype` and `kind` take the same specs (a dtype value may be `(dtype, {tensor: dtype})` for
tensors whose dtype differs from the workload's, see `family.Shape`).

`Cap(axes, limit, cut, env="KR_BENCH_MAX_ELEMENTS", floor=1)`: when the product of `axes`
exceeds `limit`, the axis `cut` (or each axis of a tuple in turn, until the product fits) is
lowered to ⌊limit / product of the others⌋, never below `floor` (nor raised to it). Caps apply
in the order given. The environment variable `env` (when set, a positive whole number) lowers
the limit for CPU dry runs, never raises it; `env=None` ignores it (a cap that is not an element
count, e.g. a flop count).
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence, Union

from .family import Shape

ENV_MAX_ELEMENTS = "KR_BENCH_MAX_ELEMENTS"


def log_uniform(rng: random.Random, lo: int, hi: int) -> int:
    """An integer log-uniform in [lo, hi]: one `rng.uniform` draw of the logarithm, rounded."""
    return min(hi, max(lo, int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))))


@dataclass(frozen=True)
class LogUniform:
    lo: int
    hi: int
    multiple: int | None = None

    def __post_init__(self):
        _check_range(self, self.lo, self.hi)
        if self.multiple is not None:
            if isinstance(self.multiple, bool) or not isinstance(self.multiple, int) or self.multiple < 1:
                raise ValueError(f"{self!r}: multiple must be a positive whole number")
            if self._bounds()[0] > self._bounds()[1]:
                raise ValueError(f"{self!r}: no multiple of {self.multiple} lies in [{self.lo}, {self.hi}]")

    def _bounds(self) -> tuple[int, int]:
        m = self.multiple
        return -(-self.lo // m) * m, self.hi // m * m

    def draw(self, rng: random.Random) -> int:
        v = log_uniform(rng, self.lo, self.hi)
        if self.multiple is not None:
            lo, hi = self._bounds()
            v = min(hi, max(lo, self.multiple * round(v / self.multiple)))
        return v


@dataclass(frozen=True)
class Uniform:
    lo: int
    hi: int

    def __post_init__(self):
        _check_range(self, self.lo, self.hi)

    def draw(self, rng: random.Random) -> int:
        return rng.randint(self.lo, self.hi)


@dataclass(frozen=True)
class Choice:
    values: tuple
    weights: tuple[int, ...] | None = None

    def __post_init__(self):
        object.__setattr__(self, "values", tuple(self.values))
        if not self.values:
            raise ValueError("Choice needs at least one value")
        if self.weights is not None:
            object.__setattr__(self, "weights", tuple(self.weights))
            if len(self.weights) != len(self.values):
                raise ValueError(f"Choice of {len(self.values)} values has {len(self.weights)} weights — give one "
                                 "weight per value")
            if any(isinstance(w, bool) or not isinstance(w, int) or w < 0 for w in self.weights) \
                    or not sum(self.weights):
                raise ValueError(f"Choice weights must be whole numbers ≥ 0, not all 0, got {self.weights}")
        kinds = {isinstance(v, Mapping) for v in self.values}
        if len(kinds) > 1:
            raise ValueError("Choice mixes mappings (a joint draw of several axes) and single values — use one kind")

    @property
    def pool(self) -> tuple:
        """The values, each repeated by its weight (a draw is one index into it)."""
        if self.weights is None:
            return self.values
        return tuple(v for v, w in zip(self.values, self.weights) for _ in range(w))

    @property
    def joint(self) -> bool:
        return isinstance(self.values[0], Mapping)

    def draw(self, rng: random.Random):
        pool = self.pool
        if all(v == pool[0] for v in pool):
            return pool[0]
        return pool[rng.randrange(len(pool))]


@dataclass(frozen=True)
class Fixed:
    value: Any

    def draw(self, rng: random.Random):
        return self.value


@dataclass(frozen=True)
class Derived:
    fn: Callable[[Mapping[str, int]], int]


@dataclass(frozen=True, init=False)
class Cycle:
    specs: tuple

    def __init__(self, *specs):
        if not specs:
            raise ValueError("Cycle needs at least one spec")
        for s in specs:
            if isinstance(s, Cycle):
                raise ValueError("a Cycle inside a Cycle — write the flat cycle")
            _check_spec(s)
        object.__setattr__(self, "specs", tuple(specs))

    def at(self, i: int):
        return self.specs[i % len(self.specs)]


Spec = Union[LogUniform, Uniform, Choice, Fixed, Derived, Cycle]


@dataclass(frozen=True)
class Cap:
    axes: tuple[str, ...]
    limit: int
    cut: str | tuple[str, ...]
    env: str | None = ENV_MAX_ELEMENTS
    floor: int = 1

    def __post_init__(self):
        object.__setattr__(self, "axes", tuple(self.axes))
        object.__setattr__(self, "cut", (self.cut,) if isinstance(self.cut, str) else tuple(self.cut))
        if not self.cut or any(c not in self.axes for c in self.cut):
            raise ValueError(f"Cap over {self.axes}: the cut axes {self.cut} must be among them")
        if isinstance(self.limit, bool) or not isinstance(self.limit, int) or self.limit < 1:
            raise ValueError(f"Cap over {self.axes}: the limit must be a positive whole number, got {self.limit!r}")
        if self.floor < 1:
            raise ValueError(f"Cap over {self.axes}: floor must be at least 1")

    def effective_limit(self) -> int:
        if self.env is None:
            return self.limit
        text = os.environ.get(self.env)
        if not text:
            return self.limit
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise ValueError(f"{self.env}={text!r} is not a positive whole number — set it to an element count, "
                             f"e.g. {self.env}=65536, or unset it")
        return min(self.limit, value)

    def apply(self, sizes: dict) -> None:
        limit = self.effective_limit()
        for axis in self.cut:
            total = math.prod(sizes[a] for a in self.axes)
            if total <= limit:
                return
            others = total // sizes[axis]
            sizes[axis] = max(min(self.floor, sizes[axis]), min(sizes[axis], limit // others))


@dataclass(frozen=True)
class Sampler:
    """Shapes of one family drawn from declared axes (module docstring)."""

    family: str
    axes: Mapping[str, Spec]
    dtype: Spec
    kind: Spec = Fixed("forward")
    caps: Sequence[Cap] = ()
    axis_names: tuple[str, ...] = field(init=False)

    def __post_init__(self):
        if not self.family:
            raise ValueError("Sampler needs the family's id (it seeds the draws)")
        object.__setattr__(self, "axes", dict(self.axes))
        object.__setattr__(self, "caps", tuple(self.caps))
        names: list[str] = []
        for label, spec in self.axes.items():
            _check_spec(spec)
            joint = [s for s in _variants(spec) if isinstance(s, Choice) and s.joint]
            if joint:
                if any(not (isinstance(s, Choice) and s.joint) for s in _variants(spec)):
                    raise ValueError(f"axis {label!r}: a Cycle mixes joint choices and single-axis specs")
                keys = {tuple(v) for s in joint for v in s.values}
                if len(keys) != 1:
                    raise ValueError(f"axis {label!r}: every value of a joint choice must set the same axes, "
                                     f"got {sorted(keys)}")
                names += list(next(iter(keys)))
            else:
                names.append(label)
        if len(set(names)) != len(names):
            raise ValueError(f"{self.family}: an axis is declared twice ({names})")
        for cap in self.caps:
            missing = [a for a in cap.axes if a not in names]
            if missing:
                raise ValueError(f"{self.family}: a cap names the undeclared axis {missing[0]!r}")
            derived = [a for a in cap.axes if self._is_derived(a)]
            if derived:
                raise ValueError(f"{self.family}: a cap names the derived axis {derived[0]!r} (derived axes are "
                                 "computed after the caps)")
        for spec in (self.dtype, self.kind):
            _check_spec(spec)
        object.__setattr__(self, "axis_names", tuple(names))

    def _is_derived(self, name: str) -> bool:
        spec = self.axes.get(name)
        return spec is not None and any(isinstance(s, Derived) for s in _variants(spec))

    def sample(self, n: int, seed: int) -> list[Shape]:
        rng = random.Random(f"{self.family} shapes {seed}")
        return [self._draw(rng, i) for i in range(n)]

    __call__ = sample

    def _draw(self, rng: random.Random, i: int) -> Shape:
        sizes: dict[str, Any] = {}
        later: list[tuple[str, Derived]] = []
        for label, spec in self.axes.items():
            spec = spec.at(i) if isinstance(spec, Cycle) else spec
            if isinstance(spec, Derived):
                sizes[label] = None  # keeps the declared order
                later.append((label, spec))
                continue
            value = spec.draw(rng)
            if isinstance(value, Mapping):
                sizes.update(value)
            else:
                sizes[label] = value
        for cap in self.caps:
            cap.apply(sizes)
        for label, spec in later:
            sizes[label] = spec.fn(dict(sizes))
        for name, value in sizes.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{self.family}: axis {name!r} came out as {value!r} — sizes are positive whole "
                                 "numbers")
        dtype = _resolve(self.dtype, i).draw(rng)
        kind = _resolve(self.kind, i).draw(rng)
        dtype, tensors = (dtype, {}) if isinstance(dtype, str) else (dtype[0], dict(dtype[1]))
        return Shape(sizes=sizes, dtype=dtype, kind=kind, tensors=tensors)


def _resolve(spec, i: int):
    spec = spec.at(i) if isinstance(spec, Cycle) else spec
    if isinstance(spec, Derived):
        raise ValueError("dtype and kind cannot be Derived — use a Choice or a Cycle")
    return spec


def _variants(spec) -> tuple:
    return spec.specs if isinstance(spec, Cycle) else (spec,)


def _check_spec(spec) -> None:
    if not isinstance(spec, (LogUniform, Uniform, Choice, Fixed, Derived, Cycle)):
        raise ValueError(f"{spec!r} is not an axis spec — use LogUniform, Uniform, Choice, Fixed, Derived or Cycle")


def _check_range(spec, lo, hi) -> None:
    if any(isinstance(v, bool) or not isinstance(v, int) for v in (lo, hi)) or not 1 <= lo <= hi:
        raise ValueError(f"{spec!r}: the range needs whole numbers 1 ≤ lo ≤ hi")


__all__ = ["Cap", "Choice", "Cycle", "Derived", "ENV_MAX_ELEMENTS", "Fixed", "LogUniform", "Sampler", "Uniform",
           "log_uniform"]
