"""DRFQ (Ghodsi, Sekar, Zaharia, Stoica: "Multi-Resource Fair Queueing for Packet
Processing", SIGCOMM 2012): fair queueing of packets that need several resources of a
middlebox in turn, against fair queueing on one resource and bottleneck fairness.

    simulate(costs, method="drfq", ...)                    one run of the packet-level
                                     middlebox simulator (drfbench/drfq/drfq.pyx) under a
                                     registered flow method (drfbench.methods(takes=
                                     "flows"): drfq, drfq-dovetail, fq, bottleneck, fifo),
                                     through drfbench.run: a Result with throughput,
                                     dominant_share, busy, rates, rows(), series_rows()
    SOURCES                          "backlogged", "constant", "poisson", "tcp"
    PACKET_COSTS                     "fixed", "uniform", "exponential"
    flows(costs, ...), settings(m, method, ...)      the validated model (model.py)
    read_inputs(path)                the flows kind's reader: a costs CSV (model.py)
    lecture(...), lecture_series(...), sweep(...)    the evaluation's rows (evaluation.py)

drfbench.drfq.literal is the simulator and every method written literally, the
specification of the kernel and its test oracle; its docstring states the model, the
virtual times, the TCP-like sources and every choice made where the paper is silent.
`python -m drfbench.drfq` runs the pipeline's steps.
"""
from .evaluation import lecture, lecture_series, sweep
from .model import PACKET_COSTS, SOURCES, Flows, Settings, flows, read_inputs, settings
from .simulate import Result, simulate

__all__ = ["PACKET_COSTS", "SOURCES", "Flows", "Result", "Settings", "flows", "lecture",
           "lecture_series", "read_inputs", "settings", "simulate", "sweep"]
