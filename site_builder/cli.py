"""The command line: a thin layer that parses options and calls one library function each."""

from __future__ import annotations

import functools
import http.server
import sys
from pathlib import Path

import click

from .errors import RecordErrors, UserError

DEFAULT_RECORDS = Path("records")
DEFAULT_OUT = Path("output")


def user_errors(fn):
    """Print user errors as messages (no traceback) and exit non-zero."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except RecordErrors as exc:
            for problem in exc.problems:
                click.echo(str(problem), err=True)
            n = len(exc.problems)
            click.echo(f"{n} problem{'s' if n != 1 else ''} found; nothing was written.", err=True)
            sys.exit(1)
        except UserError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kernel-records")
def main():
    """Kernel Records: GPU kernel performance records in YAML, rendered as a static site."""


def gpu_present() -> bool:
    """Whether a CUDA GPU can run kernels here (asks torch in a subprocess; False without torch)."""
    from .runner import cuda_available  # the runner keeps torch out of this process

    return cuda_available()


@main.command()
@click.option("--records", type=click.Path(path_type=Path), default=DEFAULT_RECORDS, show_default=True,
              help="folder of YAML records")
@click.option("--out", type=click.Path(path_type=Path), default=DEFAULT_OUT, show_default=True,
              help="folder to write the site into (replaced whole)")
@click.option("--no-run", is_flag=True, help="do not run kernels first, even with a CUDA GPU")
@user_errors
def build(records: Path, out: Path, no_run: bool):
    """Refresh run records on the local GPU (if any), then render the site."""
    from .build import build as build_site

    if not no_run:
        if gpu_present():
            from .runner import run_all

            run_all(records=records)
        else:
            click.echo("No CUDA GPU here: rendering the committed records.")
    report = build_site(records, out)
    for w in report.warnings:
        click.echo(str(w), err=True)
    click.echo(f"Built {report.pages} pages ({report.files} files) into {report.out} "
               f"in {report.seconds:.1f} s.")


@main.command()
@click.option("--records", type=click.Path(path_type=Path), default=DEFAULT_RECORDS, show_default=True,
              help="folder of YAML records; the new run record goes under runs/<family>/<hardware>/")
@click.option("--family", help="run only this family (default: every family with kernels)")
@click.option("--implementation", "implementations", multiple=True,
              help="run only this implementation id (repeatable)")
@click.option("--workload", "workloads", multiple=True, help="run only this workload id (repeatable)")
@click.option("--timeout", type=float, default=600.0, show_default=True,
              help="seconds one workload may take in its worker before the worker is killed")
@click.option("--budget", type=float, default=None,
              help="seconds for the whole run; workloads not reached by then are recorded as not run")
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
@user_errors
def run(records: Path, family, implementations, workloads, timeout, budget, device, kernels, timing_cpu, gpus,
        ray_address):
    """Verify and time the registered kernels on every GPU here (or of a Ray cluster); write one
    new run record per family and GPU."""
    from .runner import run_all

    extra = {"kernels_root": kernels} if kernels else {}
    for path in run_all(records, family=family, implementations=implementations, workloads=workloads,
                        timeout=timeout, device=device, budget_s=budget, timing_cpu=timing_cpu, gpus=gpus,
                        ray_address=ray_address, **extra):
        click.echo(str(path))


@main.command()
@click.option("--out", type=click.Path(path_type=Path), default=DEFAULT_OUT, show_default=True)
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--bind", default="127.0.0.1", show_default=True)
@user_errors
def serve(out: Path, port: int, bind: str):
    """Preview the built site on a local port."""
    if not (out / "index.html").exists():
        raise UserError(f"{out}/index.html not found: run `kernel-records build` first")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(out))
    with http.server.ThreadingHTTPServer((bind, port), handler) as server:
        click.echo(f"Serving {out} at http://{bind}:{server.server_address[1]}/ (Ctrl-C stops)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


from . import cli_records  # noqa: E402  (contributor commands: check, new, import, schemas)

for _command in (cli_records.check, cli_records.schemas, cli_records.new, cli_records.import_):
    main.add_command(_command)

from .runner import commands as runner_commands  # noqa: E402  (bench, new kernels)

main.add_command(runner_commands.bench)
cli_records.new.add_command(runner_commands.new_kernels)


if __name__ == "__main__":
    main()
