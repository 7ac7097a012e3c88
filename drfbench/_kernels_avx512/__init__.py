"""Compiled kernels, avx512 variant (built by setup.py from drfbench/**/*.pyx)."""
