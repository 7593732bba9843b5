"""The committed JSON Schemas match the models, and every record points at its schema."""

from __future__ import annotations

import datetime as dt
import json

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from site_builder.cli import main
from site_builder.records.schemas import KIND_OF_FOLDER, LINE_PREFIX, SCHEMA_DIR, schema_files, schema_line

from conftest import RECORDS, SECOND

FIX = "run `python -m site_builder.records.schemas` (or `kernel-records schemas`) and commit schema/"


def all_records():
    return sorted(p for root in (RECORDS, SECOND) for p in root.rglob("*.yaml"))


def test_the_committed_schemas_are_the_models():
    expected = schema_files()
    committed = {p.name: p.read_text(encoding="utf-8") for p in SCHEMA_DIR.glob("*.schema.json")}
    assert sorted(committed) == sorted(expected), FIX
    for name, text in expected.items():
        assert committed[name] == text, f"schema/{name} is out of date: {FIX}"


def test_the_schemas_command_writes_the_same_files(tmp_path):
    result = CliRunner().invoke(main, ["schemas", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.output == f"5 schema file(s) updated in {tmp_path}\n"
    for path in tmp_path.iterdir():
        assert path.read_text(encoding="utf-8") == (SCHEMA_DIR / path.name).read_text(encoding="utf-8")
    again = CliRunner().invoke(main, ["schemas", "--out", str(tmp_path)])
    assert again.output == f"schemas in {tmp_path} are current\n"


@pytest.mark.parametrize("path", [p for p in sorted(RECORDS.rglob("*.yaml"))], ids=lambda p: p.name)
def test_every_record_starts_with_its_schema_line(path):
    rel = path.relative_to(RECORDS).as_posix()
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == schema_line(rel)
    target = (path.parent / first.removeprefix(LINE_PREFIX)).resolve()
    assert target == (SCHEMA_DIR / f"{KIND_OF_FOLDER[rel.split('/')[0]]}.schema.json").resolve()
    assert target.is_file()


def _jsonable(value):
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


@pytest.mark.parametrize("path", all_records(), ids=lambda p: p.name)
def test_every_valid_record_passes_its_json_schema(path):
    """What the loader accepts, an editor using the schema accepts too (no false alarms)."""
    root = RECORDS if RECORDS in path.parents else SECOND
    kind = KIND_OF_FOLDER[path.relative_to(root).parts[0]]
    schema = json.loads((SCHEMA_DIR / f"{kind}.schema.json").read_text(encoding="utf-8"))
    data = _jsonable(yaml.safe_load(path.read_text(encoding="utf-8")))
    errors = [f"{list(e.path)}: {e.message}" for e in jsonschema.Draft202012Validator(schema).iter_errors(data)]
    assert errors == []


def test_the_schema_catches_what_an_editor_should_flag():
    schema = json.loads((SCHEMA_DIR / "hardware.schema.json").read_text(encoding="utf-8"))
    bad = {"schema_version": 1, "id": "Bad Id", "name": "x", "vendor": "y", "memory_gb": -1,
           "memory_bandwidth_gbps": 1, "datasheet_url": "https://example.org", "colour": "red"}
    messages = sorted(e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(bad))
    assert any("does not match" in m for m in messages)  # id not a slug
    assert "-1 is less than or equal to the minimum of 0" in messages  # memory_gb
    assert any("colour" in m for m in messages)  # unknown field
    bad["datasheet_url"] = "javascript:alert(1)"
    messages = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(bad)]
    assert any(m.startswith("'javascript:alert(1)' does not match") for m in messages)  # links are http(s)


def test_the_build_publishes_the_same_schemas(built_site):
    for name, text in schema_files().items():
        assert json.loads((built_site / "schema" / name).read_text(encoding="utf-8")) == json.loads(text)


def test_workload_kinds_declare_their_own_tensors():
    """A backward workload counts the bytes of its kind's tensors; an undeclared kind is refused."""
    import pytest
    from site_builder.derive import floors
    from site_builder.records.schema import Family

    data = {
        "schema_version": 1, "id": "toy-norm", "title": "Toy norm", "tag": "norm", "summary": "A toy.",
        "semantics": {
            "axes": {"rows": "variable", "hidden": "variable"},
            "inputs": {"x": {"dtype": "float", "shape": ["rows", "hidden"]}},
            "outputs": {"y": {"dtype": "float", "shape": ["rows", "hidden"]}},
            "definition": "y = x / rms(x)",
            "kinds": {"backward": {
                "inputs": {"dy": {"dtype": "float", "shape": ["rows", "hidden"]},
                           "x": {"dtype": "float", "shape": ["rows", "hidden"]}},
                "outputs": {"dx": {"dtype": "float", "shape": ["rows", "hidden"]}}}},
        },
        "baseline": "eager", "headline": "fwd", "scaling": {"axis": "hidden"},
        "workloads": [{"id": "fwd", "rows": 2, "hidden": 4, "dtype": "float32"},
                      {"id": "bwd", "kind": "backward", "rows": 2, "hidden": 4, "dtype": "bfloat16"}],
    }
    family = Family.model_validate(data)
    fwd, bwd = family.workloads
    assert (fwd.kind, bwd.kind) == ("forward", "backward")
    assert floors.bytes_moved(family, fwd) == 2 * 8 * 4
    assert floors.bytes_moved(family, bwd) == 3 * 8 * 2
    data["workloads"].append({"id": "fb", "kind": "forward+backward", "rows": 2, "hidden": 4, "dtype": "float32"})
    with pytest.raises(ValueError, match="forward\\+backward.*semantics.kinds does not declare"):
        Family.model_validate(data)


def test_touched_pct_counts_only_that_share_of_a_tensor():
    """A loss over counted rows: the floor reads only `valid_pct` percent of the logits; > 100 is refused."""
    import pytest
    from site_builder.derive import floors
    from site_builder.records.schema import Family

    data = {
        "schema_version": 1, "id": "toy-loss", "title": "Toy loss", "tag": "loss", "summary": "A toy.",
        "semantics": {
            "axes": {"tokens": "variable", "vocab": "variable", "valid_pct": "variable"},
            "inputs": {"logits": {"dtype": "float", "shape": ["tokens", "vocab"], "touched_pct": "valid_pct"},
                       "target": {"dtype": "int64", "shape": ["tokens"]}},
            "outputs": {"loss": {"dtype": "float", "shape": []}},
            "definition": "mean cross-entropy over counted rows",
        },
        "baseline": "eager", "headline": "half", "scaling": {"axis": "vocab"},
        "workloads": [{"id": "half", "tokens": 10, "vocab": 8, "valid_pct": 50, "dtype": "float32"}],
    }
    family = Family.model_validate(data)
    assert floors.bytes_moved(family, family.workloads[0]) == 40 * 4 + 10 * 8 + 4
    data["workloads"][0]["valid_pct"] = 150
    with pytest.raises(ValueError, match="valid_pct = 150, but valid_pct is a percent"):
        Family.model_validate(data)
    data["workloads"][0]["valid_pct"] = 50
    data["semantics"]["inputs"]["logits"]["touched_pct"] = "share"
    with pytest.raises(ValueError, match="undeclared axis 'share'"):
        Family.model_validate(data)
