"""The floor's per-launch term: measured by the runner on the run's GPU (launch_floor_us on the
environment, optional), used by the measured floor when present, shown separately; records
without it keep their floors. Every tree here is written by the test."""

from __future__ import annotations

import yaml
from bs4 import BeautifulSoup

from site_builder.bench_build import write_tree
from site_builder.build import build
from site_builder.derive.index import derive
from site_builder.records.load import load_catalog


def _tree(tmp_path, launch_us=None):
    records = tmp_path / "records"
    write_tree(records, families=1, impls=2, nworkloads=3, gpus=1, runs=1)
    if launch_us is not None:
        for path in records.glob("runs/**/*.yaml"):
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            data["environment"]["launch_floor_us"] = launch_us
            path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return records


def test_a_measured_launch_term_sets_the_floor_of_tiny_shapes(tmp_path):
    before = {k: c.measured_floor() for k, c in derive(load_catalog(_tree(tmp_path / "a"))).cohorts.items()}
    index = derive(load_catalog(_tree(tmp_path / "b", launch_us=1000.0)))
    for key, cohort in index.cohorts.items():
        old, new = before[key], cohort.measured_floor()
        assert old.launch_us is None and new.launch_us == 1000.0
        assert new.memory_us == old.memory_us  # shown separately: the memory term is unchanged
        assert new.us == max(old.us, 1000.0) and new.bound == "launch"
        assert cohort.entries[0].floor.launch_us is None  # the datasheet floor (eligibility) is unchanged


def test_the_floor_table_shows_the_launch_term(tmp_path):
    site = tmp_path / "site"
    build(_tree(tmp_path, launch_us=1000.0), site, cache=False)
    page = BeautifulSoup(next(site.glob("families/*.html")).read_text(encoding="utf-8"), "html.parser")
    cells = [td.get_text(" ", strip=True) for td in page.find(id="floor-table").select("tbody td")]
    assert any("launch term 1,000 µs (sets it)" in c for c in cells), cells[:8]


def test_launch_floor_is_not_measured_off_cuda():
    import torch

    from site_builder.runner.measure import launch_floor_us

    assert launch_floor_us(torch.device("cpu")) is None
