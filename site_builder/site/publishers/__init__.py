"""The page kinds of the site, one module each, listed here in one place.

Each module has `publish(index, site)`, yielding `Page`s (template + typed model) and `Data`
files, or a `Scope` per family of them when they read only that family's records (with
`index.family_inputs(fid)` as its inputs: an incremental build then keeps them untouched while
that family's records do not change). Adding a page kind is adding a module and its name
below; the build does not change.
"""

from __future__ import annotations

from . import challenges, compare, family, feed, finder, hardware, history, home, implementation, runs, search, static

PUBLISHERS = (family, compare, runs, history, feed, home, implementation, hardware, challenges, finder, search,
              static)
