"""Stage 2: from the catalog to ranked results: entries, floors, cohorts, history, the index."""
