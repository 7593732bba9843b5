"""A synthetic but realistic-size measured run, for the page-weight budget and the browser tests.

Written into a copy of the records: six implementations over every workload of every family
on one GPU, with device and end-to-end times, correctness, kernel hashes and the copy
bandwidth, plus an older run (history) and a few failures. Times are plausible multiples of
the floor, derived from the family's own declared tensors: nothing here knows a family.
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

import yaml

from site_builder.derive.floors import bytes_moved
from site_builder.records.load import load_catalog

IMPLS = 6


def _impl(i: int) -> dict:
    return {"schema_version": 1, "id": f"synthetic-{i}", "name": f"Synthetic kernel {i}",
            "project": f"Synthetic project {i}", "language": ["triton", "cuda", "python"][i % 3],
            "license": "MIT", "source_url": f"https://example.com/synthetic/{i}",
            "install": f"pip install synthetic-{i}==1.{i}.0", "version": f"1.{i}.0",
            "numerics": "Rounded sum, norm in float32."}


def _stat(rng: random.Random, median: float, samples: int) -> dict:
    return {"median": round(median, 3), "p20": round(median * 0.98, 3), "p80": round(median * 1.03, 3),
            "samples": samples}


def add_synthetic_runs(records: Path, hardware: str | None = None) -> dict:
    """Add the synthetic records to `records`; returns what was written."""
    records = Path(records)
    catalog = load_catalog(records)
    hw_id = hardware or sorted(catalog.hardware)[-1]
    hw = catalog.hardware[hw_id]
    ids = [f"synthetic-{i}" for i in range(1, IMPLS + 1)]
    for i in range(1, IMPLS + 1):
        path = records / "implementations" / f"synthetic-{i}.yaml"
        path.write_text(yaml.safe_dump(_impl(i), sort_keys=False), encoding="utf-8")
    copy_bw = hw.memory_bandwidth_gbps * 0.88
    written = []
    for fid, family in sorted(catalog.families.items()):
        impls = [*ids, family.baseline]
        for day, scale in (("2026-11-20T10:00:00Z", 1.15), ("2026-11-28T10:00:00Z", 1.0)):
            rng = random.Random(f"{fid}-{day}")
            shas = {impl: f"{rng.getrandbits(64):016x}" for impl in impls}
            results = []
            for w in family.workloads:
                floor_us = bytes_moved(family, w) / (copy_bw * 1e3)
                for n, impl in enumerate(impls):
                    factor = scale * (1.05 + 0.35 * n + rng.random() * 0.2)
                    device = floor_us * factor + 2.0
                    r = {"implementation": impl, "workload": w.id, "kernel_sha": shas[impl]}
                    if n == 4 and w.id == family.workloads[-1].id:
                        r.update(status="failed", error="RuntimeError: shared memory request exceeds the limit")
                    else:
                        r.update(status="ok", correctness={"max_abs_error": 0.0039, "max_rel_error": 0.0078,
                                                           "atol": 0.016, "rtol": 0.016, "passed": True},
                                 device_us=_stat(rng, device, 100), e2e_us=_stat(rng, device + 18 + n * 6, 300))
                    results.append(r)
            run = {"schema_version": 1, "family": fid, "hardware": hw_id, "trust": "measured", "observed": day,
                   "protocol": {"id": "kernel-records-device", "version": 1, "clock": "device", "l2": "cold",
                                "timing": "cuda-graph", "statistic": "median", "quantiles": [0.2, 0.8]},
                   "environment": {"gpu": hw.name, "sms": hw.sms, "memory_gb": hw.memory_gb, "driver": "580.1",
                                   "cuda": "13.0", "torch": "2.11.0", "triton": "3.6.0", "python": "3.12.3",
                                   "packages": {}, "copy_bandwidth_gbps": round(copy_bw, 1)},
                   "seed": 1234, "results": results}
            path = records / "runs" / fid / hw_id / f"{day[:10]}-synthetic.yaml"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(yaml.safe_dump(run, sort_keys=False, allow_unicode=True), encoding="utf-8")
            written.append(path)
    return {"hardware": hw_id, "implementations": ids, "runs": written}


def stable_records(dest: Path) -> Path:
    """A writable copy of the seed page's frozen records (tests/fixtures/seed-records: the seed
    family, its reported run, the GPUs and implementations, no measured run): the tests that read
    exact values off the synthetic records stay true whatever is committed to records/."""
    import shutil

    shutil.copytree(SEED_RECORDS, dest, ignore=shutil.ignore_patterns("README.md"))
    return dest


SEED_RECORDS = Path(__file__).resolve().parent / "fixtures" / "seed-records"


def add_synthetic_hardware(records: Path, count: int) -> list[str]:
    """Write `count` synthetic GPUs (ids synthetic-gpu-1 ...) into `records`; returns their ids."""
    ids = []
    for g in range(1, count + 1):
        hid = f"synthetic-gpu-{g}"
        data = {"schema_version": 1, "id": hid, "name": f"Synthetic GPU {g}", "vendor": "Synthetic",
                "memory_gb": 80 + 40 * g, "memory_bandwidth_gbps": 3000 + 800 * g,
                "peak_tflops": {"fp32": 60 + 10 * g, "bf16_tensor": 900 + 100 * g}, "sms": 120 + 12 * g,
                "datasheet_url": f"https://example.com/synthetic-gpu-{g}"}
        (records / "hardware" / f"{hid}.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        ids.append(hid)
    return ids


def measured_breadth(records: Path) -> tuple[int, int]:
    """(implementations, workloads) of the widest measured run on record."""
    best = (0, 0)
    for lr in load_catalog(records).runs:
        if lr.run.trust == "measured":
            ok = [r for r in lr.run.results if r.status == "ok"]
            best = max(best, (len({r.implementation for r in ok}), len({r.workload for r in ok})))
    return best


def grow_history(records: Path, refreshes: int = 2) -> list[Path]:
    """Copy every measured run as `refreshes` later runs (one day apart, 2 % faster each time):
    the site after more refreshes of the same kernels."""
    records = Path(records)
    catalog = load_catalog(records)
    written = []
    for lr in [lr for lr in catalog.runs if lr.run.trust == "measured"]:
        data = yaml.safe_load((records / lr.path).read_text(encoding="utf-8"))
        for n in range(1, refreshes + 1):
            when = lr.run.observed_at + dt.timedelta(days=n)
            if when > dt.datetime.now(dt.timezone.utc):
                when = lr.run.observed_at + dt.timedelta(seconds=n)
            copy = dict(data, observed=when.strftime("%Y-%m-%dT%H:%M:%SZ"))
            copy["results"] = [_faster(r, 0.98 ** n) for r in data["results"]]
            path = records / lr.path.replace(".yaml", f"-refresh{n}.yaml")
            path.write_text(yaml.safe_dump(copy, sort_keys=False, allow_unicode=True), encoding="utf-8")
            written.append(path)
    return written


def _faster(result: dict, scale: float) -> dict:
    out = dict(result)
    for clock in ("device_us", "e2e_us"):
        if out.get(clock):
            out[clock] = {k: (round(v * scale, 4) if k != "samples" else v) for k, v in out[clock].items()}
    return out


if __name__ == "__main__":  # python tests/synthetic.py RECORDS_COPY
    import sys

    print(add_synthetic_runs(Path(sys.argv[1])))
