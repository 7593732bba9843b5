"""Kernel Records: a static site generator for GPU kernel performance records."""

__version__ = "0.1.0"
