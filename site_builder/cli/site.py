"""Site commands: build (after refreshing runs on a local GPU) and serve."""

from __future__ import annotations

import functools
import http.server
import shutil
from pathlib import Path

import click

from ..errors import UserError
from .common import DEFAULT_OUT, DEFAULT_RECORDS, user_errors


def gpu_present() -> bool:
    """Whether a CUDA GPU can run kernels here (asks torch in a subprocess; False without torch).
    A machine with no NVIDIA driver at all (no nvidia-smi, no driver or device files) is not
    asked: starting torch to learn that takes longer than the rest of a build."""
    if shutil.which("nvidia-smi") is None and not any(Path(p).exists() for p in NVIDIA_DRIVER_FILES):
        return False
    from ..runner import cuda_available  # the runner keeps torch out of this process

    return cuda_available()


#: What an NVIDIA driver leaves on Linux (the kernel module, its control device; WSL's GPU device).
NVIDIA_DRIVER_FILES = ("/proc/driver/nvidia", "/dev/nvidiactl", "/dev/dxg")


@click.command()
@click.option("--records", type=click.Path(path_type=Path), default=DEFAULT_RECORDS, show_default=True,
              help="folder of YAML records")
@click.option("--out", type=click.Path(path_type=Path), default=DEFAULT_OUT, show_default=True,
              help="folder to write the site into (replaced whole)")
@click.option("--no-run", is_flag=True, help="do not run kernels first, even with a CUDA GPU")
@click.option("--cache", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="build cache folder (default: .kernel-records-cache beside --out; safe to delete)")
@click.option("--no-cache", is_flag=True, help="build from scratch, reading and writing no cache")
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="processes for rendering (default: up to 2)")
@user_errors
def build(records: Path, out: Path, no_run: bool, cache: Path | None, no_cache: bool, jobs: int | None):
    """Refresh run records on the local GPU (if any), then render the site."""
    from ..build import build as build_site

    if not no_run:
        if gpu_present():
            from ..runner import run_all

            run_all(records=records)
        else:
            click.echo("No CUDA GPU here: rendering the committed records.")
    report = build_site(records, out, cache=False if no_cache else (cache or True), jobs=jobs)
    _print_warnings(report.warnings)
    if report.unchanged:
        click.echo(f"Nothing changed: {report.out} is current ({report.files} files; {report.seconds:.1f} s).")
    else:
        click.echo(f"Built {report.pages} pages ({report.files} files) into {report.out} "
                   f"in {report.seconds:.1f} s ({report.rendered} pages and {report.charts} charts rendered).")


def _print_warnings(warnings) -> None:
    """The build's warnings, one line per file: its first warning, and how many more it has (an
    old run of 90 workloads is one problem, not 90 lines). `kernel-records check` lists them all."""
    by_file: dict[str, list] = {}
    for w in warnings:
        by_file.setdefault(w.path, []).append(w)
    for path, ws in by_file.items():
        more = f" (and {len(ws) - 1} more in this file: `kernel-records check {path}`)" if len(ws) > 1 else ""
        click.echo(f"{ws[0]}{more}", err=True)
    if len(by_file) > 1:
        n = sum(map(len, by_file.values()))
        click.echo(f"{n} warnings in {len(by_file)} files; they do not stop the build", err=True)


@click.command()
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


