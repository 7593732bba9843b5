"""Random shapes for `kernel-records bench --random N --seed S` (the family's `sample_shapes`
hook), declared for the shared sampler (site_builder/runner/shapes.py). Standard library only.

Even draws are prefill, odd draws decode (alternating, so both are in every set of two or more):

- prefill: batch log-uniform in [1, 16]; seq log-uniform in [128, 16384], rounded to a
  multiple of 128 when i % 4 == 0 and arbitrary when i % 4 == 2; pos_batch 1 (one prefill
  chunk per sequence); kind forward or backward (1/2 each).
- decode: batch log-uniform in [1, 256]; seq 1; pos_batch = batch (each sequence at its own
  position); kind forward (a decode step has no backward).

Head layouts (heads_q / heads_kv, 1/14 each): 32/8, 64/8, 28/4, 40/8, 32/4, 16/8, 32/16, 128/1,
32/32, 16/2, 12/2, 96/8, 8/1, 64/4 (grouped-query ratios of current open models, multi-head and
the one-key-head rope part of multi-head latent attention); heads_q is always a multiple of
heads_kv. head_dim 64 (1/4), 128 (1/2) or 256 (1/4); bfloat16, the record's dtype. A draw with
more than 2^28 elements of q (batch x seq x heads_q x head_dim; the record's largest is 2^27) has
its seq cut to fit, then its batch; KR_BENCH_MAX_ELEMENTS=<n> lowers that cap (CPU dry runs),
never raises it.
"""

from __future__ import annotations

from site_builder.runner.family import Shape
from site_builder.runner.shapes import Cap, Choice, Cycle, Derived, Fixed, LogUniform, Sampler

PREFILL_BATCH = (1, 16)
DECODE_BATCH = (1, 256)
SEQ = (128, 16384)
HEADS = ((32, 8), (64, 8), (28, 4), (40, 8), (32, 4), (16, 8), (32, 16), (128, 1), (32, 32), (16, 2), (12, 2),
         (96, 8), (8, 1), (64, 4))
HEAD_DIMS = (64, 128, 256)
MAX_ELEMENTS = 2**28

SAMPLER = Sampler(
    "rope",
    axes={"batch": Cycle(LogUniform(*PREFILL_BATCH), LogUniform(*DECODE_BATCH)),
          "heads": Choice(tuple({"heads_q": q, "heads_kv": kv} for q, kv in HEADS)),
          "seq": Cycle(LogUniform(*SEQ, multiple=128), Fixed(1), LogUniform(*SEQ), Fixed(1)),
          "head_dim": Choice(HEAD_DIMS, weights=(1, 2, 1)),
          "pos_batch": Cycle(Fixed(1), Derived(lambda s: s["batch"]))},
    dtype=Fixed("bfloat16"),
    kind=Cycle(Choice(("forward", "backward")), Fixed("forward")),
    caps=(Cap(("batch", "seq", "heads_q", "head_dim"), MAX_ELEMENTS, cut=("seq", "batch")),))


def sample_shapes(n: int, seed: int) -> list[Shape]:
    return SAMPLER.sample(n, seed)
