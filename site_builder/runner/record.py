"""Run records as files: named by time and a random suffix, written atomically, never overwritten."""

from __future__ import annotations

import datetime as dt
import os
import secrets
import tempfile
from pathlib import Path



from ..records.yamlio import dump as yaml_text

HEADER = "# yaml-language-server: $schema=../../../../schema/run.schema.json\n"


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def record_name(moment: dt.datetime, tag: str | None = None) -> str:
    """`<time>-<6 hex>.yaml`, or `<time>-<tag>-<6 hex>.yaml` (the tag names the host and GPU, so
    the records of several hosts never collide when merged)."""
    return f"{moment:%Y-%m-%dT%H-%M-%S}-{tag + '-' if tag else ''}{secrets.token_hex(3)}.yaml"


def dump(data: dict) -> str:
    return HEADER + yaml_text(data, sort_keys=False, allow_unicode=True, width=110)


def write_validated(folder: Path, data: dict, moment: dt.datetime, tag: str | None = None) -> Path:
    """Validate `data` with the `Run` model, then write it as a new record (write_new). A record
    the model refuses is our bug: it is kept beside, as `<name>.yaml.invalid` (the loader reads
    only *.yaml), and the error says where and why."""
    from pydantic import ValidationError

    from ..errors import UserError
    from ..records.schema import Run

    from ..records.cleantext import clean_data

    data = clean_data(data)  # captured process output: no escape sequences or control characters
    text = dump(data)
    try:
        Run.model_validate(data)
    except ValidationError as exc:
        folder.mkdir(parents=True, exist_ok=True)
        kept = folder / (record_name(moment, tag) + ".invalid")
        kept.write_text(text, encoding="utf-8")
        raise UserError(f"the run record failed validation, so it was not written as a record; its data "
                        f"is kept in {kept}:\n{exc}") from None
    return write_new(folder, text, moment, tag)


def write_new(folder: Path, text: str, moment: dt.datetime, tag: str | None = None) -> Path:
    """Write `text` to a new file `folder/<time>-<6 hex>.yaml`, all or nothing.

    The text goes to a hidden temporary file in the same folder first (the loader reads only
    `*.yaml`), is flushed to disk, then hard-linked to its final name, which fails rather than
    replace a file that exists (O_EXCL semantics); the temporary name is removed in every case,
    so an interrupted write leaves no partial record.
    """
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".run-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        for _ in range(100):
            final = folder / (record_name(moment, tag) if tag else record_name(moment))
            try:
                os.link(tmp, final)
                return final
            except FileExistsError:
                continue
        raise FileExistsError(f"no free record name in {folder}")
    finally:
        os.unlink(tmp)
