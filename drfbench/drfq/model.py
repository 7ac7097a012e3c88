"""The model of the DRFQ middlebox (Ghodsi, Sekar, Zaharia, Stoica, "Multi-Resource Fair
Queueing for Packet Processing", SIGCOMM 2012): flows, their packets' costs and sources,
the run's settings, their validation, the flows kind's reader (a costs CSV), and the
counter-based random numbers that the kernel (drfbench/drfq/drfq.pyx) and the literal
transcription (literal.py) draw alike.

Flows. Flow i sends packets that need time on every resource of a pipeline (resource 0
first, default CPU then NIC): packet k of flow i costs costs[i, k mod K, j] seconds on
resource j (a fixed vector when K = 1, a cycle of K vectors otherwise, e.g. the paper's
flow alternating <1, 2> and <2, 1>), times a per-packet factor drawn for each resource
when `packet_costs` is "uniform" (0.5 + U(0, 1): mean 1, within [0.5, 1.5)) or
"exponential" (Exp(1)). Each flow has a weight (its share is proportional to it) and a
source:

  backlogged   always has exactly one packet waiting: the next arrives the instant the
               previous one enters the pipeline (never dropped)
  constant     open loop: packet k arrives at k / rate
  poisson      open loop: exponential gaps of mean 1 / rate, the first after one gap
  tcp          closed loop: a TCP-like AIMD window (literal.py's docstring states the
               model; its constants are below)

Open-loop and TCP flows queue in a buffer of `buffer` packets each; an arrival to a full
buffer is dropped (tail drop) and counted.

Random numbers are counter-based: uniform(seed, stream, flow, k) hashes its four integers
with SplitMix64's finalizer (Steele, Lea, Flood, OOPSLA 2014), so a draw does not depend on
the order in which the simulator asks for it, and Python (integers masked to 64 bits) and
C (uint64_t) compute the same bits. Stream 0 is a flow's arrival gaps, stream 1 + j its
packets' factors on resource j.
"""
import math
import numbers
from dataclasses import dataclass, make_dataclass, replace

import numpy as np

from .. import _inputs
from .. import _validation as check
from ..declarations import take_only
from .catalog import (DRAWS, MAX_SECONDS, MAX_STATE, PACKET_COSTS, PACKETS, SECONDS, SETTINGS,
                      SOURCES)

# The registry's flow methods (drfbench.methods(takes="flows")), in the order of the
# kernel's switch (Settings.code).
METHODS = ("drfq", "drfq-dovetail", "fq", "bottleneck", "fifo")
OPEN_LOOP = ("constant", "poisson")

# The run's settings (their types, bounds and defaults), the sources and packet costs: the
# family's catalog, where its options are declared.
MAX_REDECISIONS = 1e8   # the bottleneck's re-decisions are kept: at most this many

# Bounds that keep a run finite and its work bounded (docs/accepts.md). Times are seconds:
# duration, rtt and interval in (0, MAX_SECONDS]; a packet's cost on a resource in
# [0, MAX_SECONDS], 0 on some resources but not on all (a flow whose packets take no time
# anywhere would be served without end in no time: refused by `flows` and `read_inputs`);
# rates packets/s in [1 / MAX_SECONDS, inf); weights in [1 / MAX_WEIGHT, MAX_WEIGHT] and
# within _validation.MAX_WEIGHT_RATIO of each other (virtual times add cost / weight).
MAX_WEIGHT = 1e12
# The work budget (`budget`): the packets a run would simulate, estimated before it starts,
# and the numbers its state holds (queues, stage buffers, TCP timers, series, re-decisions).
MAX_PACKETS = 2**28     # about a minute of the kernel; keeps the int32 series exact

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
UNIT = 2.0 ** -52


def mix(x):
    """SplitMix64's finalizer: a bijection of 64-bit integers that scrambles every bit.

    Parameters
    ----------
    x : int

    Returns
    -------
    int
    """
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def uniform(seed, stream, flow, k):
    """A uniform number in (0, 1), a function of its four integers alone: the top 52 bits of
    the hash, plus one half, over `2**52` (exact in double precision).

    Parameters
    ----------
    seed, stream, flow, k : int

    Returns
    -------
    float
    """
    h = mix((int(seed) + GOLDEN * (int(stream) + 1)) & MASK)
    h = mix((h + GOLDEN * (int(flow) + 1)) & MASK)
    h = mix((h + GOLDEN * (int(k) + 1)) & MASK)
    return ((h >> 12) + 0.5) * UNIT


