"""The simulation of the paper's evaluation (§III): applications arrive online, each is
placed whole by the method or rejected; an accepted one holds its time-varying demands on
its servers and links for its duration, then leaves (its reservations simply end: 𝒬 is
kept per time instant). The pricing model of Fig. 5 and the per-server rate allocation of
Fig. 7-8 (Algorithm 2) work on the result.

drfbench.sim did not fit (docs/families/packer/choices.md): its tasks hold constant demands on
machines without a network, from launch to completion, while here demands vary per
instant, bandwidth is reserved on the links of tree paths, and admission is of whole
applications, known entirely at arrival; with reservations made ahead in time there are
no events left to simulate but the arrivals.
"""
import numbers
import time
from dataclasses import dataclass, field

import numpy as np

from .. import api
from .. import _validation as check
from .. import rows as tidy
from .allocate import Cluster, place
from .catalog import APPLICATIONS, RECORDED
from .kernel import Kernel
from .model import (MAX_AMOUNT, RESOURCES, Application, Infrastructure, amount, check_fits,
                    request)
from .rates import work_conserving

MAX_WORK = 2**36      # servers x nodes x instants scored: about a minute of the kernels
K_V, K_B = 1.0, 1.0   # the price of a server's worth of one resource per instant; of 1 Gbps per instant


def revenue(app, infra, k_v=K_V, k_b=K_B):
    """Per instant of the application, what its tenant pays (§III-B, the pricing model of [2],
    [8]): `Σ_v (Σ_r δ(v, r, t) k_v + Σ_{u ∈ ℰ(v)} σ((u, v), t) k_b)`, with δ normalized by one
    server's capacity of r so that cores, GB and MBps add up.

    Parameters
    ----------
    app : Application
    infra : Infrastructure
    k_v, k_b : float
        Prices, finite and non-negative.

    Returns
    -------
    numpy.ndarray
        Per instant.

    Raises
    ------
    TypeError
        `app` not an Application or `infra` not an Infrastructure.
    """
    if not isinstance(app, Application) or not isinstance(infra, Infrastructure):
        raise TypeError("revenue takes a packer.Application and a packer.Infrastructure")
    k_v, k_b = amount(k_v, "k_v"), amount(k_b, "k_b")
    compute = (app.demand / infra.capacity[0]).sum(axis=(0, 2)) * k_v
    return compute + app.bandwidth.sum(axis=0) * k_b


