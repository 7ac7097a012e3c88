"""Packer's kernel (drfbench/packer/packer.pyx) behind named inputs and outputs, the one
place that calls it. `Kernel(isa)` loads the variant once (a run scores every node of every
application); each method scores one node on every server of an allocate.Cluster:

    k = Kernel(isa)
    k.packer(cluster, demand, start, weights, sign, threads)     Scores: Eq. 7, Eq. 6's half
    k.tetris(cluster, demand, start, bandwidth_in, threads)      Scores: Tetris' alignment
    k.slot_fit(cluster, start, end, per_server, peak, threads)   ok: a free slot, peak fits one
    k.add_edge(cluster, bandwidth, start, weight, links, source, network, idle, columns,
               scores, threads)                                  Eq. 8 for one edge, in place
"""
from typing import NamedTuple

import numpy as np

from .. import _isa


class Scores(NamedTuple):
    """Per server, a node's score and whether it fits.

    Attributes
    ----------
    score : numpy.ndarray
        The node's score there.
    ok : numpy.ndarray
        uint8: whether its demands fit there at every instant of its window (and each edge
        added so far, alone).
    """
    score: np.ndarray
    ok: np.ndarray


class Kernel:
    """The kernel of variant `isa` (_isa.kernels), its entry points by name.

    Parameters
    ----------
    isa : str, optional
    """

    def __init__(self, isa=None):
        self._k = _isa.kernels(isa).packer

    def _empty(self, cluster):
        return Scores(np.empty(cluster.infra.servers), np.empty(cluster.infra.servers, np.uint8))

    def packer(self, cluster, demand, start, weights, sign, threads):
        """Eq. 7 (weights: the resources' four; sign: +1 as written, -1 best fit) and the
        computing half of Eq. 6 for a node demanding `demand` (T, 4) from instant `start`."""
        out = self._empty(cluster)
        self._k.packer_compute(cluster.server, cluster.infra.inverse_capacity, demand, start,
                               weights, sign, out.score, out.ok, threads)
        return out

    def tetris(self, cluster, demand, start, bandwidth_in, threads):
        """Tetris' alignment score for a node demanding `demand` (T, 4) from `start`, the
        bandwidth of its incoming edges `bandwidth_in` (T,) counted as its NIC demand."""
        infra, out = cluster.infra, self._empty(cluster)
        self._k.tetris_compute(cluster.server, infra.inverse_capacity, demand, start,
                               cluster.link, infra.inverse_link_capacity, bandwidth_in,
                               infra.physical, out.score, out.ok, threads)
        return out

    def slot_fit(self, cluster, start, end, per_server, peak, threads):
        """Per server (uint8): `peak` fits one of its `per_server` slots and one is free at
        every instant of [start, end)."""
        ok = np.empty(cluster.infra.servers, np.uint8)
        self._k.slot_fit(cluster.slots, start, end, per_server, cluster.infra.capacity, peak,
                         ok, threads)
        return ok

    def add_edge(self, cluster, bandwidth, start, weight, links, source, network, idle, columns,
                 scores, threads):
        """Eq. 8 for one edge of `bandwidth` (T,) from location `source` (a server, or S + j
        for cloud service j): its terms (weight: Packer's fifth; `columns` of them, 1 or T
        for network "bottleneck") on the directed `links`, added along each server's path
        into scores.score, and scores.ok cleared where a link cannot carry it alone;
        network: how a path adds up (allocate.SCORES), `idle` a path of no links."""
        infra = cluster.infra
        term = np.empty((infra.links, columns))
        link_ok = np.empty(infra.links, dtype=np.uint8)
        self._k.link_terms(cluster.link, infra.inverse_link_capacity, bandwidth, start, weight,
                           links, term, link_ok, threads)
        self._k.add_paths(term, link_ok, source, infra.rack_of, infra.agg_of, infra.racks,
                          infra.aggs, self._k.PATH_MODES[network], idle, scores.score,
                          scores.ok, threads)
