"""Commands for contributors working on records: check, new, import, schemas.

Registered on the main group in cli.py; each parses its options and calls one library function.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .cli import DEFAULT_RECORDS, user_errors

RECORDS_OPTION = click.option("--records", type=click.Path(path_type=Path), default=DEFAULT_RECORDS,
                              show_default=True, help="folder of YAML records")


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@RECORDS_OPTION
@click.option("--strict", is_flag=True, help="fail on warnings too (stale hashes, impossible times, old versions, "
                                             "TODOs left)")
@user_errors
def check(paths: tuple[Path, ...], records: Path, strict: bool):
    """Validate every record as the build does; print each problem as path:line: message — fix.

    Errors anywhere always count. Given PATHS (files or folders), only the warnings about the
    records among them are shown and, with --strict, fail: check what a pull request changes.
    """
    from .check import check as check_records

    report = check_records(records, only=paths)
    for w in report.warnings:
        click.echo(str(w), err=True)
    n = len(report.warnings)
    noun = f"{n} warning{'s' if n != 1 else ''}"
    if strict and n:
        click.echo(f"{noun}; --strict treats them as errors.", err=True)
        sys.exit(1)
    click.echo(f"{report.records} records OK" + (f", {noun}." if n else "."))


@click.command()
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="folder to write into (default: schema/ in the repository)")
@user_errors
def schemas(out: Path | None):
    """Regenerate the committed JSON Schemas of the record kinds from the models."""
    from .schemas import SCHEMA_DIR, write_schemas

    folder = out or SCHEMA_DIR
    changed = write_schemas(folder)
    click.echo(f"{len(changed)} schema file(s) updated in {folder}" if changed
               else f"schemas in {folder} are current")


@click.group()
def new():
    """Write a new record to fill in (valid as written; every line to change says TODO)."""


@new.command("family")
@click.argument("family_id")
@click.option("--baseline", required=True, help="id of the implementation that speed-ups are quoted against")
@RECORDS_OPTION
@user_errors
def new_family(family_id: str, baseline: str, records: Path):
    """A kernel family: semantics, axes, tensors, workloads."""
    from .scaffold import new_family as make

    _written(make(records, family_id, baseline))


@new.command("implementation")
@click.argument("implementation_id")
@RECORDS_OPTION
@user_errors
def new_implementation(implementation_id: str, records: Path):
    """An implementation: project, language, license, source, install command."""
    from .scaffold import new_implementation as make

    _written(make(records, implementation_id))


@new.command("hardware")
@click.argument("hardware_id")
@RECORDS_OPTION
@user_errors
def new_hardware(hardware_id: str, records: Path):
    """A GPU with its datasheet figures."""
    from .scaffold import new_hardware as make

    _written(make(records, hardware_id))


@new.command("run")
@click.argument("family_id")
@click.argument("hardware_id")
@click.option("--name", default="reported", show_default=True, help="file name after the date (a slug)")
@click.option("--implementation", default=None, help="implementation of the first result (default: the baseline)")
@click.option("--workload", default=None, help="workload of the first result (default: the headline)")
@RECORDS_OPTION
@user_errors
def new_run(family_id: str, hardware_id: str, name: str, implementation: str | None, workload: str | None,
            records: Path):
    """Reported results from a published source (measured runs come from `kernel-records run`)."""
    from .scaffold import new_run as make

    _written(make(records, family_id, hardware_id, name, implementation, workload))


def _written(path: Path) -> None:
    click.echo(f"Wrote {path}: fill in every TODO, then run `kernel-records check`.")


@click.group("import")
def import_():
    """Turn published benchmark data into reported run records (new files only)."""


@import_.command("liger-csv")
@click.argument("csv_file", type=click.Path(path_type=Path))
@click.option("--hardware-map", "hardware_map", multiple=True, metavar="'GPU NAME=hardware-id'",
              help="add a gpu_name of the CSV to the mapping's GPUs (repeatable; never replaces one)")
@click.option("--mapping", "mappings", multiple=True, type=click.Path(path_type=Path),
              help="a mapping file that adds kernels or GPUs to records/sources/liger-kernel.yaml "
                   "(repeatable; never replaces one)")
@click.option("--commit", default=None, metavar="SHA",
              help="the Liger-Kernel commit the CSV is from (needed unless the file is a known copy)")
@click.option("--allow-skips", is_flag=True, help="exit 0 even when rows were not imported")
@click.option("--dry-run", is_flag=True, help="list what would be written, write nothing")
@RECORDS_OPTION
@user_errors
def import_liger_csv(csv_file: Path, hardware_map: tuple[str, ...], mappings: tuple[Path, ...], commit: str | None,
                     allow_skips: bool, dry_run: bool, records: Path):
    """Liger-Kernel's benchmark CSV (benchmark/data/all_benchmark_data.csv), mapped by
    records/sources/liger-kernel.yaml. Every row not imported is listed with its line and reason;
    the exit status is then 1 unless --allow-skips."""
    from collections import defaultdict

    from .errors import UserError
    from .importers.liger_csv import import_liger_csv as run_import, line_ranges

    mapping = {}
    for item in hardware_map:
        name, sep, hid = item.rpartition("=")
        if not sep or not name.strip() or not hid.strip():
            raise UserError(f"--hardware-map {item!r}: write 'GPU NAME=hardware-id'")
        mapping[name.strip()] = hid.strip()
    report = run_import(csv_file, records, mapping, write=not dry_run, mappings=mappings, commit=commit)
    verb = "Would write" if dry_run else "Wrote"
    for planned in report.written:
        click.echo(f"{verb} {planned.path} ({_results(planned.results)})")
    for planned in report.existing:
        click.echo(f"Kept {planned.path}: it holds these {_results(planned.results)} already")
    by_reason: dict[str, list[int]] = defaultdict(list)
    for line, reason in report.skipped:
        by_reason[reason].append(line)
    for reason, lines in sorted(by_reason.items(), key=lambda item: min(item[1])):
        n = len(lines)
        click.echo(f"{csv_file}: line{'s' if n > 1 else ''} {line_ranges(lines)} "
                   f"({n} row{'s' if n > 1 else ''}) not imported: {reason}")
    imported = sum(p.results for p in report.written)
    kept = sum(p.results for p in report.existing)
    click.echo(f"{report.rows} rows read: {imported} imported into {len(report.written)} file(s), "
               + (f"{kept} already on record, " if kept else "")
               + f"{len(report.skipped)} not imported" + (" (listed above)." if report.skipped else "."))
    if report.skipped and not allow_skips:
        click.echo("Exit status 1: some rows were not imported; pass --allow-skips to accept that.", err=True)
        sys.exit(1)


def _results(n: int) -> str:
    return f"{n} result{'s' if n != 1 else ''}"
