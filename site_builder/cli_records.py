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
@RECORDS_OPTION
@click.option("--strict", is_flag=True, help="fail on warnings too (stale hashes, impossible times, old versions)")
@user_errors
def check(records: Path, strict: bool):
    """Validate every record as the build does; print each problem as path:line: message — fix."""
    from .check import check as check_records

    report = check_records(records)
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