@dataclass
class Result:
    """What `simulate` returns.

    Attributes
    ----------
    method : str
    infrastructure : Infrastructure
    applications : list of Application
        In arrival order.
    placements : list
        Per application its nodes' locations, or None if rejected.
    allocation_seconds : numpy.ndarray
        Per application, the time to decide it.
    server, link : numpy.ndarray
        The residual capacity 𝒬 at the end, (S, H, 4) and (2P, H), after what was reserved.
    view : str
        What the method was told (model.request).
    score : str or None
        Packer's reading of Eq. 6-8 (None for the others).
    requests : list
        Per application what it was told and reserved (the applications themselves under
        "ti-mra").
    """
    method: str
    infrastructure: object
    applications: list
    placements: list
    allocation_seconds: np.ndarray
    server: np.ndarray = field(repr=False)
    link: np.ndarray = field(repr=False)
    view: str = "ti-mra"
    score: str | None = None
    requests: list = field(default=None, repr=False)

    def __post_init__(self):
        if self.requests is None:
            self.requests = self.applications

    @property
    def accepted(self):
        return np.array([p is not None for p in self.placements], dtype=bool)

    @property
    def submitted_tasks(self):
        return int(sum(a.tasks for a in self.applications))

    @property
    def accepted_tasks(self):
        return int(sum(a.tasks for a, p in zip(self.applications, self.placements) if p is not None))

    @property
    def peak_server_utilization(self):
        """Max over servers, resources and instants of reserved / capacity."""
        cap = self.infrastructure.capacity[:, None, :]
        return float((1.0 - self.server / cap).max()) if self.server.size else 0.0

    @property
    def peak_link_utilization(self):
        """Max over directed links and instants of reserved / capacity."""
        cap = self.infrastructure.link_capacity[:, None]
        return float((1.0 - self.link / cap).max()) if self.link.size else 0.0

    def utilization(self, reserved=False):
        """Per instant the datacenter's utilization of CPU, memory, disk write, disk read (over all
        servers) and bandwidth (over all directed links).

        Parameters
        ----------
        reserved : bool
            False: what the accepted applications use, their own demands, over capacity; True:
            what was reserved for them (their requests; more than they use under the peak view).

        Returns
        -------
        numpy.ndarray
            (H, 5).
        """
        infra = self.infrastructure
        u = np.empty((self.server.shape[1], 5))
        u[:, :4] = 1.0 - self.server.sum(axis=0) / infra.capacity.sum(axis=0)
        u[:, 4] = 1.0 - self.link.sum(axis=0) / infra.link_capacity.sum()
        if reserved or self.requests is self.applications:
            return u
        excess = np.zeros_like(u)                     # reserved but not used
        for a, r, p in zip(self.applications, self.requests, self.placements):
            if p is None:
                continue
            win = slice(a.arrival, a.arrival + a.duration)
            excess[win, :4] += (r.demand - a.demand).sum(axis=0)
            hops = np.array([len(infra.path(int(p[x]), int(p[y]))) for x, y in a.edges.tolist()])
            excess[win, 4] += (hops[:, None] * (r.bandwidth - a.bandwidth)).sum(axis=0)
        u[:, :4] -= excess[:, :4] / infra.capacity.sum(axis=0)
        u[:, 4] -= excess[:, 4] / infra.link_capacity.sum()
        return u

    def revenue(self, k_v=K_V, k_b=K_B, used=False):
        """The provider's revenue per instant from the accepted applications.

        Parameters
        ----------
        k_v, k_b : float
            Prices (`revenue`).
        used : bool
            False: charged on what each reserved (its request: "tenants are allocating such
            resources and paying for them", §IV); True: on what each uses.

        Returns
        -------
        numpy.ndarray
            (H,).
        """
        out = np.zeros(self.server.shape[1])
        for a, r, p in zip(self.applications, self.requests, self.placements):
            if p is not None:
                out[a.arrival:a.arrival + a.duration] += revenue(a if used else r,
                                                                 self.infrastructure, k_v, k_b)
        return out

    def rows(self, **columns):
        """Tidy rows, one per time instant: tasks submitted and accepted so far (Fig. 3),
        utilization per resource (Fig. 4), revenue in that instant (Fig. 5), stamped
        (drfbench.rows), made as they are read.

        Parameters
        ----------
        **columns
            Columns added to every row.

        Returns
        -------
        drfbench.rows.Rows
        """
        H = self.server.shape[1]
        arrival = np.array([a.arrival for a in self.applications], dtype=np.int64)
        tasks = np.array([a.tasks for a in self.applications], dtype=np.int64)
        submitted = np.cumsum(np.bincount(arrival, tasks, minlength=H))[:H]
        accepted = np.cumsum(np.bincount(arrival, tasks * self.accepted, minlength=H))[:H]
        util, money = self.utilization(), self.revenue()
        names = [f"util_{r}" for r in RESOURCES + ("band",)]
        return tidy.stamped(lambda: (
            {"method": self.method, "time": t, "submitted_tasks": s, "accepted_tasks": a,
             **dict(zip(names, u)), "revenue": m}
            for t, (s, a, u, m) in enumerate(zip(submitted.tolist(), accepted.tolist(),
                                                 util.tolist(), money.tolist()))), **columns)

    def server_rates(self, server, seed=0, burst=(0.5, 2.0)):
        """Algorithm 2 on a server's uplink at every instant.

        Per node of an accepted application placed there: its guarantee σ(Σ(v, *), t) (its
        edges leaving the server), a current demand (the guarantee times a factor uniform in
        `burst`, seeded: a bursty sender) and the rate it gets.

        Parameters
        ----------
        server : int
            An index in [0, servers).
        seed : int
        burst : tuple of float
            (low, high), `0 <= low <= high`, finite.

        Returns
        -------
        list of dict
            Rows: time, application, node, weight, guarantee, demand, rate, capacity.

        Raises
        ------
        ValueError
            A server or burst out of bounds.
        """
        infra = self.infrastructure
        if (isinstance(server, bool) or not isinstance(server, numbers.Integral)
                or not 0 <= server < infra.servers):
            raise ValueError(f"server must be a server's index in [0, {infra.servers}), got {check.shown(server)}")
        low, high = (amount(b, "burst") for b in burst)
        if low > high:
            raise ValueError(f"burst must be (low, high) with low <= high, got {burst!r}")
        rng = np.random.default_rng(seed)
        H = self.server.shape[1]
        nodes = []                                         # (app, node, weight, guarantee (H,))
        for a, p in zip(self.applications, self.placements):
            if p is None:
                continue
            for v in np.flatnonzero(p == server).tolist():
                g = np.zeros(H)
                for e, (u, x) in enumerate(a.edges.tolist()):
                    if u == v and p[x] != server:
                        g[a.arrival:a.arrival + a.duration] += a.bandwidth[e]
                nodes.append((a.name, a.nodes[v], a.weight, g))
        if not nodes:
            return []
        G = np.array([g for *_, g in nodes])
        D = np.minimum(G * rng.uniform(low, high, G.shape), MAX_AMOUNT)
        W = np.array([w for _, _, w, _ in nodes])
        cap = float(infra.link_capacity[server])
        out = []
        for t in range(H):
            live = np.flatnonzero(G[:, t] > 0)
            if live.size == 0:
                continue
            rate = work_conserving(cap, G[live, t], D[live, t], W[live])
            out += [{"time": t, "application": nodes[i][0], "node": nodes[i][1],
                     "weight": float(W[i]), "guarantee": float(G[i, t]), "demand": float(D[i, t]),
                     "rate": float(r), "capacity": cap} for i, r in zip(live.tolist(), rate.tolist())]
        return out


