"""The configuration model of kr_triton against the sweep data in results.jsonl (issue 14).

    python lab/fused_add_rmsnorm/config_model.py [--shapes]      # no GPU needed

For every (hidden, element size) that a sweep in results.jsonl timed (attempts sweep6, sweep7,
sweep8: bench.py --sweep, all candidates of one workload in one process, Liger beside them; and
runner8: candidates timed by the runner's own worker code), prints the model's anchor for it
(kr_triton_tuned.json), the anchor's device time in each swept workload where the anchor was
among the candidates, the best candidate's, their ratio, and the one-layout-for-all-rows choice
of that attempt: the candidate present in every swept row count of the hidden size whose worst
ratio to each row count's best is lowest (the rule by which the anchors were chosen since sweep
6: a row's result must not depend on how many rows come with it, so one layout per hidden size),
among the candidates without streaming cache hints (HINTS 2 is excluded, as version 8 decided:
it measures fast only when the kernel follows itself, NOTES.md).
Anchors that no attempt in results.jsonl timed (they come from the earlier sweeps of versions
3-5, whose results were not kept as JSON) are listed as such.

--shapes also prints the configuration the model gives the `models` set and one random draw
(seed 1), with the rule and anchor behind each.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
os.environ.setdefault("TRITON_INTERPRET", "1")  # no GPU needed: only the configuration code runs

from site_builder.runner.families import import_module  # noqa: E402

cfgmod = import_module("fused-add-rmsnorm", "kr_triton_config")
shapes = import_module("fused-add-rmsnorm", "shapes")

ELSIZE = {"fp32": 4, "bf16": 2, "fp16": 2}
ORDER = {"sweep6": 6, "sweep7": 7, "runner8": 8, "sweep8": 8}


def norm(cfg: dict) -> str:
    c = dict(cfg)
    if "S" in c:
        c["S"] = list(c["S"])
    return json.dumps(c, sort_keys=True)


def load(path: str):
    """{(hidden, elsize): {attempt: {rows: {cfg json: µs}}}}"""
    out: dict = defaultdict(lambda: defaultdict(dict))
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if d.get("attempt") in ("sweep6", "sweep7", "sweep8") and "cfgs" in d:
                rows, rest = d["workload"].split("x", 1)
                hidden, dt = rest.split(":")
                times = {}
                for name, cfg in d["cfgs"].items():
                    r = d["impls"].get(name) or {}
                    if cfg.get("HINTS") == 2:
                        continue
                    if isinstance(r, dict) and "us" in r:
                        times[norm(cfg)] = r["us"]
                out[(int(hidden), ELSIZE[dt])][d["attempt"]][int(rows)] = times
            elif d.get("attempt") == "runner8":
                for key, block in d["keys"].items():
                    hidden, el = (int(v) for v in key.split(","))
                    for wid, per in block["times"].items():
                        rows = int(wid.split("-")[0][1:])
                        times = {norm(block["cfgs"][int(c[3:])]): statistics.median(t["device"])
                                 for c, t in per.items() if c.startswith("cfg")
                                 and block["cfgs"][int(c[3:])].get("HINTS") != 2}
                        out[(hidden, el)]["runner8"][rows] = times
    return out


def minimax(per_rows: dict) -> tuple[str, float] | None:
    common = set.intersection(*(set(t) for t in per_rows.values())) if per_rows else set()
    if not common:
        return None
    best = {r: min(t.values()) for r, t in per_rows.items()}
    scored = {c: max(per_rows[r][c] / best[r] for r in per_rows) for c in common}
    c = min(scored, key=scored.get)
    return c, scored[c]


def main(argv) -> int:
    data = load(os.path.join(HERE, "results.jsonl"))
    print("| hidden | elsize | anchor (model) | attempt | rows: anchor µs / best µs (ratio) | one layout for all rows "
          "(worst ratio) | = anchor? |")
    print("|---|---|---|---|---|---|---|")
    for el, group in sorted(cfgmod._ANCHORS.items()):
        for hidden, anchor in group:
            a = norm(anchor)
            short = {k: v for k, v in anchor.items() if k not in ("MASK_COLS",)}
            attempts = data.get((hidden, el), {})
            if not attempts:
                print(f"| {hidden} | {el} | `{json.dumps(short)}` | — | not timed by any attempt in results.jsonl "
                      f"(its `from` in kr_triton_tuned.json: versions 3-5 sweeps or issue-14 sweep14) | — | — |")
                continue
            for attempt in sorted(attempts, key=ORDER.get):
                per_rows = attempts[attempt]
                cells = []
                for rows, times in sorted(per_rows.items()):
                    best = min(times.values())
                    mine = times.get(a)
                    cells.append(f"{rows}: {mine:.2f} / {best:.2f} ({mine / best:.3f})" if mine is not None
                                 else f"{rows}: not a candidate / {best:.2f}")
                mm = minimax(per_rows)
                mm_txt = (f"`{json.dumps({k: v for k, v in json.loads(mm[0]).items() if k != 'MASK_COLS'})}` "
                          f"({mm[1]:.3f})" if mm else "—")
                same = "yes" if mm and mm[0] == a else "no"
                print(f"| {hidden} | {el} | `{json.dumps(short)}` | {attempt} | {'; '.join(cells)} | {mm_txt} | {same} |")
    if "--shapes" in argv:
        print()
        print("| shape | dtype | rule, anchor | configuration |")
        print("|---|---|---|---|")
        seen = set()
        for s in shapes.model_shapes() + shapes.sample_shapes(40, 1):
            n, el = s.sizes["hidden"], 4 if s.dtype == "float32" else 2
            key = (n, el, s.dtype, tuple(sorted(s.tensors.items())))
            if key in seen:
                continue
            seen.add(key)
            rule = cfgmod.model_anchor(n, el)
            dt = s.dtype + ("+w32" if s.tensors else "")
            print(f"| {s.sizes['rows']} x {n} | {dt} | {rule[0]}, {rule[1]} | `{json.dumps(cfgmod.model_config(n, el))}` |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
