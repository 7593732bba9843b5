"""Does a source change leave RoPE's compiled kernels as they were? Compiles `_rope`, `_rope_k` and
`_rope_rows` of kernels/rope/kr_triton.py for sm_90 on a CPU (Triton's front end, no GPU) in 80
configurations (bf16 and fp32, forward and backward, 32- and 64-bit offsets, head_dim 128 and 256,
the knobbed layouts: token blocks, q and k in one program, persistent, store hints) and writes or
compares their PTX, debug lines removed (lab/norms/ptx_same.py's rules):

    python lab/rope/ptx_same.py save DIR      # before the change
    python lab/rope/ptx_same.py compare DIR   # after it"""

import difflib
import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "norms"))

import ptx_same  # noqa: E402  (lab/norms/ptx_same.py)

from site_builder.runner.families import import_module  # noqa: E402


def configs(kr):
    for elem, back, i64, half in itertools.product(("bf16", "fp32"), (False, True), (False, True), (64, 128)):
        tag = f"{elem}-b{int(back)}-i{int(i64)}-h{half}"
        heads = dict(HALF=half, HALF_P2=half, GQ=4, GK=2, PQ=8, PK=4, I64=i64, BACKWARD=back)
        yield f"rope-{tag}", kr._rope, heads, elem
        for t, qk, persist in ((1, False, False), (2, True, True), (4, False, True)):
            yield (f"ropek-{tag}-t{t}-qk{int(qk)}-p{int(persist)}", kr._rope_k,
                   dict(heads, T=t, QK_ONE=qk, PERSIST=persist, EVICT="evict_first", CS_EVICT="evict_last",
                        STORE=".cs" if t == 2 else ""), elem)
        yield (f"rows-{tag}", kr._rope_rows, dict(R=8, HALF=half, HALF_P2=half, I64=i64, BACKWARD=back, PERSIST=True,
                                                 EVICT="", CS_EVICT="evict_last", STORE=""), elem)


def main(mode, folder):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    kr = import_module("rope", "kr_triton")
    differ = 0
    for name, fn, const, elem in configs(kr):
        ptrs = {n: "*" + ("fp32" if n in ("C", "S") else elem) for n in ("Q", "K", "C", "S", "QO", "KO")}
        text = ptx_same.ptx(fn, const, 4, elem, ptrs)
        path = folder / f"{name}.ptx"
        if mode == "save":
            path.write_text(text)
            continue
        old = ptx_same._strip(path.read_text())
        if old == text:
            print("same", name)
        else:
            differ += 1
            diff = list(difflib.unified_diff(old.splitlines(), text.splitlines(), lineterm="", n=1))
            print("DIFFERS", name, *diff[:12], sep="\n  ")
    print(f"saved {len(list(folder.glob('*.ptx')))} kernels" if mode == "save"
          else ("all same" if not differ else f"{differ} differ"))
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("save", "compare"):
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
