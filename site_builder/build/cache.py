"""The build cache: a folder the build may delete at any time (default `.kernel-records-cache/`
beside the output folder; git-ignored). It holds

- `parsed/`: every record file parsed and validated, one pickle per file, named by the hash of
  its bytes (a build writes only the new ones and removes those no record has any more);
- `charts/`: rendered chart SVGs, one file per spec hash;
- `spare-site/`: the site the last build replaced (its files mostly links to the current
  site's), whose folders the next build fills instead of making them again (build.write);
- `manifest.json`: what the last build wrote: the input fingerprint, and per output file its
  content hash, its size and modification time, and the key of the page inputs it came from;
  per scope of pages (`site.publish.Scope`: one family's pages of a kind) the key of its inputs
  and its files, so that a scope whose inputs did not change is not made again.

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

FORMAT = 3  # the layout of this folder
DEFAULT_NAME = ".kernel-records-cache"
#: What a cache of another version may hold (`records.pickle`: format 2's parsed records).
FOREIGN = ("manifest.json", "records.pickle", "parsed", "charts")


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


class ParsedRecords:
    """Record files parsed and validated, by (kind, sha of the file's bytes) -> (Document, record):
    as `records.load.load_catalog` reads and adds them. Each is a pickle of its own in `folder`
    (none: in memory only), read when asked for; `save` writes the new ones."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self.added: dict[tuple, tuple] = {}

    def _path(self, key: tuple) -> Path:
        kind, sha = key
        return self.folder / f"{kind}-{sha}.pickle"

    def get(self, key: tuple):
        if key in self.added:
            return self.added[key]
        if self.folder is None:
            return None
        try:
            with open(self._path(key), "rb") as handle:
                stored, value = pickle.load(handle)
        except Exception:  # missing, truncated or not ours: parse the file again
            return None
        return value if stored == version() else None

    def __setitem__(self, key: tuple, value: tuple) -> None:
        self.added[key] = value

    def save(self, used: set) -> None:
        """Write the records added and used; remove the files of records no longer used."""
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        for key, value in self.added.items():
            if key in used:
                _atomic(self._path(key), pickle.dumps((version(), value), protocol=pickle.HIGHEST_PROTOCOL))
        keep = {self._path(key).name for key in used}
        for name in os.listdir(self.folder):
            if name not in keep:
                (self.folder / name).unlink(missing_ok=True)


class Cache:
    """A build cache in `folder`, or none (`folder` None): then every build is a full one."""

    def __init__(self, folder: Path | None):
        self.folder = Path(folder) if folder else None
        self.parsed = ParsedRecords(self.folder / "parsed" if self.folder else None)
        self.used: set = set()  # the keys of `parsed` this build read
        self.made_scopes: dict = {}  # this build's scopes (publish.Scope): key, files, pages
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
        elif manifest is not None or any((self.folder / name).exists() for name in FOREIGN):
            # written by another engine: its parsed records and charts may not be ours to reuse
            for name in FOREIGN:
                path = self.folder / name
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    @property
    def spare(self) -> Path | None:
        """Where the write keeps the replaced site for the next build's folders (write.write_site)."""
        return self.folder / "spare-site" if self.folder is not None else None

    def previous(self, out: Path) -> dict:
        """The last build's files, when it wrote to `out`."""
        if self.manifest.get("out") == str(Path(out).resolve()):
            return self.manifest.get("files", {})
        return {}

    def save(self, out: Path, fingerprint: str, files: dict, used_records: set, **more) -> None:
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        self.parsed.save(used_records)
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
