"""A small SVG writer for the site's own chart kinds: lines and points over a log or linear x
axis and a log or linear y axis, bands, a legend; nothing else.

It draws from the chart's data in well under a millisecond or two (a vl-convert render costs
15-25 ms), and its output is a pure function of its inputs: numbers are written with one
decimal, elements in the order of the (sorted) data, so equal inputs give equal bytes.

Each chart is drawn twice: wide (shown at 1:1 on a desktop) and narrow (for a phone, 340 px,
one legend column, fewer or turned tick labels), both with labels of 11-12 px as displayed.
CSS picks one (`.chart .wide` / `.chart .narrow`, see style.css). Colours are attributes,
so the SVG reads the same in print and when opened alone; the page's dark theme recolours the
ink (text, grid, axes) by class.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape

CHAR_EM = 0.6  # a generous average glyph width, in em: labels are placed so they never collide


def _n(v: float) -> str:
    """A coordinate, to the pixel (the drawings are shown at 1:1): deterministic and short."""
    s = str(round(v))
    return "0" if s == "-0" else s


def _d(v: float) -> str:
    """A length with one decimal, `-0.0` and `.0` dropped (shape corners, stroke widths)."""
    s = f"{v:.1f}"
    if s.endswith(".0"):
        s = s[:-2]
    return "0" if s == "-0" else s


def text_width(s: str, size: float) -> float:
    return len(s) * size * CHAR_EM


def esc(s: str) -> str:
    return escape(str(s), quote=True)


# --- scales and ticks ------------------------------------------------------------------------

@dataclass
class Scale:
    """Maps a value of the domain [lo, hi] to pixels [a, b]; `log` in any base (log 10 used)."""
    lo: float
    hi: float
    a: float
    b: float
    log: bool = False

    def __call__(self, v: float) -> float:
        if self.log:
            lo, hi, v = math.log10(self.lo), math.log10(self.hi), math.log10(max(v, 1e-300))
        else:
            lo, hi = self.lo, self.hi
        if hi == lo:
            return (self.a + self.b) / 2
        return self.a + (v - lo) / (hi - lo) * (self.b - self.a)


def log_domain(values: list[float], pad: float = 0.06) -> tuple[float, float]:
    """The data's range widened by `pad` of its span on both sides, in log space (at least a
    factor of 2 in all, so one point or close points do not fill the plot)."""
    lo, hi = math.log10(min(values)), math.log10(max(values))
    span = max(hi - lo, math.log10(2))
    mid = (lo + hi) / 2
    lo, hi = min(lo, mid - span / 2), max(hi, mid + span / 2)
    return 10 ** (lo - pad * span), 10 ** (hi + pad * span)


def log_ticks(lo: float, hi: float) -> tuple[list[float], list[float]]:
    """Labelled and minor ticks of a log axis over [lo, hi]: 1-2-5 per decade when the domain
    spans under about 2.5 decades (1-2-3-5 under one, 1-1.5-2-3-5-7 under 0.7), else the decades with 2..9 as minor ticks
    (every other decade labelled past 7 decades)."""
    decades = math.log10(hi / lo)
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    inside = lambda v: lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)
    if decades < 2.5:
        steps = (1, 1.5, 2, 3, 5, 7) if decades < 0.7 else (1, 2, 3, 5) if decades < 1 else (1, 2, 5)
        major = [_clean(m * 10 ** e) for e in range(first, last + 1) for m in steps if inside(m * 10 ** e)]
        if len(major) < 3 and decades < 0.7:  # a narrow domain (600..1150): round linear steps read better
            linear = [v for v in linear_ticks(lo, hi, 4) if v > 0]
            if len(linear) > len(major):
                return linear, []
        if len(major) >= 2:
            minor = [_clean(m * 10 ** e) for e in range(first, last + 1) for m in range(1, 10)
                     if inside(m * 10 ** e) and _clean(m * 10 ** e) not in major]
            return major, minor
        # under one 1-2-3-5 step (a domain such as 14..28): round linear steps, on the log scale
        major = [v for v in linear_ticks(lo, hi, 4) if v > 0]
        return major, []
    every = 1 if decades <= 7 else 2
    major = [_clean(10.0 ** e) for e in range(first, last + 1) if inside(10.0 ** e) and e % every == 0]
    minor = [_clean(m * 10.0 ** e) for e in range(first, last + 1) for m in range(1, 10)
             if inside(m * 10.0 ** e) and _clean(m * 10.0 ** e) not in major]
    return major, minor


def linear_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Ticks at a 1-2-5 step, about `count` of them, inside [lo, hi]."""
    span = hi - lo
    if span <= 0:
        return [_clean(lo)]
    raw = span / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.ceil(lo / step - 1e-9)
    out, i = [], start
    while i * step <= hi * (1 + 1e-12) + 1e-12:
        out.append(_clean(i * step))
        i += 1
    return out


