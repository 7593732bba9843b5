"""The JSON Schemas of the record kinds, committed in `schema/` so editors validate while typing.

Every record starts with a line that points the YAML language server at its schema:

    # yaml-language-server: $schema=../../schema/family.schema.json

Regenerate the committed files after changing `site_builder/schema.py`:

    python -m site_builder.schemas        (or: kernel-records schemas)

A test fails when the committed files and the models disagree.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path, PurePosixPath

from .schema import json_schemas

REPO = Path(__file__).resolve().parent.parent
SCHEMA_DIR = REPO / "schema"

#: record folder -> schema name
KIND_OF_FOLDER = {"families": "family", "implementations": "implementation", "hardware": "hardware",
                  "runs": "run", "sources": "source"}
LINE_PREFIX = "# yaml-language-server: $schema="


def schema_text(schema: dict) -> str:
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def schema_files() -> dict[str, str]:
    """File name -> text, for every record kind and the source mappings (records/sources/)."""
    from .importers.sources import json_schema as source_schema

    files = {f"{name}.schema.json": schema_text(schema) for name, schema in json_schemas().items()}
    files["source.schema.json"] = schema_text(source_schema())
    return files


def write_schemas(folder: Path = SCHEMA_DIR) -> list[Path]:
    """Write every schema into `folder` (atomically, file by file); returns the files changed."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    changed = []
    for name, text in schema_files().items():
        target = folder / name
        if target.exists() and target.read_text(encoding="utf-8") == text:
            continue
        tmp = folder / f".{name}.tmp-{os.getpid()}"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
        changed.append(target)
    return changed


def schema_line(rel_path: str) -> str:
    """The first line of the record at `rel_path` (relative to records/, e.g. `families/x.yaml`).

    The schema path is relative to the record, for a `schema/` folder beside `records/`.
    """
    parts = PurePosixPath(rel_path).parts
    kind = KIND_OF_FOLDER[parts[0]]
    return f"{LINE_PREFIX}{'../' * len(parts)}schema/{kind}.schema.json"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    folder = Path(argv[0]) if argv else SCHEMA_DIR
    changed = write_schemas(folder)
    print(f"{len(changed)} schema file(s) updated in {folder}" if changed else f"schemas in {folder} are current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
