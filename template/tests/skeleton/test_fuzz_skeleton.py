"""The fuzz suite for the skeleton_demands input kind (the template's): demands and the
scale option near their bounds and of the wrong shape or type either answer with equal
dominant shares within the resources, or refuse with a ValueError/TypeError
(tests/fuzz.py)."""
import numpy as np
from hypothesis import strategies as st

import fuzz
from drfbench.skeleton import share

FUZZED = ("skeleton_demands",)   # the input kinds this module fuzzes (tests/test_families.py)

CELLS = st.sampled_from([0.0, 1e-300, 0.5, 1.0, 1e300, -1.0, float("nan"), float("inf")])
WILD = st.sampled_from([None, "1", [1], True, [[1, 2], [3]], 0, 2.0, -0.5])


@fuzz.cases(demands=st.one_of(st.lists(st.lists(CELLS, min_size=2, max_size=2), max_size=4),
                              WILD),
            scale=st.one_of(st.sampled_from([1e-300, 0.5, 1.0]), WILD))
def test_share(demands, scale):
    outcome = fuzz.call(share, demands, scale=scale)
    if outcome.refused:
        return
    a = outcome.value.allocation
    assert np.isfinite(a).all() and (a >= 0).all()
    assert a.sum(axis=0).max() <= scale * (1 + 1e-12)
    assert np.allclose(a.max(axis=1), outcome.value.share)
