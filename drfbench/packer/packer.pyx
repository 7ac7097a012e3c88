"""Scoring one node of an application over every server of the datacenter: Packer's Eq. 6-8
(Marcon and Barcellos, IFIP Networking 2017), Tetris' alignment score and the slot
scheme's fit, for the node's window of time instants [t0, t0 + T).

drfbench/packer/literal.py writes the same scores literally (a loop over servers, Eq. 7
and 8 as NumPy sums) and is the test oracle; drfbench/packer/allocate.py drives Algorithm 1
with these kernels and checks its input once; the kernels trust it. Every accumulator is
float64; each server's (or link's) sum is one thread's, in a fixed order, so results do
not depend on the thread count.

Layouts: residual capacity Q[n, t, r] (servers, horizon, 4 resources), link residual
QL[l, t] (directed links, horizon); capacities cap[n, r], capL[l]. Normalized values
(Eq. 6's note): residual and demand both divided by the capacity of the server or link
(multiplied by its reciprocal, 1 / capacity: the literal divides, so the two agree to
rounding).

Paths (Infrastructure.path): physical links are server uplinks [0, S), ToR uplinks
[S, S + nR), aggregation uplinks [S + nR, S + nR + nA), service links after; a physical
link p is the directed link p upwards and P + p downwards.

The readings of Eq. 6-8 (drfbench.packer.allocate.SCORES): Eq. 7's sum maximized as
written or negated (best fit: `sign`); Eq. 8 summed over a path's links as written, or
one term per path, the mean of its links' or its bottleneck link's (`add_paths`' mode).
"""
import numpy as np

from cython.parallel cimport prange
from libc.math cimport INFINITY
from _common cimport int64_t, int32_t, uint8_t

cdef enum:
    PATH_SUM = 0          # Eq. 8 as written: every link of the path adds its term
    PATH_MEAN = 1         # one term per path: the mean of its links' terms
    PATH_MIN = 2          # one term per path and instant: its bottleneck link's

PATH_MODES = {"links": PATH_SUM, "path": PATH_MEAN, "bottleneck": PATH_MIN}


cdef inline uint8_t window_fits(const double[:, :, ::1] Q, Py_ssize_t n, Py_ssize_t t0,
                                const double[:, ::1] delta) noexcept nogil:
    """Eq. 6's computing condition for server n: delta[t, r] <= Q[n, t0 + t, r] for every
    instant t of the node's window and every resource r."""
    cdef Py_ssize_t t, r
    for t in range(delta.shape[0]):
        for r in range(delta.shape[1]):
            if delta[t, r] > Q[n, t0 + t, r]:
                return 0
    return 1


def packer_compute(const double[:, :, ::1] Q, const double[:, ::1] inv_cap,
                   const double[:, ::1] delta, Py_ssize_t t0, const double[::1] w,
                   double sign, double[::1] score, uint8_t[::1] ok, int threads):
    """Eq. 7 and the computing half of Eq. 6's condition, per server n (OUT: score, ok):

        score[n] = sign * sum_t sum_r w[r] * (Q^[n, t0+t, r] - d^[t, r])^3 * Q^[n, t0+t, r]
        ok[n]    = delta[t, r] <= Q[n, t0 + t, r] for every t < T and r

    with Q^ = Q * inv_cap[n, r] and d^ = delta * inv_cap[n, r] (inv_cap = 1 / capacity);
    delta is (T, 4); sign 1 as written (the maximum: worst fit), -1 best fit."""
    cdef Py_ssize_t S = Q.shape[0], T = delta.shape[0], R = delta.shape[1], n, t, r
    cdef double acc, q, x
    with nogil:
        for n in prange(S, schedule='static', num_threads=threads):
            acc = 0.0
            for t in range(T):
                for r in range(R):
                    q = Q[n, t0 + t, r] * inv_cap[n, r]
                    x = q - delta[t, r] * inv_cap[n, r]
                    acc = acc + w[r] * (x * x * x) * q
            score[n] = sign * acc
            ok[n] = window_fits(Q, n, t0, delta)


def link_terms(const double[:, ::1] QL, const double[::1] inv_capL, const double[::1] sigma,
               Py_ssize_t t0, double w, const int64_t[::1] links, double[:, ::1] term,
               uint8_t[::1] ok, int threads):
    """Eq. 8's inner terms for one edge, per directed link l of `links` (OUT: term, ok; the
    other rows untouched), summed over the instants when term has one column, else one
    column per instant t:

        term[l, 0] = sum_t w * (QL^[l, t0+t] - s^[t])^3 * QL^[l, t0+t]     or
        term[l, t] = w * (QL^[l, t0+t] - s^[t])^3 * QL^[l, t0+t]
        ok[l]      = sigma[t] <= QL[l, t0 + t] for every t < T

    with QL^ = QL * inv_capL[l], s^ = sigma * inv_capL[l]; sigma is the edge's series (T,)."""
    cdef Py_ssize_t K = links.shape[0], T = sigma.shape[0], i, l, t
    cdef bint summed = term.shape[1] == 1
    cdef double acc, q, x, inv, y
    cdef uint8_t fits
    with nogil:
        for i in prange(K, schedule='static', num_threads=threads):
            l = links[i]
            acc = 0.0
            fits = 1
            inv = inv_capL[l]
            for t in range(T):
                q = QL[l, t0 + t]
                if sigma[t] > q:
                    fits = 0
                q = q * inv
                x = q - sigma[t] * inv
                y = w * (x * x * x) * q
                if summed:
                    acc = acc + y
                else:
                    term[l, t] = y
            if summed:
                term[l, 0] = acc
            ok[l] = fits


