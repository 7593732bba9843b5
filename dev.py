#!/usr/bin/env python3
"""Fresh-machine entry point, standard library only.

    python3 dev.py build   # make .venv, install kernel-records, build the site into output/
    python3 dev.py test    # make .venv, install kernel-records with its test and kernel extras, run pytest

Extra arguments go to the underlying command (`kernel-records build ...` or `pytest ...`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
# torch's CPU build and Triton's interpreter run the kernel tests on a machine without a GPU.
KERNEL_PINS = ["torch==2.13.0", "triton==3.9.0", "numpy==2.4.6"]


def sh(*args: str) -> None:
    print("+", " ".join(args), flush=True)
    subprocess.run(args, check=True, cwd=ROOT)


def ensure_venv(extras: str, more: list[str]) -> None:
    if not (BIN / "python").exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    pip = [str(BIN / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    sh(*pip, "-e", f".{extras}", *more)


VNU = ROOT / "tests" / "vnu"


def ensure_vnu() -> None:
    """The W3C Nu HTML checker (vnu-jar, pinned in tests/vnu/package.json) for the HTML test; the
    jar runs on the machine's java, so the package's Java-downloading install script is skipped."""
    if (VNU / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar").is_file():
        return
    if shutil.which("npm") is None:
        print("npm is missing: tests/test_html_valid.py will fail (install Node.js and npm)", flush=True)
        return
    sh("npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--prefix", str(VNU))


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("build", "test"):
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    try:
        if command == "build":
            ensure_venv("", [])
            sh(str(BIN / "kernel-records"), "build", *rest)
        else:
            ensure_venv("[test]", KERNEL_PINS)
            ensure_vnu()
            sh(str(BIN / "python"), "-m", "pytest", *rest)
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
