"""Kernel Records' own kernels, one package per kernel family (kernels/README.md).

In this repository the folder is imported as `kr_kernels` by site_builder/runner/families.py
(which never runs this file); installed on its own (`pip install ./kernels`, the `kr-kernels`
distribution in pyproject.toml beside this file) it is the same package:

    from kr_kernels.fused_add_rmsnorm import fused_add_rmsnorm
"""
