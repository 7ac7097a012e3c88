"""Algorithm 1 (Marcon and Barcellos, IFIP Networking 2017) and its rivals, online: one
application at a time, on residual capacity kept per server, resource and time instant and
per directed link and time instant.

`Cluster` holds 𝒬 (Algorithm 1, lines 1-4) over a horizon of instants, updated as
applications are accepted; `place(cluster, app, method)` places every node of the
application in SortNodes order (line 5) on the feasible server with the best score (lines
6-15) and reserves the bandwidth of its edges from the nodes it depends on along the tree's
path (lines 16-17), or rejects the application whole, restoring what it had reserved
(line 13). Methods:

  packer  the score of Eq. 6-8 (drfbench/packer/packer.pyx through kernel.Kernel: packer, add_edge)
          with the resource weights of `resource_weights`, in one of the readings of SCORES;
  tetris  Tetris' alignment score (the dot product of the node's normalized demand and the
          server's normalized residual, CPU, memory, disk and the NIC), times 1 -
          REMOTE_PENALTY where an edge into the node crosses the network (Grandl et al.'s
          remote penalty); the network is only penalized, never scored;
  slots   SLOTS equal slots per server; a task takes one slot for its active span; the
          first server (by index) with a free slot.

All three honour Eq. 4 and 5: a node goes only where its demands fit at every instant and
where every link of every path to the nodes it depends on carries those edges at every
instant (the edges in order, each against what the previous ones left). Eq. 6 checks each
edge against a link's residual; edges of one node that share a link (the server's own
downlink, always) must fit together, and that is what is checked. The kernel marks the
servers where each edge fits alone; the servers are tried from the best score down and the
first where the edges fit together is taken: the same server as the literal argmax over
the servers where they fit together (literal.py).
"""
import numbers

import numpy as np

from .. import api
from .. import _validation as check
from ..declarations import take_only
from .catalog import APPLICATIONS, RECORDED, SCORE
from .kernel import Kernel, Scores
from .model import (MAX_CELLS, Application, Infrastructure, active_span, check_fits, dependencies,
                    sort_nodes)
from .workload import SLOTS

REMOTE_PENALTY = 0.1     # Tetris' remote penalty rp (Grandl et al., SIGCOMM'14, §3.1: 10%)

# The readings of Eq. 6-8 (docs/families/packer/choices.md), each a name -> (Eq. 7's sign: 1 as
# written, the maximum of the cubic residual, i.e. worst fit; -1 best fit, the least
# residual; Eq. 8 over a path: "links" as written, a term per link of the path, "path"
# one term per path, the mean of its links', "bottleneck" per instant its least-scoring
# link's). A path of no links (a dependency on the same server) scores as an idle link in
# the two per-path readings, nothing as written.
SCORES = {"literal": (1.0, "links"), "best-fit": (-1.0, "links"),
          "per-path": (1.0, "path"), "bottleneck": (1.0, "bottleneck"),
          "best-fit-per-path": (-1.0, "path"), "best-fit-bottleneck": (-1.0, "bottleneck")}


class Cluster:
    """Residual capacity 𝒬 over instants [0, horizon), and the slot scheme's used slots.

    Attributes: `server` (S, H, 4), `link` (2P, H), and the used slots (S, H).

    Parameters
    ----------
    infra : Infrastructure
    horizon : int
        Instants, `>= 0`; at most MAX_CELLS servers x instants.

    Raises
    ------
    ValueError
        Beyond MAX_CELLS (the arrays would not fit in memory), or a horizon that is not a
        non-negative integer.
    TypeError
        `infra` not an Infrastructure.
    """

    def __init__(self, infra, horizon):
        if not isinstance(infra, Infrastructure):
            raise TypeError(f"infrastructure must be a packer.Infrastructure, got {type(infra).__name__}")
        if isinstance(horizon, bool) or not isinstance(horizon, numbers.Integral):
            raise TypeError(f"horizon must be a non-negative integer (instants), got "
                            f"{check.shown(horizon)}")
        if horizon < 0:
            raise ValueError(f"horizon must be a non-negative integer (instants), got "
                             f"{check.shown(horizon)}")
        if infra.servers * horizon > MAX_CELLS:
            raise ValueError(f"{infra.servers} servers x {check.shown(horizon)} instants (the "
                             f"applications' last instant) exceed the budget of {MAX_CELLS} cells "
                             "(packer.model.MAX_CELLS): fewer servers or a shorter horizon")
        self.infra = infra
        self.horizon = int(horizon)
        self.server = np.ascontiguousarray(np.repeat(infra.capacity[:, None, :], self.horizon, axis=1))
        self.link = np.ascontiguousarray(np.repeat(infra.link_capacity[:, None], self.horizon, axis=1))
        self.slots = np.zeros((infra.servers, self.horizon), dtype=np.int32)