@dataclass(frozen=True)
class Flows:
    """Validated flows (see `flows`).

    Attributes
    ----------
    costs : numpy.ndarray
        (n, K, m) seconds.
    weights : numpy.ndarray
        (n,).
    source : numpy.ndarray
        (n,) int8 indices into SOURCES.
    rates : numpy.ndarray
        (n,) packets/s (NaN for backlogged and TCP flows).
    packet_costs : int
        An index into PACKET_COSTS.
    seed : int
    """
    costs: np.ndarray
    weights: np.ndarray
    source: np.ndarray
    rates: np.ndarray
    packet_costs: int
    seed: int

    @property
    def n(self):
        return self.costs.shape[0]

    @property
    def m(self):
        return self.costs.shape[2]

    @property
    def sources(self):
        """Each flow's source by name."""
        return [SOURCES[s] for s in self.source.tolist()]

    def packet_cost(self, i, k, j):
        """Seconds packet k of flow i needs on resource j."""
        base = float(self.costs[i, k % self.costs.shape[1], j])
        if self.packet_costs == 0:
            return base
        u = uniform(self.seed, 1 + j, i, k)
        return base * (0.5 + u if self.packet_costs == 1 else -math.log(u))

    def mean_costs(self):
        """(n, m): each flow's mean seconds per packet on each resource (the factors have
        mean 1)."""
        return self.costs.mean(axis=1)


def _cost_array(costs):
    """costs as an (n, K, m) float64 array; a ragged list gets an error naming the flow."""
    costs = check.by_name(costs, "costs")[1]     # by name: in column order (allocate's rule)
    if isinstance(costs, (list, tuple)):
        shapes = []
        for i, row in enumerate(costs):
            try:
                shapes.append(np.shape(row))
            except ValueError:
                raise ValueError(f"costs: flow {i}'s cost vectors differ in length") from None
            if shapes[i] != shapes[0]:
                raise ValueError(f"costs: flow {i}'s cost vector has shape {shapes[i]}, flow 0's "
                                 f"has {shapes[0]}: every flow needs one cost per resource")
    if np.ndim(costs) not in (2, 3):
        raise ValueError(f"costs must be (flows, resources) or (flows, cycle, resources) "
                         f"seconds per packet, got shape {np.shape(costs)}")
    a = check.real_array(costs, "costs", np.ndim(costs))
    return a[:, None, :] if a.ndim == 2 else a


