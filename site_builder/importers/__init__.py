"""Importers: published benchmark data turned into reported run records (new files only)."""
