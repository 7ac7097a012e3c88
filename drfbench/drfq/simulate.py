"""drfq.simulate(): one run of the middlebox (drfbench/drfq/drfq.pyx through its facade,
kernel.py, or with literal=True the transcription in literal.py) through the registry
(drfbench.api.run, input kind "flows"), and its Result.

Dominant share here is in time, as DRFQ defines it: the fraction of the run during which
a flow's packets held its dominant resource, max_j work[i, j] / duration, where work[i, j]
counts the seconds resource j served flow i (the part of a packet in service at the end
included).
"""
from dataclasses import dataclass, field

import numpy as np

from .. import _isa, api
from .. import rows as tidy
from . import kernel
from . import literal as transcription
from .catalog import DECISIONS, DRAWS, DURATION, FLOWS, PACKET_COST, RECORDED, SEED, SOURCE
from .model import PACKET_COSTS, SOURCES, budget, flows as make_flows, settings as make_settings


@dataclass
class Result:
    """What `simulate` returns.

    Its rows give resource and interval only where the method takes them.

    Attributes
    ----------
    flows : model.Flows
        The validated flows.
    settings : model.Settings
        The validated settings.
    served, dispatched, arrived, dropped : numpy.ndarray
        Per flow: packets that left the pipeline, entered it, arrived, were dropped.
    work : numpy.ndarray
        (n, m) seconds each resource served each flow.
    busy_seconds, blocked_seconds : numpy.ndarray
        (m,) seconds each resource served, and held a finished packet for want of room
        downstream.
    series : numpy.ndarray
        (bins, n) departures per bin.
    bottleneck : numpy.ndarray
        The bottleneck method's re-decisions, one per interval.
    decisions : tuple or None
        (time, flow) of every dispatch, if asked for.
    isa : str
        The kernels' variant ("literal" for the transcription).
    options : frozenset
        The method's registered options.
    """
    flows: object
    settings: object
    served: np.ndarray
    dispatched: np.ndarray
    arrived: np.ndarray
    dropped: np.ndarray
    work: np.ndarray
    busy_seconds: np.ndarray
    blocked_seconds: np.ndarray
    series: np.ndarray = field(repr=False)
    bottleneck: np.ndarray
    decisions: tuple | None
    isa: str
    options: frozenset

    @property
    def method(self):
        return self.settings.method

    @property
    def throughput(self):
        """Packets per second that left the middlebox, per flow."""
        return self.served / self.settings.duration

    @property
    def dominant_resource(self):
        """Per flow, the resource that served it longest."""
        return self.work.argmax(axis=1)

    @property
    def dominant_share(self):
        """Per flow, the fraction of the run its dominant resource spent on it."""
        return self.work.max(axis=1) / self.settings.duration

    @property
    def busy(self):
        """Per resource, the fraction of the run it was serving."""
        return self.busy_seconds / self.settings.duration

    @property
    def blocked(self):
        """Per resource, the fraction of the run it held a finished packet, blocked."""
        return self.blocked_seconds / self.settings.duration

    @property
    def bin_width(self):
        return self.settings.duration / max(self.settings.bins, 1)

    @property
    def rates(self):
        """(bins, n): each flow's departures per second in each bin (the rate over time)."""
        return self.series / self.bin_width

    def rows(self, **columns):
        """Tidy rows, one per flow, stamped (drfbench.rows).

        The run's settings (the duration, then the catalog's RECORDED: resource and interval
        empty for a method not taking them), the flow's weight, source, rate and mean costs, its
        throughput, dominant resource and share, packets served, arrived, dropped, and every
        resource's busy and blocked fractions.

        Parameters
        ----------
        **columns
            Columns added to every row.

        Returns
        -------
        drfbench.rows.Rows
        """
        s, f = self.settings, self.flows
        run = {"method": s.method, DURATION.name: s.duration, "flows": f.n,
               "resources": f.m, **{o.name: getattr(s, o.name) if o.name in self.options else None
                                    for o in RECORDED},
               PACKET_COST.name: PACKET_COSTS[f.packet_costs], SEED.name: f.seed,
               "literal": self.isa == "literal"}
        load = {**{f"busy_{j}": float(b) for j, b in enumerate(self.busy)},
                **{f"blocked_{j}": float(b) for j, b in enumerate(self.blocked)}}
        cost = f.mean_costs()
        share, dom = self.dominant_share, self.dominant_resource
        return tidy.stamped(
            ({**run, "flow": i, "weight": float(f.weights[i]), SOURCE.name: SOURCES[f.source[i]],
              "rate": float(f.rates[i]), **{f"cost_{j}": float(c) for j, c in enumerate(cost[i])},
              "throughput": float(self.throughput[i]), "dominant_resource": int(dom[i]),
              "dominant_share": float(share[i]), "served": int(self.served[i]),
              "arrived": int(self.arrived[i]), "dropped": int(self.dropped[i]), **load}
             for i in range(f.n)), isa=self._variant, **columns)

    def series_rows(self, **columns):
        """Tidy rows, one per bin and flow: time (the bin's start), flow, rate (packets/s);
        stamped, made as they are read.

        Parameters
        ----------
        **columns
            Columns added to every row.

        Returns
        -------
        drfbench.rows.Rows
        """
        width, rates = self.bin_width, self.rates
        return tidy.stamped(lambda: ({"method": self.method, "time": b * width,
                                      "flow": i, "rate": rate}
                                     for b, row in enumerate(rates.tolist())
                                     for i, rate in enumerate(row)),
                            isa=self._variant, **columns)

    @property
    def _variant(self):
        """The kernels' variant for the stamp (None, the default's, for the literal)."""
        return None if self.isa == "literal" else self.isa


