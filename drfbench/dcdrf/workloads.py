"""Demand profiles of the DC-DRF paper (SoCC'18, §5.1, Table 3): synthetic tenant demands.

A workload is a sparse tenants x resources matrix of demand fractions D_ir in (0, 1]
(the fraction of resource r that tenant i demands), with the resource capacities it was
drawn against and, optionally, per-tenant weights::

    from drfbench.dcdrf import workloads
    wl = workloads.generate("G0", 1_000_000, 100_000, seed=0)
    wl.demands            # scipy.sparse.csr_array, indptr int64, indices int32, float32 values
    workloads.save(wl, "g0.npz"); wl2 = workloads.load("g0.npz")

The six profiles (Table 3) combine a demand-vector length distribution with a degree of
resource locality:

=======  ========================  ===================================================
demand   length k (resources)      which resources
profile
=======  ========================  ===================================================
U0, G0   U: uniform integer on     0: k distinct resources uniform over the datacenter
U1, G1   [2, 128]; G: truncated    1: round(k/2) in one cluster (PodA), rest uniform (DC)
U2, G2   Gaussian on [2, 128]      2: round(k/2) in PodA, round(0.3 k) in a second
                                      cluster PodB, the rest uniform over the DC
=======  ========================  ===================================================

Choices made where the paper is silent (each one is a module constant):

* Gaussian length: N(65, 32^2) rounded to the nearest integer and conditioned on
  [2, 128] (P(k) is the normal mass of [k - 1/2, k + 1/2], renormalised). Mean 65 is the
  centre of [2, 128] and sd 32 a quarter of its range; as the truncation is symmetric
  about 65 the mean length is exactly 65, the same as the uniform profiles, so paper
  scale (1M tenants) has about 65M non-zeros under every profile. The truncation narrows
  the effective sd to about 28.
* Lengths are capped at n_resources when a drawn length exceeds it (small test sizes).
* Clusters are contiguous ranges of resource indices. Nominal cluster size
  S = max(R // 20, min(R, 256)) (256 = 2 B, B = 128): 20 clusters of 5,000 resources at
  paper scale (R = 100K); never smaller than twice the longest demand vector, so a
  tenant's local share always fits in its cluster. There are R // S clusters; cluster c
  holds indices [c R // n, (c + 1) R // n), so sizes differ by at most one.
* Each tenant picks PodA uniformly among the clusters and PodB uniformly among the
  others (PodB = PodA when there is a single cluster, i.e. R < 512).
* Exact counts per tenant with halves rounded up: k_A = round(0.5 k), k_B = round(0.3 k),
  k_DC = k - k_A - k_B (profile 1: k_B = 0). The DC share is uniform over the whole
  datacenter, PodA and PodB included, so on average slightly more than half of a
  tenant's resources (0.5 + 0.5 S/R: 52.5% at paper scale) lie in PodA.
* A tenant's resources are distinct, and each row's column indices are sorted.
* Capacities: C[r] integer uniform on [100, 10000] (heterogeneous servers), stored as
  float64 in ``Workload.capacities``. A demand value is v uniform on the integers
  [1, C[r]], stored as the fraction v / C[r] in (0, 1] (never an explicit zero).
* Weights (``weights="random"``): uniform on [1, 4), float64, one per tenant.

Determinism: every random number comes from a counter-based generator (splitmix64
keyed by seed, stream and index) in drfbench/dcdrf/workloads.pyx, so a tenant's row is a pure
function of (seed, tenant index, n_resources, profile): the same arguments give
bit-identical arrays whatever the thread count, and growing n_tenants only appends rows.
"""
from __future__ import annotations

import math
import operator
import os
import zipfile
from dataclasses import dataclass

import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy.sparse import csr_array

from .. import _inputs, _isa
from .._io import replacing
from .._machine import resolve_threads
from ..api import THREADS
from .._validation import csr_from_arrays, demand_matrix

__all__ = ["DEMAND_PROFILES", "Workload", "generate", "save", "load", "read_demands"]

DEMAND_PROFILES = ("U0", "U1", "U2", "G0", "G1", "G2")

