"""`kernel-records new kernels <family>`: a kernel family package that satisfies the interface
(site_builder/runner/family.py) as written, with a working eager implementation (the baseline)
and a float64 reference, and the records it needs: the family, the implementation and, for
CPU-mode runs, a CPU hardware record. Files that exist are never overwritten."""

from __future__ import annotations

from pathlib import Path

from ..errors import UserError
from ..records.newfiles import require_slug
from .families import KERNELS_ROOT, family_dir, folder_name

INIT = '''"""{title} (family `{id}`): inputs, reference and implementations.

Made by `kernel-records new kernels {id}`; TODO: make it compute your operation. The
interface is site_builder/runner/family.py, explained in kernels/README.md. Check it on the CPU
with `python -m pytest -q tests/test_families.py -k {id}`, run it with
`kernel-records run --family {id} --device cpu`.
"""

from site_builder.runner.family import KernelFamily, generator, normal


class {cls}(KernelFamily):
    id = "{id}"
    numerics = "softmax in float32, rounded once to the input dtype"  # TODO: your convention
    # small sizes the CPU correctness test checks, with every dtype and kind of the workloads
    test_sizes = ({{"rows": 1, "cols": 8}}, {{"rows": 4, "cols": 256}}, {{"rows": 3, "cols": 1000}})

    def make_inputs(self, case, seed, device):
        """One random input set of the case's tensors (never zeros), reproducible from seed."""
        gen = generator(case, seed, device)
        return {{"x": normal(case.inputs["x"], gen, device)}}  # TODO: every input of your family

    def reference(self, case, inputs):
        """The outputs in float64, computed in float64 from the inputs."""
        return {{"y": inputs["x"].double().softmax(dim=-1)}}  # TODO: your operation


family = {cls}()
register = family.registry.register

# Each module registers one implementation; runs and tables follow this order.
from . import impl_eager  # noqa: E402,F401  (the designated baseline)
'''

IMPL = '''"""The baseline: plain PyTorch, eager. TODO: the code your family's users run today."""

import torch

from . import register


@register("{impl}", baseline=True)
def eager(inputs, case):
    x = inputs["x"]

    def call():
        return torch.softmax(x.float(), dim=-1).to(x.dtype)  # TODO: your operation

    return call
'''

FAMILY = """\
{schema}
# Made by `kernel-records new kernels {id}` together with kernels/{folder}/.
# Change every line marked TODO (and the package to match), then run `kernel-records check`.
schema_version: 1
id: {id}
title: {title}  # TODO: the operation's name as pages show it
tag: {id}  # TODO: a short slug tag, e.g. softmax
summary: >-
  TODO: one or two sentences (markdown): what it computes and where it is used.
semantics:
  axes:
    rows: variable
    cols: variable
  inputs:  # dtype `float` follows the workload's dtype
    x: {{dtype: float, shape: [rows, cols]}}
  outputs:
    y: {{dtype: float, shape: [rows, cols]}}
  determinism: deterministic
  constraints:
    - no mutation of inputs
    - outputs do not alias inputs
  definition: "y = softmax(x) along cols"  # TODO: the exact formula
  parameters: {{}}
baseline: {impl}
headline: r256-c4096-fp32
scaling:
  axis: cols
workloads:  # TODO: the exact parameter sets to rank
  - {{id: r256-c1024-fp32, rows: 256, cols: 1024, dtype: float32}}
  - {{id: r256-c4096-fp32, rows: 256, cols: 4096, dtype: float32}}
  - {{id: r256-c4096-bf16, rows: 256, cols: 4096, dtype: bfloat16}}
"""

IMPLEMENTATION = """\
{schema}
# The baseline of family {id}, registered in kernels/{folder}/impl_eager.py under this id.
# Change every line marked TODO, then run `kernel-records check`.
schema_version: 1
id: {impl}
name: PyTorch eager  # TODO: the name pages show
project: PyTorch
language: python
license: BSD-3-Clause
source_url: https://github.com/pytorch/pytorch  # TODO: a link to its source
install: pip install torch
numerics: >-
  TODO: the numerics convention it follows (softmax computed in float32, rounded once).
notes: null
"""

CPU_HARDWARE = """\
{schema}
# The CPU of a machine without a GPU, for `kernel-records run --device cpu` (CPU mode: wall
# time per call). Written by `kernel-records new kernels`; runs on it test a family end to
# end and are not GPU records: keep them out of pull requests.
schema_version: 1
id: cpu
name: CPU (CPU mode)
vendor: any
device_names: [cpu]
memory_gb: 16
memory_bandwidth_gbps: 20
datasheet_url: https://example.org/
"""


def _class_name(family_id: str) -> str:
    return "".join(part.capitalize() for part in folder_name(family_id).split("_") if part) or "Family"


def new_kernels(records: Path, family_id: str, kernels_root: Path = KERNELS_ROOT) -> list[Path]:
    """Write the family record, kernels/<family>/ (__init__.py, impl_eager.py) and, where
    absent, the baseline's implementation record and a CPU hardware record. Returns the files
    written; nothing when the family record or the package exists."""
    from ..records.load import load_catalog
    from ..records.newfiles import write_new
    from ..records.schema import Family, Hardware, Implementation
    from ..records.schemas import schema_line
    from ..records.yamlio import parse

    require_slug(family_id, "family id")
    folder = family_dir(kernels_root, family_id)
    if folder.exists():
        raise UserError(f"{folder} exists: a family package is never overwritten — pick another id or "
                        "remove the folder first")
    catalog = load_catalog(records)
    impl = f"{family_id}-eager"
    fields = {"id": family_id, "folder": folder.name, "impl": impl, "cls": _class_name(family_id),
              "title": family_id.replace("-", " ").capitalize()}
    planned = []  # (path, text, model or None)
    if family_id in catalog.families:
        raise UserError(f"records/families/{family_id}.yaml exists: `new kernels` writes the family record and "
                        "its package together, so that they agree — write the package for an existing record by "
                        "hand (kernels/README.md), or remove the record first")
    rel = f"families/{family_id}.yaml"
    planned.append((Path(records) / rel, FAMILY.format(schema=schema_line(rel), **fields), Family))
    if impl not in catalog.implementations:
        rel = f"implementations/{impl}.yaml"
        planned.append((Path(records) / rel, IMPLEMENTATION.format(schema=schema_line(rel), **fields),
                        Implementation))
    if not any("cpu" in hw.device_names for hw in catalog.hardware.values()):
        rel = "hardware/cpu.yaml"
        planned.append((Path(records) / rel, CPU_HARDWARE.format(schema=schema_line(rel)), Hardware))
    for path, text, model in planned:
        model.model_validate(parse(text).data)  # a scaffold that does not validate is our bug
    written = [write_new(path, text) for path, text, _ in planned]
    folder.mkdir(parents=True)
    for name, text in (("__init__.py", INIT), ("impl_eager.py", IMPL)):
        path = folder / name
        path.write_text(text.format(**fields), encoding="utf-8")
        written.append(path)
    return written
