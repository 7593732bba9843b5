"""Every path of the site, in one place: pages, their data twins, assets, and how a page links
to another (relative to the page, so the site works from file:// and under any sub-path).

Paths are POSIX, relative to the site root, never starting with `/`. Templates get this
module as the global `url` and write `{{ root }}{{ url.family(id) }}`; `root` is `relative_root`.
"""

from __future__ import annotations

INDEX = "index.html"
CHALLENGES = "challenges.html"
METHODOLOGY = "methodology.html"
NOT_FOUND = "404.html"
FEED = "feed.xml"
SEARCH_JS = "assets/search-index.js"
# Where the site is served from (GitHub Pages serves a project site under /<repository>/). Every
# page links relatively; only the 404 page, which the server returns at any depth, links from here.
SITE_BASE = "/kernel-records/"
SEARCH_JSON = "search-index.json"
MARKER = ".kernel-records-site"
NOJEKYLL = ".nojekyll"


def relative_root(path: str) -> str:
    """The prefix that leads from the page at `path` back to the site root ("", "../", ...)."""
    return "../" * path.count("/")


def twin(path: str, suffix: str) -> str:
    """The data twin of a page: families/x.html -> families/x.json."""
    return path.rsplit(".", 1)[0] + suffix


def anchored(path: str, anchor: str | None) -> str:
    return f"{path}#{anchor}" if anchor else path


def family(fid: str) -> str:
    return f"families/{fid}.html"


def family_json(fid: str) -> str:
    return f"families/{fid}.json"


def family_csv(fid: str) -> str:
    return f"families/{fid}.csv"


def family_gpu(fid: str, hid: str) -> str:
    """A family on one GPU: its floors, leaderboards and charts there (the family page shows one
    GPU's, so that its weight does not grow with the GPUs on record)."""
    return f"families/{fid}/{hid}.html"


def chart_specs(page: str) -> str:
    """The interactive specs of a page's charts, as a script the chart script loads when a chart
    comes into view (families/x.html -> families/x.specs.js): the page itself carries only the
    drawings, so the specs weigh nothing until a reader looks at a chart."""
    return twin(page, ".specs.js")


def workload_on(fid: str, wid: str, hid: str) -> str:
    """A workload's leaderboards on one GPU."""
    return f"{family_gpu(fid, hid)}#wl-{wid}"


def challenges(fid: str) -> str:
    """One family's gaps, failures and stale results (the challenges page lists the families)."""
    return f"challenges/{fid}.html"


def implementation(iid: str) -> str:
    return f"implementations/{iid}.html"


def hardware(hid: str) -> str:
    return f"hardware/{hid}.html"


def run(fid: str, hid: str, run_id: str) -> str:
    return f"runs/{fid}/{hid}/{run_id}.html"


def run_json(fid: str, hid: str, run_id: str) -> str:
    return f"runs/{fid}/{hid}/{run_id}.json"


def run_yaml(fid: str, hid: str, run_id: str) -> str:
    return f"runs/{fid}/{hid}/{run_id}.yaml"


def run_of(lr) -> str:
    """The page of a loaded run (records.load.LoadedRun)."""
    return run(lr.run.family, lr.run.hardware, lr.id)


def history(fid: str, wid: str, hid: str) -> str:
    return f"history/{fid}/{wid}/{hid}.html"


def history_json(fid: str, wid: str, hid: str) -> str:
    """The full series of a history page (every result, never trimmed)."""
    return f"history/{fid}/{wid}/{hid}.json"


def history_csv(fid: str, wid: str, hid: str) -> str:
    return f"history/{fid}/{wid}/{hid}.csv"


def compare_default(fid: str) -> str:
    return f"compare/{fid}.html"


def compare_pair(fid: str, a: str, b: str) -> str:
    return f"compare/{fid}/{a}--{b}.html"


def compare_pattern(fid: str) -> str:
    """The pair URL with {a} and {b} left for the compare form's script to fill."""
    return f"compare/{fid}/{{a}}--{{b}}.html"


def schema(name: str) -> str:
    return f"schema/{name}.schema.json"


def asset(name: str) -> str:
    return f"assets/{name}"


SHAPE_FINDER = "shape.html"


def shape_family(fid: str) -> str:
    """The per-shape winners of one family, as a table (the shape finder without JavaScript)."""
    return f"shape/{fid}.html"


def shape_data(fid: str) -> str:
    """What the shape finder knows of one family, as JSON."""
    return f"shape/{fid}.json"


def shape_script(fid: str) -> str:
    """The same data as a script the finder loads (a script loads from file://, a fetch does not)."""
    return f"shape/{fid}.js"


def winner_map_csv(fid: str, hid: str) -> str:
    """The per-shape winners of a family on one GPU, as CSV (the "winner map")."""
    return f"families/{fid}-winners-{hid}.csv"
