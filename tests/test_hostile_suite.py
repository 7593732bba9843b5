"""Issue 22's suite: hostile and faulty inputs, grouped by class, each with its exact outcome.

Every case mutates a fresh copy of the small fixture records (tests/fixtures/second-family) and
asserts the one message the loader gives (file:line: problem — fix). The classes:
security, data loss, crash, wrong line, silent acceptance. Runs in seconds: records are loaded,
not built; the publish cases call the writer directly, killed at every step of the swap.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder.cli import main
from site_builder.errors import RecordErrors, UserError
from site_builder.records.load import load_catalog

from conftest import SECOND

FAM = "families/grouped-matvec.yaml"
IMPL = "implementations/tiled.yaml"
HW = "hardware/test-gpu.yaml"
RUN = "runs/grouped-matvec/test-gpu/2026-01-01-first.yaml"
TOMORROW = (dt.datetime.now(dt.timezone.utc).date() + dt.timedelta(days=2)).isoformat()
SLUG_FIX = "use lower-case letters, digits and single - _ . between them, e.g. my-kernel-v2"
CTRL_FIX = "remove it: text fields hold printable characters, newlines and tabs only"


def _edit(rel, old, new):
    def mutate(root: Path):
        path = root / rel
        text = path.read_text(encoding="utf-8")
        assert old in text, (old, rel)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return mutate


def _append(rel, text):
    def mutate(root: Path):
        with open(root / rel, "a", encoding="utf-8") as handle:
            handle.write(text)
    return mutate


def _add(rel, data):
    def mutate(root: Path):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.write_bytes if isinstance(data, bytes) else path.write_text)(data)
    return mutate


def _copy(src, dst, old=None, new=None):
    def mutate(root: Path):
        text = (root / src).read_text(encoding="utf-8")
        (root / dst).write_text(text.replace(old, new, 1) if old else text, encoding="utf-8")
    return mutate


def _name(value):  # the hardware `name`, a text field, as a double-quoted YAML string
    return _edit(HW, "name: Test GPU 1000", f'name: "{value}"')


def _notes(value):  # an implementation's markdown notes
    return _append(IMPL, f"notes: {value}\n")


def _memory(value):
    return _edit(HW, "memory_gb: 16", f"memory_gb: {value}")


def _m(value):  # an axis size of the first workload
    return _edit(FAM, "{id: m4096-k1024-fp16, m: 4096,", f"{{id: m4096-k1024-fp16, m: {value},")


def _link(url):
    return _notes(f'"see [this]({url})"')


LINK_FIX = ("notes: link {!r} does not lead to an http(s) page — links in text are absolute https:// URLs "
            "(or #anchors of the same page)")


def _link_refused(url, line=8):
    return f"implementations/tiled.yaml:{line}: " + LINK_FIX.format(url)


def _ctrl(code, line=3):
    return f"hardware/test-gpu.yaml:{line}: text contains the control character U+{code:04X} — {CTRL_FIX}"


SECURITY = [
    ("link-dotdot", _link("../../../etc/passwd"), _link_refused("../../../etc/passwd")),
    ("link-root-absolute", _link("/etc/passwd"), _link_refused("/etc/passwd")),
    ("link-relative-page", _link("other.html"), _link_refused("other.html")),
    ("link-javascript", _link("javascript:alert(1)"), _link_refused("javascript:alert(1)")),
    ("link-file", _link("file:///etc/passwd"), _link_refused("file:///etc/passwd")),
    ("link-protocol-relative", _link("//evil.example/x"), _link_refused("//evil.example/x")),
    ("link-ftp", _link("ftp://evil.example/x"), _link_refused("ftp://evil.example/x")),
    ("link-mailto", _link("mailto:a@b.c"), _link_refused("mailto:a@b.c")),
    ("link-reference-style", _notes('"[x][r]\\n\\n[r]: /etc/passwd"'), _link_refused("/etc/passwd")),
    ("link-raw-html", _notes("'<a href=\"/etc/passwd\">x</a>'"), _link_refused("/etc/passwd")),
    ("link-raw-html-single-quoted", _notes("\"<a href='../x'>x</a>\""), _link_refused("../x")),
    ("image-relative", _notes('"![i](../../secret.png)"'), _link_refused("../../secret.png")),
    ("link-entity-encoded", _notes("'<a href=\"&#47;etc\">x</a>'"), _link_refused("/etc")),
    ("link-in-family-summary", _edit(FAM, "summary: A fixture", "summary: '[x](/etc/passwd)' # A fixture"),
     "families/grouped-matvec.yaml:5: summary: link '/etc/passwd' does not lead to an http(s) page — links in "
     "text are absolute https:// URLs (or #anchors of the same page)"),
    ("source-url-javascript", _edit(IMPL, "source_url: https://example.org/tiled", "source_url: javascript:x"),
     "implementations/tiled.yaml:7: `source_url` is not an http(s) link: 'javascript:x' — use an absolute "
     "https:// URL"),
    ("id-dotdot", _edit(IMPL, "id: tiled", "id: ../../tmp/x"),
     f"implementations/tiled.yaml:2: `id` is '../../tmp/x', not a slug — {SLUG_FIX}"),
    ("id-cyrillic", _edit(IMPL, "id: tiled", "id: tіled"),  # U+0456, a look-alike of i
     f"implementations/tiled.yaml:2: `id` is 'tіled', not a slug — {SLUG_FIX}"),
    ("yaml-python-tag", _edit(HW, "vendor: Fixture", "vendor: !!python/name:os.system"),
     "hardware/test-gpu.yaml:4: YAML tag `!!python/name:os.system` is not allowed — remove the tag: records hold "
     "plain strings, numbers, booleans, dates, lists and mappings"),
    ("yaml-alias", _edit(HW, "memory_gb: 16", "memory_gb: &a 16"),
     "hardware/test-gpu.yaml:5: YAML anchors and aliases are not allowed in records — write the repeated values "
     "out in full"),
]

CRASH = [
    ("axis-10e400", _m("1" + "0" * 400),
     "families/grouped-matvec.yaml:24: the number 10000000000000000000… is too large — whole numbers in records "
     "are at most 2**53 (9,007,199,254,740,992)"),
    ("axis-2e53-plus-1", _m(str(2**53 + 1)),
     "families/grouped-matvec.yaml:24: the number 9007199254740993… is too large — whole numbers in records are "
     "at most 2**53 (9,007,199,254,740,992)"),
    ("memory-10e30", _memory("1" + "0" * 30),
     "hardware/test-gpu.yaml:5: the number 10000000000000000000… is too large — whole numbers in records are at "
     "most 2**53 (9,007,199,254,740,992)"),
    ("hex-huge", _memory("0x" + "f" * 40),
     "hardware/test-gpu.yaml:5: the number 0xffffffffffffffffff… is too large — whole numbers in records are at "
     "most 2**53 (9,007,199,254,740,992)"),
    ("esc-in-name", _name("Test \\e[31mGPU"), _ctrl(0x1B)),
    ("deep-flow", _append(HW, "x: " + "[" * 5000 + "]" * 5000 + "\n"),
     "hardware/test-gpu.yaml:9: the document is nested too deeply — records nest at most 32 levels"),
    ("deep-flow-map", _append(HW, "x: " + "{a: " * 100 + "1" + "}" * 100 + "\n"),
     "hardware/test-gpu.yaml:9: the document is nested too deeply — records nest at most 32 levels"),
    ("long-name", _name("x" * 300), "hardware/test-gpu.yaml:3: `name`: string should have at most 200 characters "
                                    "— shorten or complete the value"),
    ("long-notes", _notes("x" * 20_001), "implementations/tiled.yaml:8: `notes`: string should have at most "
                                         "20000 characters — shorten or complete the value"),
    ("bracket-bomb", _notes('"' + "[" * 600 + '"'),
     "implementations/tiled.yaml:8: notes: more than 500 `[` in one text — write fewer links"),
    ("nan-time", _edit(RUN, "device_us: {median: 300.0,", "device_us: {median: .nan,"),
     f"{RUN}:13: `results.0.device_us.median`: Input should be a finite number — correct the value (see the "
     "record's JSON Schema)"),
    ("inf-memory", _memory(".inf"), "hardware/test-gpu.yaml:5: `memory_gb`: Input should be a finite number — "
                                    "correct the value (see the record's JSON Schema)"),
]

WRONG_LINE = [
    ("duplicate-workload", _edit(FAM, "{id: m64-k64-fp16, m: 64", "{id: m4096-k1024-fp16, m: 64"),
     "families/grouped-matvec.yaml:27: workloads.3: duplicate workload id 'm4096-k1024-fp16' (items 0 and 3) — "
     "give each workload its own id"),
    ("invalid-utf8-line-6", lambda root: (root / HW).write_bytes(
        (root / HW).read_bytes().replace(b"memory_bandwidth_gbps", b"memory_\xff_gbps")),
     "hardware/test-gpu.yaml:6: file is not UTF-8 text — save it as UTF-8"),
    ("invalid-utf8-last-line", _add("hardware/latin.yaml", b"schema_version: 1\nid: latin\nname: caf\xe9\n"),
     "hardware/latin.yaml:3: file is not UTF-8 text — save it as UTF-8"),
    ("deep-block-line", _append(HW, "".join("  " * i + f"k{i}:\n" for i in range(40)) + "  " * 40 + "v: 1\n"),
     "hardware/test-gpu.yaml:42: the document is nested too deeply — records nest at most 32 levels"),
    ("deep-flow-one-bracket-a-line", _append(HW, "x:\n  " + "[\n  " * 40 + "]" * 40 + "\n"),
     "hardware/test-gpu.yaml:42: the document is nested too deeply — records nest at most 32 levels"),
    ("duplicate-key", _append(HW, "vendor: Other\n"),
     "hardware/test-gpu.yaml:9: duplicate key `vendor` — keep one of the two entries; YAML would silently drop "
     "the first"),
    ("control-char-line", _edit(RUN, "seed: 7", 'seed: 7\nnotes: "a\\ab"'),
     f"{RUN}:9: text contains the control character U+0007 — {CTRL_FIX}"),
    ("nested-too-deep-in-run", _append(RUN, "x: " + "[" * 40 + "]" * 40 + "\n"),
     f"{RUN}:18: the document is nested too deeply — records nest at most 32 levels"),
]


def _future(field_line):
    return field_line


SILENT = [
    ("bool-yes", _edit(RUN, "passed: true}", "passed: yes}", ),
     f"{RUN}:12: `results.0.correctness.passed` should be true or false, got 'yes' — write true or false"),
    ("bool-no", _edit(RUN, "passed: true}", "passed: no}"),
     f"{RUN}:12: `results.0.correctness.passed` should be true or false, got 'no' — write true or false"),
    ("bool-on", _edit(RUN, "passed: true}", "passed: on}"),
     f"{RUN}:12: `results.0.correctness.passed` should be true or false, got 'on' — write true or false"),
    ("bool-off", _edit(RUN, "passed: true}", "passed: off}"),
     f"{RUN}:12: `results.0.correctness.passed` should be true or false, got 'off' — write true or false"),
    ("bool-y", _edit(RUN, "passed: true}", "passed: y}"),
     f"{RUN}:12: `results.0.correctness.passed` should be true or false, got 'y' — write true or false"),
    ("bool-string-true", _edit(RUN, "passed: true}", "passed: 'true'}"),
     f"{RUN}:12: `results.0.correctness.passed` should be true or false, got 'true' — write true or false"),
    ("int-yes", _memory("yes"), "hardware/test-gpu.yaml:5: `memory_gb` should be a number, got 'yes' — write a "
                                "number"),
    ("int-on", _memory("on"), "hardware/test-gpu.yaml:5: `memory_gb` should be a number, got 'on' — write a "
                              "number"),
    ("int-quoted", _memory("'16'"), "hardware/test-gpu.yaml:5: `memory_gb` should be a number, got '16' — write "
                                    "a number"),
    ("int-sexagesimal", _memory("1:20"), "hardware/test-gpu.yaml:5: `memory_gb` should be a number, got '1:20' — "
                                         "write a number"),
    ("int-underscore", _memory("1_6"), "hardware/test-gpu.yaml:5: `memory_gb` should be a number, got '1_6' — "
                                       "write a number"),
    ("int-binary", _memory("0b10000"), "hardware/test-gpu.yaml:5: `memory_gb` should be a number, got '0b10000' — "
                                       "write a number"),
    ("ctrl-esc", _name("a\\eb"), _ctrl(0x1B)),
    ("ctrl-bel", _name("a\\ab"), _ctrl(0x07)),
    ("ctrl-nul-escaped", _name("a\\0b"), _ctrl(0x00)),
    ("ctrl-del", _name("a\\x7fb"), _ctrl(0x7F)),
    ("ctrl-c1-csi", _name("a\\x9bb"), _ctrl(0x9B)),
    ("ctrl-c1-nel", _name("a\\Nb"), _ctrl(0x85)),
    ("ctrl-cr", _name("a\\rb"), _ctrl(0x0D)),
    ("ctrl-vertical-tab", _name("a\\vb"), _ctrl(0x0B)),
    ("ctrl-line-separator", _name("a\\Lb"), _ctrl(0x2028)),
    ("ctrl-in-key", _append(HW, '"a\\eb": 1\n'),
     "hardware/test-gpu.yaml:9: a key contains the control character U+001B — remove it: keys are plain names"),
    ("ctrl-in-markdown", _notes('"a\\e[2Jb"'),
     f"implementations/tiled.yaml:8: text contains the control character U+001B — {CTRL_FIX}"),
    ("future-observed", _edit(RUN, "observed: 2026-01-01T10:00:00Z", f"observed: {TOMORROW}"),
     f"{RUN}:5: `observed` is a date in the future ({TOMORROW}) — write the date it was observed (UTC)"),
    ("future-released", _append(IMPL, f"version: '1.0'\nreleased: {TOMORROW}\n"),
     f"implementations/tiled.yaml:9: `released` is a date in the future ({TOMORROW}) — write the date it was "
     "observed (UTC)"),
    ("windows-file-con", _copy(IMPL, "implementations/con.yaml", "id: tiled", "id: con"),
     "implementations/con.yaml:1: file name 'con.yaml' is reserved on Windows — rename it: CON, PRN, AUX, NUL, "
     "COM1-9 and LPT1-9 cannot be file names there"),
    ("windows-file-upper-con", _copy(IMPL, "implementations/CON.yaml"),
     "implementations/CON.yaml:1: file name 'CON.yaml' is reserved on Windows — rename it: CON, PRN, AUX, NUL, "
     "COM1-9 and LPT1-9 cannot be file names there"),
    ("windows-file-lpt9", _copy(HW, "hardware/lpt9.yaml", "id: test-gpu", "id: lpt9"),
     "hardware/lpt9.yaml:1: file name 'lpt9.yaml' is reserved on Windows — rename it: CON, PRN, AUX, NUL, "
     "COM1-9 and LPT1-9 cannot be file names there"),
    ("windows-file-aux-extension", _copy(HW, "hardware/aux.x.yaml"),
     "hardware/aux.x.yaml:1: file name 'aux.x.yaml' is reserved on Windows — rename it: CON, PRN, AUX, NUL, "
     "COM1-9 and LPT1-9 cannot be file names there"),
    ("windows-run-nul", _copy(RUN, "runs/grouped-matvec/test-gpu/nul.yaml"),
     f"runs/grouped-matvec/test-gpu/nul.yaml:1: file name 'nul.yaml' is reserved on Windows — rename it: CON, "
     "PRN, AUX, NUL, COM1-9 and LPT1-9 cannot be file names there"),
    ("windows-workload-id", _edit(FAM, "{id: m64-k64-fp16,", "{id: com1,"),
     "families/grouped-matvec.yaml:27: workloads.3.id: 'com1' is a name reserved on Windows — choose another id "
     "(CON, PRN, AUX, NUL, COM1-9 and LPT1-9 cannot be file names there)"),
    ("cyrillic-run-file-name", _copy(RUN, "runs/grouped-matvec/test-gpu/2026-01-01-fіrst.yaml"),
     "runs/grouped-matvec/test-gpu/2026-01-01-fіrst.yaml:1: file name '2026-01-01-fіrst.yaml' is not a slug — "
     "use lower-case letters, digits and - _ ."),
]

ACCEPTED_AS_TEXT = [  # YAML 1.2: these are strings where a string is wanted, never booleans or numbers
    ("yes", "yes"), ("No", "No"), ("on", "on"), ("OFF", "OFF"), ("y", "y"), ("010", "010"), ("1:20", "1:20"),
]

CASES = ([("security", *c) for c in SECURITY] + [("crash", *c) for c in CRASH]
         + [("wrong line", *c) for c in WRONG_LINE] + [("silent acceptance", *c) for c in SILENT])


@pytest.fixture
def root(tmp_path) -> Path:
    shutil.copytree(SECOND, tmp_path / "records")
    return tmp_path / "records"


def _problems(root: Path) -> list[str]:
    with pytest.raises(RecordErrors) as info:
        load_catalog(root)
    return [str(p).removeprefix("records/") for p in info.value.problems]


@pytest.mark.parametrize("klass, name, mutate, expected", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_refused_with_its_one_message(root, klass, name, mutate, expected):
    load_catalog(root)  # the fixture itself is valid
    mutate(root)
    problems = _problems(root)
    if expected is None:  # refused by a rule whose wording is tested elsewhere: one message, this file
        assert len(problems) == 1, problems
    else:
        assert problems == [expected]


# --- silent acceptance: YAML 1.2 scalars, the same in libyaml's fast path and the checked path ----

from site_builder.records import yamlio  # noqa: E402

SCALARS = [  # (YAML text, the value both paths must read)
    ("yes", "yes"), ("No", "No"), ("on", "on"), ("OFF", "OFF"), ("y", "y"), ("n", "n"),
    ("true", True), ("False", False), ("010", 10), ("0o10", 8), ("0x1f", 31), ("1:20", "1:20"),
    ("1_000", "1_000"), ("1e-6", 1e-6), ("+2.5E3", 2500.0), ("0b101", "0b101"), ("~", None),
]


@pytest.mark.parametrize("text, value", SCALARS, ids=[t for t, _ in SCALARS])
def test_yaml_1_2_scalars_in_both_paths(text, value):
    doc = f"a: {text}\n"
    fast = yamlio._fast(doc)
    assert fast is not None, "the fast path reads a plain file"
    loader = yamlio._Loader(doc)
    try:
        checked = yamlio._walk(loader.get_single_node(), (), yamlio.Document(data=None), loader, 0)
    finally:
        loader.dispose()
    assert fast.data == checked == {"a": value}
    assert type(fast.data["a"]) is type(value)


def test_captured_output_is_cleaned_with_a_warning(root):
    _edit(RUN, "    device_us: {median: 250.0", "    error: \"boom \\e[91mred\\e[0m\\a\"\n    device_us: {median: 250.0")(root)
    assert [str(w) for w in load_catalog(root).warnings] == [
        f"records/{RUN}:17: warning: control characters removed from `error` (captured output) — nothing to do; "
        "write the text without terminal colour codes"]
    doc = yamlio.parse((root / RUN).read_text())
    assert doc.data["results"][1]["error"] == "boom red"
    assert doc.warnings == [(17, "control characters removed from `error` (captured output)",
                             "nothing to do; write the text without terminal colour codes")]


# --- data loss: the publish, killed at every step of the swap -------------------------------------

from site_builder.build.write import STEPS, site_lock, write_site  # noqa: E402
from site_builder.site.urls import MARKER  # noqa: E402

KILL_SCRIPT = """
import sys
from pathlib import Path
from site_builder.build.write import write_site
from site_builder.site.urls import MARKER
files = {MARKER: b"m", "index.html": b"new", **{f"p/{i}.html": b"new" for i in range(50)}}
write_site(files, Path(sys.argv[1]))
"""


def _site(version: bytes) -> dict:
    return {MARKER: b"m", "index.html": version, **{f"p/{i}.html": version for i in range(50)}}


def _whole(out: Path) -> bytes:
    """The version of the complete site in `out`: every page the same version, none missing."""
    versions = {(out / rel).read_bytes() for rel in _site(b"") if rel != MARKER}
    assert len(versions) == 1 and len(list(out.rglob("*.html"))) == 51, versions
    return versions.pop()


@pytest.mark.parametrize("step", STEPS)
def test_a_build_killed_at_each_step_leaves_a_whole_site(tmp_path, step):
    out = tmp_path / "output"
    write_site(_site(b"old"), out)
    env = dict(os.environ, KR_KILL_AT=step, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    done = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(out)], env=env, capture_output=True)
    assert done.returncode == 137, done.stderr.decode()
    expected = b"new" if STEPS.index(step) >= STEPS.index("swapped") else b"old"
    assert _whole(out) == expected
    write_site(_site(b"next"), out)  # the next build cleans up what the killed one left
    assert _whole(out) == b"next"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["output"]


def test_the_fallback_swap_killed_between_its_renames_is_restored(tmp_path, monkeypatch):
    out = tmp_path / "output"
    write_site(_site(b"old"), out)
    os.replace(out, tmp_path / ".output.old-99999")  # what a kill between the two renames leaves
    (tmp_path / ".output.tmp-99999").mkdir()
    write_site(_site(b"new"), out)
    assert _whole(out) == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["output"]


def test_a_second_build_into_the_same_folder_is_refused_with_one_line(tmp_path):
    out = tmp_path / "output"
    with site_lock(out):
        with pytest.raises(UserError) as info:
            write_site(_site(b"x"), out)
        result = CliRunner().invoke(main, ["build", "--no-run", "--records", str(SECOND), "--out", str(out)])
    assert str(info.value) == (f"another build is writing {out.resolve()} right now (lock .output.lock is held); "
                               "wait for it to finish, then build again")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.strip().splitlines() == [f"error: {info.value}"]
    assert not out.exists()


def test_a_folder_not_made_by_the_builder_is_never_replaced(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    with pytest.raises(UserError):
        write_site(_site(b"x"), out)
    assert (out / "thesis.tex").read_text() == "years of work"


def test_a_file_where_the_site_goes_is_never_replaced(tmp_path):
    out = tmp_path / "output"
    out.write_text("a file")
    with pytest.raises(UserError):
        write_site(_site(b"x"), out)
    assert out.read_text() == "a file"


# --- crash: the commands print one clean message and exit non-zero --------------------------------

CLI_CASES = [c for c in CASES if c[1] in ("axis-10e400", "esc-in-name", "deep-flow", "link-dotdot",
                                          "duplicate-workload", "invalid-utf8-line-6", "bool-yes",
                                          "future-observed", "windows-file-con")]


@pytest.mark.parametrize("command", ["check", "build"])
@pytest.mark.parametrize("klass, name, mutate, expected", CLI_CASES, ids=[c[1] for c in CLI_CASES])
def test_the_commands_print_the_message_without_a_traceback(root, tmp_path, command, klass, name, mutate,
                                                            expected):
    mutate(root)
    extra = ["--no-run", "--out", str(tmp_path / "out")] if command == "build" else []
    result = CliRunner().invoke(main, [command, "--records", str(root), *extra])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception,
                                                                                          SystemExit)
    assert any(line.endswith(expected) for line in result.output.splitlines()), result.output


FIXTURES = Path(__file__).resolve().parent / "fixtures" / "liger-csv"
CSV_HEADER = (FIXTURES / "benchmark_sample.csv").read_text(encoding="utf-8").splitlines()[0]
CSV_ROW = ('fused_add_rms_norm,liger_fused_add_rms_norm,forward,speed,ms,H,hidden size,1024,0.0205,0.0201,0.021,'
           '"{cfg}",NVIDIA H100 80GB HBM3,2025-03-14 10:20:30,0.5.5')
CFG = '{""M"": 2048, ""dtype"": ""torch.float32"", ""eps"": 1e-06}'

CSV_CASES = [
    ("field-200000", CSV_ROW.format(cfg="x" * 200_000),
     "error: {csv}:2: the CSV cannot be read there (field larger than field limit (131072)); a field has at most 10,000 "
     "characters — fix the file where it is published"),
    ("field-20000", CSV_ROW.format(cfg="x" * 20_000),
     "{csv}: line 2 (1 row) not imported: column extra_benchmark_config_str holds more than 10,000 characters; "
     "fix the quoting of the row"),
    ("json-deep", CSV_ROW.format(cfg="[" * 5000 + "]" * 5000),
     "{csv}: line 2 (1 row) not imported: extra_benchmark_config_str nests deeper than 8 levels; it is a flat "
     "JSON object — fix the row"),
    ("control-character", CSV_ROW.replace("NVIDIA H100", "NVIDIA\x1b[31m H100").format(cfg=CFG),
     "{csv}: line 2 (1 row) not imported: column gpu_name holds the control character U+001B; remove it "
     "where the CSV is made, fix the row"),
    ("bell-in-version", CSV_ROW.replace(",0.5.5", ",0.5.5\x07").format(cfg=CFG),
     "{csv}: line 2 (1 row) not imported: column liger_version holds the control character U+0007; remove it "
     "where the CSV is made, fix the row"),
    ("json-deep-object", CSV_ROW.format(cfg='{""a"": ' * 100 + "1" + "}" * 100),
     "{csv}: line 2 (1 row) not imported: extra_benchmark_config_str nests deeper than 8 levels; it is a flat "
     "JSON object — fix the row"),
]


@pytest.mark.parametrize("name, row, expected", CSV_CASES, ids=[c[0] for c in CSV_CASES])
def test_the_importer_refuses_oversized_fields_and_deep_json(tmp_path, name, row, expected):
    records = tmp_path / "records"
    shutil.copytree(FIXTURES / "records", records)
    csv_path = tmp_path / "rows.csv"
    csv_path.write_text(CSV_HEADER + "\n" + row + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["import", "liger-csv", str(csv_path), "--records", str(records),
                                       "--commit", "0" * 40])
    assert result.exit_code == (2 if expected.startswith("error: ") else 1)  # 2: the file is refused whole
    assert "Traceback" not in result.output
    assert expected.format(csv=csv_path) in result.output.splitlines(), result.output


# --- silent acceptance: scaffolds never write a name Windows cannot hold --------------------------

SCAFFOLDS = [
    (["new", "hardware", "con"], "hardware id 'con'"),
    (["new", "hardware", "LPT1"], None),
    (["new", "implementation", "aux"], "implementation id 'aux'"),
    (["new", "implementation", "com7"], "implementation id 'com7'"),
    (["new", "family", "nul", "--baseline", "naive"], "family id 'nul'"),
    (["new", "family", "prn.x", "--baseline", "naive"], "family id 'prn.x'"),
    (["new", "hardware", "gpu-ǃ"], None),
]


@pytest.mark.parametrize("args, what", SCAFFOLDS, ids=[" ".join(a[:3]) for a, _ in SCAFFOLDS])
def test_scaffolds_refuse_windows_names(root, args, what):
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    result = CliRunner().invoke(main, [*args, "--records", str(root)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    if what:
        assert (f"{what} is a name reserved on Windows (CON, PRN, AUX, NUL, COM1-9, LPT1-9): choose another"
                in result.output), result.output
    else:
        assert "is not a slug" in result.output, result.output
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


def test_kernel_scaffold_refuses_a_windows_name(tmp_path):
    from site_builder.runner.scaffold_kernels import new_kernels

    with pytest.raises(UserError, match="is a name reserved on Windows"):
        new_kernels(SECOND, "con", kernels_root=tmp_path / "kernels")
    assert not (tmp_path / "kernels").exists()


# --- crash: a chart of 2,000 sizes on one axis ----------------------------------------------------

def test_a_chart_of_2000_sizes_labels_at_most_24_ticks_and_renders():
    from site_builder.build.svg import svg_of
    from site_builder.site.charts import MAX_TICKS, altair_scaling_spec, axis_ticks

    xs = list(range(1, 2001))
    ticks = axis_ticks(xs)
    assert len(ticks) == MAX_TICKS == 24 and ticks[0] == 1 and ticks[-1] == 2000
    data = [{"x": x, "us": 1.0 + x, "impl": "a", "median": "1"} for x in xs]
    svg = svg_of(altair_scaling_spec(data, xs, "n"))
    assert svg.startswith("<svg") and svg.count("<text") < 80


@pytest.mark.parametrize("levels", [31, 32, 33])
def test_both_yaml_paths_hold_the_same_depth_limit(levels):
    text = "".join("  " * i + f"k{i}:\n" for i in range(levels)) + "  " * levels + "v: 1\n"
    fast = yamlio._fast(text)
    try:
        checked = yamlio.parse(text + "# &\n")  # `&` sends it down the checked path
    except yamlio.YamlProblem as exc:
        checked = exc.line
    assert (fast.data if fast else None) == (checked.data if isinstance(checked, yamlio.Document) else None)
    assert (fast is None) == (levels >= 32)  # a value 33 levels down (root at 0) is refused by both
