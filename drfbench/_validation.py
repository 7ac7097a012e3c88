"""Checks and conversions done once, in Python, before a kernel runs.

The kernels trust their input (docs/architecture.md, "Imports point one way": the families
are thin Python wrappers over them); everything a user can get wrong is caught here with a
ValueError or TypeError that names the problem.
"""
import datetime
import math
import numbers

import numpy as np
import scipy.sparse as sp

FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

# Bounds that keep every computation finite (docs/accepts.md). Only the ratios of weights
# matter to a fair share; the light tenants' terms share sums with the heavy ones' (the
# kernels' mu_r), so rounding over-allocates by about ratio * 2**-52 (3e-8 measured at
# this bound, the lecture's 10^10 : 10 priority example); far past it the sums overflow
# or lose the light tenants altogether (weights [1, 1e308] hung EDRF).
MAX_WEIGHT_RATIO = 1e9
# Each weight's own range: 1 / w and share / w stay finite, subnormals (which lose digits
# and give infinite shares) are out.
MIN_WEIGHT, MAX_WEIGHT = 1e-300, 1e300
# The largest count of anything (rounds, tasks, events): int64 with headroom for sums.
MAX_COUNT = 2**62
# Work a small input file may ask for (docs/accepts.md, "Bounds on what a file asks for"),
# the nodes a YAML document expands to, its aliases repeated (a 1 KB alias bomb expands
# to billions); the machines a table's `count` column expands to, and their cells
# (machines x resources: 2**24 machines of 40 resources were 5 GiB); an H-DRF tree's
# nodes, leaves included.
MAX_NODES = 2**22
MAX_MACHINES = 2**24
MAX_MACHINE_CELLS = 2**26
MAX_TREE_NODES = 2**20
# A table's first column headed by one of these holds the rows' names (text labels), not
# numbers: "tenant,cpu,mem" for demands, "machine,cpu,mem" for machines, in a file or a
# DataFrame alike (docs/accepts.md, "Names of rows")
NAME_COLUMNS = ("name", "tenant", "user", "machine", "server", "flow")


