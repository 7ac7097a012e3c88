"""DRFQ's entries in the registry (drfbench.api; Ghodsi, Sekar, Zaharia, Stoica:
Multi-Resource Fair Queueing for Packet Processing, SIGCOMM'12; the cs262a lecture's
closing experiment): the flows input kind and DRFQ with its rivals (drfq.simulate).
Loaded by the registry without the package's modules."""
from ..api import InputKind, Method

FLOWS = "flows"
_OPTIONS = frozenset({"duration", "weights", "rates", "source", "packet_costs", "rtt",
                      "buffer", "stage_buffer", "initial_window", "bins", "seed",
                      "decisions", "literal", "isa"})

KINDS = (
    InputKind(FLOWS, ("costs",), "drfbench.drfq.simulate(costs, scheduler, ...)",
              "drfq.model:read_inputs", names="flow"),
)

METHODS = (
    Method("drfq", "drfq", FLOWS, "memoryless DRFQ: start-time fair queueing on each "
           "packet's dominant processing time", "drfq.simulate:run_scheduler",
           _OPTIONS, label="DRFQ"),
    Method("drfq-dovetail", "drfq", FLOWS, "dovetailing DRFQ: virtual start and finish "
           "times per resource, ordered by the largest start", "drfq.simulate:run_scheduler",
           _OPTIONS, label="DRFQ (dovetailing)"),
    Method("fq", "drfq", FLOWS, "single-resource fair queueing (SFQ) on one resource",
           "drfq.simulate:run_scheduler", _OPTIONS | {"resource"}, label="FQ"),
    Method("bottleneck", "drfq", FLOWS, "bottleneck fairness: SFQ on the resource "
           "busiest over the last interval (300 ms in the lecture's Click run)",
           "drfq.simulate:run_scheduler", _OPTIONS | {"resource", "interval"},
           label="Bottleneck"),
    Method("fifo", "drfq", FLOWS, "first come, first served", "drfq.simulate:run_scheduler",
           _OPTIONS, label="FIFO"),
)
