"""Give the results the runner wrote before status `not-run` existed their status.

    python lab/migrations/2026-12-01-not-run.py [records/runs]      # rewrites in place, prints each file

Until 2026-12-01 the runner recorded a workload that its run's time budget never reached (or
killed when the budget ended) as `status: timeout` with one of three exact errors. Those results
say nothing about the code, and the site counted them as failures. This rewrites `status:
timeout` to `status: not-run` only in result blocks whose error is exactly one of those runner
strings, line for line (nothing else in a file changes), and checks each rewritten file still
loads as a run record.
"""

from __future__ import annotations

import sys
from pathlib import Path

ERRORS = {"  error: 'not run: the run''s time budget was spent'",
          "  error: 'killed: the run''s time budget was spent'",
          "  error: 'killed before its first workload: the run''s time budget was spent'"}


def migrate(path: Path) -> int:
    lines = path.read_text(encoding="utf-8").split("\n")
    changed = 0
    for i, line in enumerate(lines):
        if line.rstrip() not in ERRORS:
            continue
        j = i - 1  # the status line of the same result block, above its error
        while j >= 0 and not lines[j].startswith("- ") and lines[j].startswith("  "):
            if lines[j] == "  status: timeout":
                lines[j] = "  status: not-run"
                changed += 1
                break
            j -= 1
    if changed:
        path.write_text("\n".join(lines), encoding="utf-8")
    return changed


def main(root: str = "records/runs") -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    import yaml

    from site_builder.records.schema import Run

    for path in sorted(Path(root).rglob("*.yaml")):
        n = migrate(path)
        if n:
            Run.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
            print(f"{path}: {n} results now not-run")


if __name__ == "__main__":
    main(*sys.argv[1:])
