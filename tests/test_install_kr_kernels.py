"""The kr-kernels distribution (kernels/pyproject.toml) installs into a fresh virtual environment
with torch and Triton by the command README.md documents, `pip install ./kernels`, and one import
and one call run the fused add + RMSNorm with the family page's semantics (and every other family's
kernel: GEMM, softmax, cross-entropy, RMSNorm, LayerNorm, SwiGLU, RoPE), under TRITON_INTERPRET=1,
checked against float64 references (float32, odd shapes).

The fresh venv gets torch 2.13.0 (CPU), triton 3.9.0 and numpy from the local wheels, as dev.py
pins them; the repository's engine (site_builder) is not installed there, so the package must
stand on its own. About a minute, most of it unpacking torch.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PINS = ["torch==2.13.0", "triton==3.9.0", "numpy==2.4.6"]  # dev.py's KERNEL_PINS

CALL = r'''
import json, torch
import kr_kernels.fused_add_rmsnorm as package
from kr_kernels.fused_add_rmsnorm import fused_add_rmsnorm

out = {"file": package.__file__, "engine": hasattr(package, "family")}
torch.manual_seed(0)
for shape in ((3, 1000), (2, 5, 4097), (1, 64)):
    x, r, w = torch.randn(*shape), torch.randn(*shape), torch.rand(shape[-1]) + 0.5
    y, h = fused_add_rmsnorm(x, r, w, 1e-6)
    # the family's reference (kernels/fused_add_rmsnorm/reference.py): h rounded to the input
    # dtype, then everything in float64 from the rounded h
    hr = (x.double() + r.double()).to(x.dtype)
    hd = hr.double()
    yr = w.double() * hd * torch.rsqrt(hd.pow(2).mean(-1, keepdim=True) + 1e-6)
    ok = (y - yr).abs() <= 1e-5 + 1e-5 * yr.abs()
    out[str(shape)] = {"h_exact": bool(torch.equal(h, hr)), "y_close": bool(ok.all()),
                       "dtypes": [str(y.dtype), str(h.dtype)], "shapes": [list(y.shape), list(h.shape)],
                       "inputs_new": y.data_ptr() not in (x.data_ptr(), r.data_ptr())}
import kr_kernels.gemm as gemm_package
from kr_kernels.gemm import gemm
out["gemm_engine"] = hasattr(gemm_package, "family")
a, b = torch.randn(7, 100), torch.randn(33, 100) / 10
c = gemm(a, b)  # c = a @ b.T; float32 products (IEEE) accumulated in float32
out["gemm_close"] = bool(((c.double() - a.double() @ b.double().T).abs() <= 1e-5).all())

# every other family's kernel, one call each, float32 at small odd sizes, against float64
import importlib
F = torch.nn.functional
close = lambda got, want, tol=1e-4: bool(((got.double() - want).abs() <= tol + tol * want.abs()).all())
others = {}
x = torch.randn(5, 777)
dy = torch.randn(5, 777)
from kr_kernels.softmax import softmax_backward, softmax_forward
y = softmax_forward(x)
yd = torch.softmax(x.double(), -1)
others["softmax"] = close(y, yd) and close(softmax_backward(y, dy), y.double() * (dy.double() - (y.double() * dy.double()).sum(-1, keepdim=True)))
from kr_kernels.cross_entropy import cross_entropy
t = torch.randint(0, 777, (5,))
t[1] = -100
others["cross_entropy"] = close(cross_entropy(x, t), F.cross_entropy(x.double(), t, ignore_index=-100))
from kr_kernels.rmsnorm import rmsnorm
w, bias = torch.rand(777) + 0.5, torch.randn(777)
xd = x.double()
others["rmsnorm"] = close(rmsnorm(x, w), w.double() * xd * torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + 1e-6))
from kr_kernels.layernorm import layernorm
others["layernorm"] = close(layernorm(x, w, bias), F.layer_norm(xd, (777,), w.double(), bias.double(), 1e-5))
from kr_kernels.swiglu import swiglu_forward
g, u = torch.randn(3, 130), torch.randn(3, 130)
others["swiglu"] = close(swiglu_forward(g, u), F.silu(g.double()) * u.double())
from kr_kernels.rope import rope_forward
q, k = torch.randn(2, 4, 3, 10), torch.randn(2, 2, 3, 10)
cos, sin = torch.randn(1, 3, 10), torch.randn(1, 3, 10)
half = lambda v: torch.cat((-v[..., 5:], v[..., :5]), -1)
qe, ke = rope_forward(q, k, cos, sin)
cd, sd = cos.double()[:, None], sin.double()[:, None]
others["rope"] = close(qe, q.double() * cd + half(q.double()) * sd) and close(ke, k.double() * cd + half(k.double()) * sd)
others["engines"] = [hasattr(importlib.import_module("kr_kernels." + f), "family")
                     for f in ("softmax", "cross_entropy", "rmsnorm", "layernorm", "swiglu", "rope")]
out["others"] = others
print(json.dumps(out))
'''


def _clean_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["TRITON_INTERPRET"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def test_pip_install_kernels_into_a_fresh_venv(tmp_path):
    # a copy of the checkout's kernels/ (pip builds in the source tree: keep the checkout clean)
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT / "kernels", checkout / "kernels",
                    ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = str(env_dir / ("Scripts" if os.name == "nt" else "bin") / "python")
    env = _clean_env()

    def sh(*args, cwd=checkout, timeout=200):
        p = subprocess.run(args, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=timeout)
        assert p.returncode == 0, f"{' '.join(args)} failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
        return p.stdout

    sh(python, "-m", "pip", "install", "-q", "--no-compile", *PINS)  # the venv "has torch and Triton"
    sh(python, "-m", "pip", "install", "-q", "./kernels")  # README.md's command, from the checkout's root
    # run from an empty folder: nothing of the repository on the path
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = json.loads(sh(python, "-c", CALL, cwd=elsewhere).strip().splitlines()[-1])
    assert Path(result.pop("file")).is_relative_to(env_dir), "imported from outside the fresh venv"
    assert result.pop("engine") is False  # site_builder is not there
    assert result.pop("gemm_engine") is False and result.pop("gemm_close") is True  # the GEMM stands alone too
    others = result.pop("others")
    assert others.pop("engines") == [False] * 6  # no family needs the engine to offer its kernel
    assert others == {f: True for f in ("softmax", "cross_entropy", "rmsnorm", "layernorm", "swiglu", "rope")}, others
    for shape, r in result.items():
        assert r["h_exact"] and r["y_close"] and r["inputs_new"], (shape, r)
        assert r["dtypes"] == ["torch.float32", "torch.float32"] and r["shapes"][0] == r["shapes"][1], (shape, r)
    assert set(result) == {"(3, 1000)", "(2, 5, 4097)", "(1, 64)"}
