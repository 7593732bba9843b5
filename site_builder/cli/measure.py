"""`kernel-records run`: measure the registered kernels on this machine's GPU."""

from __future__ import annotations

from pathlib import Path

import click

from .common import DEFAULT_RECORDS, user_errors


@click.command()
@click.option("--records", type=click.Path(path_type=Path), default=DEFAULT_RECORDS, show_default=True,
              help="folder of YAML records; the new run record goes under runs/<family>/<hardware>/")
@click.option("--family", "families", multiple=True,
              help="run only this family (repeatable; default: every family with kernels)")
@click.option("--implementation", "implementations", multiple=True,
              help="run only this implementation id (repeatable)")
@click.option("--workload", "workloads", multiple=True, help="run only this workload id (repeatable)")
@click.option("--timeout", type=float, default=600.0, show_default=True,
              help="seconds one workload may take in its worker before the worker is killed")
@click.option("--budget", type=float, default=None,
              help="seconds for the whole run, shared evenly by the implementations (what one leaves "
                   "goes to the next); workloads not reached in a share are recorded as not run")
@click.option("--device", type=click.Choice(["cuda", "cpu"]), default=None,
              help="default: cuda when a CUDA GPU is present, else cpu (wall-clock timing)")
@click.option("--kernels", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="folder of family kernel packages (default: the repository's kernels/)")
@click.option("--timing-cpu", type=click.IntRange(min=0), default=None,
              help="GPU runs: pin every timing loop to this CPU (recorded as environment.timing_cpu; "
                   "default: per workload, the allowed CPU fastest in a short calibration just before)")
@click.option("--gpus", default=None, help="GPU indices to use, e.g. 0,1,2,3 (default: every visible GPU)")
@click.option("--ray", "ray_address", default=None, metavar="ADDRESS",
              help="run the jobs on the Ray cluster at ADDRESS, one GPU each (needs kernel-records[ray])")
@click.option("--missing", is_flag=True,
              help="run only the implementation × workload pairs without a current result in the run "
                   "records of this GPU's hardware (current: ok, unsupported or failed, with the current "
                   "kernel hash, package version and protocol; see site_builder/runner/missing.py)")
@click.option("--retry-failed", is_flag=True, help="with --missing: run failed results again too")
@click.option("--plan", "plan_only", is_flag=True,
              help="print what would run, per family and implementation, and why the rest is skipped; "
                   "measure nothing (no GPU needed: give --hardware where nvidia-smi lists none)")
@click.option("--hardware", default=None, metavar="ID",
              help="with --plan: the hardware record the run is for, e.g. h200 (default: this host's GPU)")
@user_errors
def run(records: Path, families, implementations, workloads, timeout, budget, device, kernels, timing_cpu, gpus,
        ray_address, missing, retry_failed, plan_only, hardware):
    """Verify and time the registered kernels on every GPU here (or of a Ray cluster); write one
    new run record per family and GPU."""
    from ..errors import UserError

    if retry_failed and not missing:
        raise UserError("--retry-failed goes with --missing (without it every pair runs, failed ones included)")
    if hardware is not None and not plan_only:
        raise UserError(f"--hardware {hardware} goes with --plan: a run reads its hardware from the GPU it "
                        "measures on")
    extra = {"kernels_root": kernels} if kernels else {}
    options = dict(family=list(families) or None, implementations=implementations, workloads=workloads, timeout=timeout,
                   device=device, budget_s=budget, gpus=gpus, ray_address=ray_address, **extra)
    if missing:
        options.update(missing=True, retry_failed=retry_failed)
    if plan_only:
        from ..runner.plan import plan_run

        click.echo(plan_run(records, hardware=hardware, **options))
        return
    from ..runner import run_all

    for path in run_all(records, timing_cpu=timing_cpu, **options):
        click.echo(str(path))