def resource_weights(cluster, t):
    """w^r (§II-B): `w^r = 1 - util(r) / Σ_s util(s)` over r ∈ {CPU, MEM, IO_WRITE, IO_READ,
    BAND}.

    The utilizations are the datacenter's at instant t (reserved over capacity, over all
    servers; for BAND over all directed links). All ones on an idle datacenter.

    Parameters
    ----------
    cluster : Cluster
    t : int
        An instant of the cluster's horizon.

    Returns
    -------
    numpy.ndarray
        (5,).

    Raises
    ------
    ValueError
        `t` not an instant of the horizon.
    """
    horizon = cluster.server.shape[1]
    if isinstance(t, bool) or not isinstance(t, numbers.Integral) or not 0 <= t < horizon:
        raise ValueError(f"t must be an instant in [0, {horizon}), got {check.shown(t)}")
    infra = cluster.infra
    util = np.empty(5)
    util[:4] = 1.0 - cluster.server[:, t, :].sum(axis=0) / infra.capacity.sum(axis=0)
    util[4] = 1.0 - cluster.link[:, t].sum() / infra.link_capacity.sum()
    util = np.maximum(util, 0.0)
    total = util.sum()
    return np.ones(5) if total <= 0 else 1.0 - util / total


def links_fit(cluster, app, deps, loc, n):
    """Whether the edges into a node fit together on the paths from their sources' locations
    to location n, at every instant of the application.

    Parameters
    ----------
    cluster : Cluster
    app : Application
    deps : list of tuple
        (edge, source) of the edges into the node.
    loc : list
        The placed nodes' locations.
    n : int
        The location tried.

    Returns
    -------
    bool
    """
    t0, T = app.arrival, app.duration
    left = {}
    for e, u in deps:
        sigma = app.bandwidth[e]
        for l in cluster.infra.path(int(loc[u]), n):
            if l not in left:
                left[l] = cluster.link[l, t0:t0 + T].copy()
            if (sigma > left[l]).any():
                return False
            left[l] -= sigma
    return True


SLACK = 1e-9   # of a link's capacity: together() keeps what links_fit may accept


def together(cluster, app, deps, loc):
    """Per server n, whether the edges into a node may fit together on their paths to n.

    Their summed series against every link's residual, with a slack of SLACK x capacity, so
    that every server links_fit accepts is kept (links_fit decides). Per link kind the load
    depends only on where n is: its downlink carries the edges from elsewhere, its ToR's and
    aggregation switch's downlinks those from outside its rack and pod; the uplinks of a
    source's server, ToR and pod those from there unless n is there too.

    Parameters
    ----------
    cluster : Cluster
    app : Application
    deps : list of tuple
        (edge, source) of the edges into the node.
    loc : list
        The placed nodes' locations.

    Returns
    -------
    numpy.ndarray
        (S,) bool.
    """
    infra = cluster.infra
    S, R, A, P = infra.servers, infra.racks, infra.aggs, infra.physical
    win = slice(app.arrival, app.arrival + app.duration)
    cap = infra.link_capacity
    src = np.array([int(loc[u]) for _, u in deps], dtype=np.int64)
    sig = app.bandwidth[[e for e, _ in deps]]
    total = sig.sum(axis=0)
    on = src < S
    ok = np.ones(S, dtype=bool)
    for key, first, size, of in ((src[on], 0, S, np.arange(S)), (infra.rack_of[src[on]], S, R, infra.rack_of),
                                 (infra.agg_of[src[on]], S + R, A, infra.agg_of)):
        ids, inverse = np.unique(key, return_inverse=True)
        inside = np.zeros((len(ids), len(total)))
        np.add.at(inside, inverse, sig[on])
        down = cluster.link[P + first:P + first + size, win] + SLACK * cap[P + first:P + first + size, None]
        fits = (total <= down).all(axis=1)                   # no source below: all of it comes down
        fits[ids] = (total - inside <= down[ids]).all(axis=1)
        ok &= fits[of]
        for i, load in zip(ids.tolist(), inside):
            if not (load <= cluster.link[first + i, win] + SLACK * cap[first + i]).all():
                ok &= of == i                                 # only n below can avoid this uplink
    for j in np.unique(src[~on]).tolist():
        l = S + R + A + (j - S)
        if not (sig[src == j].sum(axis=0) <= cluster.link[l, win] + SLACK * cap[l]).all():
            ok[:] = False
    return ok


class _Placement:
    """One application's tentative reservations, undone exactly on rejection."""

    def __init__(self, cluster, app):
        self.c, self.app = cluster, app
        self.win = slice(app.arrival, app.arrival + app.duration)
        self.saved = {}

    def _save(self, kind, i):
        if (kind, i) not in self.saved:
            self.saved[kind, i] = getattr(self.c, kind)[i, self.win].copy()

    def reserve(self, v, n, deps, loc, slots):
        app, c = self.app, self.c
        if n < c.infra.servers:
            self._save("server", n)
            c.server[n, self.win] -= app.demand[v]
            if slots:
                lo, hi = active_span(app, v)
                self._save("slots", n)
                c.slots[n, app.arrival + lo:app.arrival + hi] += 1
        for e, u in deps:
            for l in c.infra.path(int(loc[u]), n):
                self._save("link", l)
                c.link[l, self.win] -= app.bandwidth[e]

    def undo(self):
        for (kind, i), values in self.saved.items():
            getattr(self.c, kind)[i, self.win] = values


