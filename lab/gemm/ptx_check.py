"""Compile kr-triton-gemm's kernels for sm_90 on a machine without a GPU and count the memory
instructions of the PTX: are the loads and stores 16 bytes wide where the host promised
alignment (VEC_AB / VEC_C / VEC_N), and does the TMA kernel fit in shared memory?

    TRITON_DEFAULT_FP_FUSION=1 python lab/gemm/ptx_check.py      (not under TRITON_INTERPRET)

Prints one line per kernel variant: instruction counts and shared memory bytes. Pointer
arguments are declared 16-byte aligned (as Triton specialises them); integer arguments get
no divisibility (K = 4008, a stride of 2608: multiples of 8, not of 16) unless said.
"""

from __future__ import annotations

import collections
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

from site_builder.runner.families import import_module  # noqa: E402

K_ = import_module("gemm", "kr_triton_kernels")  # as the runner imports it (kr_kernels.gemm)

TARGET = GPUTarget("cuda", 90, 32)
D16 = [["tt.divisibility", 16]]


def summary(k) -> str:
    c = collections.Counter()
    for line in k.asm["ptx"].splitlines():
        m = re.match(r"(@%p\d+\s+)?(cp\.async\.c[ag]|cp\.async\.bulk\.tensor\.\dd|ld\.global[\w.]*|st\.global[\w.]*)",
                     line.strip())
        if m:
            size = re.search(r",\s*(0x10|0x8|0x4)\s*[,;]", line) if m.group(2).startswith("cp.async.c") else None
            c[m.group(2) + (f"[{int(size.group(1), 16)}B]" if size else "")] += 1
    return f"{dict(sorted(c.items()))} shared {k.metadata.shared}"


def compile_(fn, sig, consts, attrs, **opts):
    for name in consts:
        sig[name] = "constexpr"
    return triton.compile(ASTSource(fn, sig, consts, attrs), target=TARGET, options=opts)


def split_k(vab, k16):
    names = ["a_ptr", "b_ptr", "part_ptr", "M", "N", "K", "s_am", "s_ak", "s_bn", "s_bk", "K_PER_SPLIT",
             "c_ptr", "s_cm", "s_cn", "count_ptr", "SPLITS"]
    sig = dict(zip(names, ["*bf16", "*bf16", "*fp32"] + ["i32"] * 8 + ["*bf16", "i32", "i32", "*fp32", "i32"]))
    consts = dict(BM=64, BN=128, BK=64, IEEE=False, FUSED=False, VEC_AB=vab, VEC_N=1, s_ak=1, s_bk=1)
    attrs = {(0,): D16, (1,): D16, (2,): D16, (11,): D16, (10,): D16}
    if k16:
        attrs.update({(5,): D16, (6,): D16, (8,): D16})
    return compile_(K_.split_k, sig, consts, attrs, num_warps=4, num_stages=4)


def tiles(vab, vc):
    names = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "s_am", "s_ak", "s_bn", "s_bk", "s_cm", "s_cn"]
    sig = dict(zip(names, ["*bf16"] * 3 + ["i32"] * 9))
    consts = dict(BM=128, BN=128, BK=64, GROUP_M=8, NUM_PROGRAMS=132, IEEE=False, VEC_AB=vab, VEC_C=vc)
    return compile_(K_.tiles_persistent, sig, consts, {(0,): D16, (1,): D16, (2,): D16}, num_warps=4, num_stages=4)


def tma(splits, bm, bn, warps, stages):
    names = ["a_ptr", "b_ptr", "c_ptr", "part_ptr", "M", "N", "K", "s_a", "s_b", "s_c", "s_p", "KT_PER_SPLIT"]
    sig = dict(zip(names, ["*bf16"] * 3 + ["*fp32"] + ["i32"] * 8))
    consts = dict(BM=bm, BN=bn, BK=64, GROUP_M=8, NUM_PROGRAMS=132, WS=False, IEEE=False, SPLITS=splits)
    return compile_(K_.tma_persistent, sig, consts, {(i,): D16 for i in range(4)}, num_warps=warps, num_stages=stages)


def pad():
    sig = dict(src_ptr="*bf16", dst_ptr="*bf16", R="i32", C="i32", CP="i32", s_r="i32", s_c="i32")
    return compile_(K_.pad_copy, sig, dict(BR=16, BC=128, VEC=8), {(0,): D16, (1,): D16}, num_warps=4)


if __name__ == "__main__":
    print("split_k, K and strides multiples of 16 (Triton's own specialisation):", summary(split_k(1, True)))
    print("split_k, multiples of 8 only, no hint:", summary(split_k(1, False)))
    print("split_k, multiples of 8 only, VEC_AB=8:", summary(split_k(8, False)))
    print("tiles, no hint:", summary(tiles(1, 1)))
    print("tiles, VEC_AB=8 VEC_C=8:", summary(tiles(8, 8)))
    for s, bm, bn, w, st in [(1, 128, 256, 8, 3), (3, 128, 256, 8, 3), (1, 256, 128, 8, 3), (2, 256, 128, 8, 3),
                             (1, 128, 128, 4, 4), (3, 128, 128, 4, 4), (4, 64, 128, 4, 4), (4, 64, 256, 8, 3)]:
        print(f"tma {bm}x{bn} {w} warps {st} stages SPLITS={s}:", summary(tma(s, bm, bn, w, st)))
    print("pad_copy:", summary(pad()))
