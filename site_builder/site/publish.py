"""What a publisher returns, and the context every publisher gets.

A publisher (one module per page kind under `publishers/`, listed in `publishers.PUBLISHERS`)
is a function `publish(index, site) -> Iterable[Page | Data]`. A `Page` is a template and its
typed model, rendered by the build (which skips it when its inputs did not change); `Data` is
a file's bytes, ready.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from .models import NavFamily, dumps_data


@dataclass(frozen=True)
class Page:
    path: str
    template: str
    context: dict  # template variable -> typed model (or plain values)
    charts: tuple = ()  # the Chart objects inside the context, to render before the page


@dataclass(frozen=True)
class Data:
    path: str
    data: bytes


@dataclass(frozen=True)
class SiteContext:
    records: Path
    kernels: Path | None  # the kernels/ folder beside the records, when there is one
    nav: tuple[NavFamily, ...] = field(default=())


def to_json(obj) -> bytes:
    text = dumps_data(obj)
    # Record text stays data even when a page or script inlines this JSON: no < > & in it.
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return (text + "\n").encode()


def to_csv(columns: list[str], rows) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row.get(c) is None else row.get(c) for c in columns])
    return buf.getvalue().encode()