def demand_matrix(demands, dtype=None):
    """Return `demands` as a canonical CSR array the kernels accept, copying only what
    needs changing.

    Parameters
    ----------
    demands : array_like or scipy.sparse matrix
        (tenants, resources): any scipy.sparse format (DOK and LIL as their COO), or a
        dense 2-D array.
    dtype : float32 or float64, optional
        The values' type; default: the input's float type, else float64.

    Returns
    -------
    scipy.sparse.csr_array
        Canonical: float32 or float64 values, int64 indptr, int32 column indices sorted
        within each row, no duplicates, no explicit zeros.

    Raises
    ------
    ValueError
        Input not 2-D; a value negative, NaN, infinite, above 1 (D_ir is a fraction of
        resource r) or non-zero below the float type's smallest normal number
        (`np.finfo(dtype).tiny`); a numpy masked array with masked entries (no value is
        guessed for them); a dtype other than float32 or float64.
    TypeError
        Values that are not numbers.
    """
    if dtype is not None:
        dtype = np.dtype(dtype)
        if dtype not in FLOAT_DTYPES:
            raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    if sp.issparse(demands):
        if demands.ndim != 2:
            raise ValueError(f"demands must be 2-D (tenants x resources), got ndim={demands.ndim}")
        _check_numeric(demands.dtype)
        # A CSR input keeps its cached canonical flag (recomputing it is a pass over indices).
        canonical = demands.format == "csr" and demands.has_canonical_format
        # Check the values as stored, before any conversion sums duplicates.
        stored = demands if demands.format in ("csr", "csc", "coo", "bsr") else demands.tocoo()
        lowest = _check_values(stored.data)
        matrix = sp.csr_array(demands)  # shares the input's arrays where it can
    else:
        if np.ma.isMaskedArray(demands) and np.ma.getmaskarray(demands).any():
            where = np.argwhere(np.ma.getmaskarray(demands))
            raise ValueError(f"demands is a masked array with {len(where)} masked entr"
                             f"{'y' if len(where) == 1 else 'ies'} (the first at "
                             f"{tuple(where[0].tolist())}): drfbench guesses no demand for "
                             "them; fill them (demands.filled(0)) or drop their rows")
        try:
            dense = np.asarray(demands)
        except Exception as exc:  # ragged lists and the like
            raise TypeError(f"demands must be a 2-D array or a scipy.sparse matrix: {exc}") from exc
        if dense.ndim != 2:
            raise ValueError(f"demands must be 2-D (tenants x resources), got shape {dense.shape}")
        _check_numeric(dense.dtype)
        _check_values(dense)
        # In the kernel's float type first: scipy.sparse holds no float16, for one.
        target = dtype or (dense.dtype if dense.dtype in FLOAT_DTYPES else np.dtype(np.float64))
        if dense.dtype.kind == "f" and dense.dtype.itemsize > target.itemsize:
            normal_floor(dense[dense > 0], target)      # before the cast makes them zeros
        matrix, canonical, lowest = sp.csr_array(dense.astype(target, copy=False)), True, None
    if not canonical or lowest == 0:
        matrix = matrix.copy()  # never modify the caller's arrays
        matrix.sum_duplicates()
        matrix.eliminate_zeros()
        _check_values(matrix.data)  # summed duplicates may exceed 1
    target = dtype or (matrix.dtype if matrix.dtype in FLOAT_DTYPES else np.dtype(np.float64))
    n_tenants, n_resources = matrix.shape
    if n_resources >= 2**31 or n_tenants >= 2**31:
        raise ValueError(f"demands of shape {matrix.shape} exceed the kernels' int32 indices")
    data = matrix.data.astype(target, copy=False)
    normal_floor(data, target)
    return csr_from_arrays(data, matrix.indices.astype(np.int32, copy=False),
                           matrix.indptr.astype(np.int64, copy=False), matrix.shape)


def normal_floor(values, dtype):
    """Refuse non-zero demands below the kernel float type's smallest normal number: a
    tenant's rho_i = w_i / max_r D_ir must be finite, and a value that rounded to 0 or to a
    subnormal in float32 lost its meaning."""
    tiny = np.finfo(dtype).tiny
    if values.size and values.min() < tiny:
        raise ValueError(f"demands must be 0 or at least {tiny:.3g} (the smallest normal "
                         f"{np.dtype(dtype)}), found {values.min():.3g}")


def csr_from_arrays(data, indices, indptr, shape):
    """A canonical CSR array over these exact arrays: int64 indptr, int32 indices.

    scipy's constructor would give both index arrays one dtype (a copy of every column
    index at scale), so the arrays are set directly; scipy's operations accept this.
    """
    out = sp.csr_array(shape, dtype=data.dtype)
    out.data, out.indices, out.indptr = data, indices, indptr
    out.check_format(full_check=False)
    out.has_canonical_format = True
    return out


def _check_numeric(dtype):
    if dtype.kind not in "biuf":
        raise TypeError(f"demands must hold real numbers, got dtype {dtype}")


def _check_values(values):
    """Reject negative, NaN, infinite and above-1 values in two passes (min and max: NaN
    propagates through both); return the minimum (0 means explicit zeros), or None if empty."""
    if values.size == 0:
        return None
    low, high = values.min(), values.max()
    if np.isnan(low) or np.isnan(high) or np.isinf(high) or np.isinf(low):
        raise ValueError("demands contain NaN or infinite values")
    if low < 0:
        raise ValueError(f"demands must be non-negative, found {low}")
    if high > 1:
        raise ValueError(f"demands are fractions of each resource and must be at most 1, found {high}")
    return low


