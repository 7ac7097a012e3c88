# Shared helpers for every kernel: the fused value type, index types, the rounding
# slack (declared with the rest of _platform.h in _platform.pxd), a monotonic wall
# clock usable without the GIL, a span's prefetch, the tenants' scales and the
# allocation writer.
from libc.stdint cimport int32_t, int64_t, uint8_t, uintptr_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from cython.parallel cimport prange
from _platform cimport LINE, ROUNDING_SLACK, prefetch

cdef enum:
    ALLOCATION_CHUNK = 1024    # tenants per chunk of write_allocation


ctypedef fused floating:
    float
    double


cdef inline double now() noexcept nogil:
    """Seconds on the monotonic clock (the kernels' own timer)."""
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec


cdef inline void prefetch_span(const void* begin, const void* end) noexcept nogil:
    """Request every cache line of the bytes [begin, end)."""
    cdef uintptr_t line = <uintptr_t>begin & ~(<uintptr_t>LINE - 1)
    while line < <uintptr_t>end:
        prefetch(<const void*>line)
        line = line + LINE


cdef inline double row_scale(const floating* data, const int64_t* indptr,
                             const double* weights, Py_ssize_t i) noexcept nogil:
    """Tenant i's scale, rho_i / max_r D_ir, so that rho_i * d_ir = D_ir * scale.

    Table 1: d_ir = D_ir / max_r' D_ir' and, with one weight w_i per tenant, the weighted
    dominant resource r* has d_ir* = 1, so rho_i = w_i / d_ir* = w_i. An all-zero row gets
    scale 0 and takes no part in the allocation (it would never leave S_t otherwise).
    """
    cdef int64_t k
    cdef double peak = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        if data[k] > peak:
            peak = data[k]
    return weights[i] / peak if peak > 0.0 else 0.0


cdef inline void tenant_scales(const floating* data, const int64_t* indptr,
                               const double* weights, Py_ssize_t n_tenants,
                               double* scale, int n_threads) noexcept nogil:
    """scale[i] = row_scale(..., i) for every tenant (OUT)."""
    cdef Py_ssize_t i
    for i in prange(n_tenants, schedule='static', num_threads=n_threads):
        scale[i] = row_scale(data, indptr, weights, i)


cdef inline void write_row(const floating* data, const int64_t* indptr,
                           const double* scale, const double* level, Py_ssize_t i,
                           floating* allocation) noexcept nogil:
    """A_ir = rho_i * d_ir * z_i for tenant i's row (Algorithm 2 line 23), into
    allocation (OUT)."""
    cdef double factor = scale[i] * level[i]
    cdef int64_t k
    for k in range(indptr[i], indptr[i + 1]):
        allocation[k] = <floating>(data[k] * factor)


cdef inline void write_allocation(const floating* data, const int64_t* indptr,
                                  const double* scale, const double* level,
                                  Py_ssize_t n_tenants, floating* allocation,
                                  int n_threads) noexcept nogil:
    """A_ir = rho_i * d_ir * z_i (Algorithm 2 line 23), written into allocation (OUT).

    Chunks of ALLOCATION_CHUNK tenants are dealt to the threads in turn, so that each
    thread writes its share of every part of the buffer: where part of it is new to
    the process (edrf_event's transposition has used only its start), each takes half of the
    page faults."""
    cdef Py_ssize_t i
    for i in prange(n_tenants, schedule='static', chunksize=ALLOCATION_CHUNK,
                    num_threads=n_threads):
        write_row(data, indptr, scale, level, i, allocation)
