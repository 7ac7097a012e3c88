"""DRFQ's kernel (drfbench/drfq/drfq.pyx) behind named inputs and outputs, the one place
that calls it:

    out = kernel.simulate(flows, settings, isa=None, decisions=False)    # an Outputs

flows and settings are model.Flows and model.Settings (checked by model.flows,
model.settings and model.budget); the literal transcription's outputs are the same
fields (Outputs(**literal.simulate(flows, settings))).
"""
from typing import NamedTuple

import numpy as np

from .. import _isa
from .model import Flows, Settings


class Outputs(NamedTuple):
    """One run of the middlebox.

    Attributes
    ----------
    served, dispatched, arrived, dropped : numpy.ndarray
        Per flow: packets that left the pipeline, entered it, arrived, were dropped.
    work : numpy.ndarray
        (n, m) seconds each resource served each flow.
    busy, blocked : numpy.ndarray
        (m,) seconds each resource served, and held a finished packet for want of room
        downstream.
    series : numpy.ndarray
        (bins, n) departures per bin.
    bottleneck : numpy.ndarray
        The bottleneck method's re-decisions, one per interval.
    decision_time, decision_flow : numpy.ndarray
        Every dispatch's time and flow (empty unless asked for).
    """
    served: np.ndarray
    dispatched: np.ndarray
    arrived: np.ndarray
    dropped: np.ndarray
    work: np.ndarray
    busy: np.ndarray
    blocked: np.ndarray
    series: np.ndarray
    bottleneck: np.ndarray
    decision_time: np.ndarray
    decision_flow: np.ndarray


def simulate(flows, settings, *, isa=None, decisions=False) -> Outputs:
    """One run of the kernel of variant `isa` (_isa.kernels) on `flows` under `settings`.

    Parameters
    ----------
    flows : Flows
    settings : Settings
    isa : str, optional
    decisions : bool
        Keep every dispatch's (time, flow): a first guess of room for them, and if short the
        same run again with room for all (the run is deterministic).

    Returns
    -------
    Outputs
    """
    if not isinstance(flows, Flows) or not isinstance(settings, Settings):
        raise TypeError(f"kernel.simulate takes a model.Flows and a model.Settings, got "
                        f"{type(flows).__name__} and {type(settings).__name__}")
    n, m, s = flows.n, flows.m, settings
    out = Outputs(served=np.zeros(n, np.int64), dispatched=np.zeros(n, np.int64),
                  arrived=np.zeros(n, np.int64), dropped=np.zeros(n, np.int64),
                  work=np.zeros((n, m)), busy=np.zeros(m), blocked=np.zeros(m),
                  series=np.zeros((s.bins, n), np.int32),
                  bottleneck=np.zeros(s.boundaries if s.method == "bottleneck" else 0,
                                      np.int64),
                  decision_time=np.zeros(1024 if decisions else 0),
                  decision_flow=np.zeros(1024 if decisions else 0, np.int64))
    while True:
        for a in out:
            a[...] = 0
        made, dispatched = _isa.kernels(isa).drfq.simulate(
            flows.costs, flows.weights, flows.source, flows.rates, flows.seed,
            flows.packet_costs, s.code, s.resource, s.duration, s.interval, s.rtt, s.buffer,
            s.stage_buffer, s.initial_window, out.served, out.dispatched, out.arrived,
            out.dropped, out.work, out.busy, out.blocked, out.series, out.bottleneck,
            out.decision_time, out.decision_flow)
        if not decisions or dispatched <= len(out.decision_time):
            break
        out = out._replace(decision_time=np.zeros(dispatched),      # room for every dispatch
                           decision_flow=np.zeros(dispatched, np.int64))
    return out._replace(bottleneck=out.bottleneck[:made],
                        decision_time=out.decision_time[:dispatched],
                        decision_flow=out.decision_flow[:dispatched])