def _clean(v: float) -> float:
    return float(f"{v:.10g}")


def number_label(v: float) -> str:
    """1,000 · 20 · 0.5 · 0.02: thousands separated, no exponent, no trailing zeros."""
    if v >= 1:
        return f"{v:,.10g}" if v < 1e15 else f"{v:.3g}"
    return f"{v:.6f}".rstrip("0").rstrip(".")


# --- the drawing -----------------------------------------------------------------------------

@dataclass
class Style:
    colour: str
    dash: list[int] = field(default_factory=lambda: [1, 0])
    shape: str = "circle"


@dataclass
class Line:
    """One implementation: its points (x, y), drawn as a line (straight or as steps) and marks."""
    name: str
    points: list[tuple[float, float]]
    style: Style
    step: bool = False
    marks: bool = True
    width: float = 2.0
    big: set = field(default_factory=set)  # indexes of points drawn larger (a record set)
    big_shape: str = "diamond"


@dataclass
class Band:
    """A shaded region: the polygon over `upper` and back along `lower` (same x's), or steps."""
    upper: list[tuple[float, float]]
    lower: list[tuple[float, float]]
    colour: str
    step: bool = False


@dataclass
class Axis:
    title: str
    log: bool
    lo: float
    hi: float
    ticks: list[tuple[float, str]]  # labelled
    minor: list[float] = field(default_factory=list)
    grid: bool = True


@dataclass
class LegendItem:
    label: str
    style: Style
    line: bool = True  # a line sample, else the mark alone
    kind: str = "line"  # line | mark | band | rule (a line sample without a mark)


@dataclass
class Layout:
    width: int  # the plot area's width
    height: int
    font: int
    legend_columns: int
    narrow: bool


WIDE = Layout(560, 280, 12, 3, False)
NARROW = Layout(0, 200, 11, 1, True)  # width: what is left of TOTAL_NARROW after the y axis
ONE = Layout(0, 240, 11, 1, True)  # a drawing shown at every width: narrow, a little taller
TOTAL_NARROW = 340


def _vertices(path: str) -> list[tuple[float, float]]:
    """The corners of a polygon written with absolute M, L, H, V and Z (as the shapes are)."""
    out: list[tuple[float, float]] = []
    for cmd, args in re.findall(r"([MLHVZ])([^MLHVZ]*)", path.upper()):
        nums = [float(v) for v in re.findall(r"-?\d*\.?\d+(?:e-?\d+)?", args)]
        x, y = out[-1] if out else (0.0, 0.0)
        if cmd in "ML":
            out += [(nums[i], nums[i + 1]) for i in range(0, len(nums) - 1, 2)]
        elif cmd == "H":
            out += [(v, y) for v in nums]
        elif cmd == "V":
            out += [(x, v) for v in nums]
    return out


@lru_cache(maxsize=256)
def _shape(shape: str, r: float) -> tuple[tuple[float, float], str]:
    """A shape at radius `r` as its first corner and the relative path from there (one string
    for every point of a line)."""
    corners = [(round(x * r, 1), round(y * r, 1)) for x, y in _vertices(SHAPES.get(shape, shape))]
    rel = []
    for (x0, y0), (x1, y1) in zip(corners, corners[1:]):
        dx, dy = x1 - x0, y1 - y0
        rel.append(f"h{_d(dx)}" if abs(dy) < 0.05 else f"v{_d(dy)}" if abs(dx) < 0.05 else f"l{_d(dx)},{_d(dy)}")
    return corners[0], "".join(rel) + "z"


