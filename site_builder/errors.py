"""User-facing problems: collected, then reported together as `path:line: what — fix`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    message: str
    fix: str
    severity: str = "error"  # "error" or "warning"

    def __str__(self) -> str:
        prefix = "" if self.severity == "error" else "warning: "
        return f"{self.path}:{self.line}: {prefix}{self.message} — {self.fix}"


class RecordErrors(Exception):
    """Raised once, after every file was read, when any record has a problem."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class UserError(Exception):
    """A problem the user can fix (bad option, missing folder); printed without a traceback."""