MAX_LENGTH = 128                 # B: longest demand vector (Table 3)
MIN_LENGTH = 2                   # shortest demand vector (Table 3)
GAUSS_MEAN = 65.0                # centre of [2, 128] (paper silent)
GAUSS_SD = 32.0                  # a quarter of the range (paper silent)
CLUSTERS_PER_DC = 20             # nominal clusters at paper scale: S = R // 20
MIN_CLUSTER_SIZE = 2 * MAX_LENGTH
PODA_SHARE, PODB_SHARE = 0.5, 0.3    # documentation; the kernel uses exact integer rounding
CAPACITY_RANGE = (100, 10_000)   # C[r] integer uniform, inclusive (paper silent)
WEIGHT_RANGE = (1.0, 4.0)        # weights="random": uniform on [1, 4) (paper silent)
WEIGHT_OPTIONS = (None, "random")
GENERATOR_VERSION = 1            # bump if any change alters generated arrays
_FORMAT = "drfbench.workload"
_FORMAT_VERSION = 2          # 2: the key "profile" became "demand_profile"
_MAX_RESOURCES = np.iinfo(np.int32).max


def _fixed_point_cdf(probabilities):
    """64-bit fixed-point CDF thresholds for the kernel's inverse-CDF draw (all but the last)."""
    cdf = np.cumsum(np.asarray(probabilities, dtype=np.float64))
    cdf /= cdf[-1]
    return np.array([min(int(c * 2.0**64), 2**64 - 1) for c in cdf[:-1]], dtype=np.uint64)