def flows(costs, weights=None, rates=None, **draws):
    """Validated `Flows`.

    Times are seconds: numbers, or durations (timedelta, pandas.Timedelta, timedelta64),
    converted.

    Parameters
    ----------
    costs : array_like, DataFrame or dict of columns
        (n, m) seconds per packet on each resource in pipeline order, or (n, K, m): a cycle
        of K cost vectors per flow; (n, m) may be given by name, a DataFrame with text column
        labels or a dict of columns (one cost per flow each), the resources in column order
        (a DataFrame's labels 0..m-1 are positions; other labels that are not text are
        refused, as drfbench.allocate refuses them). Each in [0, MAX_SECONDS] (1e9 s).
    weights : array_like, optional
        n positive numbers (default 1), in [1e-12, 1e12] and within a factor
        _validation.MAX_WEIGHT_RATIO (1e9) of each other.
    rates : float or array_like, optional
        None, one number, or n entries each None or packets/s in [1e-9, inf): a flow with a
        rate is open loop.
    **draws
        The catalog's DRAWS, each at its declared default unless given: `source`, one of
        SOURCES or a list of n (one name applies to every flow: "backlogged" or "tcp" to the
        flows without a rate, flows with one being "constant"; "constant" or "poisson" to
        every flow, each then needing a rate; a list says each flow's source, the open-loop
        ones needing a rate and the others none); `packet_costs`, one of PACKET_COSTS;
        `seed`, a non-negative int (used modulo `2**64`).

    Returns
    -------
    Flows

    Raises
    ------
    ValueError
        Naming the problem: costs that are negative, NaN or infinite, above the bound, of the
        wrong length for a flow, or all zero for a packet (a packet must take some time
        somewhere); weights out of bounds; an unknown source or packet_costs; a missing,
        out-of-bounds or infinite rate.
    TypeError
        What is not a number (or a name, for source and packet_costs); a keyword not of
        DRAWS.
    """
    take_only("flows()", draws, [o.name for o in DRAWS], called="draws")
    source, packet_costs, seed = (draws.get(o.name, o.default) for o in DRAWS)
    C = _cost_array(costs)
    n, K, m = C.shape
    if n < 1 or K < 1 or m < 1:
        raise ValueError(f"costs must name at least one flow and one resource, got shape {C.shape}")
    bad = ~np.isfinite(C)
    if bad.any():
        i, k, j = np.argwhere(bad)[0]
        raise ValueError(f"costs: flow {i}'s cost on resource {j} is {C[i, k, j]} (must be finite)")
    if (C < 0).any():
        i, k, j = np.argwhere(C < 0)[0]
        raise ValueError(f"costs: flow {i}'s cost on resource {j} is negative ({C[i, k, j]})")
    if (C > MAX_SECONDS).any():
        i, k, j = np.argwhere(C > MAX_SECONDS)[0]
        raise ValueError(f"costs: flow {i}'s cost on resource {j} is {C[i, k, j]} s (at most "
                         f"{MAX_SECONDS:g})")
    zero = np.argwhere(C.max(axis=2) == 0)
    if zero.size:
        i, k = zero[0]
        what = f"flow {i}" if K == 1 else f"flow {i}'s cost vector {k} of its cycle"
        raise ValueError(f"costs: {what} is zero on every resource: zero-cost packets would "
                         "take no time anywhere")
    w = np.ones(n) if weights is None else _weights(weights, n)
    if not isinstance(packet_costs, str) or packet_costs not in PACKET_COSTS:
        raise ValueError(f"unknown packet_costs {packet_costs!r}; known: {', '.join(PACKET_COSTS)}")
    r = _rates(rates, n)
    kind = _sources(source, r, n)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {check.shown(seed)}")
    return Flows(np.ascontiguousarray(C), w, kind, r, PACKET_COSTS.index(packet_costs),
                 int(seed) & MASK)


def read_inputs(path, names=False):
    """The flows kind's reader (`drfbench run`): a costs CSV, as drfbench.drfq.simulate takes
    it.

    Parameters
    ----------
    path : str or Path
        One row per flow, one column per resource in pipeline order (the header names them;
        a first column `flow` or `name` names the flows: drfbench._inputs.labelled), seconds
        per packet.
    names : bool
        Also return the flows' names.

    Returns
    -------
    numpy.ndarray or tuple
        An (n, m) array; with `names`, the pair (array, the flows' names as written or None:
        docs/accepts.md "Names of rows").

    Raises
    ------
    ValueError
        A cost past MAX_SECONDS, or a flow whose packets cost nothing anywhere, naming its
        line.
    """
    table = _inputs.read_csv(path, "costs", name_column=True)
    costs = table.numbers(table.columns, upper=MAX_SECONDS)
    zero = np.flatnonzero(costs.max(axis=1) == 0)
    if zero.size:
        raise ValueError(f"{table.where}: {table.row(int(zero[0]))} costs 0 on every resource "
                         "(a packet must take some time somewhere)")
    return (costs, table.labels) if names else costs


def _weights(weights, n):
    w = check.real_array(np.atleast_1d(weights), "weights", 1)
    if w.shape != (n,):
        raise ValueError(f"weights must have one entry per flow ({n}), got {w.shape[0]}")
    bad = ~((w >= 1 / MAX_WEIGHT) & (w <= MAX_WEIGHT))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"weights: flow {i}'s weight is {w[i]} (must be positive and finite, "
                         f"in [{1 / MAX_WEIGHT:g}, {MAX_WEIGHT:g}])")
    return check.tenant_weights(w, n)


