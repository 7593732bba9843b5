"""`kernel-records run --ray` without GPUs: a local Ray cluster started here with two fake GPUs
runs the runner's CPU mode end to end over the toy fixture family, a worker that crashes and
one that hangs among the jobs; and without Ray the option says how to install it."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TOY_KERNELS = FIXTURES / "kernels"
TOY_RECORDS = FIXTURES / "runner-records"

pytest.importorskip("torch")
if not os.environ.get("CI"):  # CI installs Ray (dev.py test): there a missing Ray fails the tests
    pytest.importorskip("ray")
import ray  # noqa: E402


@pytest.fixture
def toy_records(tmp_path) -> Path:
    dest = tmp_path / "records"
    shutil.copytree(TOY_RECORDS, dest)
    return dest


@pytest.fixture(scope="module")
def local_cluster():
    """A Ray cluster of this machine alone, with two fake GPUs; shut down after the tests."""
    started = time.monotonic()
    ray.init(num_cpus=2, num_gpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    print(f"ray.init took {time.monotonic() - started:.1f} s")
    yield
    ray.shutdown()


def test_ray_runs_every_job_once_on_the_fake_gpus_and_the_driver_writes_the_records(local_cluster, toy_records):
    from site_builder.records.load import load_catalog
    from site_builder.runner.cluster import run_cluster
    from site_builder.runner.devices import host_name, host_slug

    impls = ["toy-good", "toy-segv", "toy-hang", "toy-where", "toy-missing"]
    started = time.monotonic()
    paths = run_cluster(None, toy_records, family="toy-scale", implementations=impls, timeout=8, device="cpu",
                        kernels_root=TOY_KERNELS)
    elapsed = time.monotonic() - started
    datas = [yaml.safe_load(p.read_text()) for p in paths]
    results = {}
    for path, data in zip(paths, datas):
        env = data["environment"]
        assert env["host"] == host_name() and env["gpu_index"] in (0, 1)
        assert path.name.split("-", 5)[-1].startswith(f"{host_slug(host_name())}-gpu{env['gpu_index']}-")
        assert "through" not in data["notes"] and "one of 2 GPUs on 1 hosts" in data["notes"]
        for r in data["results"]:
            assert (r["implementation"], r["workload"]) not in results  # each result in one record only
            results[(r["implementation"], r["workload"])] = (env["gpu_index"], r)
    assert len(results) == 5 * 3
    status = {k: r["status"] for k, (_, r) in results.items()}
    workloads = ("r1-h8", "r2-h8", "r3-h16")
    assert [status[("toy-segv", w)] for w in workloads] == ["ok", "ok", "crashed"]
    assert "SIGSEGV" in results[("toy-segv", "r3-h16")][1]["error"]
    assert [status[("toy-hang", w)] for w in workloads] == ["ok", "timeout", "ok"]
    assert "time limit of 8 s" in results[("toy-hang", "r2-h8")][1]["error"]
    assert all(status[("toy-good", w)] == "ok" and status[("toy-where", w)] == "ok" for w in workloads)
    assert all(status[("toy-missing", w)] == "not-installed" for w in workloads)
    for w in workloads:  # Ray gave the task one GPU, and the worker saw only it
        gpu, r = results[("toy-where", w)]
        assert f"CUDA_VISIBLE_DEVICES={gpu}" in r["note"], r["note"]
    interleaved = [r for _, r in results.values() if "interleaved with" in (r.get("note") or "")]
    assert len(interleaved) >= 6
    catalog = load_catalog(toy_records)  # the driver's records are valid
    assert len(catalog.runs) == len(paths) >= 1
    print(f"run_cluster: {len(paths)} records in {elapsed:.1f} s")


def test_ray_without_gpu_nodes_says_how_to_start_them(toy_records, monkeypatch):
    from site_builder.errors import UserError
    from site_builder.runner import cluster

    monkeypatch.setattr(cluster, "_gpu_nodes", lambda ray_module: [])
    monkeypatch.setattr(ray, "is_initialized", lambda: True)
    with pytest.raises(UserError, match="no live node with a GPU.*ray start --address"):
        cluster.run_cluster(None, toy_records, family="toy-scale", device="cpu", kernels_root=TOY_KERNELS)


def test_without_ray_the_option_says_how_to_install_it(toy_records, monkeypatch):
    from site_builder.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    result = CliRunner().invoke(main, ["run", "--records", str(toy_records), "--family", "toy-scale",
                                       "--device", "cpu", "--kernels", str(TOY_KERNELS), "--ray", "auto"])
    assert result.exit_code == 2, result.output
    assert "--ray needs Ray" in result.output and "pip install 'kernel-records[ray]'" in result.output
    assert "Traceback" not in result.output
    assert not list((toy_records / "runs").rglob("*.yaml"))


def test_the_ray_extra_pins_the_version_the_driver_names():
    import tomllib

    from site_builder.runner.cluster import RAY_VERSION

    project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["project"]
    assert project["optional-dependencies"]["ray"] == [f"ray=={RAY_VERSION}"]
    assert f"ray=={RAY_VERSION}" in project["optional-dependencies"]["test"]
    assert ray.__version__ == RAY_VERSION
