"""Demands as users hold them (issue 34): every scipy.sparse format, DOK and LIL included,
gives the dense matrix's allocation; a numpy masked array is refused where an entry is
masked (drfbench guesses no demand), read as its data where none is."""
import numpy as np
import pytest
import scipy.sparse as sp

import drfbench

DEMANDS = np.array([[0.1, 0.4, 0.0], [0.3, 0.1, 0.2], [0.05, 0.05, 0.5]])
FORMATS = [f"{name}_{kind}" for name in ("csr", "csc", "coo", "bsr", "dia", "lil", "dok")
           for kind in ("matrix", "array")]


@pytest.mark.parametrize("format", FORMATS)
def test_every_sparse_format_allocates_as_the_dense_matrix(format):
    dense = drfbench.allocate(DEMANDS, "edrf")
    sparse = drfbench.allocate(getattr(sp, format)(DEMANDS), "edrf")
    assert sparse.level.tolist() == dense.level.tolist()
    assert (sparse.allocation != dense.allocation).nnz == 0


def test_a_masked_entry_is_refused_naming_it():
    masked = np.ma.masked_array(DEMANDS, mask=DEMANDS == 0.2)
    with pytest.raises(ValueError, match=r"masked array with 1 masked entry \(the first at \(1, 2\)\)"):
        drfbench.allocate(masked, "edrf")
    with pytest.raises(ValueError, match="3 masked entries"):     # 0.0, 0.05, 0.05
        drfbench.allocate(np.ma.masked_less(DEMANDS, 0.06), "dcdrf")


def test_a_masked_array_without_a_masked_entry_is_its_data():
    plain = np.ma.masked_array(DEMANDS, mask=False)
    assert drfbench.allocate(plain, "edrf").level.tolist() == \
        drfbench.allocate(DEMANDS, "edrf").level.tolist()
