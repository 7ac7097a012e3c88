"""Compiled kernels (built by setup.py from kernels/*.pyx)."""
