"""The workloads of the element-wise launch sweeps (lab/swiglu/sweep.py, lab/rope/sweep.py): draws
of a family's `sample_shapes` hook as cases of a copy of its record, and a spread of the record's
own workloads. Cases are site_builder.runner.family.Case objects, measured by the runner's
`measure_one` exactly as a run measures them.
"""

from __future__ import annotations


def mb(case) -> float:
    """The MB a case moves (the floor's bytes: every declared tensor of its kind once)."""
    return case.floor_bytes / 1e6


def spread(cases: list, k: int) -> list:
    """k of `cases` (sorted by size) spread evenly over them, the smallest and largest included."""
    k = min(k, len(cases))
    if k <= 0:
        return []
    return [cases[i] for i in sorted({min(len(cases) - 1, round((j + 0.5) * len(cases) / k - 0.5)) for j in range(k)})]


def random_cases(record, plugin, n: int, seed: int, min_mb: float, pool: int = 64,
                 max_mb: float = float("inf")) -> list:
    """The first n of `pool` draws of the family's sampler (seed) moving more than min_mb and at
    most max_mb, as cases of a copy of the family record that declares them."""
    from site_builder.records.schema import Workload
    from site_builder.runner.bench import family_variant, shape_id
    from site_builder.runner.family import Case

    if n <= 0:
        return []
    seen, extra = set(), []
    for shape in plugin.sample_shapes(pool, seed):
        js = shape.to_json()
        wid = shape_id(record, js)
        if wid in seen:
            continue
        seen.add(wid)
        extra.append(Workload(id=wid, dtype=js["dtype"], kind=js["kind"], **js["sizes"]))
    fam = family_variant(record, {}, extra)
    cases = [Case.from_record(fam, w) for w in extra]
    return [c for c in cases if min_mb < mb(c) <= max_mb][:n]


def record_cases(record, per_group: int, min_mb: float) -> list:
    """Per kind, `per_group` of the record's workloads above min_mb, spread over their sizes."""
    from site_builder.runner.family import Case

    out = []
    for kind in ("forward", "backward"):
        cases = sorted((Case.from_record(record, w) for w in record.workloads if w.kind == kind),
                       key=lambda c: c.floor_bytes)
        out += spread([c for c in cases if mb(c) > min_mb], per_group)
    return out
