"""Formatting of numbers and record text for pages: latency, ratios, percentages, bandwidth,
bytes, and sanitised markdown. Plain functions; the Jinja environment registers them as filters."""

from __future__ import annotations

import re

import markdown as md
import nh3
from markupsafe import Markup

ALLOWED_TAGS = {"p", "a", "em", "strong", "code", "pre", "ul", "ol", "li", "blockquote", "br",
                "h3", "h4", "table", "thead", "tbody", "tr", "th", "td", "hr"}


def markdown_html(text: str | None) -> Markup:
    """Markdown from a record, sanitised: no raw HTML, only http(s) links."""
    if not text:
        return Markup("")
    html = md.markdown(text, extensions=["tables"], output_format="html")
    clean = nh3.clean(html, tags=ALLOWED_TAGS, attributes={"a": {"href", "title"}},
                      url_schemes={"http", "https"}, link_rel="noopener noreferrer nofollow",
                      attribute_filter=_only_safe_links)
    return Markup(clean)


_SAFE_HREF = re.compile(r"^(?:https?://|#)", re.IGNORECASE)


def _only_safe_links(tag: str, attribute: str, value: str):
    """Relative and root-absolute links would point outside the site: dropped (the loader
    refuses them already; this holds for text that did not come through it)."""
    if attribute == "href" and not _SAFE_HREF.match(value.strip()):
        return None
    return value


_SENTENCE_END = re.compile(r"(?<!e\.g\.)(?<!i\.e\.)(?<!vs\.)(?<=[.!?])\s+(?=[A-Z\[(`*_])")
_CLAUSE_END = re.compile(r";\s+")
_OPEN, _CLOSE = "([{", ")]}"


def _balanced(text: str) -> bool:
    """No bracket left open and no code span left open in `text` (a cut there keeps the markup whole)."""
    depth = 0
    for ch in text:
        depth += (ch in _OPEN) - (ch in _CLOSE)
    return depth <= 0 and text.count("`") % 2 == 0


def lead(text: str | None, longest: int = 240) -> str:
    """The first sentence of a record's Markdown summary, for lists of many records (the index):
    cut at the first sentence end outside brackets and code; when that sentence is longer than
    `longest` characters, at its first clause end ("; ") instead, closed with a full stop. A text
    with no such end is returned whole; the page of the record shows the whole text."""
    if not text:
        return ""
    text = " ".join(text.split())
    first = text
    for m in _SENTENCE_END.finditer(text):
        if _balanced(text[:m.start()]):
            first = text[:m.start()]
            break
    if len(first) > longest:
        for m in _CLAUSE_END.finditer(first):
            if _balanced(first[:m.start()]):
                return first[:m.start()].rstrip(" ,:") + "."
    return first


def fmt_us(value: float | None) -> str:
    if value is None:
        return "—"
    if value >= 1000:
        return f"{value:,.0f} µs"
    if value >= 100:
        return f"{value:.1f} µs"
    if value >= 10:
        return f"{value:.1f} µs"
    return f"{value:.2f} µs"


def fmt_ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}×"


def fmt_pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f} %"


def fmt_gbps(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f} GB/s"


def fmt_bytes(value: int | None) -> str:
    if value is None:
        return "—"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value} B"


def fmt_num(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3g}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def fmt_tflops(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:,.0f} TFLOP/s" if value >= 100 else f"{value:.3g} TFLOP/s"


def fmt_intensity(value: float | None) -> str:
    """Arithmetic intensity, FLOP per byte."""
    if value is None:
        return "—"
    return f"{value:,.0f} FLOP/B" if value >= 100 else f"{value:.3g} FLOP/B"


def fmt_flops(value: float | None) -> str:
    if value is None:
        return "—"
    for unit, scale in (("TFLOP", 1e12), ("GFLOP", 1e9), ("MFLOP", 1e6), ("kFLOP", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.3g} FLOP"


_JSON_IN_HTML = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"})


def compact_json(obj) -> Markup:
    """JSON for a <script type="application/json"> (a chart's spec): no spaces, UTF-8 as is, and
    the characters HTML would read (< > & ') escaped, as Jinja's tojson does."""
    import json

    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return Markup(text.translate(_JSON_IN_HTML))


FILTERS = dict(tflops=fmt_tflops, intensity=fmt_intensity, flops=fmt_flops, us=fmt_us, ratio=fmt_ratio, pct=fmt_pct,
               gbps=fmt_gbps, bytes=fmt_bytes, num=fmt_num, md=markdown_html, compact_json=compact_json,
               lead=lead)
