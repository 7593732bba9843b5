"""Shared fixtures: the committed records, a fixture tree for a second family, and tree writers."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RECORDS = REPO / "records"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SECOND = FIXTURES / "second-family"
#: the runner's fixture families (toy-scale, ...) and their records (hardware `cpu`, no runs)
TOY_KERNELS = FIXTURES / "kernels"
TOY_RECORDS = FIXTURES / "runner-records"
#: two frozen measured H200 runs (fused add + RMSNorm, 2026-11-29 and 2026-12-01)
MEASURED_FIXTURES = FIXTURES / "measured-h200"


def frozen_records(dest: Path) -> Path:
    """The committed records at `dest` with every measured H200 run replaced by the frozen ones
    of tests/fixtures/measured-h200: tests that read measured H200 results read these, so that
    a pull request adding runs (on any GPU) changes nothing they assert. Tests on the frozen
    runs select hardware h200: runs of other GPUs stay as committed."""
    shutil.copytree(RECORDS, dest, ignore=lambda d, names: ["h200"] if Path(d).parent.name == "runs" and "h200" in names else [])
    for family in MEASURED_FIXTURES.iterdir():
        shutil.copytree(family, dest / "runs" / family.name, dirs_exist_ok=True)
    return dest


@pytest.fixture(scope="session")
def frozen(tmp_path_factory) -> Path:
    """`frozen_records` in a session folder (read only: copy it to change it)."""
    return frozen_records(tmp_path_factory.mktemp("frozen") / "records")


def _built(tmp_path_factory, name: str, records: Path) -> Path:
    """The site built from `records` into a new session folder `name`/output."""
    from site_builder.build import build

    out = tmp_path_factory.mktemp(name) / "output"
    build(records, out)
    return out


@pytest.fixture(scope="session")
def built_frozen(tmp_path_factory, frozen) -> Path:
    """The site built from `frozen`."""
    return _built(tmp_path_factory, "frozen-site", frozen)


@pytest.fixture
def records_copy(tmp_path) -> Path:
    """A writable copy of the committed records, named `records` like the real folder."""
    dest = tmp_path / "records"
    shutil.copytree(RECORDS, dest)
    return dest


@pytest.fixture
def toy_records(tmp_path) -> Path:
    """A writable copy of the runner's fixture records, named `records`."""
    dest = tmp_path / "records"
    shutil.copytree(TOY_RECORDS, dest)
    return dest


def results_by_key(path: Path) -> dict:
    """A run record's results by (implementation, workload)."""
    import yaml

    data = yaml.safe_load(path.read_text())
    return {(r["implementation"], r["workload"]): r for r in data["results"]}


@pytest.fixture
def second_copy(tmp_path) -> Path:
    dest = tmp_path / "records"
    shutil.copytree(SECOND, dest)
    return dest


#: The head of a valid reported run of the seed family; tests append their `results:`.
REPORTED_RUN_HEAD = """\
schema_version: 1
family: fused-add-rmsnorm
hardware: h100-sxm
trust: reported
observed: 2026-05-01
source: {name: someone, url: "https://example.org/data", license: MIT}
protocol: {id: someone-bench, version: 1, clock: end-to-end, timing: do_bench}
"""


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def seed_records(tmp_path_factory) -> Path:
    """The seed page's data alone (the reported Liger benchmark of fused add + RMSNorm), from
    tests/fixtures/seed-records, so that the seed's figures (Liger fused 20.5 µs, 2.22× the
    baseline) stay the headline whatever runs are committed to records/."""
    from synthetic import stable_records

    return stable_records(tmp_path_factory.mktemp("seed") / "records")


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, seed_records) -> Path:
    """The seed records built once for the rendering tests."""
    return _built(tmp_path_factory, "site", seed_records)


@pytest.fixture(scope="session")
def built_full(tmp_path_factory) -> Path:
    """Every committed record, measured runs included."""
    return _built(tmp_path_factory, "full", RECORDS)


@pytest.fixture(scope="session")
def built_second(tmp_path_factory) -> Path:
    return _built(tmp_path_factory, "site2", SECOND)


#: A hardware record for runs on the CPU (the runner's CPU mode), for tests that write records.
CPU_HARDWARE = """\
schema_version: 1
id: cpu
name: Any CPU (tests)
vendor: any
device_names: [cpu]
memory_gb: 8
memory_bandwidth_gbps: 10
datasheet_url: https://example.com/cpu
"""


def implementation_record(impl_id: str) -> str:
    """The smallest valid implementation record, for tests that write their own records."""
    return (f"schema_version: 1\nid: {impl_id}\nname: {impl_id}\nproject: test\nlanguage: python\n"
            f"license: MIT\nsource_url: https://example.com/{impl_id}\n")
