"""Sweep candidates for the experimental one-launch wide kernel (_k_wide, NOTES.md, issue 14, "Few
rows × huge hidden"), for runner_sweep.py:

    python lab/fused_add_rmsnorm/make_wide_cands.py > lab/fused_add_rmsnorm/candidates/wide-cands.json
    bash lab/fused_add_rmsnorm/device_issue14.sh sweepwide        # on the GPU machine

Per key (the few-rows × huge-hidden losses of the 2026-12-02 sweep): cfg0 the model's choice,
then per CHUNK the split kernel with BLOCK = CHUNK (SPLIT = NCH programs a row: the bits every
wide variant of that CHUNK must reproduce) and the wide kernel with NCH / 2 and NCH / 4 programs
a row. A wide candidate is worth folding only as a PARTS knob per rows bucket on top of an
anchor with the same CHUNK and warps (its bits are that split's), so each key is timed at a
few rows and at many.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
os.environ.setdefault("TRITON_INTERPRET", "1")

from site_builder.runner.families import import_module  # noqa: E402

c = import_module("fused-add-rmsnorm", "kr_triton_config")

KEYS = {(46592, 2): ["2x46592:fp16", "512x46592:fp16"], (103482, 2): ["2x103482:fp16", "512x103482:fp16"],
        (42006, 2): ["335x42006:fp16"], (82496, 4): ["13x82496:fp32", "1024x82496:fp32"]}


def candidates(n: int, el: int) -> list[dict]:
    out = [c.model_config(n, el)]
    for chunk in (2048, 4096):
        nch = c._wide_cfg(n, chunk, 1, 4)["NCH"]
        # at most 8192 columns a program on 4 warps (four 4096-column fp32 chunks spill: compile_check.py)
        parts = [p for p in (nch // 2, nch // 4) if nch // p * chunk <= 8192]
        out.append(c._split_cfg(n, chunk, 4, hints=0))
        out += [c._wide_cfg(n, chunk, p, 4) for p in parts]
    seen, unique = set(), []
    for cfg in out:
        key = json.dumps(cfg, sort_keys=True)
        if key not in seen:
            seen.add(key)
            unique.append(cfg)
    return unique


def main() -> None:
    cands = {f"{n},{el}": candidates(n, el) for (n, el) in KEYS}
    workloads = ";".join(f"{n},{el}=" + ",".join(w) for (n, el), w in KEYS.items())
    json.dump({"cands": cands, "workloads": workloads}, sys.stdout, indent=1, default=list)
    print()


if __name__ == "__main__":
    main()
