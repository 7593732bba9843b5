"""The build cache: a folder the build may delete at any time (default `.kernel-records-cache/`
beside the output folder; git-ignored). It holds

- `records.pickle`: every record file parsed and validated, by the hash of its bytes;
- `charts/`: rendered chart SVGs, one file per spec hash;
- `manifest.json`: what the last build wrote: the input fingerprint, and per output file its
  content hash, its size and modification time, and the key of the page inputs it came from.

Nothing in the output depends on the cache: a build without one writes the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
from functools import lru_cache
from pathlib import Path

FORMAT = 2  # the layout of this folder
DEFAULT_NAME = ".kernel-records-cache"


@lru_cache(maxsize=1)
def version() -> str:
    """What the cache's contents depend on besides the inputs: this folder's layout, the engine's
    code (parsed records are its objects, chart SVGs its drawings) and the chart renderer. A cache
    written under another version is discarded whole, never read."""
    from .pages import engine_digest
    try:
        from importlib.metadata import version as dist_version
        renderer = dist_version("vl-convert-python")
    except Exception:
        renderer = "?"
    return f"{FORMAT}-{engine_digest()[:20]}-{renderer}"


def default_cache(out: Path) -> Path:
    out = Path(out).resolve()
    return out.parent / DEFAULT_NAME


class ChartStore:
    def __init__(self, folder: Path | None):
        self.folder = folder
        self.memory: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        if key in self.memory:
            return self.memory[key]
        if self.folder is not None:
            path = self.folder / f"{key}.svg"
            try:
                svg = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return None
            if svg.startswith("<svg") and svg.rstrip().endswith("</svg>"):  # else: damaged, render again
                self.memory[key] = svg
                return svg
        return None

    def put(self, key: str, svg: str) -> None:
        self.memory[key] = svg
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            _atomic(self.folder / f"{key}.svg", svg.encode("utf-8"))


class Cache:
    """A build cache in `folder`, or none (`folder` None): then every build is a full one."""

    def __init__(self, folder: Path | None):
        self.folder = Path(folder) if folder else None
        self._parsed: dict | None = None  # (kind, sha of the file's bytes) -> (Document, record)
        self.used: set = set()  # the keys of `parsed` this build read
        self.manifest: dict = {}
        self.charts = ChartStore(self.folder / "charts" if self.folder else None)
        if self.folder is None:
            return
        try:
            manifest = json.loads((self.folder / "manifest.json").read_text(encoding="utf-8"))
        except Exception:
            manifest = None
        if manifest is not None and manifest.get("version") == version():
            self.manifest = manifest
        elif manifest is not None or (self.folder / "charts").is_dir():
            # written by another engine: its parsed records and charts may not be ours to reuse
            for name in ("records.pickle", "manifest.json"):
                (self.folder / name).unlink(missing_ok=True)
            shutil.rmtree(self.folder / "charts", ignore_errors=True)

    @property
    def parsed(self) -> dict:
        """The parsed records of earlier builds, read on first use (a no-change build never does)."""
        if self._parsed is None:
            self._parsed = {}
            if self.folder is not None:
                try:
                    with open(self.folder / "records.pickle", "rb") as handle:
                        data = pickle.load(handle)
                    if data.get("version") == version():
                        self._parsed = data["parsed"]
                except Exception:  # missing, truncated or from another version: start afresh
                    self._parsed = {}
        return self._parsed

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def previous(self, out: Path) -> dict:
        """The last build's files, when it wrote to `out`."""
        if self.manifest.get("out") == str(Path(out).resolve()):
            return self.manifest.get("files", {})
        return {}

    def save(self, out: Path, fingerprint: str, files: dict, used_records: set, **more) -> None:
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        parsed = {k: v for k, v in self.parsed.items() if k in used_records}
        _atomic(self.folder / "records.pickle",
                pickle.dumps({"version": version(), "parsed": parsed}, protocol=pickle.HIGHEST_PROTOCOL))
        manifest = {"version": version(), "out": str(Path(out).resolve()), "fingerprint": fingerprint,
                    "files": files, **more}
        _atomic(self.folder / "manifest.json", json.dumps(manifest, sort_keys=True).encode())


def _atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def digest_files(paths, root: Path, h=None):
    """Hash names and bytes of files (sorted), relative to `root`."""
    h = h or hashlib.sha256()
    for path in sorted(paths):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"\1unreadable")
        h.update(b"\0")
    return h
