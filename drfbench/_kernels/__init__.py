"""Compiled kernels (built by setup.py from drfbench/**/*.pyx)."""