def tenant_weights(weights, n_tenants):
    """Per-tenant weights, checked.

    Parameters
    ----------
    weights : array_like or None
        One positive number per tenant; None: all ones.
    n_tenants : int
        The tenants.

    Returns
    -------
    ndarray
        float64, contiguous, each in [MIN_WEIGHT, MAX_WEIGHT], the largest at most
        MAX_WEIGHT_RATIO times the smallest.

    Raises
    ------
    TypeError
        Weights that are not real numbers.
    ValueError
        Not one per tenant, NaN or infinite, not positive, or out of those bounds.
    """
    if weights is None:
        return np.ones(n_tenants, dtype=np.float64)
    w = np.asarray(weights)
    if w.dtype.kind not in "biuf":
        raise TypeError(f"weights must be real numbers, got dtype {w.dtype}")
    if w.shape != (n_tenants,):
        raise ValueError(f"weights must have one entry per tenant, shape ({n_tenants},), got {w.shape}")
    w = w.astype(np.float64, copy=False)
    if not np.isfinite(w).all():
        raise ValueError("weights contain NaN or infinite values")
    if n_tenants and w.min() <= 0:
        raise ValueError(f"weights must be positive, found {w.min()}")
    if n_tenants and w.max() > MAX_WEIGHT_RATIO * w.min():
        raise ValueError(f"weights must lie within a factor {MAX_WEIGHT_RATIO:g} of each other "
                         f"(only their ratios matter), got {w.min():g} to {w.max():g}")
    if n_tenants and not MIN_WEIGHT <= w.min() <= w.max() <= MAX_WEIGHT:
        raise ValueError(f"weights must lie in [{MIN_WEIGHT:g}, {MAX_WEIGHT:g}], got {w.min():g} "
                         f"to {w.max():g}")
    return np.ascontiguousarray(w)


def unit_weights(w):
    """(weights scaled by a power of two so that the largest lies in [1, 2), the shift:
    weights = ldexp(scaled, -shift)): only ratios matter, and the scaling is exact."""
    if not w.size:
        return w, 0
    shift = 1 - int(np.frexp(w.max())[1])
    return np.ldexp(w, shift), shift


def digits(n):
    """The number of decimal digits of integer n, without printing it (Python refuses to
    print an int of more than 4,300 digits)."""
    n = abs(int(n))
    d = int(n.bit_length() * math.log10(2)) + 1        # exact, or one too many
    return d - 1 if d > 1 and n < 10 ** (d - 1) else d


def shown(value):
    """A value as an error message shows it: an integer of more than 20 digits by its
    length (the message stays one line, and is printed at all past 4,300 digits)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return f"an integer of {digits(value)} digits" if digits(value) > 20 else str(int(value))
    return repr(value)


def too_large(value, name):
    """The ValueError for a number too large for a float (an integer past 1.8e308, which
    float() refuses with OverflowError), naming `name`."""
    size = (f"{digits(value)} digits, past a float's range"
            if isinstance(value, numbers.Integral) else "past a float's range")
    return ValueError(f"{name} is too large ({size})")


def positive_int(value, name, allow_none=True, upper=MAX_COUNT):
    """An int in [1, upper] (bools rejected), or None when allowed."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {shown(value)}")
    if value < 1:
        raise ValueError(f"{name} must be a positive integer, got {shown(value)}")
    if value > upper:
        raise ValueError(f"{name} must be at most {upper}, got {shown(value)}")
    return int(value)


