"""`python -m site_builder.runner ...` is `kernel-records run ...`."""

import sys

from ..cli import main

main(["run", *sys.argv[1:]], prog_name="python -m site_builder.runner")