def _scores(cluster, app, v, deps, loc, method, w, kernel, threads, score_name="literal"):
    """(score, ok) per server for node v: the kernel's score (Packer's in the reading
    `score_name` of SCORES) and whether its demands and each of its edges alone fit."""
    infra, t0 = cluster.infra, app.arrival
    S = infra.servers
    sign, network = SCORES[score_name]
    if method == "packer":
        scores = kernel.packer(cluster, app.demand[v], t0, w[:4], sign, threads)
    elif method == "tetris":
        band_in = np.zeros(app.duration)
        for e, _ in deps:
            band_in += app.bandwidth[e]
        scores = kernel.tetris(cluster, app.demand[v], t0, band_in, threads)
    else:
        lo, hi = active_span(app, v)
        scores = Scores(-np.arange(S, dtype=float),                       # first fit
                        kernel.slot_fit(cluster, t0 + lo, t0 + hi, SLOTS,
                                        app.demand[v].max(axis=0), threads))
    score = scores.score
    if deps:
        if method != "packer":
            network = "links"
        wb = w[4] if method == "packer" else 0.0
        into = scores if method == "packer" else Scores(np.zeros(S), scores.ok)
        down = np.arange(infra.physical, infra.physical + infra.servers + infra.racks + infra.aggs)
        for e, u in deps:
            links = np.concatenate([np.array(infra.chain(int(loc[u])), dtype=np.int64), down])
            kernel.add_edge(cluster, app.bandwidth[e], t0, wb, links, int(loc[u]), network,
                            wb * app.duration, app.duration if network == "bottleneck" else 1,
                            into, threads)
        if method == "tetris":
            sources = {int(loc[u]) for _, u in deps}
            local = np.zeros(S, dtype=bool)
            if len(sources) == 1 and min(sources) < S:
                local[min(sources)] = True
            score[~local] *= 1.0 - REMOTE_PENALTY
    return score, scores.ok.view(bool)


def _best(cluster, app, deps, loc, score):
    """GetNodeWithBestScore (line 12): the first server of maximum score where the edges fit
    together (links_fit), or None; the feasible ones have a finite score."""
    n = int(np.argmax(score))
    if np.isfinite(score[n]) and links_fit(cluster, app, deps, loc, n):
        return n
    candidates = np.flatnonzero(np.isfinite(score))
    for c in candidates[np.argsort(-score[candidates], kind="stable")].tolist():
        if links_fit(cluster, app, deps, loc, c):
            return c
    return None


def place(cluster, app, method="packer", *, threads=1, kernel=None, **options):
    """Algorithm 1 for one application (module docstring): the location of each node, or None
    when it is rejected (nothing of it left behind).

    Parameters
    ----------
    cluster : Cluster
        Reserved in, if it is placed.
    app : Application
    method : str
        A registered application method (drfbench.methods(takes="applications")).
    threads : int
        OpenMP threads of the scoring.
    kernel : packer.kernel.Kernel, optional
        Default: the default variant's.
    **options
        The catalog's RECORDED by name: Packer's reading of Eq. 6-8 (one of SCORES, default
        "literal").

    Returns
    -------
    list of int or None
        Per node a server, or S + j for cloud service j.

    Raises
    ------
    TypeError
        `cluster` not a Cluster or `app` not an Application, an option not of RECORDED.
    ValueError
        An application running past the cluster's horizon.
    """
    api.method_info(method, APPLICATIONS)
    take_only("place", options, [o.name for o in RECORDED])
    score = check.choice(options.get(SCORE.name, SCORE.default), SCORE.name, tuple(SCORES))
    if not isinstance(cluster, Cluster):
        raise TypeError(f"cluster must be a packer.Cluster, got {type(cluster).__name__}")
    if not isinstance(app, Application):
        raise TypeError(f"app must be a packer.Application, got {type(app).__name__}")
    check_fits(cluster.infra, [app])
    kernel = kernel or Kernel()
    infra = cluster.infra
    if app.arrival + app.duration > cluster.horizon:
        raise ValueError(f"application {app.name!r} runs past the cluster's horizon")
    loc = np.full(len(app.nodes), -1, dtype=np.int64)
    deps = dependencies(app)
    w = resource_weights(cluster, app.arrival) if method == "packer" else np.zeros(5)
    p = _Placement(cluster, app)
    for v in sort_nodes(app).tolist():
        if app.service[v] >= 0:
            n = infra.servers + int(app.service[v])
            if not links_fit(cluster, app, deps[v], loc, n):
                p.undo()
                return None
        else:
            value, ok = _scores(cluster, app, v, deps[v], loc, method, w, kernel, threads, score)
            if len(deps[v]) > 1:
                ok &= together(cluster, app, deps[v], loc)
            n = _best(cluster, app, deps[v], loc, np.where(ok, value, -np.inf))
            if n is None:                                        # line 13
                p.undo()
                return None
        p.reserve(v, n, deps[v], loc, method == "packer-slots")
        loc[v] = n
    return loc

