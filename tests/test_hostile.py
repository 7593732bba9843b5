"""Hostile input: what a stranger's pull request can carry, and what the engine does with it.

Records that must be refused are refused with their file, line and fix, and a failed build
leaves the previous `output/` exactly as it was. Records that are valid but carry markup are
built, and nothing executable of that markup reaches any file of the site.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder.build import build
from site_builder.cli import main
from site_builder.errors import RecordErrors
from site_builder.records.load import load_catalog

from conftest import CPU_HARDWARE, RECORDS, REPORTED_RUN_HEAD

IMPL = "implementations/liger-fused.yaml"
HW = "hardware/h200.yaml"
FAMILY = "families/fused-add-rmsnorm.yaml"
RUN = "runs/fused-add-rmsnorm/h100-sxm/2026-04-07-liger-v0.7.0.yaml"
NEW_RUN = "runs/fused-add-rmsnorm/h100-sxm/2026-05-01-pr.yaml"
RUN_HEAD = REPORTED_RUN_HEAD
RESULT = "results:\n  - {implementation: liger-fused, workload: r2048-h1024-fp32, e2e_us: {median: 30.0}}\n"


def snapshot(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def good_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("good") / "output"
    build(RECORDS, out)
    return out


@pytest.fixture
def tree(tmp_path, good_site):
    """records/ (a copy of the committed ones) and output/ (a site built from them)."""
    shutil.copytree(RECORDS, tmp_path / "records")
    shutil.copytree(good_site, tmp_path / "output")
    return tmp_path


def edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / "records" / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (old, rel)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def add(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / "records" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    return path


def add_run(root: Path, body: str, head: str = RUN_HEAD) -> Path:
    return add(root, NEW_RUN, head + body)


# --- refused: each case, the exact problem, and the previous site untouched --------------------

def _oversized(root):
    add(root, HW, (root / "records" / HW).read_text() + "# " + "x" * 1_000_000 + "\n")


def _huge_sparse(root):  # 3 GB on paper: must not be read into memory
    path = root / "records" / "hardware" / "huge.yaml"
    with open(path, "wb") as handle:
        handle.truncate(3 * 2**30)


def _billion_laughs(root):
    lol = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    lol += "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
    add(root, "hardware/lol.yaml", lol)


def _anchor(root):
    edit(root, HW, "memory_gb: 141", "memory_gb: &m 141")


def _merge_key(root):
    edit(root, HW, "peak_tflops: {", "peak_tflops: {<<: {fp32: 1}, ")


def _deep_flow(root):
    add(root, "hardware/deep.yaml", "schema_version: 1\nid: deep\nname: " + "[" * 50_000 + "]" * 50_000 + "\n")


def _deep_block(root):
    add(root, "hardware/deep.yaml", "schema_version: 1\n" + "".join("  " * i + f"k{i}:\n" for i in range(40))
        + "  " * 40 + "v: 1\n")


def _python_object(root):
    edit(root, HW, "name: NVIDIA H200", "name: !!python/object/apply:os.system ['touch /tmp/kr-pwned']")


def _python_name(root):
    edit(root, HW, "vendor: NVIDIA", "vendor: !!python/name:os.system")


def _binary_tag(root):
    edit(root, HW, "vendor: NVIDIA", "vendor: !!binary TlZJRElB")


def _custom_tag(root):
    edit(root, HW, "vendor: NVIDIA", "vendor: !include /etc/passwd")


def _nul(root):
    edit(root, HW, "vendor: NVIDIA", "vendor: NV\x00IDIA")


def _latin1(root):
    add(root, "hardware/latin.yaml", b"schema_version: 1\nid: latin\nname: caf\xe9\n")


def _two_documents(root):
    add(root, HW, (root / "records" / HW).read_text() + "---\nid: second\n")


def _duplicate_key(root):
    edit(root, HW, "vendor: NVIDIA", "vendor: NVIDIA\nvendor: AMD")


def _javascript_url(root):
    edit(root, IMPL, "source_url: https://github.com", "source_url: javascript:alert(1)//https://github.com")


def _data_url(root):
    edit(root, HW, "datasheet_url: https://www.nvidia.com/en-us/data-center/h200/",
         "datasheet_url: data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==")


def _file_url(root):
    add_run(root, RESULT, RUN_HEAD.replace('"https://example.org/data"', "file:///etc/passwd"))


def _protocol_relative_url(root):
    add_run(root, RESULT, RUN_HEAD.replace('"https://example.org/data"', '"//evil.example/x"'))


def _url_with_space(root):
    add_run(root, RESULT, RUN_HEAD.replace('"https://example.org/data"', '"https://example.org/a b"'))


def _dotdot_id(root):
    add(root, "implementations/evil.yaml", (root / "records" / IMPL).read_text().replace(
        "id: liger-fused", "id: ../../../../tmp/evil"))


def _dotdot_family(root):
    add_run(root, RESULT, RUN_HEAD.replace("family: fused-add-rmsnorm", "family: ../../../../tmp"))


def _absolute_hardware(root):
    add_run(root, RESULT, RUN_HEAD.replace("hardware: h100-sxm", "hardware: /etc"))


def _line_of(rel: str, text: str) -> int:
    """The line of the committed record `rel` that holds `text` (so an edit above it moves nothing here)."""
    lines = (RECORDS / rel).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def _slash_workload(root):
    edit(root, FAMILY, "{id: r2048-h1024-fp32,", "{id: r2048/h1024-fp32,")


def _upper_case_id(root):
    add(root, "implementations/Liger-Fused.yaml", (root / "records" / IMPL).read_text().replace(
        "id: liger-fused", "id: Liger-Fused"))


def _case_collision(root):
    add(root, "implementations/LIGER-FUSED.yaml", (root / "records" / IMPL).read_text())


def _file_name_not_a_slug(root):
    add(root, "implementations/evil name;rm -rf.yaml", "schema_version: 1\n")


def _hidden_file(root):
    add(root, "implementations/.evil.yaml", "schema_version: 1\n")


def _unexpected_place(root):
    add(root, "evil.yaml", "schema_version: 1\n")


def _symlink_file_outside(root):
    outside = root / "outside.yaml"
    outside.write_text((root / "records" / HW).read_text().replace("id: h200", "id: stolen"))
    os.symlink(outside, root / "records" / "hardware" / "stolen.yaml")


def _symlink_folder_outside(root):
    (root / "elsewhere").mkdir()
    shutil.copy(root / "records" / HW, root / "elsewhere" / "h200.yaml")
    os.symlink(root / "elsewhere", root / "records" / "runs" / "fused-add-rmsnorm" / "elsewhere")


def _symlink_loop(root):
    os.symlink("loop.yaml", root / "records" / "hardware" / "loop.yaml")


def _run_case_collision(root):
    add(root, RUN.replace("2026-04-07-liger-v0.7.0", "2026-04-07-LIGER-v0.7.0"), (root / "records" / RUN).read_text())


def _markdown_bracket_bomb(root):  # would take a minute to render: refused before rendering
    edit(root, RUN, "notes: Figures", "notes: \"" + "[" * 19_000 + "\"  # Figures")


def _many_values(root):  # under the size limit, but slow to compose
    add(root, "hardware/many.yaml", "schema_version: 1\nid: many\nname: [" + "1," * 200_000 + "1]\n")


def _negative_nan(root):
    add_run(root, "results:\n  - {implementation: liger-fused, workload: r2048-h1024-fp32, e2e_us: {median: .nan}}\n")


def _unknown_implementation(root):
    add_run(root, RESULT.replace("liger-fused", "rm-rf-everything"))


REFUSED = [
    (_oversized, "records/hardware/h200.yaml:1: file is larger than 1000 kB — split the results into several "
                 "run files"),
    (_huge_sparse, "records/hardware/huge.yaml:1: file is larger than 1000 kB — split the results into several "
                   "run files"),
    (_billion_laughs, "records/hardware/lol.yaml:1: YAML anchors and aliases are not allowed in records — write "
                      "the repeated values out in full"),
    (_anchor, "records/hardware/h200.yaml:7: YAML anchors and aliases are not allowed in records — write the "
              "repeated values out in full"),
    (_merge_key, "records/hardware/h200.yaml:9: YAML merge keys (<<) are not allowed — write the merged fields "
                 "out in full"),
    (_deep_flow, "records/hardware/deep.yaml:3: the document is nested too deeply — records nest at most 32 "
                 "levels"),
    (_deep_block, "records/hardware/deep.yaml:35: the document is nested too deeply — records nest at most 32 "
                  "levels"),
    (_python_object, "records/hardware/h200.yaml:4: YAML tag `!!python/object/apply:os.system` is not allowed — "
                     "remove the tag: records hold plain strings, numbers, booleans, dates, lists and mappings"),
    (_python_name, "records/hardware/h200.yaml:5: YAML tag `!!python/name:os.system` is not allowed — remove the "
                   "tag: records hold plain strings, numbers, booleans, dates, lists and mappings"),
    (_binary_tag, "records/hardware/h200.yaml:5: YAML tag `!!binary` is not allowed — remove the tag: records "
                  "hold plain strings, numbers, booleans, dates, lists and mappings"),
    (_custom_tag, "records/hardware/h200.yaml:5: YAML tag `!include` is not allowed — remove the tag: records "
                  "hold plain strings, numbers, booleans, dates, lists and mappings"),
    (_nul, "records/hardware/h200.yaml:5: the file contains the control character U+0000 — remove it; records "
           "are plain text"),
    (_latin1, "records/hardware/latin.yaml:3: file is not UTF-8 text — save it as UTF-8"),
    (_two_documents, "records/hardware/h200.yaml:13: more than one YAML document in the file — keep one record "
                     "per file and remove the `---` separator"),
    (_duplicate_key, "records/hardware/h200.yaml:6: duplicate key `vendor` — keep one of the two entries; YAML "
                     "would silently drop the first"),
    (_javascript_url, "records/implementations/liger-fused.yaml:8: `source_url` is not an http(s) link: "
                      "'javascript:alert(1)//https://github.com/linkedin/Liger-Kernel/blob/main/src/liger_kernel/"
                      "ops/fused_add_rms_norm.py' — use an absolute https:// URL"),
    (_data_url, "records/hardware/h200.yaml:12: `datasheet_url` is not an http(s) link: "
                "'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==' — use an absolute https:// URL"),
    (_file_url, f"records/{NEW_RUN}:6: `source.url` is not an http(s) link: 'file:///etc/passwd' — use an "
                "absolute https:// URL"),
    (_protocol_relative_url, f"records/{NEW_RUN}:6: `source.url` is not an http(s) link: '//evil.example/x' — "
                             "use an absolute https:// URL"),
    (_url_with_space, f"records/{NEW_RUN}:6: `source.url` is not an http(s) link: 'https://example.org/a b' — "
                      "use an absolute https:// URL"),
    (_dotdot_id, "records/implementations/evil.yaml:3: `id` is '../../../../tmp/evil', not a slug — use "
                 "lower-case letters, digits and single - _ . between them, e.g. my-kernel-v2"),
    (_dotdot_family, f"records/{NEW_RUN}:2: `family` is '../../../../tmp', not a slug — use lower-case letters, "
                     "digits and single - _ . between them, e.g. my-kernel-v2"),
    (_absolute_hardware, f"records/{NEW_RUN}:3: `hardware` is '/etc', not a slug — use lower-case letters, "
                         "digits and single - _ . between them, e.g. my-kernel-v2"),
    (_slash_workload, f"records/families/fused-add-rmsnorm.yaml:{_line_of(FAMILY, '{id: r2048-h1024-fp32,')}: "
                      "`workloads.0.id` is 'r2048/h1024-fp32', not a slug — use lower-case letters, digits and "
                      "single - _ . between them, e.g. my-kernel-v2"),
    (_upper_case_id, "records/implementations/Liger-Fused.yaml:3: `id` is 'Liger-Fused', not a slug — use "
                     "lower-case letters, digits and single - _ . between them, e.g. my-kernel-v2"),
    (_case_collision, "records/implementations/LIGER-FUSED.yaml:3: duplicate id 'liger-fused' (also in "
                      "records/implementations/liger-fused.yaml) — ids must be unique, ignoring case; rename one"),
    (_file_name_not_a_slug, "records/implementations/evil name;rm -rf.yaml:1: file name 'evil name;rm -rf.yaml' "
                            "is not a slug — use lower-case letters, digits and - _ ."),
    (_hidden_file, "records/implementations/.evil.yaml:1: file name '.evil.yaml' is not a slug — use lower-case "
                   "letters, digits and - _ ."),
    (_unexpected_place, "records/evil.yaml:1: record in an unexpected place — put it in families/, "
                        "implementations/, hardware/ or runs/<family>/<hardware>/"),
    (_symlink_file_outside, "records/hardware/stolen.yaml:1: symbolic link pointing outside the records folder — "
                            "replace the link with the file itself"),
    (_symlink_folder_outside, "records/runs/fused-add-rmsnorm/elsewhere:1: symbolic link to a folder outside the "
                              "records folder — replace the link with the files themselves"),
    (_symlink_loop, "records/hardware/loop.yaml:1: cannot read the file: Too many levels of symbolic links — "
                    "replace it with a plain text file"),
    (_run_case_collision, "records/runs/fused-add-rmsnorm/h100-sxm/2026-04-07-liger-v0.7.0.yaml:1: run file name "
                          "differs only in case from '2026-04-07-LIGER-v0.7.0.yaml' — rename one: file names must be "
                          "unique, ignoring case"),
    (_markdown_bracket_bomb, f"records/{RUN}:26: notes: more than 500 `[` in one text — write fewer links"),
    (_many_values, "records/hardware/many.yaml:3: more than 100,000 values in one file — split the results into "
                   "several run files"),
    (_negative_nan, f"records/{NEW_RUN}:9: `results.0.e2e_us.median`: Input should be a finite number — correct "
                    "the value (see the record's JSON Schema)"),
    (_unknown_implementation, f"records/{NEW_RUN}:9: unknown implementation 'rm-rf-everything' — use one of the "
                              "implementations in records/implementations/ (..."),
]


@pytest.mark.parametrize("mutate, expected", REFUSED, ids=[m.__name__.strip("_") for m, _ in REFUSED])
def test_refused_with_the_message_and_the_previous_site_kept(tree, mutate, expected, monkeypatch):
    monkeypatch.chdir(tree)
    mutate(tree)
    before = snapshot(tree / "output")
    with pytest.raises(RecordErrors) as info:
        build(Path("records"), Path("output"))
    messages = [str(p) for p in info.value.problems]
    if expected.endswith("(..."):  # a list that grows with the records: the message up to it
        assert any(m.startswith(expected[:-3]) for m in messages), "\n".join(messages)
    else:
        assert expected in messages, "\n".join(messages)
    assert snapshot(tree / "output") == before
    assert sorted(p.name for p in tree.iterdir()) == sorted(
        p.name for p in tree.iterdir() if not p.name.startswith((".output.tmp", ".output.old")))
    assert not Path("/tmp/kr-pwned").exists()


def test_the_cli_prints_them_without_a_traceback(tree, monkeypatch):
    monkeypatch.chdir(tree)
    expected = dict(REFUSED)
    cases = (_billion_laughs, _python_name, _symlink_loop, _javascript_url, _file_url)
    for mutate in cases:
        mutate(tree)
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    lines = result.output.splitlines()
    for mutate in cases:
        assert expected[mutate] in lines
    assert lines[-1].endswith(" problems found; nothing was written.")
    build_result = CliRunner().invoke(main, ["build", "--no-run"])
    assert build_result.exit_code == 1 and "Traceback" not in build_result.output


def test_a_folder_named_like_a_record_is_not_read(tree, monkeypatch):
    monkeypatch.chdir(tree)
    (tree / "records" / "hardware" / "folder.yaml").mkdir()
    load_catalog(Path("records"))  # no crash, no problem: it is not a file


# --- built: markup in text fields, nothing of it reaches the site ---------------------------------
# (Links in them that lead anywhere but an http(s) page or an #anchor are refused at load time:
# tests/test_hostile_suite.py, class security. Here they are #anchors, and the markup around them is
# what must not reach a page.)

SCRIPTS = {
    "summary": "<script>alert('s1')</script> Residual add **then** RMSNorm.",
    "notes": ("<img src=https://example.org/x onerror=alert('s2')> [a](#s3) "
              "[b](#s3b) <a href=\"#s4\">c</a> "
              "[d][evil] <javascript:alert('s5')> [e](#s6) "
              "<iframe src=\"https://evil.example/\"></iframe> <svg onload=alert('s7')></svg> "
              "![img](#s8) <form action=\"https://evil.example/\"><input></form> "
              "<meta http-equiv=\"refresh\" content=\"0;url=https://evil.example/\"> "
              "<style>body{display:none}</style> <object data=\"https://evil.example/x.swf\"></object>"
              "\n\n[evil]: #s9\n"),
    "numerics": "Llama <b onclick=\"alert('s10')\">convention</b> <a href=\"#s11\">v</a>",
    "name": "Liger <script>alert('s12')</script> fused",
}


def _markup_everywhere(root):
    import json

    q = json.dumps  # a JSON string is a valid YAML scalar
    edit(root, FAMILY, "summary: >-\n  Residual add followed by RMSNorm, returning the normalized activation and the\n"
         "  post-add residual. The pre-norm step of every Llama-style transformer block.",
         f"summary: {q(SCRIPTS['summary'])}")
    edit(root, FAMILY, "{id: r2048-h1024-fp32, rows", "{id: r2048-h1024-fp32, label: \"<script>alert('s13')</script>\", rows")
    edit(root, IMPL, "notes: One Triton kernel that adds, normalises and writes both outputs in a single pass.",
         f"notes: {q(SCRIPTS['notes'])}")
    edit(root, IMPL, "name: Liger fused", f"name: {q(SCRIPTS['name'])}")
    edit(root, "implementations/transformers.yaml", "numerics: >-", f"numerics: {q(SCRIPTS['numerics'])}\nx_old: >-")
    path = root / "records" / "implementations" / "transformers.yaml"
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("x_old:"))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("  "))
    path.write_text("\n".join(lines[:start] + lines[end:]) + "\n")
    edit(root, RUN, "notes: Figures", "notes: \"<script>alert('s14')</script> [x](#s15)\"\nx_notes: Figures")
    text = (root / "records" / RUN).read_text()
    (root / "records" / RUN).write_text("\n".join(l for l in text.splitlines() if not l.startswith("x_notes:")) + "\n")
    edit(root, RUN, "    Liger-Kernel's own benchmark scripts; times include host dispatch.",
         "    <iframe src=\"https://evil.example/\"></iframe> <a href=\"#s16\">protocol</a>")
    edit(root, RUN, "  citation: >-", "  citation: >-\n    <script>alert('s17')</script>")
    add_run(root, "results:\n  - {implementation: liger-fused, workload: r2048-h1024-fp32, status: crashed, "
                  "error: \"<script>alert('s18')</script><img src=x onerror=alert('s19')>\"}\n"
                  "  - {implementation: transformers, workload: r2048-h1024-fp32, e2e_us: {median: 50.0}, "
                  "note: \"<svg onload=alert('s20')></svg>\"}\n",
            RUN_HEAD.replace("name: someone", "name: \"<b onmouseover=alert('s21')>someone</b>\""))


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    shutil.copytree(RECORDS, root / "records")
    _markup_everywhere(root)
    build(root / "records", root / "output")
    return root / "output"


def site_files(site: Path):
    return [p for p in sorted(site.rglob("*")) if p.is_file() and p.suffix in (".html", ".svg", ".xml", ".json", ".csv")]


def test_the_hostile_records_build(hostile_site):
    page = (hostile_site / "implementations" / "liger-fused.html").read_text(encoding="utf-8")
    assert "Liger &lt;script&gt;alert(&#39;s12&#39;)&lt;/script&gt; fused" in page  # text, escaped
    family = (hostile_site / "families" / "fused-add-rmsnorm.html").read_text(encoding="utf-8")
    assert "Residual add <strong>then</strong> RMSNorm." in family  # markdown still works


URL_ATTRIBUTES = {"href", "src", "action", "formaction", "data", "xlink:href", "poster", "background", "srcset"}
FORBIDDEN_TAGS = {"iframe", "object", "embed", "frame", "frameset", "applet", "base", "img", "link[rel=import]"}


SITE_CSS = (Path(__file__).resolve().parents[1] / "templates" / "assets" / "style.css").read_text(encoding="utf-8")


def dangers(path: Path) -> list[str]:
    """Everything in a page that could run code, load from elsewhere, or hide the page."""
    import json

    import warnings

    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

    with warnings.catch_warnings():  # the Atom feed is read the way a lenient reader would
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    found = []
    for el in soup.find_all(True):
        name = el.name.lower()
        if name in FORBIDDEN_TAGS:
            found.append(f"<{name}>")
        if name == "meta" and el.get("http-equiv"):
            found.append("<meta http-equiv>")
        if (name == "style" and "display:none" in (el.string or "").replace(" ", "")
                and (el.string or "").strip() not in SITE_CSS):  # the 404 page inlines the site's own stylesheet
            found.append("<style> from a record")
        if name == "script":
            src = el.get("src")
            if src is not None:
                if ":" in src.split("/")[0]:
                    found.append(f"<script src={src}>")
            elif el.get("type") == "application/json":
                try:
                    json.loads(el.string or "")
                except ValueError:
                    found.append("inline JSON broken open")
            elif "alert(" in (el.string or ""):
                found.append("inline script from a record")
        for attr, value in el.attrs.items():
            value = " ".join(value) if isinstance(value, list) else str(value)
            if attr.lower().startswith("on"):
                found.append(f"{name} {attr}=")
            if "evil.example" in value or "alert(" in value:
                found.append(f"{name} {attr}={value!r}")
            if attr.lower() in URL_ATTRIBUTES:
                scheme = value.strip().split(":", 1)[0].lower() if ":" in value.split("/")[0] else None
                if scheme not in (None, "http", "https") and value != "data:,":
                    found.append(f"{name} {attr}={value!r}")
    return found


def test_no_markup_of_a_record_reaches_any_page(hostile_site):
    pages = [p for p in site_files(hostile_site) if p.suffix in (".html", ".svg", ".xml")]
    assert len(pages) > 20
    found = {p.relative_to(hostile_site).as_posix(): d for p in pages if (d := dangers(p))}
    assert found == {}


def test_the_danger_check_sees_danger(tmp_path):
    page = tmp_path / "p.html"
    for html in ("<img src=x onerror=alert(1)>", "<a href='javascript:alert(1)'>x</a>", "<iframe src=x></iframe>",
                 "<script>alert(1)</script>", "<svg><a xlink:href='data:text/html,x'>y</a></svg>",
                 "<meta http-equiv=refresh content='0;url=https://evil.example/'>", "<b onclick=f()>b</b>",
                 "<form action='https://evil.example/'></form>", "<style>body{display:none}</style>"):
        page.write_text(html)
        assert dangers(page), html
    page.write_text("<p>&lt;script&gt;alert(1)&lt;/script&gt; javascript:alert(1) onerror=x</p>")
    assert dangers(page) == []  # text that only looks like markup is fine


def test_data_files_carry_the_text_only_as_escaped_data(hostile_site):
    """JSON beside the pages holds record text as data. The page data (build.to_json) escapes
    < > & so that it can be inlined anywhere without becoming markup; every JSON file at least
    parses, and none holds a `</` that could close a script it is inlined in."""
    import json

    for path in site_files(hostile_site):
        if path.suffix != ".json":
            continue
        text = path.read_text(encoding="utf-8")
        json.loads(text)
        assert "</" not in text, path.relative_to(hostile_site)
        if path.name != "search-index.json":  # search.py's own format: textContent only, `</` escaped
            assert "<" not in text and ">" not in text, path.relative_to(hostile_site)


def test_links_in_the_site_are_http_or_relative(hostile_site):
    import re

    for path in site_files(hostile_site):
        if path.suffix != ".html":
            continue
        for href in re.findall(r'(?:href|src|action)="([^"]*)"', path.read_text(encoding="utf-8")):
            assert href == "data:," or not re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I) or \
                href.startswith(("http://", "https://")), (href, path.name)


# --- no code runs because a record says so -------------------------------------------------


def test_the_runner_refuses_an_implementation_without_registered_code(tree, monkeypatch):
    pytest.importorskip("torch")
    from site_builder.errors import UserError
    from site_builder.runner import run_all

    monkeypatch.chdir(tree)
    add(tree, "hardware/cpu.yaml", CPU_HARDWARE)
    add(tree, "implementations/evil-impl.yaml", (tree / "records" / IMPL).read_text().replace(
        "id: liger-fused", "id: evil-impl"))
    before = snapshot(tree / "records")
    with pytest.raises(UserError) as info:
        run_all(Path("records"), family="fused-add-rmsnorm", implementations=["evil-impl"], device="cpu",
                timeout=120)
    assert str(info.value).startswith("implementation 'evil-impl' has no registered code for fused-add-rmsnorm — "
                                      "register a factory with @register('evil-impl') in kernels/fused_add_rmsnorm/")
    assert snapshot(tree / "records") == before


def test_a_measured_result_without_registered_code_fails_strict_check(tree, monkeypatch):
    monkeypatch.chdir(tree)
    shutil.copytree(Path(__file__).resolve().parent.parent / "kernels", tree / "kernels",
                    ignore=shutil.ignore_patterns("__pycache__"))
    add(tree, "implementations/evil-impl.yaml", (tree / "records" / IMPL).read_text().replace(
        "id: liger-fused", "id: evil-impl").replace('install: pip install "liger-kernel==0.8.5"', "install: null"))
    add(tree, "runs/fused-add-rmsnorm/h200/2026-05-01T00-00-00-abcdef.yaml", """\
schema_version: 1
family: fused-add-rmsnorm
hardware: h200
trust: measured
observed: 2026-05-01T00:00:00Z
protocol: {id: kernel-records-device, version: 1, clock: device, timing: cuda-graph}
environment: {gpu: NVIDIA H200}
results:
  - {implementation: evil-impl, workload: r2048-h1024-fp32, device_us: {median: 30.0}, correctness: {max_abs_error: 0.0, atol: 0.0, rtol: 0.0, passed: true}}
""")
    result = CliRunner().invoke(main, ["check", "--strict"])
    assert result.exit_code == 1
    assert ("records/runs/fused-add-rmsnorm/h200/2026-05-01T00-00-00-abcdef.yaml:9: warning: measured result for "
            "'evil-impl', which no code in kernels/fused_add_rmsnorm/ registers — register it with "
            "@register('evil-impl') in the family's kernels package, or remove the result") in result.output
