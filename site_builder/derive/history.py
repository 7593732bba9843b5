"""Record history of a series (family, workload, hardware): every result over time, oldest
first, and the moments a record was set.

The record of a cohort (family, workload, GPU, protocol) is one thing everywhere — the family
page, the history page, the feed and the JSON: the fastest current result, where the current
result of an implementation is the one in its newest run (older ones are superseded), and only
an eligible current result counts (ok, correct, not below the floor). So the record is the top of
the cohort's leaderboard, and the history replays the same rule run by run.

A run sets a **new record** when, after it, the record is one of its results and that result's
median beats the record before it by more than both spreads (each result's p20–p80; a result
without percentiles has spread 0). A run whose result takes the top place without that margin
is **tied** with the record before it: within noise, so no new record is announced. The first
eligible result of a cohort sets its first record. Results of one run are simultaneous: only
the run's fastest can take the record. Dates come from the records, never from the build clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby

from .entries import Entry


@dataclass(frozen=True)
class Point:
    """One result of a series, with what it did to the record of its protocol."""

    entry: Entry
    record_set: bool
    previous: "Entry | None"  # the record it beat, or tied with (None for a first record / no event)
    tied: bool = False  # took the top place within the spreads of the record before it


@dataclass(frozen=True)
class Series:
    family: str
    workload: str
    hardware: str
    points: tuple[Point, ...]  # oldest first
    records: tuple[Point, ...]  # the points that set a record, oldest first
    current: tuple[tuple[str, Point], ...]  # per protocol (sorted), the record that stands now

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.family, self.workload, self.hardware)


def spread(e: Entry) -> float:
    """The p20–p80 spread of a result's ranking clock, 0 when the record gives no percentiles."""
    s = e.stat
    return (s.p80 - s.p20) if s is not None and s.p20 is not None and s.p80 is not None else 0.0


def beats(new: Entry, old: Entry) -> bool:
    """A new record: the median is faster by more than both spreads."""
    return old.time_us - new.time_us > max(spread(new), spread(old))


def _counts(e: Entry) -> bool:
    return not e.reasons and bool(e.time_us)


def _standing(current: dict[str, Entry]) -> Entry | None:
    """The record among the current results: the fastest eligible one (the leaderboard's order)."""
    ok = [e for e in current.values() if _counts(e)]
    return min(ok, key=lambda e: (e.time_us, e.implementation.id)) if ok else None


def series(key: tuple[str, str, str], entries: list[Entry]) -> Series:
    group = sorted(entries, key=lambda e: (e.observed, e.lr.path, e.index))
    current: dict[str, dict[str, Entry]] = {}  # protocol -> implementation -> newest result
    points: list[Point] = []
    by_entry: dict[int, Point] = {}
    for path, batch in groupby(group, key=lambda e: e.lr.path):
        batch = list(batch)
        before = {proto: _standing(c) for proto, c in current.items()}
        for e in batch:
            current.setdefault(e.run.protocol.id, {})[e.implementation.id] = e
        events: dict[int, Point] = {}
        for proto in sorted({e.run.protocol.id for e in batch}):
            now, old = _standing(current[proto]), before.get(proto)
            if now is None or now.lr.path != path:
                continue
            if old is None:
                events[id(now)] = Point(now, True, None)
            elif beats(now, old):
                events[id(now)] = Point(now, True, old)
            elif now.time_us <= old.time_us + max(spread(now), spread(old)):
                events[id(now)] = Point(now, False, old, tied=True)
        for e in batch:
            point = events.get(id(e)) or Point(e, False, None)
            by_entry[id(e)] = point
            points.append(point)
    records = tuple(p for p in points if p.record_set)
    standing = {proto: _standing(c) for proto, c in current.items()}
    return Series(*key, tuple(points), records,
                  tuple((proto, by_entry[id(e)]) for proto, e in sorted(standing.items()) if e is not None))
