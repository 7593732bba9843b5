"""Stage 1: record files into a validated catalog (schema, YAML, loading, scaffolds, hashes)."""
