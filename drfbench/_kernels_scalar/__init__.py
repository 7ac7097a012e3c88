"""Compiled kernels, scalar variant (built by setup.py from kernels/*.pyx)."""
