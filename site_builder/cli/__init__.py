"""The command line: each command is a thin function over one library call, registered below.

Commands live by subject in this package (site.py: build, serve; measure.py: run; records.py:
check, new, import, schemas). To add one, write it there (or in a new module) and add it to
COMMANDS; a subcommand of `new` or `import` is added to that group in records.py.
"""

from __future__ import annotations

import click

from ..runner import commands as runner_commands  # bench, new kernels (the runner's contributor commands)
from . import measure, records, site
from .common import DEFAULT_OUT, DEFAULT_RECORDS, user_errors  # noqa: F401  (re-exported)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kernel-records")
def main():
    """Kernel Records: GPU kernel performance records in YAML, rendered as a static site."""


COMMANDS = (site.build, site.serve, measure.run, runner_commands.bench, records.check, records.new, records.import_,
            records.schemas)
records.new.add_command(runner_commands.new_kernels)

for _command in COMMANDS:
    main.add_command(_command)


if __name__ == "__main__":
    main()
