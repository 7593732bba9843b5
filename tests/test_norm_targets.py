"""lab/norms/targets.py (issue 15's tables and targets) on a run record this test writes."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _result(impl, wid, us, e2e=None):
    r = {"implementation": impl, "workload": wid, "status": "ok", "device_us": {"median": us}}
    if e2e is not None:
        r["e2e_us"] = {"median": e2e}
    return r


def test_tables_and_targets_from_a_run_record(tmp_path, capsys, monkeypatch):
    run = {"family": "rmsnorm", "environment": {"copy_bandwidth_gbps": 4000.0}, "results": [
        _result("kr-triton-rmsnorm", "r4096-h4096-bf16", 18.0), _result("liger-rms-norm", "r4096-h4096-bf16", 20.0),
        _result("torch-f-rms-norm", "r4096-h4096-bf16", 25.0),
        _result("kr-triton-rmsnorm", "r1-h4096-bf16", 2.0, 9.0), _result("liger-rms-norm", "r1-h4096-bf16", 2.5, 40.0),
        _result("torch-f-rms-norm", "r1-h4096-bf16", 5.0, 8.0),
        _result("kr-triton-rmsnorm", "bwd-r4096-h4096-bf16", 40.0),
        _result("liger-rms-norm", "bwd-r4096-h4096-bf16", 38.0),
    ]}
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(run))
    monkeypatch.setattr(sys, "argv", ["targets.py", str(path)])
    try:
        runpy.run_path(str(ROOT / "lab" / "norms" / "targets.py"), run_name="__main__")
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr().out
    assert code == 1  # targets missed below
    # 4096 x 4096 bf16 forward: 2 x 33.55 MB + 8 kB over 4000 GB/s = 16.78 µs; 18 / 20 = 0.900
    assert "| r4096-h4096-bf16 | forward | 67.1 | 16.8 | 18.0 | 20.0 | 25.0 | 0.900 (Liger) | 1.07 |" in out
    assert "MISSED bwd-r4096-h4096-bf16: backward 1.053x the fastest peer (liger-rms-norm)" in out
    assert "MISSED r1-h4096-bf16: decode end-to-end 9.0 µs > torch-f-rms-norm 8.0 µs" in out
    assert "MISSED r4096-h4096-bf16" not in out.replace("MISSED r4096-h4096-bf16: no", "")
    assert "MISSED r16384-h4096-bf16: no comparison" in out  # a declared workload the run lacks
