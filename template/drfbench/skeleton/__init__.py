"""The skeleton family: the template every family starts from (docs/adding-a-family.md,
copied from template/ by tests/test_families.py), one input kind, one method, one
option, one pipeline step, one notebook.

    share(demands, method="skeleton", **options)    equal dominant shares (drfbench.run)
    Shares                                           its result (rows(): tidy rows)
"""
from .shares import Shares, share

__all__ = ["Shares", "share"]
