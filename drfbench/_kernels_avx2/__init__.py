"""Compiled kernels, avx2 variant (built by setup.py from drfbench/**/*.pyx)."""
