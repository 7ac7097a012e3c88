"""The DRFQ evaluation as tidy rows (stamped by drfbench.rows): the lecture's two-flow
experiment, its rate-over-time series, and a sweep over flows, resources and costs.

  lecture         The cs262a DRF lecture's closing experiment, after the paper's motivating
                  example: a middlebox whose packets use the CPU, then the NIC; flow 0
                  (bandwidth-bound) costs <1, 6> us per packet, flow 1 (CPU-bound) <7, 1>,
                  which "makes the bottleneck unclear". Each flow alone, then both under
                  fifo, fq on the CPU, fq on the NIC, bottleneck fairness (re-decided every
                  300 ms, as the lecture's Click implementation) and drfq (and
                  drfq-dovetail), with backlogged and TCP sources. One row per source,
                  scenario and flow: packets/s, the ratio to the flow alone, dominant share,
                  drops, and the lecture's Mbps where its table has them (alone 191 / 33,
                  bottleneck 75 / 32, DRFQ 160 / 28: its machine's speeds are not ours, so
                  the ratios compare, not the rates); and our rate in Mbps with the packet
                  sizes that make the rates alone the lecture's (LECTURE_BITS).
  lecture_series  Each flow's rate over time under bottleneck and drfq with TCP sources
                  (the oscillation bottleneck fairness causes).
  sweep           Flows (2 ... 10,000) x resources (2 ... 4) x per-flow cost
                  distributions x sources, every method on the same flows: fairness
                  (the spread of weighted dominant shares, and Jain's index of them),
                  utilization (mean and largest busy fraction), drops, and the
                  simulator's speed.

Cost distributions (each flow's cost vector, microseconds per packet on each resource):
"uniform" U(1, 10) on every resource; "dominant" one resource drawn per flow at U(5, 10),
the others U(0.5, 2) (the lecture's shape, many flows); "lognormal" median 3, sigma 1
(heavy-tailed mixes). A run lasts long enough for about `packets` packets per flow at
equal dominant shares, packets x flows x mean dominant cost / resources, and at least ten
bottleneck intervals (so that bottleneck fairness re-decides, and TCP runs thousands of
round trips).
"""
import time

import numpy as np

from .. import api
from .. import rows as tidy
from .. import _validation as check
from ..declarations import take_only
from .catalog import (BOTTLENECK_INTERVAL, DURATION, FLOWS, PACKET_COST, SETTINGS, SOURCE,
                      STEP_OPTIONS)
from .model import MAX_PACKETS, MAX_STATE, OPEN_LOOP, SOURCES, seconds
from .simulate import simulate

US = 1e-6
LECTURE_COSTS = ((1 * US, 6 * US), (7 * US, 1 * US))
# The lecture's table (Mbps, Click): flow 0 bandwidth-bound, flow 1 CPU-bound.
LECTURE_MBPS = {"alone": (191, 33), "bottleneck": (75, 32), "drfq": (160, 28)}
# Its packet sizes, not given, inferred: the bits that make each flow's rate alone, one
# packet per its largest cost, the lecture's Mbps (191 x 6 = 1,146 and 33 x 7 = 231). A
# cost is per packet whatever its size, so the size moves no decision: it turns packets/s
# into Mbps (the `mbps` column).
LECTURE_BITS = tuple(round(mbps * max(cost) / US)
                     for mbps, cost in zip(LECTURE_MBPS["alone"], LECTURE_COSTS))
LECTURE_SCENARIOS = (("fifo", "fifo", None), ("fq-cpu", "fq", 0), ("fq-nic", "fq", 1),
                     ("bottleneck", "bottleneck", None), ("drfq", "drfq", None),
                     ("drfq-dovetail", "drfq-dovetail", None))
DISTRIBUTIONS = ("uniform", "dominant", "lognormal")
RATELESS = tuple(s for s in SOURCES if s not in OPEN_LOOP)   # the sources needing no rate
LECTURE_DURATION = 5.0      # seconds per run of the lecture's experiment and its series


def own_options(method, **options):
    """Those of `options` that `method` takes (its registered options), None left out.

    Parameters
    ----------
    method : str
    **options

    Returns
    -------
    dict
    """
    spec = api.method_info(method)
    return {o: v for o, v in options.items() if v is not None and spec.takes_option(o)}


