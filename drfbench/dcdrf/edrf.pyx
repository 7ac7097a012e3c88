"""EDRF, Algorithm 1 of Kash, O'Shea and Volos (SoCC'18), from Parkes et al. (EC'12).

The paper's conventional, single-threaded baseline (section 5.1, 765 s at paper scale):
every round re-sums rho_i * d_ir over the active tenants (line 5), adds x_t * rho_i * d_ir
to every active tenant's allocation (line 6) and takes it from the residuals (line 8),
then rebuilds the active set (line 10). That is O(rounds * nnz) by design: it is the
baseline that DC-DRF's elements epsilon, mu, y and z improve on, so it keeps none of them.
The active set is kept as a packed list of tenants, as any implementation would.
"""
import numpy as np

from libc.math cimport INFINITY
from _common cimport (floating, int32_t, int64_t, now, ROUNDING_SLACK, tenant_scales)


def edrf(const floating[::1] data, const int32_t[::1] indices, const int64_t[::1] indptr,
         Py_ssize_t n_resources, const double[::1] weights, double deadline,
         long long max_rounds, floating[::1] allocation, double[::1] level):
    """Run Algorithm 1 on CSR demands (IN: data, indices, indptr, weights).

    Stops when no tenant is active, after max_rounds rounds, or once `deadline` seconds
    have passed since the call began (checked after each round, as Algorithm 2 line 19
    does); the tenants still active then keep what they had accumulated. Writes
    allocation (OUT: A_ir, line 11) and level (OUT: sum of x_t while i was active).
    Returns (rounds, timed_out, elapsed seconds).
    """
    cdef double t_start = now()
    cdef Py_ssize_t n_tenants = indptr.shape[0] - 1
    cdef Py_ssize_t R = n_resources, r, j, n_active = 0, kept
    cdef int32_t i
    cdef int64_t k
    cdef double x, y = 0.0, share, rate
    cdef long long rounds = 0
    cdef bint timed_out = False, leaves

    scale_arr = np.zeros(n_tenants, dtype=np.float64)
    accumulated_arr = np.zeros(data.shape[0], dtype=np.float64)
    cdef double[::1] scale = scale_arr, accumulated = accumulated_arr
    cdef double[::1] residual = np.ones(R, dtype=np.float64)          # s_rt, line 2
    cdef double[::1] denominator = np.zeros(R, dtype=np.float64)      # line 5
    cdef int32_t[::1] active = np.empty(n_tenants, dtype=np.int32)    # S_t, line 3

    with nogil:
        tenant_scales(&data[0] if data.shape[0] else NULL, &indptr[0],
                      &weights[0] if n_tenants else NULL, n_tenants,
                      &scale[0] if n_tenants else NULL, 1)
        for j in range(n_tenants):
            level[j] = 0.0
            if scale[j] > 0.0:
                active[n_active] = <int32_t>j
                n_active = n_active + 1
        while n_active > 0:                                           # line 4
            for r in range(R):
                denominator[r] = 0.0
            for j in range(n_active):
                i = active[j]
                for k in range(indptr[i], indptr[i + 1]):
                    denominator[indices[k]] += data[k] * scale[i]
            x = INFINITY                                              # line 5
            for r in range(R):
                if denominator[r] > 0.0 and residual[r] / denominator[r] < x:
                    x = residual[r] / denominator[r]
            for j in range(n_active):                                 # lines 6, 8
                i = active[j]
                for k in range(indptr[i], indptr[i + 1]):
                    share = x * data[k] * scale[i]
                    accumulated[k] += share
                    residual[indices[k]] -= share
            y = y + x
            rounds = rounds + 1                                       # line 9
            kept = 0                                                  # line 10
            for j in range(n_active):
                i = active[j]
                leaves = False
                for k in range(indptr[i], indptr[i + 1]):
                    if residual[indices[k]] <= ROUNDING_SLACK:
                        leaves = True
                        break
                if leaves:
                    level[i] = y
                else:
                    active[kept] = i
                    kept = kept + 1
            n_active = kept
            if n_active > 0 and (rounds >= max_rounds or now() - t_start > deadline):
                timed_out = True
                for j in range(n_active):
                    level[active[j]] = y
                break
        for k in range(data.shape[0]):                                # line 11
            allocation[k] = <floating>accumulated[k]
    return rounds, bool(timed_out), now() - t_start
