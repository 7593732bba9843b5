"""Shapes beyond the family record's workloads, for `kernel-records bench --random N --seed S`
and `--set models` (the family's `sample_shapes` and `shape_set` hooks); the configuration
sweep (lab/gemm/sweep.py) tunes on one seed's shapes and reports on another's. The random
shapes are declared for the shared sampler (site_builder/runner/shapes.py). Standard library
only.

Random shapes: M log-uniform in [1, 16384] (a third of the draws at decode sizes M ≤ 16, the
class the model treats apart); N and K log-uniform in [1024, 32768], rounded to a multiple of
128 (the projection sizes of current models are) except one draw in four, left arbitrary
(odd K: the masked, non-TMA path); bfloat16. A draw of more than MAX_FLOPS (2·M·N·K) has its
M cut so that one shape stays under about 10 ms on an H200 (a sweep times many).

Model shapes: every (N, K) of the family record at M = 1, 16, 128, 1024, 4096, 16384, plus the
other projections of the same models (Qwen 3 8B, DeepSeek V3's dense MLP and attention).
"""

from __future__ import annotations

from site_builder.runner.family import Shape
from site_builder.runner.shapes import Cap, Cycle, Fixed, LogUniform, Sampler, Uniform

M_RANGE = (1, 16384)
NK_RANGE = (1024, 32768)
MAX_FLOPS = 8e12  # ≈ 10 ms at 800 TFLOP/s
MODEL_M = (1, 16, 128, 1024, 4096, 16384)
MODEL_NK = (
    (6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336),  # Llama 3 8B (QKV also Qwen 3 8B)
    (10240, 8192), (8192, 8192), (57344, 8192), (8192, 28672),  # Llama 3 70B
    (4096, 7168), (7168, 2048),  # DeepSeek V3 routed expert: gate+up, down
    (36864, 7168), (7168, 18432), (7168, 16384), (2112, 7168), (24576, 1536),  # DeepSeek V3 dense MLP, attention o, q/kv down, q up
    (10240, 5120), (5120, 8192), (51200, 5120), (5120, 25600),  # Qwen 3 32B
    (24576, 4096), (4096, 12288),  # Qwen 3 8B MLP
)


_NK = Cycle(*[LogUniform(*NK_RANGE, multiple=128)] * 3, LogUniform(*NK_RANGE))  # draw i % 4 == 3: arbitrary

SAMPLER = Sampler(
    "gemm",
    # a third of the draws (i % 3 == 0) at decode sizes M ≤ 16
    axes={"m": Cycle(Uniform(1, 16), LogUniform(*M_RANGE), LogUniform(*M_RANGE)), "n": _NK, "k": _NK},
    dtype=Fixed("bfloat16"),
    # 2·M·N·K ≤ MAX_FLOPS, M cut; a flop bound, not an element count: KR_BENCH_MAX_ELEMENTS does not apply
    caps=(Cap(("m", "n", "k"), int(MAX_FLOPS) // 2, cut="m", env=None),))


def sample_shapes(n: int, seed: int) -> list[Shape]:
    return SAMPLER.sample(n, seed)


def model_shapes() -> list[Shape]:
    return [Shape(sizes={"m": m, "n": n, "k": k}, dtype="bfloat16") for n, k in MODEL_NK for m in MODEL_M]
