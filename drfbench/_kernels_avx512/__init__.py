"""Compiled kernels, avx512 variant (built by setup.py from kernels/*.pyx)."""