def simulate(infrastructure, applications, method="packer", **options):
    """Run registered application method `method` on the applications, in arrival order
    (stable), each placed by Algorithm 1 with the method's score (allocate.place) or rejected
    whole.

    Bounds: servers x the horizon (the last application's end) at most MAX_CELLS (`2**24`)
    cells, and the placement's work, servers x the applications' nodes x instants, at most
    MAX_WORK (`2**36`).

    Parameters
    ----------
    infrastructure : Infrastructure
    applications : list of Application
        Made by `application`, `workload` or `load_applications`.
    method : str
        "packer", "tetris" or "packer-slots" (drfbench.methods(takes="applications")).
    **options
        `view`: what the method is told of each application, "ti-mra" (its demands per
        instant) or "peak" (each node's peak over its span: model.request). `score` (packer
        only): the reading of Eq. 6-8, "literal" or another of allocate.SCORES. `threads`:
        OpenMP threads of the scoring (default: OMP_NUM_THREADS, else every usable CPU; each
        kernel call is short, 0.1-1 ms, so on a shared machine one thread can be fastest:
        docs/performance.md); the results do not depend on it. `isa`: the kernels' variant.

    Returns
    -------
    Result

    Raises
    ------
    ValueError
        A run beyond the bounds, saying which.
    TypeError
        What is not an Infrastructure or a list of Applications.
    """
    return api.run(method, infrastructure, applications, takes=APPLICATIONS, **options)


def run_method(spec, infrastructure, applications, *, view, isa, **options):
    """The registry's implementation of the application methods (see `simulate`): the
    options as the registry checked them, their defaults declared in the family's catalog
    (the others, threads and Packer's score, as allocate.place takes them, the score
    recorded: RECORDED).

    Parameters
    ----------
    spec : Method
        The method as registered.
    infrastructure, applications, view, isa
        As `simulate` takes them, checked and defaulted by the registry.
    **options
        The same.

    Returns
    -------
    Result
    """
    if not isinstance(infrastructure, Infrastructure):
        raise TypeError(f"infrastructure must be a packer.Infrastructure, got "
                        f"{type(infrastructure).__name__}")
    if isinstance(applications, (str, Application)) or not np.iterable(applications):
        raise TypeError(f"applications must be a list of packer.Application, got "
                        f"{type(applications).__name__}")
    apps = list(applications)
    wrong = [type(a).__name__ for a in apps if not isinstance(a, Application)]
    if wrong:
        raise TypeError(f"applications must be packer.Application objects, got {wrong[0]}")
    apps.sort(key=lambda a: a.arrival)
    check_fits(infrastructure, apps)
    work = infrastructure.servers * sum(len(a.nodes) * a.duration for a in apps)
    if work > MAX_WORK:
        raise ValueError(f"placing these applications is {work:.3g} server x node x instant "
                         f"steps, more than the budget of {MAX_WORK} (packer.simulate.MAX_WORK)")
    horizon = max((a.arrival + a.duration for a in apps), default=0)
    cluster = Cluster(infrastructure, horizon)
    kernel = Kernel(isa)
    requests = [request(a, view) for a in apps]
    placements, seconds = [], np.empty(len(apps))
    for i, a in enumerate(requests):
        start = time.perf_counter()
        placements.append(place(cluster, a, spec.name, kernel=kernel, **options))
        seconds[i] = time.perf_counter() - start
    return Result(spec.name, infrastructure, apps, placements, seconds, cluster.server, cluster.link,
                  view, requests=requests if view != "ti-mra" else apps,
                  **{o.name: options.get(o.name) for o in RECORDED})


__all__ = ["Result", "revenue", "simulate"]