def simulate(costs, method="drfq", **options):
    """Simulate the middlebox for `duration` seconds under a registered flow method.

    Bounds (model.flows, model.settings, model.budget): times in seconds (numbers or
    durations such as pandas.Timedelta) in (0, 1e9]; weights in [1e-12, 1e12], within a
    factor _validation.MAX_WEIGHT_RATIO (1e9) of each other; a run of at most about
    MAX_PACKETS (`2**28`) packets, estimated from the duration, costs, rates and rtt, and a
    state of at most MAX_STATE (`2**27`) numbers. The model and the methods' definitions:
    drfbench.drfq.literal.

    Parameters
    ----------
    costs : array_like, DataFrame or dict of columns
        (flows, resources) seconds per packet on each resource, in pipeline order, or
        (flows, K, resources): a cycle of K cost vectors per flow; or by name, a DataFrame
        with text column labels or a dict of columns, in column order (model.flows).
    method : str
        "drfq", "drfq-dovetail", "fq", "bottleneck" or "fifo"
        (drfbench.methods(takes="flows")).
    **options
        Defaults: drfbench.method_info(method).defaults(). `duration`: seconds simulated
        (default 1). `weights`: per flow, `> 0` (default equal). `rates`: per flow packets/s
        or None (model.flows). `source`: "backlogged" (default), "constant", "poisson",
        "tcp", or one per flow. `packet_costs`: "fixed", "uniform" or "exponential":
        per-packet factors of mean 1. `resource`: fq: the resource it fair-queues (default
        0); bottleneck: its first choice, before the first re-decision (fq and bottleneck
        only). `interval`: bottleneck: seconds between re-decisions (default 0.3; bottleneck
        only). `rtt`: TCP's round trip (s); `buffer`: packets per flow queue;
        `stage_buffer`: packets between resources; `initial_window`: TCP's, in packets.
        `bins`: bins of the rate-over-time series (0: none); `seed`: of every random draw.
        `decisions`: keep every dispatch's (time, flow) in Result.decisions. `literal`: run
        the literal transcription (slow; the test oracle) instead of the kernel. `isa`: the
        kernels' variant (the kernel is sequential: no threads).

    Returns
    -------
    Result

    Raises
    ------
    ValueError
        Bad costs or options, or a run beyond the bounds, saying which; an option the method
        does not take (drfbench.run).
    """
    return api.run(method, costs, takes=FLOWS, **options)


def run_method(spec, costs, *, weights, rates, literal, isa, **settings):
    """The registry's implementation of the flow methods (see `simulate`): the options
    as the registry checked them, their defaults declared in the family's catalog; the
    flows' draws (the catalog's DRAWS) go to model.flows, the kernel's DECISIONS to
    kernel.simulate, and the run's settings (the catalog's SETTINGS the method takes:
    resource and interval are fq's and bottleneck's only, the others' at their declared
    defaults) to model.settings, each as they are.

    Parameters
    ----------
    spec : Method
        The method as registered.
    costs, weights, rates, literal, isa, **settings
        As `simulate` takes them, checked and defaulted by the registry.

    Returns
    -------
    Result
    """
    f = make_flows(costs, weights, rates, **{o.name: settings.pop(o.name) for o in DRAWS})
    asked = {DECISIONS.name: settings.pop(DECISIONS.name)}      # the kernel's own option
    s = make_settings(f.m, spec.name, **settings)
    budget(f, s)
    if literal and isa is not None:
        raise ValueError(f"isa={isa!r} chooses the kernel's variant; the literal transcription has none")
    if literal:
        out, variant = kernel.Outputs(**transcription.simulate(f, s)), "literal"
    else:
        out, variant = kernel.simulate(f, s, isa=isa, **asked), _isa.kernels(isa).name
    return Result(f, s, out.served, out.dispatched, out.arrived, out.dropped, out.work,
                  out.busy, out.blocked, out.series, out.bottleneck,
                  (out.decision_time, out.decision_flow) if asked[DECISIONS.name] else None,
                  variant, spec.options)