def marks(shape: str, points: list[tuple[float, float]], r: float, colour: str, extra: str = "") -> str:
    """Filled point marks of a shape named as Vega names them (or an SVG path in -1..1): one
    element for all of them."""
    if not points:
        return ""
    if shape == "circle":
        dots = "".join(f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_d(r)}"/>' for x, y in points)
        return f'<g fill="{colour}"{extra}>{dots}</g>'
    (fx, fy), rel = _shape(shape, r)
    d = "".join(f"M{_n(x + fx)},{_n(y + fy)}{rel}" for x, y in points)
    return f'<path d="{d}" fill="{colour}"{extra}/>'


SHAPES = {
    "square": "M-0.9,-0.9H0.9V0.9H-0.9Z",
    "diamond": "M0,-1.3L1.3,0L0,1.3L-1.3,0Z",
    "triangle-up": "M0,-1.1L1.1,0.8H-1.1Z",
    "triangle-down": "M0,1.1L1.1,-0.8H-1.1Z",
    "triangle-right": "M1.1,0L-0.8,1.1V-1.1Z",
    "triangle-left": "M-1.1,0L0.8,1.1V-1.1Z",
    "cross": "M-0.35,-1.1H0.35V-0.35H1.1V0.35H0.35V1.1H-0.35V0.35H-1.1V-0.35H-0.35Z",
    "wedge": "M0,-1.3L0.55,1H-0.55Z",
    "arrow": "M-0.3,1.1V-0.2H-0.9L0,-1.2L0.9,-0.2H0.3V1.1Z",
    "stroke": "M-1.2,-0.3H1.2V0.3H-1.2Z",
}


def _dash(d: list[int]) -> str:
    if not d or (len(d) == 2 and d[1] == 0):
        return ""
    return f' stroke-dasharray="{",".join(str(v) for v in d)}"'


def _path(points: list[tuple[float, float]], step: bool) -> str:
    out = []
    for i, (x, y) in enumerate(points):
        if i == 0:
            out.append(f"M{_n(x)},{_n(y)}")
        elif step:
            out.append(f"H{_n(x)}V{_n(y)}")
        else:
            out.append(f"L{_n(x)},{_n(y)}")
    return "".join(out)