def _rates(rates, n):
    """(n,) float64 packets/s, NaN where a flow has none (None in a list)."""
    if rates is None:
        return np.full(n, np.nan)
    entries = [rates] * n if np.ndim(rates) == 0 else list(rates)
    if len(entries) != n:
        raise ValueError(f"rates must have one entry per flow ({n}), got {len(entries)}")
    given = [i for i, value in enumerate(entries) if value is not None]
    out = np.full(n, np.nan)
    if given:
        for i in given:
            if isinstance(entries[i], numbers.Integral) and not isinstance(entries[i], bool):
                check.real(entries[i], f"rates: flow {i}'s rate")     # too large for a float?
        values = check.real_array([entries[i] for i in given], "rates", 1)
        bad = np.flatnonzero(~((values >= 1 / MAX_SECONDS) & (values < math.inf)))
        if bad.size:
            raise ValueError(f"rates: flow {given[bad[0]]}'s rate is {values[bad[0]]} packets/s "
                             f"(must be positive and finite, at least {1 / MAX_SECONDS:g})")
        out[given] = values
    return out


def _sources(source, rates, n):
    """(n,) int8: each flow's index in SOURCES (see `flows` for how one name applies to
    every flow)."""
    if not isinstance(source, str) and not np.iterable(source):
        raise TypeError(f"source must be a name or a list of names, got {source!r}")
    names = [source] if isinstance(source, str) else list(source)
    for i, s in enumerate(names):
        if not isinstance(s, str) or s not in SOURCES:
            raise ValueError(f"unknown source {s!r}" + ("" if isinstance(source, str) else f" (flow {i})")
                             + f"; known: {', '.join(SOURCES)}")
    if not isinstance(source, str) and len(names) != n:
        raise ValueError(f"source must be one name or one per flow ({n}), got {len(names)}")
    kind = np.array([SOURCES.index(s) for s in names], dtype=np.int8)
    has_rate = ~np.isnan(rates)
    if isinstance(source, str):
        kind = np.full(n, kind[0], dtype=np.int8)
        if source not in OPEN_LOOP:
            kind[has_rate] = SOURCES.index("constant")
    open_loop = np.isin(kind, [SOURCES.index(s) for s in OPEN_LOOP])
    wrong = np.flatnonzero(open_loop != has_rate)
    if wrong.size:
        i = int(wrong[0])
        name = SOURCES[kind[i]]
        if open_loop[i]:
            raise ValueError(f"flow {i}: source {name!r} needs a rate (packets/s)")
        raise ValueError(f"flow {i}: source {name!r} takes no rate (got {rates[i]}); rates are "
                         f"for {' and '.join(OPEN_LOOP)} sources")
    return kind


class _Settings:
    """A run's validated settings (see `settings`): the method, then each of the
    catalog's SETTINGS by name (duration, resource, interval, rtt, buffer, ...)."""

    @property
    def code(self):
        """The method's index in METHODS (the kernel's switch)."""
        return METHODS.index(self.method)

    @property
    def boundaries(self):
        """Room for the bottleneck's re-decisions, at k x interval < duration (k >= 1)."""
        return int(self.duration / self.interval) + 2


Settings = make_dataclass("Settings", [("method", str), *((o.name, o.type) for o in SETTINGS)],
                          bases=(_Settings,), frozen=True)
Settings.__module__, Settings.__doc__ = __name__, _Settings.__doc__


def seconds(value, name):
    """A time in (0, MAX_SECONDS] seconds as a float.

    Parameters
    ----------
    value : float or duration
        A number, or a duration (timedelta, pandas.Timedelta, timedelta64), converted.
    name : str
        For errors.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Out of bounds.
    TypeError
        A point in time, or what is not a number.
    """
    x = check.duration(value, name)
    if not 0 < x <= MAX_SECONDS:
        raise ValueError(f"{name} must be positive and at most {MAX_SECONDS:g} s, got {x}")
    return x


