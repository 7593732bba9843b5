"""Path "pipe" of kernels/cross_entropy/kr_triton.py on a GPU, before any sweep times it: checked
against F.cross_entropy in float64 at three shapes, the compiled kernel's registers and the
programs a SM it was launched with, then a rough same-process timing beside the rule's row loop
(CUDA events, warm L2, 20 calls: a sanity check, not a measurement for the site)."""
import sys
import time

import torch
import torch.nn.functional as F

from site_builder.runner.families import import_module

ce = import_module("cross-entropy", "kr_triton")
torch.manual_seed(0)
ok = True
for rows, vocab, ign in [(300, 128256, 0.0), (7, 32000, 0.3), (1024, 151936, 0.1)]:
    x = torch.randn(rows, vocab, device="cuda", dtype=torch.bfloat16) * 2
    t = torch.randint(0, vocab, (rows,), device="cuda")
    t[torch.rand(rows, device="cuda") < ign] = -100
    xr = x.double().requires_grad_()
    ref = F.cross_entropy(xr, t)
    ref.backward()
    for force in ({"path": "pipe"}, {"path": "rowloop"}):
        ce.FWDBWD_FORCE = force
        t0 = time.time()
        loss, dx = ce.cross_entropy_fwd_bwd(x, t)
        torch.cuda.synchronize()
        err = (dx.double() - xr.grad).abs().max().item()
        rel = (dx.double() - xr.grad).norm().item() / xr.grad.norm().item()
        good = abs(loss.item() - ref.item()) <= 4e-3 * abs(ref.item()) and rel < 1e-2
        ok &= good
        print(f"{rows}x{vocab} {force['path']}: loss {loss.item():.5f} ref {ref.item():.5f} max err {err:.3e} "
              f"rel {rel:.3e} first call {time.time() - t0:.2f}s {'ok' if good else 'WRONG'}", flush=True)
print("occupancy cache:", {k[-1]: v for k, v in ce._OCC.items()} if ce._OCC else ce._OCC, flush=True)
x = torch.randn(4096, 128256, device="cuda", dtype=torch.bfloat16)
t = torch.randint(0, 128256, (4096,), device="cuda")
for force in ({"path": "pipe"}, {"path": "rowloop"}):
    ce.FWDBWD_FORCE = force
    ce.cross_entropy_fwd_bwd(x, t)
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(20):
        ce.cross_entropy_fwd_bwd(x, t)
    b.record()
    torch.cuda.synchronize()
    print(f"4096x128256 bf16 {force['path']}: {a.elapsed_time(b) / 20 * 1000:.1f} us a call (warm, events)", flush=True)
sys.exit(0 if ok else 1)
