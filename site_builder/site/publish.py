"""What a publisher returns, and the context every publisher gets.

A publisher (one module per page kind under `publishers/`, listed in `publishers.PUBLISHERS`)
is a function `publish(index, site) -> Iterable[Page | Data]`. A `Page` is a template and its
typed model, rendered by the build (which skips it when its inputs did not change); `Data` is
a file's bytes, ready. A `Scope` is a group of pages and files that read nothing but what its
`inputs` name (for example one family's records): a build whose cache holds the group's files
made from the same inputs takes them as they are, without making their models again.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ..records.kernel_hash import current_shas
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
class Scope:
    """Pages and files made by `make()`, which reads only what `inputs` stands for (a JSON-able
    value: digests of the records it reads). `name` is unique in the site. The output is the
    same whether or not the build expands it: a build without a cache always does."""

    name: str
    inputs: object
    make: Callable[[], Iterable["Page | Data"]]


def expand(items) -> Iterable["Page | Data"]:
    """Publisher output with every `Scope` replaced by what it makes."""
    for item in items:
        if isinstance(item, Scope):
            yield from item.make()
        else:
            yield item


@dataclass(frozen=True)
class SiteContext:
    records: Path
    kernels: Path | None  # the kernels/ folder beside the records, when there is one
    nav: tuple[NavFamily, ...] = field(default=())
    _shas: dict = field(default_factory=dict, repr=False, compare=False)

    def current_shas(self, family_id: str) -> dict[str, str]:
        """Today's source hash of each implementation of the family (records.kernel_hash), read
        once a build: the family pages and the shape finder both mark results of earlier code."""
        if family_id not in self._shas:
            self._shas[family_id] = current_shas(self.kernels, family_id)
        return self._shas[family_id]


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
