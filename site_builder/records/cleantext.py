"""Text captured from a process (errors, notes, logs) made safe to store and show: terminal escape
sequences (ANSI CSI/OSC, e.g. colour codes) and control characters are removed; tabs and newlines
stay. Used when the runner writes a record and again when a page is rendered."""

from __future__ import annotations

import re

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), other two-character ESC sequences, and
# the 8-bit CSI; then every C0/C1 control character except tab, newline and carriage return
# (a carriage return followed by a newline is kept as the newline).
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]")
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    if not text or not _NEEDS.search(text):
        return text
    text = _ESCAPES.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROLS.sub("", text)


_NEEDS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean_data(value):
    """`clean` applied to every string of nested dicts and lists (a record before it is written)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean_data(k): clean_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(clean_data(v) for v in value)
    return value
