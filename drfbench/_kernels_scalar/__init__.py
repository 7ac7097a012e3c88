"""Compiled kernels, scalar variant (built by setup.py from drfbench/**/*.pyx)."""