def step_settings(step, given):
    """The declared options pipeline step `step` takes (catalog.STEP_OPTIONS), in that
    order: each as `given`, else (or given None) at its declared default (duration:
    LECTURE_DURATION); a TypeError for any other."""
    names = STEP_OPTIONS[step]
    take_only(step, given, names)
    declared = {o.name: o.default for o in (*SETTINGS, PACKET_COST)}
    declared[DURATION.name] = LECTURE_DURATION
    return {name: declared[name] if given.get(name) is None else given[name] for name in names}


def lecture(sources=RATELESS, seed=0, **settings):
    """Rows of the lecture's experiment (see the module docstring); scenario "alone" is each
    flow by itself (fifo).

    Parameters
    ----------
    sources : tuple of str
        The flows' sources, one run each.
    seed : int
    **settings
        `duration` (default LECTURE_DURATION), `rtt` and `interval` (their declared
        defaults), recorded in every row.

    Returns
    -------
    list of dict
    """
    settings = step_settings("lecture", settings)
    out, stamp = [], tidy.stamp()
    for source in sources:
        common = {SOURCE.name: source, "bins": 0, "seed": seed}
        alone = [simulate([c], "fifo", **common, **own_options("fifo", **settings))
                 for c in LECTURE_COSTS]
        runs = [("alone", "fifo", None, [(r.throughput[0], r.dominant_share[0], r.dropped[0])
                                         for r in alone])]
        for scenario, method, resource in LECTURE_SCENARIOS:
            r = simulate(LECTURE_COSTS, method, **common,
                         **own_options(method, resource=resource, **settings))
            runs.append((scenario, method, resource, list(zip(r.throughput, r.dominant_share,
                                                                 r.dropped))))
        for scenario, method, resource, flows in runs:
            mbps = LECTURE_MBPS.get(scenario)
            for i, (rate, share, dropped) in enumerate(flows):
                out.append({SOURCE.name: source, "scenario": scenario, "method": method,
                            "resource": resource, "flow": i,
                            "kind": "bandwidth-bound" if i == 0 else "cpu-bound",
                            "cost_cpu": LECTURE_COSTS[i][0], "cost_nic": LECTURE_COSTS[i][1],
                            "throughput": float(rate), "packet_bits": LECTURE_BITS[i],
                            "mbps": float(rate) * LECTURE_BITS[i] / 1e6,
                            "ratio_to_alone": float(rate / alone[i].throughput[0]),
                            "dominant_share": float(share), "dropped": int(dropped),
                            "lecture_mbps": mbps[i] if mbps else None,
                            "lecture_ratio": mbps[i] / LECTURE_MBPS["alone"][i] if mbps else None,
                            **settings, **stamp})
    return out


def lecture_series(bin_width=0.01, methods=("bottleneck", "drfq"), source="tcp", seed=0,
                   **settings):
    """Rows (method, time, flow, rate) of each flow's rate over time, with the lecture's flows
    and TCP sources.

    Parameters
    ----------
    bin_width : float
        Seconds per bin (model.seconds' bounds).
    methods : tuple of str
        Registered flow methods, one run each.
    source : str
    seed : int
    **settings
        As `lecture` takes them, each row with those but the duration.

    Returns
    -------
    list of dict
    """
    settings = step_settings("series", settings)
    duration = seconds(settings[DURATION.name], DURATION.name)
    bins = max(int(round(duration / seconds(bin_width, "bin_width"))), 1)
    out = []
    for method in methods:
        r = simulate(LECTURE_COSTS, method, source=source, bins=bins, seed=seed,
                     **own_options(method, **settings))
        out += r.series_rows(source=source, **{name: value for name, value in settings.items()
                                              if name != DURATION.name})
    return out


def flow_costs(distribution, flows, resources, rng):
    """Mean seconds per packet drawn from `distribution`.

    Parameters
    ----------
    distribution : str
    flows, resources : int
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray
        (flows, resources).
    """
    if distribution == "uniform":
        return rng.uniform(1, 10, (flows, resources)) * US
    if distribution == "dominant":
        c = rng.uniform(0.5, 2, (flows, resources))
        c[np.arange(flows), rng.integers(0, resources, flows)] = rng.uniform(5, 10, flows)
        return c * US
    if distribution == "lognormal":
        return rng.lognormal(np.log(3), 1.0, (flows, resources)) * US
    raise ValueError(f"unknown cost distribution {distribution!r}; known: {', '.join(DISTRIBUTIONS)}")