def choice(value, name, choices):
    """`value` if it is one of `choices` (a knob's named values), else a ValueError naming
    the knob and its choices."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def real(value, name, finite=False):
    """A float (bools rejected), not NaN; with finite=True, not infinite either."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {shown(value)}")
    try:
        value = float(value)
    except OverflowError:
        raise too_large(value, name) from None
    if math.isnan(value):
        raise ValueError(f"{name} must not be NaN")
    if finite and math.isinf(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def duration(value, name):
    """One time in seconds as a float, not NaN: a number, or a duration (timedelta,
    pandas.Timedelta, numpy.timedelta64) converted; a point in time is refused (TypeError),
    see `seconds`. Bounds are the caller's."""
    if isinstance(value, (np.timedelta64, np.datetime64)) or \
            not isinstance(value, numbers.Real):     # numpy's time types count as integers
        converted = seconds(value, name)
        if np.ndim(converted) == 0 and np.asarray(converted).dtype.kind in "iuf":
            value = np.asarray(converted)[()]
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number of seconds (or a duration), got {value!r:.80}")
    return real(value, name)


def real_array(values, name, ndim):
    """`values` as a contiguous float64 array of `ndim` dimensions (TypeError for what is
    not real numbers; an array of bools is 0s and 1s, NumPy's reading; durations as
    timedelta become seconds, see `seconds`)."""
    try:
        a = np.asarray(values)
    except Exception as exc:                 # ragged lists and the like
        raise TypeError(f"{name} must be a {ndim}-D array of real numbers: {exc}") from exc
    if a.dtype.kind == "O" and a.size and all(
            isinstance(x, numbers.Real) and not isinstance(x, (bool, np.timedelta64))
            for x in a.flat):
        a = _big_integers(a, name)           # NumPy keeps integers past int64 as objects
    if a.dtype.kind in "mMO":
        a = seconds(a, name)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be real numbers, got dtype {a.dtype}")
    if a.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {a.shape}")
    return np.ascontiguousarray(a, dtype=np.float64)


def _big_integers(a, name):
    """An object array of numbers (Python integers past int64 among them) as float64, one
    too large for a float a ValueError naming its index."""
    out = np.empty(a.shape)
    for index, x in np.ndenumerate(a):
        try:
            out[index] = float(x)
        except OverflowError:
            raise too_large(x, f"{name} at index {index}") from None
    return out


def finite_non_negative(a, name):
    """Refuse NaN, infinite or negative entries, naming the first one and its index."""
    bad = ~np.isfinite(a)
    if bad.any():
        where = np.argwhere(bad)[0]
        raise ValueError(f"{name} must be finite: {a[tuple(where)]} at index "
                         f"{tuple(where.tolist())}")
    if a.size and a.min() < 0:
        where = np.argwhere(a < 0)[0]
        raise ValueError(f"{name} must be non-negative: {a[tuple(where)]} at index "
                         f"{tuple(where.tolist())}")
    return a


def machines(capacity, n_resources=None, resources=None, name="machines"):
    """Machines' capacities as a validated (M, m) float64 array: one row per machine (a 1-D
    capacity is one machine), one column per resource (`n_resources` of them, if given),
    finite and non-negative with a finite total per resource, every machine with some
    capacity. Capacities given by name (a
    DataFrame, or a dict of columns) come out in the order of `resources` (the names the
    demands gave); by name beside demands given by position is ambiguous and refused."""
    names, capacity = by_name(capacity, name, resources)
    if names is not None and resources is None and n_resources is not None:
        raise ValueError(f"{name} name their resources {list(names)} but the demands do not: "
                         f"give the demands with the same names, or the {name} as an array")
    try:
        one = np.ndim(capacity) == 1
    except ValueError:                      # ragged lists: real_array names them
        one = False
    C = real_array(capacity, name, 1 if one else 2)
    C = C[None, :] if one else C
    if C.shape[0] < 1 or C.shape[1] < 1:
        raise ValueError(f"{name} must have at least one row and one resource, got shape "
                         f"{C.shape}")
    if n_resources is not None and C.shape[1] != n_resources:
        raise ValueError(f"{name} must have {n_resources} resource(s) like the demands: "
                         f"({n_resources},) for one machine or (machines, {n_resources}), got "
                         f"shape {C.shape}")
    finite_non_negative(C, f"{name}' capacities")
    with np.errstate(over="ignore"):
        over = np.flatnonzero(~np.isfinite(C.sum(axis=0)))
    if over.size:
        raise ValueError(f"{name}: the capacities of resource(s) {over[:10].tolist()} sum "
                         f"past the largest float64 ({np.finfo(np.float64).max:.3g}); a "
                         "cluster's total must be finite: give them in a larger unit")
    empty = np.flatnonzero(C.max(axis=1) == 0)
    if empty.size:
        raise ValueError(f"{name} {empty[:10].tolist()} have no capacity at all (every "
                         "resource 0)")
    return C


def seconds(values, name):
    """Times as float seconds: numbers as they are, durations (datetime.timedelta,
    pandas.Timedelta, numpy.timedelta64, alone or in arrays) converted; points in time
    (datetime, Timestamp, datetime64) refused, since drfbench counts time in seconds from
    the start of a run and a date has no such origin."""
    a = np.asarray(values)
    if a.dtype.kind == "O" and a.size:
        if any(type(x).__name__ == "NaTType" for x in a.flat):      # pandas.NaT
            raise ValueError(f"{name} contains NaT (not a time)")
        if all(isinstance(x, (datetime.datetime, datetime.date, np.datetime64)) or
               type(x).__name__ == "Timestamp" for x in a.flat):
            a = a.astype("datetime64[ns]")
        elif all(isinstance(x, (datetime.timedelta, np.timedelta64)) for x in a.flat):
            a = a.astype("timedelta64[ns]")
    if a.dtype.kind == "M":
        raise TypeError(f"{name} must be seconds from the start of the run (a number or a "
                        f"duration), got points in time ({a.dtype}); subtract the start time")
    if a.dtype.kind == "m":
        if np.isnat(a).any():
            raise ValueError(f"{name} contains NaT (not a time)")
        return a / np.timedelta64(1, "s")
    return a


def column_names(value, name):
    """The resource names of a table given by name (a pandas DataFrame with text column
    labels, or a mapping name -> column), else None (read by position). A DataFrame's
    default labels 0, 1, ... are positions; other labels that are not text are refused. A
    first column headed by one of NAME_COLUMNS names the rows and is no resource."""
    if isinstance(value, dict):
        labels = list(value)
    elif hasattr(value, "columns") and hasattr(value, "to_numpy"):
        labels = list(value.columns)
        if labels == list(range(len(labels))):
            return None
    else:
        return None
    if len(labels) > 1 and labels[0] in NAME_COLUMNS:
        labels = labels[1:]
    if not all(isinstance(x, str) and x for x in labels):
        raise TypeError(f"{name}' column labels must be resource names (text), got {labels}")
    if len(set(labels)) != len(labels):
        raise ValueError(f"{name} names a resource twice: {labels}")
    return tuple(labels)


def _check_columns(columns, name):
    """Refuse a dict of columns that is empty, or whose columns are not lists of one
    length (one entry per row)."""
    if not columns:
        raise ValueError(f"{name}: a dict of columns needs at least one resource")
    lengths = set()
    for label, column in columns.items():
        try:
            shape = np.shape(column)
        except ValueError:
            shape = None
        if shape is None or len(shape) != 1:
            got = "a ragged list" if shape is None else f"shape {shape}"
            raise ValueError(f"{name}: a dict of columns gives each resource one value per "
                             f"row (a list), got {got} for {label!r}")
        lengths.add(shape[0])
    if len(lengths) > 1:
        raise ValueError(f"{name}: the columns of a dict must have one value per row each, "
                         f"got lengths {sorted(lengths)}")


def by_name(value, name, resources=None):
    """(names, values): a table given by name, in `resources`' order when given (the same
    names, any order), else as given; an unnamed table (array, list) as it is, with names
    None. A named table beside unnamed resources is ambiguous and refused."""
    names = column_names(value, name)
    if names is None:
        return None, value
    if isinstance(value, dict):
        _check_columns(value, name)
    columns = dict(value) if isinstance(value, dict) else {c: value[c] for c in names}
    if resources is None:
        return names, np.column_stack([np.asarray(columns[c]) for c in names])
    if sorted(names) != sorted(resources):
        raise ValueError(f"{name} has resource columns {list(names)} but the resources are "
                         f"{list(resources)}: they must name the same ones")
    return tuple(resources), np.column_stack([np.asarray(columns[c]) for c in resources])
