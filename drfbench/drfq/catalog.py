"""DRFQ's entries in the registry (drfbench.api; Ghodsi, Sekar, Zaharia, Stoica:
Multi-Resource Fair Queueing for Packet Processing, SIGCOMM'12; the cs262a lecture's
closing experiment): the flows input kind and DRFQ with its rivals (drfq.simulate).
Loaded by the registry without the package's modules."""
from ..api import ISA, InputKind, Method, Option

FLOWS = "flows"
SOURCES = ("backlogged", "constant", "poisson", "tcp")
PACKET_COSTS = ("fixed", "uniform", "exponential")
# Defaults of the run's settings, and where each comes from.
INTERVAL = 0.3          # s: bottleneck fairness re-decided every 300 ms (the lecture's Click run)
RTT = 1e-3              # s: the round trip of the TCP sources (the example)
BUFFER = 100            # packets per flow queue: about one bandwidth-delay product at the
                        # lecture's rates (~1e5 packets/s x 1 ms), the rule of thumb of
                        # Villamizar and Song (1994) quoted in RFC 3439
STAGE_BUFFER = 32       # packets between consecutive resources (see literal.py)
INITIAL_WINDOW = 10     # packets: TCP's initial window (RFC 6928)
BINS = 100              # bins of the per-flow rate-over-time series
MAX_SECONDS = 1e9       # times (duration, rtt, interval) in (0, MAX_SECONDS]
MAX_STATE = 2**27       # numbers a run's state holds: 1 GiB
SECONDS = f"(0, {MAX_SECONDS:g}]"
PACKETS = f"[1, {MAX_STATE}]"

PACKET_COST = Option("packet_costs", str, "fixed", "per-packet factors of mean 1 on the costs",
                     choices=PACKET_COSTS)
DURATION = Option("duration", float, 1.0, "seconds simulated", SECONDS)
RESOURCE = Option("resource", int, 0, "fq: the resource it fair-queues; bottleneck: its first "
                  "choice", "[0, inf)")
BOTTLENECK_INTERVAL = Option("interval", float, INTERVAL, "seconds between the bottleneck's "
                             "re-decisions", SECONDS)
_QUEUES = (
    Option("rtt", float, RTT, "TCP's round trip (s)", SECONDS),
    Option("buffer", int, BUFFER, "packets per flow queue", PACKETS),
    Option("stage_buffer", int, STAGE_BUFFER, "packets between consecutive resources", PACKETS),
)
SOURCE = Option("source", str, "backlogged", "how packets arrive, or one per flow",
                choices=SOURCES)
SEED = Option("seed", int, 0, "the seed of every random draw", "[0, inf)")
DECISIONS = Option("decisions", bool, False, "keep every dispatch's (time, flow)")
_SERIES = (
    Option("initial_window", int, INITIAL_WINDOW, "TCP's initial window, packets", PACKETS),
    Option("bins", int, BINS, "bins of the rate-over-time series (0: none)", f"[0, {MAX_STATE}]"),
)
# A run's settings, in order: drfq.model.Settings' fields after the method, made from
# these declarations (resource and interval: fq's and bottleneck's options only); those
# after the duration that a run's rows record (drfq.simulate.Result.rows), in order.
SETTINGS = (DURATION, RESOURCE, BOTTLENECK_INTERVAL, *_QUEUES, *_SERIES)
RECORDED = (RESOURCE, BOTTLENECK_INTERVAL, *_QUEUES)
# How the flows' packets arrive and cost: drfq.model.flows' keywords after the weights and
# rates, model.Flows' fields of the same names.
DRAWS = (SOURCE, PACKET_COST, SEED)
_OPTIONS = (
    DURATION,
    Option("weights", list, None, "per flow, > 0 (None: equal)"),
    Option("rates", float, None, "packets/s of the open-loop sources (one for all; a list per "
           "flow from Python)"),
    SOURCE,
    PACKET_COST,
    *_QUEUES,
    *_SERIES,
    SEED,
    DECISIONS,
    ISA,
)

KINDS = (
    InputKind(FLOWS, ("costs",), "drfbench.drfq.simulate(costs, method, ...)",
              "drfq.model:read_inputs", names="flow"),
)

METHODS = (
    Method("drfq", "drfq", FLOWS, "memoryless DRFQ: start-time fair queueing on each "
           "packet's dominant processing time", "drfq.simulate:run_method",
           _OPTIONS, label="DRFQ", literal=True),
    Method("drfq-dovetail", "drfq", FLOWS, "dovetailing DRFQ: virtual start and finish "
           "times per resource, ordered by the largest start", "drfq.simulate:run_method",
           _OPTIONS, label="DRFQ (dovetailing)",
           literal=True),
    Method("fq", "drfq", FLOWS, "single-resource fair queueing (SFQ) on one resource",
           "drfq.simulate:run_method", (*_OPTIONS, RESOURCE), label="FQ", literal=True),
    Method("bottleneck", "drfq", FLOWS, "bottleneck fairness: SFQ on the resource "
           "busiest over the last interval (300 ms in the lecture's Click run)",
           "drfq.simulate:run_method", (*_OPTIONS, RESOURCE, BOTTLENECK_INTERVAL),
           label="Bottleneck", literal=True),
    Method("fifo", "drfq", FLOWS, "first come, first served", "drfq.simulate:run_method",
           _OPTIONS, label="FIFO", literal=True),
)

# The declared options each pipeline step takes (python -m drfbench.drfq, drfq.smk): its
# flags, and the settings of the config's `drfq` the rule passes, come from here.
STEP_OPTIONS = {"lecture": ("duration", "rtt", "interval"),
                "series": ("duration", "rtt", "interval"),
                "sweep": ("packet_costs", "rtt", "interval")}
