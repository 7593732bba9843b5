"""How wide a row's loads and stores may be, shared by the row kernels (softmax, RMSNorm,
LayerNorm): `access_granularity` computes G on the host, `row_ptr` declares it in a kernel.

Triton proves a row's start aligned only from its own specialisation (an integer argument a
multiple of 16, a pointer on a 16-byte boundary). A contiguous row whose length is not a
multiple of 16 therefore got one-element accesses: 23162 bf16 softmax columns and 28690 fp16
RMSNorm columns were read and written 2 bytes at a time (H200, 2026-12-04 and -05:
lab/softmax/NOTES.md, lab/norms/align_probe.py), up to 1.5x slower than torch.compile. With G
declared they take 4-byte accesses, 32008 columns 16-byte ones; an odd length stays at one
element.
"""

from __future__ import annotations

import triton
import triton.language as tl

__all__ = ["access_granularity", "row_ptr"]


def access_granularity(n: int, strides=(), tensors=()) -> int:
    """G, the width in elements of a row's accesses: the largest power of two, up to one 16-byte
    vector of the narrowest element, that divides the row length n and every row stride, with
    every tensor's base pointer aligned to min(G of its elements, 16 bytes) (the minimum is for
    mixed dtypes: an fp32 output beside bf16 input needs 16 bytes, not 32). Rows then start
    G-aligned, and so does every G-column group of a row when blocks start at multiples of G.

    A function of the row length, strides and base pointers, never of the number of rows: the
    access width decides Triton's layout and so a row's reduction order, and a row's bits must
    not depend on the rows beside it. (A view of some of a tensor's rows starts at
    base + first row * stride: it gets the tensor's G.)"""
    g = 16 // min((t.element_size() for t in tensors), default=2)
    while g > 1 and (any(v % g for v in (n, *strides))
                     or any(t.data_ptr() % min(g * t.element_size(), 16) for t in tensors)):
        g //= 2
    return g


@triton.jit
def row_ptr(P, off, G: tl.constexpr):
    """P + off, off (a row's offset in elements, one scalar or one per row) declared a multiple
    of G and the pointer aligned to min(G elements, 16 bytes), as `access_granularity` checked.
    The pointer is declared, not only the offset, so that the access width (hence the layout and
    a row's reduction order) follows G alone, not whether Triton specialised this view's base as
    16-byte aligned. (The hints go on values computed here: one on an argument of this function
    would be lost when it is inlined.)"""
    if G > 1:
        off = tl.multiple_of(off, G)
    p = P + off
    if G > 1:
        BYTES: tl.constexpr = G * (P.dtype.element_ty.primitive_bitwidth // 8)
        ALIGN: tl.constexpr = BYTES if BYTES < 16 else 16
        p = tl.multiple_of(p, ALIGN)
    return p
