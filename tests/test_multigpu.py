"""The per-host scheduler without GPUs: fake device lists, a fake /sys, and the runner's CPU mode
end to end over two fake GPUs, a crashing and a hanging implementation among the jobs."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from site_builder.errors import UserError
from site_builder.runner import devices as dv
from site_builder.runner.devices import Gpu, Slot
from site_builder.runner.schedule import plan_jobs, run_jobs, split

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TOY_KERNELS = FIXTURES / "kernels"
TOY_RECORDS = FIXTURES / "runner-records"

SMI = """\
0, NVIDIA H200, 1654922003457, GPU-aaaa0000-1111-2222-3333-444455556666, 00000000:18:00.0
1, NVIDIA H200, [N/A], GPU-bbbb0000-1111-2222-3333-444455556666, 00000000:2A:00.0
2, NVIDIA H200, 1654922003459, GPU-cccc0000-1111-2222-3333-444455556666, 00000000:9A:00.0
3, NVIDIA H200, 1654922003460, GPU-dddd0000-1111-2222-3333-444455556666, 00000000:AB:00.0
"""


def fake_sysfs(root: Path, local: dict[str, tuple[str, int]], cpus: int, smt: bool) -> Path:
    """A /sys with PCI devices (bus id -> (local_cpulist, numa_node)) and `cpus` CPUs; with
    `smt`, CPU c and c + cpus/2 are siblings of one core (Linux's usual numbering)."""
    for bus, (cpulist, node) in local.items():
        d = root / "bus" / "pci" / "devices" / bus
        d.mkdir(parents=True)
        (d / "local_cpulist").write_text(cpulist + "\n")
        (d / "numa_node").write_text(f"{node}\n")
    half = cpus // 2
    for c in range(cpus):
        t = root / "devices" / "system" / "cpu" / f"cpu{c}" / "topology"
        t.mkdir(parents=True)
        sib = f"{c % half},{c % half + half}" if smt else str(c)
        t.joinpath("thread_siblings_list").write_text(sib + "\n")
    return root


def test_nvidia_smi_rows_become_gpus_with_sysfs_bus_ids():
    gpus = dv.parse_nvidia_smi(SMI)
    assert [g.index for g in gpus] == [0, 1, 2, 3]
    assert gpus[0].serial == "1654922003457" and gpus[1].serial is None  # [N/A]
    assert gpus[1].uuid.startswith("GPU-bbbb") and gpus[1].bus_id == "0000:2a:00.0"
    assert dv.visible(gpus, "2,0") == [gpus[2], gpus[0]]
    assert dv.visible(gpus, "GPU-cccc") == [gpus[2]]
    assert dv.visible(gpus, "1,9,2") == [gpus[1]]  # CUDA stops at the first invalid entry
    assert dv.visible(gpus, None) == gpus


def test_gpus_option_picks_visible_gpus_or_says_which_exist():
    gpus = dv.parse_nvidia_smi(SMI)
    assert dv.parse_gpu_list("0, 2") == [0, 2]
    assert dv.choose_gpus([2, 0], gpus) == [gpus[2], gpus[0]]
    assert dv.choose_gpus(None, gpus) == gpus
    assert dv.choose_gpus(None, None) is None  # no nvidia-smi: the default device alone
    with pytest.raises(UserError, match=r"no visible GPU 7 \(visible: 0, 1, 2, 3\)"):
        dv.choose_gpus([7], gpus)
    for bad in ("a,b", "1,1", "-1"):
        with pytest.raises(UserError, match="--gpus"):
            dv.parse_gpu_list(bad)
    with pytest.raises(UserError, match="nvidia-smi is not available"):
        dv.choose_gpus([0], None)


def test_each_gpu_gets_whole_cores_of_its_own_numa_node(tmp_path):
    # 2 NUMA nodes of 8 cores (16 CPUs each, siblings c and c+16), 2 GPUs on each node
    local = {"0000:18:00.0": ("0-7,16-23", 0), "0000:2a:00.0": ("0-7,16-23", 0),
             "0000:9a:00.0": ("8-15,24-31", 1), "0000:ab:00.0": ("8-15,24-31", 1)}
    sysfs = fake_sysfs(tmp_path / "sys", local, cpus=32, smt=True)
    slots = dv.plan_slots(dv.parse_nvidia_smi(SMI), allowed=set(range(32)), sysfs=sysfs, host="h")
    assert [set(s.cpus) for s in slots] == [{0, 1, 2, 3, 16, 17, 18, 19}, {4, 5, 6, 7, 20, 21, 22, 23},
                                            {8, 9, 10, 11, 24, 25, 26, 27}, {12, 13, 14, 15, 28, 29, 30, 31}]
    assert [s.numa_node for s in slots] == [0, 0, 1, 1] and not any(s.shared for s in slots)
    assert slots[0].env() == {"CUDA_VISIBLE_DEVICES": "0", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
    assert slots[1].identity() == {"host": "h", "gpu_index": 1, "gpu_uuid": "GPU-bbbb0000-1111-2222-3333-444455556666"}
    assert slots[2].cpu_text() == "CPUs 8-11,24-27 (NUMA node 1)"
    # only the CPUs this process may use are dealt out
    slots = dv.plan_slots(dv.parse_nvidia_smi(SMI), allowed=set(range(0, 32, 2)), sysfs=sysfs, host="h")
    assert all(s.cpus <= set(range(0, 32, 2)) and s.cpus for s in slots)
    assert not set.intersection(*(set(s.cpus) for s in slots))


def test_without_numa_lists_the_allowed_cpus_are_split_and_too_few_are_shared(tmp_path):
    sysfs = fake_sysfs(tmp_path / "sys", {}, cpus=8, smt=False)  # no PCI devices under /sys
    gpus = dv.parse_nvidia_smi(SMI)
    slots = dv.plan_slots(gpus, allowed=set(range(8)), sysfs=sysfs, host="h")
    assert [sorted(s.cpus) for s in slots] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert all(s.numa_node is None for s in slots)
    slots = dv.plan_slots(gpus, allowed={0, 1}, sysfs=tmp_path / "nothing", host="h")  # no /sys at all
    assert [sorted(s.cpus) for s in slots] == [[0], [1], [0], [1]] and all(s.shared for s in slots)
    assert "shared with another GPU" in slots[0].cpu_text()
    [default] = dv.plan_slots(None, host="h")
    assert default.gpu is None and default.env() == {} and default.cpus == frozenset()


def test_jobs_are_split_until_every_slot_has_work_and_run_longest_first():
    unit = {"family": "f", "implementation": "a", "hardware": "h", "workloads": [{"id": f"w{i}"} for i in range(20)]}
    other = dict(unit, implementation="b", workloads=unit["workloads"][:3])
    jobs = plan_jobs([unit, other], n_slots=4, min_chunk=4)
    sizes = sorted((len(j["workloads"]) for j in jobs), reverse=True)
    assert sizes == [5, 5, 5, 5, 3]  # a: 20 -> 10 + 10 -> four of 5; b stays whole (3 < 2 x 4)
    assert [w["id"] for j in jobs if j["implementation"] == "a" for w in j["workloads"]] == [f"w{i}" for i in range(20)]
    assert len({j["id"] for j in jobs}) == len(jobs)
    assert split(list(range(5)), 2) == [[0, 1, 2], [3, 4]]
    assert len(plan_jobs([unit], n_slots=1)) == 2  # two jobs per slot at most from splitting


def test_scheduler_runs_one_job_per_slot_at_a_time_and_a_failing_job_loses_only_itself():
    slots = [Slot(Gpu(i), host="h", key=f"h/gpu{i}") for i in range(3)]
    jobs = [{"id": f"j{i}", "family": "f", "hardware": "h200", "cost": float(i % 4)} for i in range(9)]
    jobs.append({"id": "boom", "family": "f", "hardware": "h200", "cost": 10.0})
    jobs.append({"id": "other-model", "family": "f", "hardware": "a100", "cost": 1.0})
    busy: dict[str, int] = {}
    peak, started, lock = [0], [], threading.Lock()
    outcomes = {}

    def execute(job, slot):
        with lock:
            busy[slot.key] = busy.get(slot.key, 0) + 1
            assert busy[slot.key] == 1, "two jobs at once on one slot"
            peak[0] = max(peak[0], sum(busy.values()))
            started.append(job["id"])
        try:
            if job["id"] == "boom":
                raise RuntimeError("bookkeeping bug")
            time.sleep(0.05)
            return {"ran_on": slot.key}
        finally:
            with lock:
                busy[slot.key] -= 1

    def on_done(job, slot, outcome):
        outcomes[job["id"]] = outcome
        if job["id"] == "j8":  # a job that adds a follow-up, pinned to a host
            return [{"id": "after", "family": "f", "hardware": "h200", "cost": 0.1, "host": "h"}]
        return []

    run_jobs(slots, jobs, execute, on_done, hardware_of=lambda s: "h200")
    assert started[0] == "boom"  # longest first
    assert "RuntimeError: bookkeeping bug" in outcomes["boom"]["error"]
    assert {f"j{i}" for i in range(9)} | {"after"} <= set(outcomes)
    assert all("ran_on" in outcomes[k] for k in outcomes if k != "boom")
    assert "other-model" not in outcomes  # no slot of that hardware: never run
    assert peak[0] == 3  # every slot busy at once


@pytest.fixture
def toy_records(tmp_path) -> Path:
    dest = tmp_path / "records"
    shutil.copytree(TOY_RECORDS, dest)
    return dest


def test_two_fake_gpus_end_to_end_one_record_per_gpu(toy_records):
    """CPU mode over two fake GPUs: every job runs once on one of them, a crash or a hang loses
    only its workload, each GPU's record says which GPU and host, the workers were pinned to the
    GPU's CPUs and saw only their GPU."""
    pytest.importorskip("torch")
    from site_builder.records.load import load_catalog
    from site_builder.runner import run_all

    fake = [Gpu(0, "Fake GPU", "SERIAL0", "GPU-fake-0"), Gpu(1, "Fake GPU", None, "GPU-fake-1")]
    impls = ["toy-good", "toy-segv", "toy-hang", "toy-where"]
    paths = run_all(toy_records, family="toy-scale", implementations=impls, timeout=8, device="cpu",
                    kernels_root=TOY_KERNELS, devices=fake)
    assert len(paths) == 2
    datas = [yaml.safe_load(p.read_text()) for p in paths]
    by_gpu = {d["environment"]["gpu_index"]: (p, d) for p, d in zip(paths, datas)}
    assert sorted(by_gpu) == [0, 1]
    assert by_gpu[0][1]["environment"]["gpu_serial"] == "SERIAL0"
    assert "gpu_serial" not in by_gpu[1][1]["environment"] and by_gpu[1][1]["environment"]["gpu_uuid"] == "GPU-fake-1"
    host = dv.host_slug(dv.host_name())
    for gpu, (path, data) in by_gpu.items():
        assert path.name.split("-", 5)[-1].startswith(f"{host}-gpu{gpu}-"), path.name
        assert data["environment"]["host"] == dv.host_name()
        assert f"on GPU {gpu} of 2 in use" in data["notes"]
    results = {(r["implementation"], r["workload"]): (gpu, r) for gpu, (_, d) in by_gpu.items() for r in d["results"]}
    assert len(results) == sum(len(d["results"]) for d in datas) == 4 * 3  # each result once, in one record
    status = {k: r["status"] for k, (_, r) in results.items()}
    assert [status[("toy-segv", w)] for w in ("r1-h8", "r2-h8", "r3-h16")] == ["ok", "ok", "crashed"]
    assert [status[("toy-hang", w)] for w in ("r1-h8", "r2-h8", "r3-h16")] == ["ok", "timeout", "ok"]
    assert all(status[("toy-good", w)] == "ok" for w in ("r1-h8", "r2-h8", "r3-h16"))
    allowed = sorted(os.sched_getaffinity(0))
    slots = dv.plan_slots(fake, allowed=set(allowed), host="x")
    for w in ("r1-h8", "r2-h8", "r3-h16"):
        gpu, r = results[("toy-where", w)]
        cpus = ",".join(str(c) for c in sorted(slots[gpu].cpus))
        assert f"worker on CPUs {cpus}, CUDA_VISIBLE_DEVICES={gpu}" in r["note"], r["note"]
    # the interleaved end-to-end pass ran over implementations of both GPUs' records
    interleaved = [r for _, r in results.values() if "interleaved with" in (r.get("note") or "")]
    assert len(interleaved) >= 6 and all("on GPU" in r["note"] for r in interleaved)
    catalog = load_catalog(toy_records)
    assert sorted(lr.run.environment.gpu_index for lr in catalog.runs) == [0, 1]


def test_cli_refuses_gpus_in_cpu_mode_and_timing_cpu_over_several_gpus(toy_records):
    from site_builder.cli import main
    from site_builder.runner.run import check_timing_cpu

    result = CliRunner().invoke(main, ["run", "--records", str(toy_records), "--family", "toy-scale",
                                       "--device", "cpu", "--gpus", "0,1", "--kernels", str(TOY_KERNELS)])
    assert result.exit_code == 2 and "--gpus picks GPUs for a GPU run" in result.output
    with pytest.raises(UserError, match="which 2 GPUs would share"):
        check_timing_cpu(3, 2)
    result = CliRunner().invoke(main, ["run", "--records", str(toy_records), "--gpus", "x"])
    assert result.exit_code == 2 and "give GPU indices separated by commas" in result.output