def draw(*, label: str, x: Axis, y: Axis, lines: list[Line], bands: list[Band] = (),
         rules: list[tuple[float, float, float, str]] = (), legend: list[LegendItem],
         legend_title: str, layout: Layout, css_class: str, x_labels_rotate: bool | None = None) -> str:
    """One SVG: axes with labelled ticks and titles, bands, rules (x, y0, y1, colour: a spread),
    lines and marks, and a legend under the plot."""
    f = layout.font
    # y axis: the widest tick label, then the title turned up
    y_label_w = max((text_width(t, f) for _, t in y.ticks), default=0)
    y_title = _lines(y.title, layout.height, f)  # one line, or two when it is longer than the plot
    left = math.ceil(y_label_w + 8 + len(y_title) * (f + 2) + 8)
    total_w = TOTAL_NARROW if layout.narrow else left + layout.width + 24
    pw = total_w - left - (14 if layout.narrow else 24)
    ph = layout.height
    top = 10
    sx = Scale(x.lo, x.hi, 10, pw - 10, x.log)  # 10 px inside each end: marks at the ends stay whole
    sy = Scale(y.lo, y.hi, ph, 0, y.log)

    # x tick labels: straight if they fit between neighbours, else turned (45°, or 90° when even
    # that is tight); on the narrow drawing, labels that would still touch are left out
    xs = [(sx(v), t) for v, t in x.ticks]
    widest = max((text_width(t, f) for _, t in xs), default=0)
    gaps = [b[0] - a[0] for a, b in zip(xs, xs[1:])]
    gap = min(gaps) if gaps else pw
    if x_labels_rotate is None:
        angle = 0 if widest + 6 <= gap else (45 if f * 1.45 <= gap else 90)
    else:
        angle = 45 if x_labels_rotate else 0
    shown = list(range(len(xs)))
    if angle == 90 and f * 1.1 > gap:
        shown = _thin([p for p, _ in xs], f * 1.2)
    drop = widest * (0.72 if angle == 45 else 1.0) if angle else f
    x_title_y = ph + 8 + drop + f + 6

    # legend under the plot: columns as wide as the widest entry allows
    leg_top = x_title_y + 14
    entry = max((text_width(i.label, f) for i in legend), default=0) + 34
    cols = max(1, min(layout.legend_columns, int((total_w - 10) // max(entry, 1)), len(legend) or 1))
    col_w = (total_w - 10) / cols
    limit = int((col_w - 34) / (f * CHAR_EM))
    rows = math.ceil(len(legend) / cols) if legend else 0
    title_h = (f + 6) if legend_title else 0
    total_h = math.ceil(top + leg_top + title_h + rows * (f + 8) + 10)

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" class="{css_class}" role="img" '
         f'width="{total_w}" height="{total_h}" viewBox="0 0 {total_w} {total_h}" '
         f'font-family="sans-serif" font-size="{f}">',
         f"<title>{esc(label)}</title>",
         f'<g transform="translate({left},{top})">']
    # grid and ticks: one path each
    o.append('<g class="grid" stroke="#ddd" fill="none">')
    if y.minor:
        o.append(f'<path class="minor" d="{"".join(f"M0,{_n(sy(v))}H{_n(pw)}" for v in y.minor)}" stroke-opacity="0.5"/>')
    grid = "".join(f"M0,{_n(sy(v))}H{_n(pw)}" for v, _ in y.ticks)
    if x.grid:
        grid += "".join(f"M{_n(sx(v))},0V{_n(ph)}" for v, _ in x.ticks)
    o.append(f'<path d="{grid}"/></g>')
    ticks = "".join(f"M{_n(p)},{_n(ph)}v5" for i, (p, _) in enumerate(xs) if i in shown)
    ticks += "".join(f"M0,{_n(sy(v))}h-5" for v, _ in y.ticks)
    o.append(f'<path class="axis" stroke="#888" fill="none" d="M0,0V{_n(ph)}H{_n(pw)}{ticks}"/>')
    # labels
    o.append('<g class="ink" fill="#1b1f24"><g text-anchor="end">')
    for v, t in y.ticks:
        o.append(f'<text x="-8" y="{_n(sy(v) + f * 0.35)}">{esc(t)}</text>')
    for i, (p, t) in enumerate(xs):
        if i in shown and angle:
            o.append(f'<text transform="translate({_n(p + (f * 0.35 if angle == 90 else 0))},{_n(ph + 9)}) '
                     f'rotate(-{angle})">{esc(t)}</text>')
    o.append('</g><g text-anchor="middle">')
    for i, (p, t) in enumerate(xs):
        if i in shown and not angle:
            o.append(f'<text x="{_n(p)}" y="{_n(ph + 8 + f)}">{esc(t)}</text>')
    o.append(f'<text x="{_n(pw / 2)}" y="{_n(x_title_y)}" font-weight="600">{esc(x.title)}</text>')
    for i, line in enumerate(y_title):
        o.append(f'<text transform="translate({_n(-left + f + 2 + i * (f + 2))},{_n(ph / 2)}) rotate(-90)" '
                 f'font-weight="600">{esc(line)}</text>')
    o.append("</g></g>")
    # data
    o.append('<g class="data">')
    for b in bands:
        up = [(sx(px), sy(py)) for px, py in b.upper]
        if b.step:  # each value holds until the next x: forward along the top, back along the bottom
            lo_ = [(sx(px), sy(py)) for px, py in b.lower]
            d = _path(up, True) + f"V{_n(lo_[-1][1])}" + "".join(
                f"V{_n(lo_[i][1])}H{_n(lo_[i][0])}" for i in range(len(lo_) - 2, -1, -1))
        else:
            d = _path(up, False) + "".join(f"L{_n(sx(px))},{_n(sy(py))}" for px, py in reversed(b.lower))
        o.append(f'<path class="band" d="{d}Z" fill="{b.colour}" fill-opacity="0.18"/>')
    by_colour: dict[str, list[str]] = {}
    for rx, r0, r1, colour in rules:
        by_colour.setdefault(colour, []).append(f"M{_n(sx(rx))},{_n(sy(r0))}V{_n(sy(r1))}")
    for colour, parts in by_colour.items():
        o.append(f'<path class="spread" d="{"".join(parts)}" stroke="{colour}" stroke-width="1.5" '
                 'stroke-opacity="0.6"/>')
    for ln in lines:
        pts = [(sx(px), sy(py)) for px, py in ln.points]
        if len(pts) > 1 and ln.width:
            o.append(f'<path d="{_path(pts, ln.step)}" fill="none" stroke="{ln.style.colour}" '
                     f'stroke-width="{_d(ln.width)}"{_dash(ln.style.dash)}/>')
    for ln in lines:
        if not ln.marks:
            continue
        pts = [(sx(a), sy(b)) for a, b in ln.points]
        o.append(marks(ln.style.shape, [p for i, p in enumerate(pts) if i not in ln.big], 3.4, ln.style.colour))
        o.append(marks(ln.big_shape, [p for i, p in enumerate(pts) if i in ln.big], 5.5, ln.style.colour,
                       ' stroke="#fff" stroke-width="0.6"'))
    o.append("</g></g>")
    # legend
    ly = top + leg_top
    o.append(f'<g class="ink legend" fill="#1b1f24" transform="translate(8,{_n(ly)})">')
    if legend_title:
        o.append(f'<text y="{f}" font-weight="600">{esc(legend_title)}</text>')
    for i, item in enumerate(legend):
        r, c = (i % rows, i // rows) if rows else (0, 0)
        gx, gy = c * col_w, title_h + r * (f + 8) + f * 0.5 + 4
        st = item.style
        if item.kind == "band":
            o.append(f'<rect x="{_n(gx)}" y="{_n(gy - 5)}" width="24" height="10" fill="{st.colour}" fill-opacity="0.18"/>')
        if item.kind in ("line", "band", "rule") and item.line:
            o.append(f'<path d="M{_n(gx)},{_n(gy)}h24" fill="none" stroke="{st.colour}" stroke-width="2"{_dash(st.dash)}/>')
        if item.kind in ("line", "mark"):
            o.append(marks(st.shape, [(gx + 12, gy)], 3.4 if item.kind == "line" else 4.5, st.colour))
        o.append(f'<text x="{_n(gx + 30)}" y="{_n(gy + f * 0.35)}">{esc(_clip(item.label, limit))}</text>')
    o.append("</g></svg>")
    return "".join(o)


def _thin(positions: list[float], min_gap: float) -> list[int]:
    """Indexes of positions kept so that neighbours are `min_gap` apart (first and last kept)."""
    keep, last = [], None
    n = len(positions)
    for i, p in enumerate(positions):
        if last is None or p - last >= min_gap:
            keep.append(i)
            last = p
    if n and keep[-1] != n - 1:
        if len(keep) > 1 and positions[n - 1] - positions[keep[-2]] >= min_gap:
            keep[-1] = n - 1
        elif positions[n - 1] - positions[keep[-1]] >= min_gap:
            keep.append(n - 1)
    return keep


def _clip(s: str, limit: int) -> str:
    return s if len(s) <= max(limit, 4) else s[: max(limit, 4) - 1] + "…"


def _lines(s: str, space: float, f: float) -> list[str]:
    """`s` on one line if it fits `space`, else on two, broken at the space nearest its middle
    (each clipped to fit)."""
    limit = int(space / (f * CHAR_EM))
    if len(s) <= limit or " " not in s:
        return [_clip(s, limit)]
    cut = min((i for i, c in enumerate(s) if c == " "), key=lambda i: abs(i - len(s) / 2))
    return [_clip(s[:cut], limit), _clip(s[cut + 1:], limit)]


# --- the site's chart kinds ------------------------------------------------------------------

def log_axis(values: list[float], title: str) -> Axis:
    lo, hi = log_domain(values)
    major, minor = log_ticks(lo, hi)
    return Axis(title, True, lo, hi, [(v, number_label(v)) for v in major], minor)


def relative_axis(values: list[float], title: str) -> Axis:
    top = max(max(values), 1.0)
    pad = max((top - 1) * 0.08, 0.005)
    lo, hi = 1 - pad, top + pad
    return Axis(title, False, lo, hi, [(v, f"{v:g}") for v in linear_ticks(lo, hi) if v >= 1 - 1e-9])


def size_axis(xs: list[int], ticks: list[int], label, title: str) -> Axis:
    return Axis(title, True, xs[0], xs[-1], [(v, label(v)) for v in ticks])


def _styles(look: dict) -> dict[str, Style]:
    return {n: Style(c, list(d), s) for n, c, d, s in zip(look["domain"], look["colours"], look["dashes"], look["shapes"])}


def both(label: str, make) -> str:
    """The wide and the narrow drawing, one after the other (CSS shows one)."""
    return make(WIDE, "wide") + make(NARROW, "narrow")


def lines_chart(*, data: list[dict], x: Axis, y: Axis, value: str, look: dict, label: str, one: bool = False) -> str:
    """One line per implementation (the data's `impl`), at (x, `value`), in `look`'s styles;
    drawn wide and narrow, or with `one`, once: narrow, shown at every width (a second view,
    where the page's weight matters more than the width)."""
    styles = _styles(look)
    by: dict[str, list] = {}
    for d in data:
        by.setdefault(d["impl"], []).append((d["x"], d[value]))
    lines = [Line(n, sorted(by[n]), styles[n]) for n in look["domain"] if n in by]
    legend = [LegendItem(ln.name, ln.style) for ln in lines]
    make = lambda layout, cls: draw(label=label, x=x, y=y, lines=lines, legend=legend,
                                    legend_title="implementation", layout=layout, css_class=cls)
    return make(ONE, "one") if one else both(label, make)


def history_drawing(*, points: list[dict], steps: list[dict], x: Axis, y: Axis, look: dict, label: str) -> str:
    """Every result as a point in its implementation's colour with its p20-p80 spread as a thin
    rule, a diamond where a record was set; the standing record per protocol as a grey step line
    over its p20-p80 band."""
    styles = _styles(look)
    lines, bands, rules = [], [], []
    grey = "#777777"
    for proto in sorted({s["protocol"] for s in steps}):
        st = sorted((s for s in steps if s["protocol"] == proto), key=lambda s: s["t"])
        lines.append(Line(f"record · {proto}", [(s["t"], s["us"]) for s in st], Style(grey), step=True,
                          marks=False, width=1.5))
        bands += [Band([(t, hi) for t, _, hi in run], [(t, lo) for t, lo, _ in run], grey, step=True)
                  for run in _spread_runs(st)]
    for p in points:
        if p.get("lo") and p.get("hi"):
            rules.append((p["t"], p["lo"], p["hi"], styles[p["impl"]].colour))
    for name in look["domain"]:
        mine = [p for p in points if p["impl"] == name]
        if mine:
            lines.append(Line(name, [(p["t"], p["us"]) for p in mine], Style(styles[name].colour, [1, 0], "circle"),
                              width=0, big={i for i, p in enumerate(mine) if p["record"] == "new record"}))
    legend = [LegendItem(n, Style(styles[n].colour, [1, 0], "circle"), line=False, kind="mark")
              for n in look["domain"] if any(p["impl"] == n for p in points)]
    legend += [LegendItem("new record", Style(grey, [1, 0], "diamond"), line=False, kind="mark"),
               LegendItem("standing record, p20–p80 band", Style(grey), kind="band")]
    return both(label, lambda layout, cls: draw(label=label, x=x, y=y, lines=lines, bands=bands, rules=rules,
                                                 legend=legend, legend_title="implementation", layout=layout,
                                                 css_class=cls))


def _spread_runs(steps: list[dict]) -> list[list[tuple[float, float, float]]]:
    """The stretches of a step line whose records carry a p20-p80 spread, as (t, p20, p80): each
    record's spread holds until the next record (a record without one ends the stretch)."""
    runs, cur = [], []
    for s in steps:
        if cur:
            cur.append((s["t"], cur[-1][1], cur[-1][2]))  # the previous record holds until here
        if s.get("lo") and s.get("hi"):
            if cur:
                cur.pop()
            cur.append((s["t"], s["lo"], s["hi"]))
        elif cur:
            runs.append(cur)
            cur = []
    if cur:
        runs.append(cur)
    return [r for r in runs if len(r) > 1]


DAY = 86400
_TIME_STEPS = [300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, DAY, 2 * DAY, 7 * DAY, 14 * DAY]


def time_ticks(lo: float, hi: float, one_day: bool, count: int = 6) -> list[tuple[float, str]]:
    """Ticks at round times over [lo, hi] (epoch seconds, UTC): minutes to weeks, then months."""
    import datetime as dt

    utc = dt.timezone.utc
    span = hi - lo
    fmt = "%H:%M" if one_day else "%Y-%m-%d"
    step = next((s for s in _TIME_STEPS if span / s <= count), None)
    if step is not None:
        step = step if one_day or step >= DAY else DAY
        out, t = [], math.ceil(lo / step) * step
        while t <= hi:
            out.append((float(t), dt.datetime.fromtimestamp(t, utc).strftime(fmt)))
            t += step
        return out
    months = next((m for m in (1, 2, 3, 6, 12, 24, 60) if span / (m * 30.4 * DAY) <= count), 120)
    start = dt.datetime.fromtimestamp(lo, utc)
    y, m = start.year, start.month
    out = []
    while True:
        m0 = (m - 1) // months * months + 1
        when = dt.datetime(y, m0, 1, tzinfo=utc)
        if when.timestamp() >= lo:
            if when.timestamp() > hi:
                break
            out.append((when.timestamp(), when.strftime(fmt)))
        m = m0 + months
        y, m = y + (m - 1) // 12, (m - 1) % 12 + 1
    return out


def time_axis(times: list[float], one_day: bool, title: str) -> Axis:
    lo, hi = min(times), max(times)
    pad = max((hi - lo) * 0.04, 1800 if one_day else DAY / 2)
    lo, hi = lo - pad, hi + pad
    return Axis(title, False, lo, hi, time_ticks(lo, hi, one_day), grid=False)


def roofline_drawing(*, points: list[dict], roofs: list[dict], x_domain: list[float], y_domain: list[float],
                     look: dict, label: str) -> str:
    """The roofline (charts.roofline_spec's chart, drawn here): the roofs, each {"name", "dash",
    "vertices": [(x, y), ...]}, as grey lines (solid: datasheet, dashed: measured), then one mark
    per result at (intensity, achieved TFLOP/s) in its implementation's colour and shape;
    log-log; wide and narrow."""
    styles = _styles(look)
    roof_lines = [Line(r["name"], [tuple(v) for v in r["vertices"]], Style("#777777", list(r["dash"])),
                       marks=False, width=1.5) for r in roofs]
    lo, hi = y_domain
    major, minor = log_ticks(lo, hi)
    y = Axis("achieved TFLOP/s (log scale)", True, lo, hi, [(v, number_label(v)) for v in major], minor)
    xmajor, xminor = log_ticks(*x_domain)
    x = Axis("arithmetic intensity (FLOP/byte, log scale) →", True, x_domain[0], x_domain[1],
             [(v, number_label(v)) for v in xmajor], xminor)
    by: dict[str, list] = {}
    for p in points:
        by.setdefault(p["impl"], []).append((p["x"], p["tflops"]))
    marks_ = [Line(n, sorted(by[n]), styles[n], width=0) for n in look["domain"] if n in by]
    legend = [LegendItem(ln.name, ln.style, kind="rule") for ln in roof_lines] + \
             [LegendItem(ln.name, ln.style, line=False, kind="mark") for ln in marks_]
    make = lambda layout, cls: draw(label=label, x=x, y=y, lines=roof_lines + marks_, legend=legend,
                                    legend_title="", layout=layout, css_class=cls, x_labels_rotate=False)
    return both(label, make)
