"""Random shapes for `kernel-records bench --random N --seed S` (the family's `sample_shapes`
hook), declared for the shared sampler (site_builder/runner/shapes.py). Standard library only.

tokens log-uniform in [1024, 32768] (batch x sequence per step), on even draws rounded to a
multiple of 1024, on odd ones arbitrary (packed sequences); vocab in [32000, 262144] by draw
index i: i % 3 == 0 one of 32000, 128256, 151936, 262144 (1/4 each), i % 3 == 1 log-uniform and
arbitrary (odd sizes included), i % 3 == 2 log-uniform rounded to a multiple of 64; valid_pct
(the percent of targets that count, inputs.py ignores the rest) 100 (1/2), 90, 75 or 50 (1/6
each); dtype bfloat16 (2/3) or float32 (1/3); kind forward or forward+backward (1/2 each). A
draw of more than 2^30 logits (tokens x vocab, the record's largest bf16 workloads) has its
tokens cut to 2^30 // vocab, never below 2 (so that a 50 % share still leaves a counted target:
an all-ignored batch is a NaN loss); KR_BENCH_MAX_ELEMENTS=<n> lowers that cap (CPU dry runs),
never raises it.
"""

from __future__ import annotations

from site_builder.runner.family import Shape
from site_builder.runner.shapes import Cap, Choice, Cycle, LogUniform, Sampler

TOKENS = (1024, 32768)
VOCAB = (32000, 262144)
VOCABS = (32000, 128256, 151936, 262144)
VALID_PCT = (100, 90, 75, 50)
MAX_ELEMENTS = 2**30

SAMPLER = Sampler(
    "cross-entropy",
    axes={"tokens": Cycle(LogUniform(*TOKENS, multiple=1024), LogUniform(*TOKENS)),
          "vocab": Cycle(Choice(VOCABS), LogUniform(*VOCAB), LogUniform(*VOCAB, multiple=64)),
          "valid_pct": Choice(VALID_PCT, weights=(3, 1, 1, 1))},
    dtype=Choice(("bfloat16", "float32"), weights=(2, 1)),
    kind=Choice(("forward", "forward+backward")),
    caps=(Cap(("tokens", "vocab"), MAX_ELEMENTS, cut="tokens", floor=2),))


def sample_shapes(n: int, seed: int) -> list[Shape]:
    return SAMPLER.sample(n, seed)
