"""The Jinja environment: where the templates are, autoescaping, the filters, and rendering one
page with its relative root. Templates and assets ship inside the package (a wheel install needs
no checkout); in a checkout they are read from the repository's templates/ folder."""

from __future__ import annotations

import hashlib
from pathlib import Path

import jinja2
from markupsafe import Markup

from . import urls
from ..records.cleantext import clean
from .filters import FILTERS

_PACKAGE = Path(__file__).resolve().parent.parent


def _templates() -> Path:
    packaged = _PACKAGE / "templates"  # a wheel: setup.py copies templates/ in
    return packaged if packaged.is_dir() else _PACKAGE.parent / "templates"


TEMPLATES = _templates()
ASSETS = TEMPLATES / "assets"


class _Environment(jinja2.Environment):
    """Jinja's environment, reading a key of a plain dict (the rows of every model) without first
    trying, and failing, an attribute of that name: the same value, and no exception per lookup."""

    def getattr(self, obj, attribute):
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:  # else the attribute wins, as in Jinja
            try:
                return obj[attribute]
            except (KeyError, TypeError):
                pass
        return super().getattr(obj, attribute)


_DICT_ATTRIBUTES = frozenset(dir(dict))


def environment() -> jinja2.Environment:
    env = _Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html", "xml"], default=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        finalize=_clean,
    )
    env.filters.update(FILTERS)
    env.globals["url"] = urls
    return env


def _clean(value):
    """Every value a template prints: control characters and terminal escapes removed (text
    captured from a process may carry colour codes), its type (Markup or str) kept."""
    if isinstance(value, str):
        cleaned = clean(value)
        return value if cleaned is value else type(value)(cleaned) if isinstance(value, Markup) else cleaned
    return value


def render(env: jinja2.Environment, template: str, path: str, **context) -> bytes:
    root = urls.SITE_BASE if path == urls.NOT_FOUND else urls.relative_root(path)
    html = env.get_template(template).render(root=root, page_path=path, **context)
    return html.encode("utf-8")


def templates_digest() -> str:
    """A hash of every template (not the assets): a page rendered with other templates is stale."""
    digest = hashlib.sha256()
    for path in [*sorted(TEMPLATES.glob("*")), ASSETS / "style.css"]:  # 404.html inlines style.css
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
