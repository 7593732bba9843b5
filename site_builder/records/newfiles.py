"""Writing a new record: atomically, and never over an existing file.

Tools (scaffolds, importers, the runner) only ever add records; people edit them by hand. The
text goes to a temporary file in the same folder, which is then hard-linked to its final name:
the link fails if the name exists, and a reader never sees a half-written file.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from ..errors import UserError
from .schema import SLUG_PATTERN, WINDOWS_RESERVED_PATTERN


def write_new(path: Path, text: str) -> Path:
    """Create `path` with `text`; raise UserError if it exists. Returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)  # unique per writer
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise UserError(f"{path} already exists; nothing was written "
                            "(records are never overwritten: choose another name)") from None
    finally:
        os.unlink(tmp)
    return path


def require_slug(value: str, what: str) -> str:
    """Ids become paths: refuse anything but a lower-case slug (no `..`, `/`, upper case)."""
    if not re.match(SLUG_PATTERN, value or "") or len(value) > 80:
        raise UserError(f"{what} {value!r} is not a slug: use lower-case letters, digits and single "
                        "- _ . between them, e.g. my-kernel-v2")
    if re.match(WINDOWS_RESERVED_PATTERN, value, re.IGNORECASE):
        raise UserError(f"{what} {value!r} is a name reserved on Windows (CON, PRN, AUX, NUL, COM1-9, LPT1-9): "
                        f"choose another, e.g. {value}-gpu")
    return value
