"""The runner's contributor commands: `kernel-records bench` and `kernel-records new kernels`.

Registered on the command line in site_builder/cli/__init__.py (COMMANDS) and cli/records.py (`new`); each parses its options and calls one
library function. Importing this module imports no torch.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..cli.common import DEFAULT_RECORDS, user_errors
from .protocol import SEED


def _split(values) -> list[str]:
    """Repeatable options that also take comma-separated lists: --impls a,b --impls c."""
    return [v for item in values for v in item.split(",") if v]


@click.command()
@click.option("--records", type=click.Path(path_type=Path), default=DEFAULT_RECORDS, show_default=True,
              help="folder of YAML records (nothing is written there)")
@click.option("--family", required=True, help="the family to benchmark")
@click.option("--workloads", "workloads", multiple=True, help="workload ids, comma-separated or repeated "
                                                               "(default: all of the family's)")
@click.option("--impls", "implementations", multiple=True, help="implementation ids, comma-separated or "
                                                                 "repeated (default: every registered one)")
@click.option("--random", "random_n", type=click.IntRange(min=1), default=None,
              help="benchmark N shapes drawn with --seed from the family's realistic ranges (its "
                   "sample_shapes hook; a family without one: N of its workloads)")
@click.option("--seed", type=int, default=SEED, show_default=True,
              help="the inputs' seed (as a run's), and the draw of --random")
@click.option("--set", "sets", multiple=True, help="a named shape set of the family (its shape_sets hook), "
                                                   "comma-separated or repeated")
@click.option("--models", is_flag=True, help="the family's `models` shape set (same as --set models)")
@click.option("--timeout", type=click.FloatRange(min=1), default=600.0, show_default=True,
              help="time limit per workload, in seconds (as a run's)")
@click.option("--budget", "budget_s", type=click.FloatRange(min=1), default=None,
              help="stop starting workloads after this many seconds (the rest are reported as not run)")
@click.option("--device", type=click.Choice(["cuda", "cpu"]), default=None,
              help="default: cuda when a CUDA GPU is present, else cpu")
@click.option("--kernels", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="folder of family kernel packages (default: the repository's kernels/)")
@click.option("--timing-cpu", type=click.IntRange(min=0), default=None,
              help="pin every timing loop to this CPU (default: per workload, the fastest in a calibration)")
@click.option("--json", "json_out", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="also write the results as JSON here")
@click.option("--append", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="append one JSON line per result to this file (a lab results file, e.g. "
                   "lab/<family>/results.jsonl)")
@user_errors
def bench(records, family, workloads, implementations, random_n, seed, sets, models, timeout, budget_s, device,
          kernels, timing_cpu, json_out, append):
    """Time a family's implementations side by side with the runner's own protocol; print µs,
    GB/s or TFLOP/s, the ratio to the floor and to the best peer. Writes no record. Shapes
    outside the family record (--random, --set, --models) are measured as ad-hoc workloads."""
    from .bench import bench as run_bench

    extra = {"kernels_root": kernels} if kernels else {}
    named = _split(sets) + (["models"] if models else [])
    run_bench(records, family=family, workloads=_split(workloads), implementations=_split(implementations),
              random_n=random_n, seed=seed, sets=named, timeout=timeout, budget_s=budget_s, device=device,
              timing_cpu=timing_cpu, json_out=json_out, append=append, **extra)


@click.command("kernels")
@click.argument("family_id")
@click.option("--records", type=click.Path(path_type=Path), default=DEFAULT_RECORDS, show_default=True,
              help="folder of YAML records")
@click.option("--kernels", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="folder of family kernel packages (default: the repository's kernels/)")
@user_errors
def new_kernels(family_id: str, records: Path, kernels: Path | None):
    """A kernel family package: interface, eager baseline, reference (and its records)."""
    from .scaffold_kernels import new_kernels as make

    extra = {"kernels_root": kernels} if kernels else {}
    for path in make(records, family_id, **extra):
        click.echo(f"Wrote {path}")
    click.echo(f"Next: fill in every TODO; test with `python -m pytest -q tests/test_families.py -k {family_id}`; "
               f"run with `kernel-records run --family {family_id} --device cpu`.")
