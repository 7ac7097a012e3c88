"""Compiled kernels, avx2 variant (built by setup.py from kernels/*.pyx)."""
