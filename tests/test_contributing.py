"""CONTRIBUTING.md, executed: every `kernel-records` command it shows runs, in order, in a copy of
the repository's records; every file it shows is written where it says; every output it shows
is what the command prints.

Markers (HTML comments, invisible on GitHub) tie the prose to the test:
`<!-- write GLOB -->` before a fenced block writes it to the one file matching GLOB;
`<!-- append GLOB -->` before a fenced block appends it to that file;
`<!-- break GLOB: "old" -> "new" -->` edits that file until `<!-- restore -->`;
`<!-- output, exit N -->` before a fenced block: the previous command exits N and prints each line.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder.cli import main
from site_builder.kernel_hash import registered

from conftest import REPO

DOC = REPO / "CONTRIBUTING.md"
NOT_RUN = {"serve": "it serves until Ctrl-C", "run": "it needs a CUDA GPU and the kernels' packages"}
BLOCK = re.compile(r"(?:<!--\s*(?P<marker>.*?)\s*-->\s*\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.S)
MARKER = re.compile(r"<!--\s*(?P<marker>.*?)\s*-->")


def steps(text: str):
    """The document as a sequence of (kind, marker, block): markers and fenced blocks, in order."""
    pos = 0
    for m in BLOCK.finditer(text):
        for lone in MARKER.finditer(text, pos, m.start()):  # markers not attached to a block
            yield "marker", lone.group("marker"), None
        marker = m.group("marker")
        if marker and marker.startswith(("break ", "restore")):  # they act before the block
            yield "marker", marker, None
            marker = None
        yield "block", marker, (m.group("lang"), m.group("body"))
        pos = m.end()
    for lone in MARKER.finditer(text, pos):
        yield "marker", lone.group("marker"), None


def commands(body: str) -> list[list[str]]:
    out = []
    for line in body.splitlines():
        line = line.split(" #", 1)[0].strip()
        if line.startswith("kernel-records "):
            out.append(shlex.split(line)[1:])
    return out


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """The parts of a fresh clone that the guide touches."""
    for name in ("records", "schema", "kernels", "data"):
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def one(root: Path, pattern: str) -> Path:
    found = sorted(root.glob(pattern))
    assert len(found) == 1, f"{pattern} matches {found}"
    return found[0]


def test_contributing_runs_as_written(checkout):
    runner = CliRunner()
    last = None  # (args, result)
    ran, broken = [], None
    for kind, marker, block in steps(DOC.read_text(encoding="utf-8")):
        marker = marker or ""
        if kind == "marker" and marker == "restore":
            path, original = broken
            path.write_text(original, encoding="utf-8")
            broken = None
            continue
        if kind == "marker" and marker.startswith("break "):
            glob, old, new = re.fullmatch(r'break (\S+): "(.*)" -> "(.*)"', marker).groups()
            path = one(checkout, glob)
            original = path.read_text(encoding="utf-8")
            assert old in original, f"{old!r} not in {path}"
            path.write_text(original.replace(old, new, 1), encoding="utf-8")
            broken = (path, original)
            continue
        if kind != "block":
            continue
        lang, body = block
        if marker.startswith("write "):
            target = marker.removeprefix("write ").strip()
            path = one(checkout, target) if "*" in target else checkout / target
            path.write_text(body, encoding="utf-8")
        elif marker.startswith("append "):
            path = one(checkout, marker.removeprefix("append ").strip())
            path.write_text(path.read_text(encoding="utf-8") + body, encoding="utf-8")
        elif marker.startswith("output"):
            expected_exit = int(re.search(r"exit (\d+)", marker).group(1)) if "exit" in marker else 0
            args, result = last
            assert result.exit_code == expected_exit, (args, result.output)
            for line in body.strip().splitlines():
                assert any(line in shown for shown in result.output.splitlines()), (line, result.output)
            last = (args, None)
        elif lang == "sh":
            for args in commands(body):
                assert args[0] in main.commands or args[0] in NOT_RUN, f"unknown command {args}"
                if args[0] in NOT_RUN:
                    continue
                if last and last[1] is not None:
                    assert last[1].exit_code == 0, (last[0], last[1].output)
                last = (args, runner.invoke(main, args, catch_exceptions=False))
                ran.append(args[0] if args[0] not in ("new", "import") else " ".join(args[:2]))
    assert last[1] is None or last[1].exit_code == 0, (last[0], last[1].output)
    assert broken is None
    assert ran == ["new run", "check", "check", "build", "new implementation", "check",
                   "new implementation", "new family", "check", "build", "new hardware", "check",
                   "new implementation", "new implementation", "new family", "check", "import liger-csv"]
    assert "my-kernel" in registered(checkout / "kernels", "fused-add-rmsnorm")
    assert (checkout / "output" / "families" / "my-op.html").is_file()
    page = (checkout / "output" / "families" / "fused-add-rmsnorm.html").read_text(encoding="utf-8")
    assert "24.1" in page
    imported = checkout / "records/runs/fused-linear-jsd/h100-sxm/2024-10-09-liger-v0.3.1.yaml"
    assert "lines 484-499:" in imported.read_text(encoding="utf-8")  # the rows the guide cites


def test_every_command_the_guides_name_exists():
    text = DOC.read_text(encoding="utf-8") + (REPO / ".github" / "pull_request_template.md").read_text(
        encoding="utf-8")
    named = set(re.findall(r"kernel-records (\w[\w-]*)", text))
    assert named <= set(main.commands) | set(NOT_RUN), named - set(main.commands)
    assert {"check", "new", "import", "build", "serve", "schemas"} <= named


def test_every_command_has_help():
    runner = CliRunner()
    for name, command in main.commands.items():
        assert command.help, name
        result = runner.invoke(main, [name, "--help"])
        assert result.exit_code == 0, name
        for sub in getattr(command, "commands", {}):
            assert runner.invoke(main, [name, sub, "--help"]).exit_code == 0, (name, sub)
