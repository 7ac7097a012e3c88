"""DRFQ (Ghodsi, Sekar, Zaharia, Stoica: "Multi-Resource Fair Queueing for Packet
Processing", SIGCOMM 2012): fair queueing of packets that need several resources of a
middlebox in turn, against fair queueing on one resource and bottleneck fairness.

    simulate(costs, scheduler="drfq", duration=1.0, ...)   one run of the packet-level
                                     middlebox simulator (kernels/drfq.pyx): a Result with
                                     throughput, dominant_share, busy, rates, rows()
    SCHEDULERS                       "drfq", "drfq-dovetail", "fq", "bottleneck", "fifo"
    SOURCES                          "backlogged", "constant", "poisson", "tcp"
    flows(costs, ...), settings(m, scheduler, ...)   the validated model (model.py)
    lecture(...), lecture_series(...), sweep(...)    the evaluation's rows (evaluation.py)

drfbench.drfq.literal is the simulator and every scheduler written literally, the
specification of the kernel and its test oracle; its docstring states the model, the
virtual times, the TCP-like sources and every choice made where the paper is silent.
"""
from .evaluation import lecture, lecture_series, sweep
from .model import PACKET_COSTS, SCHEDULERS, SOURCES, Flows, Settings, flows, settings
from .simulate import Result, simulate

__all__ = ["PACKET_COSTS", "SCHEDULERS", "SOURCES", "Flows", "Result", "Settings", "flows",
           "lecture", "lecture_series", "settings", "simulate", "sweep"]
