"""Literal transcriptions, the test oracles of drfbench/packer/packer.pyx and allocate.py: Algorithm
1 with 𝒬 recomputed from the accepted applications for every new one (lines 1-4), Eq. 6-8
evaluated server by server as the paper writes them (Eq. 8 summed over t, then u ∈ ℰ(v),
then l ∈ ℳ_e(u, v)) and in each of the other readings of allocate.SCORES (Eq. 7 negated:
best fit; Eq. 8's sum over l replaced by the mean over the path's links, or by the least
term among them), Tetris' alignment score and the slot scheme's first fit, and
GetNodeWithBestScore the first server of maximum score. Small instances only.
"""
from types import SimpleNamespace

import numpy as np

from .. import api
from .allocate import REMOTE_PENALTY, SCORES, resource_weights
from .catalog import APPLICATIONS
from .model import active_span, dependencies, sort_nodes
from .workload import SLOTS


def joint_fit(infra, QL, app, deps, loc, n):
    """Eq. 5 for the edges into a node placed on n: each edge, in order, against what the
    previous edges left on every link of its path."""
    win = slice(app.arrival, app.arrival + app.duration)
    left = QL.copy()
    for e, u in deps:
        for l in infra.path(int(loc[u]), n):
            if (app.bandwidth[e] > left[l, win]).any():
                return False
            left[l, win] -= app.bandwidth[e]
    return True


def packer_scores(infra, Q, QL, app, v, deps, loc, w, score="literal"):
    """S[n, v] of Eq. 6 for every server n (-inf where infeasible), in the reading `score`
    (allocate.SCORES)."""
    sign, network = SCORES[score]
    t0, T = app.arrival, app.duration
    win = slice(t0, t0 + T)
    out = np.full(infra.servers, -np.inf)
    for n in range(infra.servers):
        q, c = Q[n, win], infra.capacity[n]
        if (app.demand[v] > q).any() or not joint_fit(infra, QL, app, deps, loc, n):
            continue
        qh, dh = q / c, app.demand[v] / c
        s_c = np.sum(w[:4] * (qh - dh) ** 3 * qh)                                   # Eq. 7
        if sign < 0:
            s_c = -s_c                                                                # best fit
        s_b = 0.0
        for t in range(T):                                                            # Eq. 8
            for e, u in deps:
                terms = []
                for l in infra.path(int(loc[u]), n):
                    ql = QL[l, t0 + t] / infra.link_capacity[l]
                    s = app.bandwidth[e, t] / infra.link_capacity[l]
                    terms.append(w[4] * (ql - s) ** 3 * ql)
                if network == "links":
                    for x in terms:
                        s_b += x
                elif not terms:
                    s_b += w[4]                         # no link: an idle link's (1 - 0)^3 * 1
                elif network == "path":
                    s_b += sum(terms) / len(terms)
                else:
                    s_b += min(terms)                   # the bottleneck link
        out[n] = s_c + s_b
    return out


def tetris_scores(infra, Q, QL, app, v, deps, loc):
    """Tetris' alignment score for every server n (-inf where infeasible)."""
    t0, T = app.arrival, app.duration
    win = slice(t0, t0 + T)
    band_in = sum((app.bandwidth[e] for e, _ in deps), np.zeros(T))
    out = np.full(infra.servers, -np.inf)
    for n in range(infra.servers):
        q, c = Q[n, win], infra.capacity[n]
        if (app.demand[v] > q).any() or not joint_fit(infra, QL, app, deps, loc, n):
            continue
        down = infra.physical + n
        a = np.sum((app.demand[v] / c) * (q / c)) + np.sum(
            (band_in / infra.link_capacity[down]) * (QL[down, win] / infra.link_capacity[down]))
        if deps and any(int(loc[u]) != n for _, u in deps):
            a *= 1.0 - REMOTE_PENALTY
        out[n] = a
    return out


def slot_server(infra, used, QL, app, v, deps, loc):
    """The first server with a free slot over the node's active span, its peak within one
    slot and its edges fitting; None if there is none."""
    lo, hi = active_span(app, v)
    peak = app.demand[v].max(axis=0)
    for n in range(infra.servers):
        if ((peak <= infra.capacity[n] / SLOTS).all()
                and (used[n, app.arrival + lo:app.arrival + hi] < SLOTS).all()
                and joint_fit(infra, QL, app, deps, loc, n)):
            return n
    return None


class Reference:
    """Algorithm 1, literally, for one method: `place(app)` returns the locations or None.

    Parameters
    ----------
    infra : Infrastructure
    horizon : int
        Instants.
    method : str
        A registered application method.
    score : str
        Packer's reading of Eq. 6-8 (allocate.SCORES).
    """

    def __init__(self, infra, horizon, method="packer", score="literal"):
        api.method_info(method, APPLICATIONS)
        self.infra, self.horizon, self.method, self.score = infra, int(horizon), method, score
        self.accepted = []

    def residual(self):
        """Lines 1-4: 𝒬 of every server and link, from the accepted applications."""
        infra = self.infra
        Q = np.repeat(infra.capacity[:, None, :], self.horizon, axis=1)
        QL = np.repeat(infra.link_capacity[:, None], self.horizon, axis=1)
        used = np.zeros((infra.servers, self.horizon), dtype=np.int64)
        for app, loc in self.accepted:
            self._reserve(Q, QL, used, app, loc, sort_nodes(app).tolist())
        return Q, QL, used

    def _reserve(self, Q, QL, used, app, loc, nodes):
        win = slice(app.arrival, app.arrival + app.duration)
        deps = dependencies(app)
        for v in nodes:
            n = int(loc[v])
            if n < self.infra.servers:
                Q[n, win] -= app.demand[v]
                if self.method == "packer-slots":
                    lo, hi = active_span(app, v)
                    used[n, app.arrival + lo:app.arrival + hi] += 1
            for e, u in deps[v]:
                for l in self.infra.path(int(loc[u]), n):
                    QL[l, win] -= app.bandwidth[e]

    def place(self, app):
        infra = self.infra
        Q, QL, used = self.residual()
        w = resource_weights(SimpleNamespace(infra=infra, server=Q, link=QL), app.arrival)
        deps = dependencies(app)
        loc = np.full(len(app.nodes), -1, dtype=np.int64)
        for v in sort_nodes(app).tolist():                                           # line 6
            if app.service[v] >= 0:
                n = infra.servers + int(app.service[v])
                if not joint_fit(infra, QL, app, deps[v], loc, n):
                    return None
            elif self.method == "packer-slots":
                n = slot_server(infra, used, QL, app, v, deps[v], loc)
                if n is None:
                    return None
            else:
                score = (packer_scores(infra, Q, QL, app, v, deps[v], loc, w, self.score)
                         if self.method == "packer" else
                         tetris_scores(infra, Q, QL, app, v, deps[v], loc))
                if not np.isfinite(score).any():                                      # line 13
                    return None
                n = int(np.argmax(score))                                             # line 12
            loc[v] = n
            self._reserve(Q, QL, used, app, loc, [v])
        self.accepted.append((app, loc))
        return loc