def settings(m, method="drfq", **options):
    """Validated `Settings` for a pipeline of m resources (see drfbench.drfq.simulate).

    Parameters
    ----------
    m : int
        Resources in the pipeline.
    method : str
        A registered flow method.
    **options
        Any of the catalog's SETTINGS, the others at their declared defaults. `resource` is
        used by fq and bottleneck only, `interval` by bottleneck only (the registry refuses
        them for the other methods). The times (`duration`, `interval`, `rtt`): seconds
        (`seconds`: numbers or durations, in (0, MAX_SECONDS]), under bottleneck at most
        MAX_REDECISIONS intervals in the duration; the packet counts (`buffer`,
        `stage_buffer`, `initial_window`): positive integers; `bins`: a non-negative integer
        (the state's size is bounded by `budget`).

    Returns
    -------
    Settings

    Raises
    ------
    ValueError
        An unknown method, a value out of bounds, too many re-decisions, a resource not in
        the pipeline.
    TypeError
        An unknown option, or bins not an integer.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
    unknown = sorted(set(options) - {o.name for o in SETTINGS})
    if unknown:
        raise TypeError(f"settings take no option {', '.join(unknown)}; they take "
                        f"{', '.join(o.name for o in SETTINGS)}")
    s = Settings(method, **{o.name: options.get(o.name, o.default) for o in SETTINGS})
    s = replace(s, **{o.name: seconds(getattr(s, o.name), o.name)
                      for o in SETTINGS if o.bounds == SECONDS})
    if method == "bottleneck" and s.duration / s.interval > MAX_REDECISIONS:
        raise ValueError(f"interval {s.interval} s re-decides the bottleneck more than "
                         f"{MAX_REDECISIONS:.0e} times in {s.duration} s")
    if isinstance(s.resource, bool) or not isinstance(s.resource, numbers.Integral) \
            or not 0 <= s.resource < m:
        raise ValueError(f"resource must be an index of the pipeline's {m} resources, got "
                         f"{check.shown(s.resource)}")
    if isinstance(s.bins, bool) or not isinstance(s.bins, numbers.Integral):
        raise TypeError(f"bins must be a non-negative integer, got {check.shown(s.bins)}")
    if not 0 <= s.bins <= MAX_STATE:
        raise ValueError(f"bins must be a non-negative integer, at most {MAX_STATE}, got "
                         f"{check.shown(s.bins)}")
    return replace(s, **{o.name: check.positive_int(getattr(s, o.name), o.name, allow_none=False,
                                                    upper=MAX_STATE) if o.bounds == PACKETS
                         else int(getattr(s, o.name))
                         for o in SETTINGS if o.type is int})


def budget(flows, s):
    """Refuse a run whose work is out of bounds, before it starts.

    The packets it would simulate, estimated as duration x (m / c, the pipeline's departures
    with c the least dominant cost of a packet, times 0.5 under "uniform" packet costs, +
    the open-loop flows' rates + 2 / rtt per TCP flow, its losses) + the TCP flows' initial
    windows, at most MAX_PACKETS; and the numbers its state holds (the flows' queues, the
    stage buffers, the TCP timers, the series, the re-decisions), at most MAX_STATE.

    Parameters
    ----------
    flows : Flows
    s : Settings

    Raises
    ------
    ValueError
        Saying which bound is passed.
    """
    n, m = flows.n, flows.m
    tcp = int((flows.source == SOURCES.index("tcp")).sum())
    low = float(flows.costs.max(axis=2).min()) * (0.5 if flows.packet_costs == 1 else 1.0)
    packets = (s.duration * (m / low + np.nansum(flows.rates) + 2 * tcp / s.rtt)
               + tcp * s.initial_window)
    if not packets <= MAX_PACKETS:
        raise ValueError(f"the run would simulate about {packets:.3g} packets, more than the "
                         f"budget of {MAX_PACKETS} (drfq.model.MAX_PACKETS): shorten the "
                         "duration, or raise the costs or lower the rates")
    D = m if s.method == "drfq-dovetail" else 1
    queued = int((flows.source != SOURCES.index("backlogged")).sum())
    state = ((n - queued + queued * s.buffer) * (1 + 2 * D) + (m + (m - 1) * s.stage_buffer)
             * (2 * m + 2 * D) + 4 * n * (s.initial_window + 1) + s.bins * n
             + (s.boundaries if s.method == "bottleneck" else 0))
    if state > MAX_STATE:
        raise ValueError(f"the run's state (buffer x flows, stage_buffer x resources, "
                         f"initial_window x flows, bins x flows) would hold {state} numbers, "
                         f"more than the budget of {MAX_STATE} (drfq.model.MAX_STATE)")
