"""Make vl-convert's SVG smaller without changing what it draws.

Vega writes ARIA roles, classes and pointer-events on every group, empty placeholder paths,
default attributes and coordinates with many decimals. On a page with many charts that is most
of its weight; the chart's text alternative is the data table under it, not these attributes.
"""

from __future__ import annotations

import re

_ATTRS = re.compile(r'\s(?:aria-[a-z-]+|role|pointer-events|class)="[^"]*"')
_DEFAULTS = re.compile(r'\s(?:opacity="1"|stroke-dasharray="1,0")')
_EMPTY = re.compile(r'<path d="(?:M0,0h0v0h0Z)?"(?: display="none")?\s*/?>(?:</path>)?')
_VALUE = re.compile(r'="[^"]*"')
_DECIMALS = re.compile(r"(\d+\.\d)\d+")
_FONT = re.compile(r'\sfont-family="sans-serif"')


_ELEMENT = re.compile(r"<(line|path|rect|circle)\b([^>]*)>")
_STROKE_STYLE = re.compile(r'\s(?:stroke-width|stroke-dasharray)="[^"]*"')
_LINE_DEFAULTS = re.compile(r'\s(?:x1|y1|x2|y2)="0"|\sstroke-width="1"')


def _element(m: re.Match) -> str:
    tag, attrs = m.group(1), m.group(2)
    if 'stroke="' not in attrs:  # a stroke style without a stroke draws nothing
        attrs = _STROKE_STYLE.sub("", attrs)
    if tag == "line":
        attrs = _LINE_DEFAULTS.sub("", attrs)
    return f"<{tag}{attrs}>"


def slim_svg(svg: str) -> str:
    head, sep, body = svg.partition(">")
    body = _ATTRS.sub("", body)
    body = _DEFAULTS.sub("", body)
    body = _EMPTY.sub("", body)
    body = _FONT.sub("", body)
    body = _VALUE.sub(lambda m: _DECIMALS.sub(r"\1", m.group(0)), body)
    body = _ELEMENT.sub(_element, body)
    head = re.sub(r'\sclass="[^"]*"', "", head) + ' class="marks"'
    return head + sep + body