def _length_thresholds():
    n = MAX_LENGTH - MIN_LENGTH + 1
    # Uniform: exact integer thresholds floor(j 2^64 / n).
    uniform = np.array([(j * 2**64) // n for j in range(1, n)], dtype=np.uint64)
    phi = [0.5 * (1.0 + math.erf((k - 0.5 - GAUSS_MEAN) / (GAUSS_SD * math.sqrt(2.0))))
           for k in range(MIN_LENGTH, MAX_LENGTH + 2)]
    gauss = _fixed_point_cdf(np.diff(phi))
    return {"U": uniform, "G": gauss}


_LENGTH_THRESHOLDS = _length_thresholds()


@dataclass(eq=False)
class Workload:
    """One generated workload: demands plus everything needed to interpret and redo it.

    Attributes
    ----------
    demands : scipy.sparse.csr_array
        (n_tenants, n_resources); indptr int64, indices int32 (sorted, distinct per row),
        data float32/float64 fractions in (0, 1].
    capacities : numpy.ndarray
        Float64 (n_resources,), integral absolute capacities C[r].
    weights : numpy.ndarray or None
        Float64 (n_tenants,).
    cluster_bounds : numpy.ndarray
        Int64 (n_clusters + 1,); cluster c is [bounds[c], bounds[c + 1]).
    demand_profile, seed, weights_option : str, int, str
        The arguments of `generate`.
    generator_version : int
    """

    demands: csr_array
    capacities: np.ndarray
    weights: np.ndarray | None
    cluster_bounds: np.ndarray
    demand_profile: str
    seed: int
    weights_option: str | None = None
    generator_version: int = GENERATOR_VERSION

    @property
    def n_tenants(self) -> int:
        return self.demands.shape[0]

    @property
    def n_resources(self) -> int:
        return self.demands.shape[1]

    @property
    def dtype(self) -> np.dtype:
        return self.demands.dtype

    @property
    def nnz(self) -> int:
        return int(self.demands.indptr[-1])

    @property
    def n_clusters(self) -> int:
        return len(self.cluster_bounds) - 1


def cluster_bounds(n_resources: int) -> np.ndarray:
    """Boundaries of the contiguous clusters of a datacenter of n_resources resources."""
    size = max(n_resources // CLUSTERS_PER_DC, min(n_resources, MIN_CLUSTER_SIZE))
    n = max(1, n_resources // size)
    return np.array([c * n_resources // n for c in range(n + 1)], dtype=np.int64)


def _as_int(value, name, minimum, maximum=None):
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    try:
        v = operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be an integer, got {value!r}") from None
    if v < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {v}")
    if maximum is not None and v > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {v}")
    return v


def _check_profile(demand_profile):
    name = demand_profile.upper() if isinstance(demand_profile, str) else None
    if name not in DEMAND_PROFILES:
        raise ValueError(f"unknown demand profile {demand_profile!r}; valid demand profiles: "
                         f"{', '.join(DEMAND_PROFILES)}")
    return name


def _check_dtype(dtype):
    try:
        dt = None if dtype is None else np.dtype(dtype)   # np.dtype(None) would be float64
    except TypeError:
        dt = None
    if dt is None or dt.type not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dtype!r}")
    return dt


def generate(demand_profile: str, n_tenants: int, n_resources: int, *, seed: int = 0,
             dtype=np.float32, weights: str | None = None,
             threads: int | None = None) -> Workload:
    """Generate a workload of a demand profile (Table 3). The result does not depend on
    `threads`.

    Parameters
    ----------
    demand_profile : str
        One of `DEMAND_PROFILES`.
    n_tenants : int
        Rows, in [1, `2**31 - 1`] (the kernels' int32 indices).
    n_resources : int
        Columns, in [2, `2**31 - 1`].
    seed : int
        In [0, `2**64`).
    dtype : numpy dtype
        float32 (default) or float64 values.
    weights : {None, "random"}
        The tenants' weights: none (all ones) or random.
    threads : int, optional
        OpenMP threads (None: `OMP_NUM_THREADS`, else every usable CPU).

    Returns
    -------
    Workload
    """
    name = _check_profile(demand_profile)
    n_tenants = _as_int(n_tenants, "n_tenants", 1, _MAX_RESOURCES)
    n_resources = _as_int(n_resources, "n_resources", 2, _MAX_RESOURCES)
    seed = _as_int(seed, "seed", 0, 2**64 - 1)
    dt = _check_dtype(dtype)
    if not (weights is None or (isinstance(weights, str) and weights in WEIGHT_OPTIONS)):
        raise ValueError(f"weights must be one of {WEIGHT_OPTIONS}, got {weights!r}")
    threads = resolve_threads(None if threads is None else _as_int(threads, THREADS.name, 1))
    # The generic variant always: the same numbers whatever the CPU (and no FMA contraction).
    kernel = _isa.kernels("generic").workloads

    capacities = np.empty(n_resources, dtype=np.float64)
    kernel.capacities(seed, CAPACITY_RANGE[0], CAPACITY_RANGE[1], capacities)
    bounds = cluster_bounds(n_resources)

    indptr = np.empty(n_tenants + 1, dtype=np.int64)
    nnz = kernel.row_lengths(seed, _LENGTH_THRESHOLDS[name[0]], MIN_LENGTH,
                              min(MAX_LENGTH, n_resources), indptr, threads)
    indices = np.empty(nnz, dtype=np.int32)
    data = np.empty(nnz, dtype=dt)
    kernel.fill_rows(seed, int(name[1]), indptr, bounds, capacities, indices, data, threads)

    w = None
    if weights == "random":
        w = np.empty(n_tenants, dtype=np.float64)
        kernel.uniform_reals(seed, WEIGHT_RANGE[0], WEIGHT_RANGE[1], w)
    return Workload(demands=csr_from_arrays(data, indices, indptr, (n_tenants, n_resources)),
                    capacities=capacities, weights=w, cluster_bounds=bounds, demand_profile=name,
                    seed=seed, weights_option=weights)


def save(workload: Workload, path) -> str:
    """Write a workload to ONE uncompressed .npz file at exactly `path`.

    Atomic: the file is written to a temporary file in the same directory and then renamed
    over `path`, so a crash never leaves a half-written workload behind.

    Parameters
    ----------
    workload : Workload
    path : str or Path

    Returns
    -------
    str
        The path.
    """
    path = os.fspath(path)
    m = workload.demands
    arrays = {
        "format": np.array(_FORMAT),
        "format_version": np.array(_FORMAT_VERSION, dtype=np.int64),
        "generator_version": np.array(workload.generator_version, dtype=np.int64),
        "demand_profile": np.array(workload.demand_profile),
        "seed": np.array(workload.seed, dtype=np.uint64),
        "weights_option": np.array("" if workload.weights_option is None
                                   else workload.weights_option),
        "shape": np.array(m.shape, dtype=np.int64),
        "indptr": m.indptr, "indices": m.indices, "data": m.data,
        "capacities": workload.capacities,
        "cluster_bounds": workload.cluster_bounds,
    }
    if workload.weights is not None:
        arrays["weights"] = workload.weights
    with replacing(path, suffix=".npz") as tmp:
        np.savez(tmp, **arrays)
    return path


_REQUIRED = ("format", "format_version", "generator_version", "demand_profile", "seed",
             "weights_option", "shape", "indptr", "indices", "data", "capacities",
             "cluster_bounds")


def load(path) -> Workload:
    """Read a workload written by `save`: identical arrays and dtypes.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    Workload

    Raises
    ------
    FileNotFoundError
        A missing file.
    ValueError
        A file that is not a readable drfbench workload, naming the file and the problem.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"workload file not found: {path}")
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in _REQUIRED if k not in z.files]
            if missing:
                raise ValueError(f"missing entries {missing}")
            a = {k: z[k] for k in z.files}
    except (zipfile.BadZipFile, EOFError, OSError, KeyError, ValueError) as e:
        raise ValueError(f"{path}: not a readable drfbench workload file ({e})") from e
    return _from_arrays(path, a)


def _from_arrays(path, a):
    def bad(why):
        return ValueError(f"{path}: corrupt drfbench workload file ({why})")

    if a["format"].shape != () or str(a["format"]) != _FORMAT:
        raise bad("wrong format marker")
    if int(a["format_version"]) != _FORMAT_VERSION:
        raise bad(f"format version {int(a['format_version'])}, expected {_FORMAT_VERSION}")
    demand_profile, shape = str(a["demand_profile"]), a["shape"]
    indptr, indices, data = a["indptr"], a["indices"], a["data"]
    if demand_profile not in DEMAND_PROFILES:
        raise bad(f"unknown demand profile {demand_profile!r}")
    if shape.shape != (2,) or shape.dtype != np.int64 or shape[0] < 1 or shape[1] < 2:
        raise bad("bad shape")
    n, r = int(shape[0]), int(shape[1])
    if indptr.dtype != np.int64 or indices.dtype != np.int32:
        raise bad("index arrays must be int64 indptr and int32 indices")
    if data.dtype not in (np.float32, np.float64):
        raise bad(f"values have dtype {data.dtype}")
    if indptr.shape != (n + 1,) or indptr[0] != 0 or indptr[-1] != len(indices) \
            or len(data) != len(indices) or np.any(np.diff(indptr) < 0):
        raise bad("inconsistent CSR arrays")
    if len(indices) and (indices.min() < 0 or indices.max() >= r):
        raise bad("column index out of range")
    if a["capacities"].shape != (r,) or a["capacities"].dtype != np.float64:
        raise bad("bad capacities")
    weights = a.get("weights")
    if weights is not None and (weights.shape != (n,) or weights.dtype != np.float64):
        raise bad("bad weights")
    option = str(a["weights_option"]) or None
    return Workload(demands=csr_from_arrays(data, indices, indptr, (n, r)),
                    capacities=a["capacities"], weights=weights,
                    cluster_bounds=a["cluster_bounds"], demand_profile=demand_profile,
                    seed=int(a["seed"]), weights_option=option,
                    generator_version=int(a["generator_version"]))


def read_demands(path, names=False):
    """The demands kind's reader (`drfbench run`): a tenants x resources matrix of demand
    fractions in [0, 1] from a file, by its name.

    Parameters
    ----------
    path : str or Path
        `.csv`: one row per tenant, one column per resource, optionally a header (a first
        row holding no number; its names are not used but for a first name column, `tenant`,
        `user` or `name`: drfbench._inputs.labelled). `.npz`: a workload file (`save`; its
        demands) or a scipy.sparse matrix (save_npz). `.mtx`: Matrix Market
        (scipy.io.mmread).
    names : bool
        Also return the tenants' names.

    Returns
    -------
    scipy.sparse.csr_array or tuple
        The canonical CSR array drfbench.allocate runs on
        (drfbench._validation.demand_matrix); with `names` the pair (array, the tenants'
        names as written, or None without a name column: docs/accepts.md "Names of rows").

    Raises
    ------
    ValueError
        Naming the file (and for a CSV the row and column).
    """
    path, where = _inputs.existing(path, "demands")
    suffix, labels = path.suffix.lower(), None
    if suffix == ".csv":
        table = _inputs.read_csv(path, "demands", header=None, name_column=True)
        matrix, labels = table.numbers(table.columns, upper=1), table.labels
    elif suffix == ".npz":
        matrix = _npz_matrix(path, where)
    elif suffix == ".mtx":
        try:
            matrix = scipy.io.mmread(path)
        except (OSError, ValueError, TypeError) as exc:
            raise ValueError(f"{where}: not a Matrix Market file ({exc})") from None
    else:
        raise ValueError(f"{where}: expected a .csv, .npz or .mtx file")
    try:
        matrix = demand_matrix(matrix)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from None
    return (matrix, labels) if names else matrix


def _npz_matrix(path, where):
    """A workload file's demands, or the matrix of a scipy.sparse save_npz file."""
    try:
        with np.load(path, allow_pickle=False) as z:
            workload = "format" in z.files and str(z["format"]) == _FORMAT
        if not workload:
            return sp.load_npz(path)
    except (zipfile.BadZipFile, EOFError, OSError, KeyError, ValueError) as exc:
        raise ValueError(f"{where}: neither a drfbench workload nor a scipy.sparse matrix "
                         f"({exc})") from None
    return load(path).demands                   # its errors name the file
