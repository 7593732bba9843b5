"""The W3C Nu HTML checker (vnu-jar, pinned in tests/vnu/package.json; `python3 dev.py test`
installs it) reports zero errors over every HTML page of a built site: the committed records and a
fixture run whose captured error carries terminal colour codes and control characters."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import RECORDS

JAR = Path(__file__).resolve().parent / "vnu" / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
ANSI_ERROR = "\x1b[91mCUDA error: \x1b[1minvalid argument\x1b[0m\x07\r\nline two\x0b\x1b]0;title\x07"


def _with_a_coloured_error(dest: Path) -> Path:
    shutil.copytree(RECORDS, dest)
    run = sorted(dest.glob("runs/**/*.yaml"))[-1]
    data = yaml.safe_load(run.read_text(encoding="utf-8"))
    # one result fails with a colour-coded message, as a crashing kernel prints it
    result = data["results"][0]
    for k in ("device_us", "e2e_us", "correctness"):
        result.pop(k, None)
    result.update(status="failed", error=ANSI_ERROR)
    run.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=False), encoding="utf-8")
    return dest


@pytest.fixture(scope="module")
def coloured_site(tmp_path_factory) -> Path:
    from site_builder.build import build

    top = tmp_path_factory.mktemp("vnu")
    out = top / "site"
    build(_with_a_coloured_error(top / "records"), out, cache=False)
    return out


def test_captured_escape_codes_never_reach_a_page(coloured_site):
    pages = list(coloured_site.rglob("*.html"))
    assert pages
    shown = [p for p in pages if "CUDA error: invalid argument" in p.read_text(encoding="utf-8")]
    assert shown, "the failing result's error is on no page"
    for page in pages:
        text = page.read_text(encoding="utf-8")
        bad = [c for c in text if (ord(c) < 32 and c not in "\t\n\r") or 0x7f <= ord(c) <= 0x9f]
        assert not bad, f"{page}: control characters {sorted(set(map(hex, map(ord, bad))))}"


def test_the_w3c_checker_finds_no_errors_on_any_page(coloured_site):
    assert JAR.is_file(), f"{JAR} is missing: run `python3 dev.py test` (it installs vnu-jar with npm)"
    assert shutil.which("java"), "java is needed to run the W3C checker"
    pages = sorted(str(p) for p in coloured_site.rglob("*.html"))
    proc = subprocess.run(["java", "-Xss8m", "-jar", str(JAR), "--errors-only", "--format", "json", *pages],
                          capture_output=True, text=True, timeout=900)
    messages = json.loads(proc.stderr or '{"messages": []}')["messages"]
    errors = [f"{m.get('url', '?').rsplit('/', 3)[-3:]}:{m.get('lastLine', '?')}: {m['message']}"
              for m in messages if m.get("type") in ("error", "non-document-error")]
    assert not errors, f"{len(errors)} errors, the first: " + "\n".join(errors[:20])
