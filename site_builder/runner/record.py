"""Run records as files: named by time and a random suffix, written atomically, never overwritten."""

from __future__ import annotations

import datetime as dt
import os
import secrets
import tempfile
from pathlib import Path

import yaml

HEADER = "# yaml-language-server: $schema=../../../../schema/run.schema.json\n"


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def record_name(moment: dt.datetime) -> str:
    return f"{moment:%Y-%m-%dT%H-%M-%S}-{secrets.token_hex(3)}.yaml"


def dump(data: dict) -> str:
    return HEADER + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)


def write_new(folder: Path, text: str, moment: dt.datetime) -> Path:
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
            final = folder / record_name(moment)
            try:
                os.link(tmp, final)
                return final
            except FileExistsError:
                continue
        raise FileExistsError(f"no free record name in {folder}")
    finally:
        os.unlink(tmp)
