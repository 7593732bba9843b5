"""The norms' aligned forwards (kernels/rmsnorm/kr_triton.py, kernels/layernorm/kr_triton.py):
`aligned_ok` checks on the host that a forward may take them, `aligned_row` splits a contiguous
row at its first 16-byte boundary in a kernel.

A row whose length is not a multiple of 16 bytes starts on a boundary only every few rows, so
the plain kernels' accesses to it are narrower than 16 bytes (kernels/_row_access.py). The
aligned forwards read such a row as a head (the columns before its first boundary), a body of
whole 16-byte vectors, and a tail; the body's accesses are 16 bytes wide. Its bits then follow
the row's address modulo 16 (the module docstrings of both norms say where that matters).
"""

from __future__ import annotations

import triton
import triton.language as tl

__all__ = ["aligned_ok", "aligned_row"]


def aligned_ok(x2, y2, n: int) -> bool:
    """Whether the norms' aligned forwards apply to these [rows, n] views of x and y (kind
    "aligned", or a chunked configuration's ALIGN): contiguous rows on 16-byte boundaries, of a
    length that is not a multiple of 16 bytes of x (otherwise every row starts on a boundary and
    the plain kernels' accesses are 16 bytes already). y is as wide as x or wider
    (promote_types), so its body starts on a boundary too."""
    vec = 16 // x2.element_size()
    return (n % vec != 0 and x2.stride(0) == n and y2.stride(0) == n and x2.stride(1) == 1
            and x2.data_ptr() % 16 == 0 and y2.data_ptr() % 16 == 0)


@triton.jit
def aligned_row(X, Y, xoff, N, VEC: tl.constexpr):
    """A contiguous row (or rows: xoff a vector) at element offset xoff of X and Y, for the
    aligned forwards (the norms' `_fwd_chunked_aligned` and `_fwd_aligned`): its head, the
    columns before its first 16-byte boundary (fewer than VEC: VEC elements are 16 bytes of
    x), its body's length nb and whole vectors nbv (declared a multiple of VEC: a mask over
    the body stays constant over each vector, so its accesses stay 16 bytes wide), and the
    body's first elements in X and Y, declared on 16-byte boundaries (the host checked both
    bases, and Y's elements are at least as wide as X's). Returns (head, nb, nbv, xb, yb)."""
    head = ((VEC - xoff % VEC) % VEC).to(tl.int32)
    head = tl.minimum(head, N)
    body = tl.multiple_of(xoff + head, VEC)
    nb = N - head
    nbv = tl.multiple_of((nb // VEC) * VEC, VEC)
    xb = tl.multiple_of(X + body, 16)
    yb = tl.multiple_of(Y + body, 16)
    return head, nb, nbv, xb, yb