cdef inline Py_ssize_t path_links(int64_t src, Py_ssize_t n, Py_ssize_t S, int64_t P, int64_t nR,
                                  int64_t nA, const int64_t[::1] rack_of,
                                  const int64_t[::1] agg_of, int64_t* links) noexcept nogil:
    """The directed links of the path src -> n into `links` (Infrastructure.path's links:
    up from a server, then down; from a service, its link then down); their number."""
    if src >= S:
        links[0] = S + nR + nA + (src - S)
        links[1] = P + S + nR + agg_of[n]
        links[2] = P + S + rack_of[n]
        links[3] = P + n
        return 4
    if n == src:
        return 0
    links[0] = src
    links[1] = P + n
    if rack_of[n] == rack_of[src]:
        return 2
    links[2] = S + rack_of[src]
    links[3] = P + S + rack_of[n]
    if agg_of[n] == agg_of[src]:
        return 4
    links[4] = S + nR + agg_of[src]
    links[5] = P + S + nR + agg_of[n]
    return 6


def add_paths(const double[:, ::1] term, const uint8_t[::1] lok, int64_t src,
              const int64_t[::1] rack_of, const int64_t[::1] agg_of, int64_t nR, int64_t nA,
              int mode, double idle, double[::1] score, uint8_t[::1] ok, int threads):
    """For an edge from location `src` (a server, or service src - S) to a candidate server
    n, add the path's network score to score[n] and clear ok[n] where one of its links
    cannot carry the edge (IN/OUT: score, ok); each link's terms from link_terms (summed:
    one column; per instant for PATH_MIN). mode (PATH_MODES): PATH_SUM adds every link's
    term (Eq. 8 as written; a path of no links adds 0); PATH_MEAN their mean; PATH_MIN, per
    instant, the least of them; the last two add `idle` for a path of no links (an idle
    link's score)."""
    cdef Py_ssize_t S = rack_of.shape[0], T = term.shape[1], n, i, t, k
    cdef int64_t P = term.shape[0] // 2
    cdef int64_t[:, ::1] links = np.empty((S, 6), dtype=np.int64)    # a row per server
    cdef double acc, low
    cdef uint8_t fits
    with nogil:
        for n in prange(S, schedule='static', num_threads=threads):
            k = path_links(src, n, S, P, nR, nA, rack_of, agg_of, &links[n, 0])
            acc = 0.0
            fits = 1
            for i in range(k):
                fits = fits & lok[links[n, i]]
            if k == 0 and mode != PATH_SUM:
                acc = idle
            elif mode == PATH_MIN:
                for t in range(T):
                    low = term[links[n, 0], t]
                    for i in range(1, k):
                        low = min(low, term[links[n, i], t])
                    acc = acc + low
            else:
                for i in range(k):
                    acc = acc + term[links[n, i], 0]
                if mode == PATH_MEAN:
                    acc = acc / k
            score[n] = score[n] + acc
            ok[n] = ok[n] & fits


def tetris_compute(const double[:, :, ::1] Q, const double[:, ::1] inv_cap,
                   const double[:, ::1] delta, Py_ssize_t t0, const double[:, ::1] QL,
                   const double[::1] inv_capL, const double[::1] band_in, int64_t P,
                   double[::1] score, uint8_t[::1] ok, int threads):
    """Tetris' alignment score over the node's window, per server n (OUT: score, ok): the
    dot product of the node's normalized demand and the server's normalized residual, the
    four computing resources and the server's incoming NIC (directed link P + n):

        score[n] = sum_t (sum_r d^[t, r] Q^[n, t0+t, r] + b^[t] QL^[P+n, t0+t])
        ok[n]    = delta[t, r] <= Q[n, t0 + t, r] for every t and r

    band_in (T,) is the bandwidth the node receives from its dependencies; normalized by
    multiplying with the reciprocal capacities inv_cap, inv_capL."""
    cdef Py_ssize_t S = Q.shape[0], T = delta.shape[0], R = delta.shape[1], n, t, r
    cdef double acc, c
    with nogil:
        for n in prange(S, schedule='static', num_threads=threads):
            acc = 0.0
            for t in range(T):
                for r in range(R):
                    c = inv_cap[n, r]
                    acc = acc + (delta[t, r] * c) * (Q[n, t0 + t, r] * c)
                c = inv_capL[P + n]
                acc = acc + (band_in[t] * c) * (QL[P + n, t0 + t] * c)
            score[n] = acc
            ok[n] = window_fits(Q, n, t0, delta)


def slot_fit(const int32_t[:, ::1] used, Py_ssize_t lo, Py_ssize_t hi, int32_t slots,
             const double[:, ::1] cap, const double[::1] peak, uint8_t[::1] ok, int threads):
    """The slot scheme's fit, per server n (OUT: ok): the node's peak demand fits one slot
    (cap[n] / slots) and the server has a free slot at every instant of [lo, hi)."""
    cdef Py_ssize_t S = used.shape[0], R = peak.shape[0], n, t, r
    cdef uint8_t fits
    with nogil:
        for n in prange(S, schedule='static', num_threads=threads):
            fits = 1
            for r in range(R):
                if peak[r] > cap[n, r] / slots:
                    fits = 0
            for t in range(lo, hi):
                if used[n, t] >= slots:
                    fits = 0
            ok[n] = fits
