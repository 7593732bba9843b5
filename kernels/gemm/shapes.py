"""Shapes beyond the family record's workloads, for `kernel-records bench --random N --seed S`
and `--set models` (the family's `sample_shapes` and `shape_set` hooks); the configuration
sweep (lab/gemm/sweep.py) tunes on one seed's shapes and reports on another's. Standard
library only.

Random shapes: M log-uniform in [1, 16384] (a third of the draws at decode sizes M ≤ 16, the
class the model treats apart); N and K log-uniform in [1024, 32768], rounded to a multiple of
128 (the projection sizes of current models are) except one draw in four, left arbitrary
(odd K: the masked, non-TMA path); bfloat16. A draw of more than MAX_FLOPS (2·M·N·K) has its
M cut so that one shape stays under about 10 ms on an H200 (a sweep times many).

Model shapes: every (N, K) of the family record at M = 1, 16, 128, 1024, 4096, 16384, plus the
other projections of the same models (Qwen 3 8B, DeepSeek V3's dense MLP and attention).
"""

from __future__ import annotations

import math
import random

from site_builder.runner.family import Shape

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


def _log_uniform(rng: random.Random, low: int, high: int) -> int:
    return min(high, max(low, int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))))


def sample_shapes(n: int, seed: int) -> list[Shape]:
    rng = random.Random(f"gemm shapes {seed}")
    out = []
    for i in range(n):
        m = rng.randint(1, 16) if i % 3 == 0 else _log_uniform(rng, *M_RANGE)
        nn_, k = _log_uniform(rng, *NK_RANGE), _log_uniform(rng, *NK_RANGE)
        if i % 4 != 3:
            nn_, k = max(128, 128 * round(nn_ / 128)), max(128, 128 * round(k / 128))
        m = max(1, min(m, int(MAX_FLOPS // (2 * nn_ * k))))
        out.append(Shape(sizes={"m": m, "n": nn_, "k": k}, dtype="bfloat16"))
    return out


def model_shapes() -> list[Shape]:
    return [Shape(sizes={"m": m, "n": n, "k": k}, dtype="bfloat16") for n, k in MODEL_NK for m in MODEL_M]
