"""The tables of the element-wise launch sweeps (lab/swiglu/sweep.py, lab/rope/sweep.py): from a
sweep's report (workloads, per-candidate and per-peer device samples, `same_as` twins), the
per-workload table and the geometric means of candidate / fastest peer per set and family-kind.
Each sweep passes its title, its short implementation and family names, and its file prefix.
"""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path


def _med(cell):
    return statistics.median(cell["device"]) if cell.get("device") else None


def resolved(per: dict, name: str):
    """A candidate's median, following same_as to the twin measured on the workload."""
    cell = per.get(name, {})
    if cell.get("same_as"):
        cell = per.get(cell["same_as"], {})
    return _med(cell)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def summarise(report: dict, short_fam: dict) -> dict:
    cands, peers = report["cands"], report["peers"]
    groups = {}
    for wkey, w in report["workloads"].items():
        per = report["times"][wkey]
        pt = [t for t in (_med(per.get(p, {})) for p in peers) if t is not None]
        if not pt:
            continue
        fastest = min(pt)
        for c in cands:
            t = resolved(per, c)
            if t is None:
                continue
            r = t / fastest
            for g in (w["set"], f"{w['set']}/{short_fam[w['family']]}-{w['kind'][:3]}"):
                groups.setdefault(g, {}).setdefault(c, []).append(r)
        best = [resolved(per, c) for c in cands]
        best = [b for b in best if b is not None]
        if best:
            for g in (w["set"], f"{w['set']}/{short_fam[w['family']]}-{w['kind'][:3]}"):
                groups.setdefault(g, {}).setdefault("(best per shape)", []).append(min(best) / fastest)
    return {g: {c: {"geomean": round(geomean(v), 4), "n": len(v), "worst": round(max(v), 4)}
                for c, v in per.items()} for g, per in sorted(groups.items())}


def table(report: dict, title: str, short: dict, short_fam: dict) -> str:
    cands, peers = report["cands"], report["peers"]
    names = cands + peers
    bw = report.get("bandwidth_gbps")
    lines = [f"{title}: device µs, median (runner protocol, cold L2); floor = declared bytes "
             f"at the copy bandwidth {bw} GB/s; best candidate in bold", "",
             "| workload | set | kind | MB | floor | " + " | ".join(short.get(n, n) for n in names)
             + " | best | best / fastest peer | model / fastest peer | best / floor |",
             "|" + "---|" * (len(names) + 9)]
    for wkey, w in report["workloads"].items():
        per = report["times"][wkey]
        med = {n: resolved(per, n) for n in names}
        kr = {n: med[n] for n in cands if med[n] is not None}
        pt = {n: med[n] for n in peers if med[n] is not None}
        best = min(kr, key=kr.get) if kr else None
        fastest = min(pt.values()) if pt else None
        floor = w["floor_us"]
        cells = []
        for n in names:
            cell = per.get(n, {})
            if cell.get("same_as"):
                cells.append(f"= {cell['same_as']}")
            elif med[n] is not None:
                s = f"{med[n]:.2f}"
                cells.append(f"**{s}**" if n == best else s)
            else:
                cells.append(cell.get("status", "—"))
        r_best = f"{kr[best] / fastest:.3f}" if best and fastest else "—"
        r_model = f"{kr['model'] / fastest:.3f}" if "model" in kr and fastest else "—"
        r_floor = f"{kr[best] / floor:.3f}" if best and floor else "—"
        lines.append(f"| {wkey} | {w['set']} | {w['kind'][:3]} | {w['mb']:.1f} | {floor:.2f} | " + " | ".join(cells)
                     + f" | {best or '—'} | {r_best} | {r_model} | {r_floor} |")
    summ = summarise(report, short_fam)
    lines += ["", "Geometric mean of candidate / fastest peer (n workloads; worst ratio); < 1 beats every peer.", ""]
    gnames = list(summ)
    cols = cands + ["(best per shape)"]
    lines.append("| candidate | " + " | ".join(gnames) + " |")
    lines.append("|" + "---|" * (len(gnames) + 1))
    for c in cols:
        cells = []
        for g in gnames:
            e = summ[g].get(c)
            cells.append(f"{e['geomean']:.3f} ({e['n']}; {e['worst']:.3f})" if e else "—")
        lines.append(f"| {c} | " + " | ".join(cells) + " |")
    lines += ["", "Candidates: " + "; ".join(f"{c} = {report['cand_cfgs'][c] or 'shipped'}" for c in cands)]
    if report.get("stopped"):
        lines += ["", f"Stopped: {report['stopped']}"]
    return "\n".join(lines) + "\n"


def write(out: Path, prefix: str, report: dict, title: str, short: dict, short_fam: dict) -> None:
    """<prefix>-sweep.json (the report with its summary) and <prefix>-sweep.md (the tables)."""
    report["summary"] = summarise(report, short_fam)
    (out / f"{prefix}-sweep.json").write_text(json.dumps(report, indent=1))
    (out / f"{prefix}-sweep.md").write_text(table(report, title, short, short_fam))
