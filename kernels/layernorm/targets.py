"""Issue 15's tables and targets for a layernorm run record (the same script as rmsnorm's):

    python kernels/layernorm/targets.py records/runs/layernorm/h200/<run>.yaml
"""

import runpy
import sys
from pathlib import Path

if __name__ == "__main__":
    sys.argv[0] = str(Path(__file__).resolve().parents[1] / "rmsnorm" / "targets.py")
    runpy.run_path(sys.argv[0], run_name="__main__")
