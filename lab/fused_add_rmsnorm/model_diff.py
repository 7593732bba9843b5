"""The configuration model before and after a change of kr_triton_tuned.json / kr_triton_config.py:
`_config_for` of the family's 24 workloads and of the issue-14 sweep's shapes, and model_config
over a grid of hidden sizes, at a git revision (default HEAD) beside the working tree. No GPU:

    PYTHONPATH=. python lab/fused_add_rmsnorm/model_diff.py [--rev HEAD] [--all]

Prints every line whose configuration differs (--all: every line) and exits 1 when one of the
24 workloads' configurations changed (the intended changes are elsewhere: NOTES.md, issue 14,
"Folding the 2026-12-02 sweep in").
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("TRITON_INTERPRET", "1")
ROOT = Path(__file__).resolve().parents[2]
PKG = "kernels/fused_add_rmsnorm"
FILES = ("kr_triton_config.py", "kr_triton_tuned.json")

# (rows, hidden, element size): the family's 24 workloads (tests/test_kr_triton_cpu.py FAMILY_24)
FAMILY_24 = [(2048, n, 4) for n in (1024, 2048, 4096, 8192, 16384, 32768)] + \
    [(2048, n, 2) for n in (1024, 2048, 4096, 8192, 16384, 32768)] + \
    [(r, n, 2) for r in (1, 16, 128) for n in (4096, 8192)] + \
    [(2048, 5120, 2), (2048, 7168, 2), (2048, 65536, 2), (2048, 131072, 2), (32768, 4096, 2), (32768, 8192, 4)]
# the issue-14 sweep's shapes (issue14-2026-12-02/sweep14.log)
SWEEP14 = [(2, 46592, 2), (2, 103482, 2), (335, 42006, 2), (13, 82496, 4), (1533, 99563, 4), (14, 704, 4),
           (268, 582, 4), (10870, 576, 4), (6, 2432, 4), (494, 3456, 4), (400, 9216, 4), (86, 16785, 2)]
GRID = sorted({int(2 ** (k / 4)) for k in range(8 * 4, 17 * 4 + 1)} | {256, 300, 512, 513, 576, 704, 864, 865, 1000,
              2049, 2432, 3456, 3775, 3776, 3777, 4097, 32769, 49152, 65536, 65537, 82496, 99563, 131072, 200000})


def _load(directory: Path, name: str):
    """kr_triton_config.py of `directory` (a revision's copy, or the package), imported as a
    plain module from that folder: the two copies share a file name, so each is imported alone
    and then taken out of sys.modules."""
    sys.path.insert(0, str(directory))
    sys.modules.pop("kr_triton_config", None)
    try:
        mod = importlib.import_module("kr_triton_config")
    finally:
        sys.path.pop(0)
        sys.modules.pop("kr_triton_config", None)
    mod.__name__ = name
    return mod


def _choice(mod, rows: int, n: int, e: int) -> dict:
    """What _config_for gives a CUDA call before _resolve (which asks the device for its SMs):
    the model's configuration with its rows bucket's knobs."""
    return {**mod.model_config(n, e), **(mod._KNOBS.get((n, e, mod._bucket(rows))) or {})}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for f in FILES:
            text = subprocess.run(["git", "-C", str(ROOT), "show", f"{args.rev}:{PKG}/{f}"], check=True,
                                  capture_output=True, text=True).stdout
            (Path(tmp) / f).write_text(text)
        before = _load(Path(tmp), "kr_cfg_before")
    after = _load(ROOT / PKG, "kr_cfg_after")
    changed_24 = 0
    for title, shapes in (("family 24", FAMILY_24), ("sweep 14", SWEEP14)):
        print(f"== {title}: _config_for (rows, hidden, elsize) before -> after")
        for rows, n, e in shapes:
            b, a = _choice(before, rows, n, e), _choice(after, rows, n, e)
            same = a == b
            if title == "family 24" and not same:
                changed_24 += 1
            if args.all or not same:
                print(f"  {rows} x {n} e{e}: {'same' if same else 'CHANGED'} {after.model_anchor(n, e)}"
                      f"\n     before {b}\n     after  {a}" if not same else f"  {rows} x {n} e{e}: same {a}")
    print("== model_config over hidden sizes (changed only, unless --all)")
    for e in (4, 2):
        for n in GRID:
            b, a = before.model_config(n, e), after.model_config(n, e)
            if args.all or a != b:
                print(f"  {n} e{e}: {before.model_anchor(n, e)} -> {after.model_anchor(n, e)}\n     before {b}"
                      f"\n     after  {a}")
    print(f"family 24 changed: {changed_24}")
    return 1 if changed_24 else 0


if __name__ == "__main__":
    sys.exit(main())
