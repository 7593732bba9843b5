"""Stage 3: the site: page models from the derived index (one publisher per page kind), every
URL, the formatting filters, charts as specs, and the Jinja environment."""