def _counts(values, name):
    """`values` as a list of positive integers (each at most MAX_STATE)."""
    if isinstance(values, str) or not np.iterable(values):
        raise TypeError(f"{name} must be a list of positive integers, got {values!r:.80}")
    return [check.positive_int(x, name, allow_none=False, upper=MAX_STATE) for x in values]


def _packets(packets):
    """Refuse a `packets` (per flow) that is not a number in (0, MAX_PACKETS]."""
    x = check.real(packets, "packets")
    if not 0 < x <= MAX_PACKETS:
        raise ValueError(f"packets must be a number in (0, {MAX_PACKETS}], got {x}")


def spread(x):
    """`(max - min) / mean`: 0 when all equal.

    Parameters
    ----------
    x : array_like

    Returns
    -------
    float
    """
    return float((x.max() - x.min()) / x.mean()) if x.mean() > 0 else 0.0


def jain(x):
    """Jain's fairness index: 1 when all equal, 1/n at worst.

    Parameters
    ----------
    x : array_like

    Returns
    -------
    float
    """
    return float(x.sum() ** 2 / (len(x) * (x ** 2).sum())) if x.any() else 1.0


def sweep(flows=(2, 10, 100, 1000, 10000), resources=(2, 3, 4), distributions=DISTRIBUTIONS,
          sources=RATELESS, methods=api.methods(takes=FLOWS), packets=200, seed=0,
          **settings):
    """One row per flows x resources x distribution x source x method (see the module
    docstring); every method of a configuration runs on the same flows.

    Parameters
    ----------
    flows, resources : tuple of int
        Positive integers, flows x resources at most MAX_STATE.
    distributions : tuple of str
        The costs' distributions.
    sources : tuple of str
    methods : list of str
        Registered flow methods.
    packets : float
        In (0, MAX_PACKETS].
    seed : int
    **settings
        `packet_costs`, `rtt` and `interval` (seconds), at their declared defaults unless
        given.

    Returns
    -------
    list of dict

    Raises
    ------
    ValueError
        flows x resources past MAX_STATE.
    """
    settings = step_settings("sweep", settings)
    flows, resources = _counts(flows, "flows"), _counts(resources, "resources")
    if flows and resources and max(flows) * max(resources) > MAX_STATE:
        raise ValueError(f"flows x resources must be at most {MAX_STATE} (model.MAX_STATE) "
                         f"costs, got {max(flows)} x {max(resources)}")
    _packets(packets)
    interval = seconds(settings[BOTTLENECK_INTERVAL.name], BOTTLENECK_INTERVAL.name)
    settings[BOTTLENECK_INTERVAL.name] = interval
    out, stamp = [], tidy.stamp()
    for n in flows:
        for m in resources:
            for d, distribution in enumerate(distributions):
                rng = np.random.default_rng([seed, n, m, d])
                costs = flow_costs(distribution, n, m, rng)
                duration = max(packets * n * float(costs.max(axis=1).mean()) / m, 10 * interval)
                for source in sources:
                    for method in methods:
                        start = time.perf_counter()
                        run = {DURATION.name: duration, SOURCE.name: source}
                        r = simulate(costs, method, **run, bins=0, seed=seed,
                                     **own_options(method, **settings))
                        elapsed = time.perf_counter() - start
                        share = r.dominant_share / r.flows.weights
                        out.append({"flows": n, "resources": m, "distribution": distribution,
                                    SOURCE.name: source, "method": method,
                                    PACKET_COST.name: settings[PACKET_COST.name],
                                    DURATION.name: duration,
                                    "share_spread": spread(share), "share_jain": jain(share),
                                    "share_min": float(share.min()), "share_max": float(share.max()),
                                    "busy_mean": float(r.busy.mean()), "busy_max": float(r.busy.max()),
                                    "throughput": float(r.throughput.sum()),
                                    "dropped": int(r.dropped.sum()), "arrived": int(r.arrived.sum()),
                                    "drop_rate": float(r.dropped.sum() / max(r.arrived.sum(), 1)),
                                    "packets_per_flow": packets,
                                    "dispatched": int(r.dispatched.sum()), "elapsed": elapsed,
                                    "packets_per_second": float(r.dispatched.sum() / elapsed),
                                    "seed": seed, **stamp})
    return out
