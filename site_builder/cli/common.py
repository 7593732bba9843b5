"""What every command shares: default folders, the --records option, and turning user errors
into messages (no traceback) with an exit status."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import click

from ..errors import RecordErrors, UserError

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


RECORDS_OPTION = click.option("--records", type=click.Path(path_type=Path), default=DEFAULT_RECORDS,
                              show_default=True, help="folder of YAML records")
