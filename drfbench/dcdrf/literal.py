"""Slow, literal NumPy transcriptions of the DC-DRF paper's pseudo-code, on dense arrays.

Line numbers refer to Algorithm 1 (EDRF) and Algorithm 2 (DC-DRF) of Kash, O'Shea and
Volos, SoCC'18. Two readings are needed to run them in floating point, and the kernels
make the same two:
  - a residual at or below epsilon + SLACK counts as exhausted (SLACK = 1e-12), so that
    resources tied with the round's minimum leave in that round despite rounding;
  - in line 13, mu_tr = 0 exactly when no active tenant demands r; after the subtractions
    of line 17 rounding can leave a tiny non-zero there, so the test uses the demand
    pattern of the active tenants rather than the float.
All-zero rows never leave S_t in the pseudo-code (line 10 holds vacuously); they get
nothing, so they are left out of N here, as in the kernels.
"""
import numpy as np

SLACK = 1e-12


def normalized(D, weights=None):
    """`d_ir = D_ir / max_r D_ir` and `rho_i = w_i / d_ir* = w_i` (Table 1).

    Parameters
    ----------
    D : numpy.ndarray
        Tenants x resources.
    weights : array_like, optional

    Returns
    -------
    d : numpy.ndarray
        Zero on the rows without demand.
    rho : numpy.ndarray
    has_demand : numpy.ndarray
        Which rows have demand.
    """
    D = np.asarray(D, dtype=np.float64)
    peak = D.max(axis=1, initial=0.0)
    has_demand = peak > 0
    d = np.zeros_like(D)
    d[has_demand] = D[has_demand] / peak[has_demand, None]
    rho = np.ones(D.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    return d, rho, has_demand


def edrf(D, weights=None, max_rounds=None):
    """Algorithm 1.

    Parameters
    ----------
    D : numpy.ndarray
        Tenants x resources.
    weights : array_like, optional
    max_rounds : int, optional

    Returns
    -------
    A : numpy.ndarray
        The allocation.
    z : numpy.ndarray
        z_i is the sum of x_t while i was in S_t.
    rounds : int
    timed_out : bool
    """
    d, rho, N = normalized(D, weights)
    n, m = d.shape
    t = 0                                                     # line 1
    s = np.ones(m)                                            # line 2
    S = N.copy()                                              # line 3
    A = np.zeros((n, m))
    y, z, timed_out = 0.0, np.zeros(n), False
    while S.any():                                            # line 4
        denominator = (rho[S, None] * d[S]).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.where(denominator > 0, s / denominator, np.inf).min()    # line 5
        A_t = np.zeros((n, m))
        A_t[S] = x * rho[S, None] * d[S]                      # lines 6, 7
        s = s - A_t.sum(axis=0)                               # line 8
        A += A_t                                              # line 11, as a running sum
        t += 1                                                # line 9
        y += x
        S_next = N & ~((d > 0) & (s <= SLACK)).any(axis=1)    # line 10
        z[S & ~S_next] = y
        S = S_next
        if S.any() and max_rounds is not None and t >= max_rounds:
            z[S] = y
            timed_out = True
            break
    return A, z, t, timed_out


def dcdrf(D, weights=None, epsilon=0.0, max_rounds=None):
    """Algorithm 2's inner loop (lines 5-23), with a round budget standing in for the deadline
    of line 19.

    Parameters
    ----------
    D : numpy.ndarray
        Tenants x resources.
    weights : array_like, optional
    epsilon : float
    max_rounds : int, optional

    Returns
    -------
    A : numpy.ndarray
        The allocation.
    z : numpy.ndarray
    rounds : int
    timed_out : bool
    """
    d, rho, N = normalized(D, weights)
    n, m = d.shape
    t = 0                                                     # line 5
    s = np.ones(m)                                            # line 6
    S = N.copy()                                              # line 7
    mu = (rho[S, None] * d[S]).sum(axis=0)                    # line 8
    y = 0.0
    z = np.zeros(n)                                           # line 10
    tau = False                                               # line 11
    while S.any() and not tau:                                # line 12
        live = (d[S] > 0).any(axis=0)
        x = np.where(live, s / np.where(live, mu, 1.0), np.inf).min()      # line 13
        y = y + x                                             # line 14
        s = s - x * mu                                        # line 15
        S_next = N & ~((d > 0) & (s <= epsilon + SLACK)).any(axis=1)       # line 16
        leaving = S & ~S_next
        mu = mu - (rho[leaving, None] * d[leaving]).sum(axis=0)            # line 17
        z[leaving] = y                                        # line 18
        t += 1
        tau = max_rounds is not None and t >= max_rounds      # line 19
        if tau:                                               # line 20
            z[S_next] = y                                     # line 21
        S = S_next
    A = rho[:, None] * d * z[:, None]                         # line 23
    return A, z, t, tau and bool(S.any())
