"""CLI smoke tests: every command has help and is documented; build and serve work end to end."""

from __future__ import annotations

import subprocess
import sys
import urllib.request

from click.testing import CliRunner

from site_builder.cli import main

from conftest import REPO, RECORDS


def test_every_command_has_help_and_is_documented():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    runner = CliRunner()
    for name, command in main.commands.items():
        result = runner.invoke(main, [name, "--help"])
        assert result.exit_code == 0, name
        assert command.help, f"{name} has no help text"
        assert f"kernel-records {name}" in readme, f"README does not document `kernel-records {name}`"


def test_build_says_it_renders_committed_records_without_a_gpu(tmp_path, monkeypatch):
    monkeypatch.setattr("site_builder.cli.site.gpu_present", lambda: False)
    result = CliRunner().invoke(main, ["build", "--records", str(RECORDS), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "No CUDA GPU here: rendering the committed records."
    assert (tmp_path / "out/index.html").is_file()


def test_no_nvidia_driver_means_no_gpu_without_starting_torch(tmp_path, monkeypatch):
    from site_builder.cli import site

    def never():
        raise AssertionError("torch was asked although no NVIDIA driver is installed")

    monkeypatch.setattr(site.shutil, "which", lambda name: None)
    monkeypatch.setattr(site, "NVIDIA_DRIVER_FILES", (str(tmp_path / "no-driver"),))
    monkeypatch.setattr("site_builder.runner.cuda_available", never)
    assert site.gpu_present() is False
    (tmp_path / "no-driver").mkdir()  # a driver's files: then torch is asked
    monkeypatch.setattr("site_builder.runner.cuda_available", lambda: True)
    assert site.gpu_present() is True


def test_serve_previews_the_site(tmp_path):
    out = tmp_path / "out"
    CliRunner().invoke(main, ["build", "--no-run", "--records", str(RECORDS), "--out", str(out)])
    proc = subprocess.Popen([sys.executable, "-c", "from site_builder.cli import main; main()", "serve", "--out", str(out), "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = line.split(" at ")[1].split(" ")[0]
        with urllib.request.urlopen(url + "families/fused-add-rmsnorm.html", timeout=10) as response:
            assert response.status == 200
            assert b"Fused add + RMSNorm" in response.read()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_without_a_build_says_what_to_do(tmp_path):
    result = CliRunner().invoke(main, ["serve", "--out", str(tmp_path / "nothing")])
    assert result.exit_code == 2
    assert "run `kernel-records build` first" in result.output


def test_build_prints_one_line_per_file_with_warnings(capsys):
    """An old run of many workloads is one problem: the build prints its first warning and how
    many more that file has, then a total; `check` lists every one."""
    from site_builder.cli.site import _print_warnings
    from site_builder.errors import Problem

    many = [Problem("records/runs/a.yaml", 30 + i, f"old version on workload {i}", "re-run it", "warning")
            for i in range(12)]
    one = [Problem("records/runs/b.yaml", 7, "control characters removed", "nothing to do", "warning")]
    _print_warnings(many + one)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "records/runs/a.yaml:30: warning: old version on workload 0 — re-run it "
        "(and 11 more in this file: `kernel-records check records/runs/a.yaml`)",
        "records/runs/b.yaml:7: warning: control characters removed — nothing to do",
        "13 warnings in 2 files; they do not stop the build",
    ]
