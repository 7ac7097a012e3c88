"""The model of Packer (Marcon and Barcellos, IFIP Networking 2017): the datacenter's
3-tier tree (§III-A) and TI-MRA applications (§II-A, Table I), with their validation.

Units: CPU in cores, memory in GB, disk write and read in MBps, bandwidth in Gbps; time
in discrete instants (the paper's T^a and 𝒯), an application's series indexed from its
start (instant 0 is its arrival).
"""
import dataclasses
import heapq
import numbers
from dataclasses import dataclass

import numpy as np

from .. import _validation as check
from .catalog import VIEW, VIEWS

RESOURCES = ("cpu", "mem", "io_write", "io_read")   # R of Eq. 7 (BAND is the network)

# Bounds that keep every computation finite and the work bounded (docs/accepts.md):
# capacities (cores, GB, MBps, Gbps) in [MIN_CAPACITY, MAX_AMOUNT], demands and bandwidths
# in [0, MAX_AMOUNT] (so that demand / capacity and the scores' cubes stay finite);
# instants, servers and services at most MAX_CELLS, and a simulation's residual capacity
# 𝒬, servers x instants of its horizon, at most MAX_CELLS cells (simulate.run_method).
MIN_CAPACITY, MAX_AMOUNT = 1e-6, 1e12
MAX_CELLS = 2**24


def amount(value, name, low=0.0):
    """A real number in [low, MAX_AMOUNT] as a float (bools refused: TypeError)."""
    x = check.real(value, name)
    if not low <= x <= MAX_AMOUNT:
        raise ValueError(f"{name} must be a number in [{low:g}, {MAX_AMOUNT:g}], got {x}")
    return x


def count(value, name, low=1, high=MAX_CELLS):
    """An integer in [low, high] (bools refused: TypeError)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {check.shown(value)}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {check.shown(value)}")
    return int(value)


class Infrastructure:
    """The paper's datacenter (§III-A): servers under ToRs under aggregation switches under one
    core switch, and cloud services hung off the core.

    Locations (infrastructure nodes N = S ∪ 𝒥): servers 0 .. S-1, service j at S + j.
    Physical links p: server uplinks 0 .. S-1, ToR uplinks, aggregation uplinks, service
    links; each is full duplex, two directed links of the same capacity: p upwards (towards
    the core) and P + p downwards. Eq. 5 holds per directed link.

    Parameters
    ----------
    servers : int
        Servers of ⟨cores, memory GB, disks × disk_rate MBps read and write, nic Gbps⟩, in
        [1, MAX_CELLS].
    per_rack : int
        Servers per rack, in [1, MAX_CELLS].
    racks_per_agg : int
        ToRs per aggregation switch, in [1, MAX_CELLS]; every aggregation switch on one core.
    cores, memory, disks, disk_rate : float
        Each server's, in [MIN_CAPACITY, MAX_AMOUNT] (1e-6, 1e12), and so is
        disks x disk_rate.
    nic, tor_link, agg_link : float
        The links' Gbps, in [MIN_CAPACITY, MAX_AMOUNT].
    services : int
        Cloud services (the paper's 𝒥), in [0, MAX_CELLS].
    service_link : float
        Gbps of each service's link to the core switch.

    Raises
    ------
    ValueError
        A value out of bounds, naming the keyword.
    TypeError
        What is not a number, naming the keyword.
    """

    def __init__(self, servers=1200, *, per_rack=40, racks_per_agg=10, cores=16, memory=32,
                 disks=4, disk_rate=50, nic=1.0, tor_link=10.0, agg_link=100.0, services=1,
                 service_link=100.0):
        for name, value in (("servers", servers), ("per_rack", per_rack),
                            ("racks_per_agg", racks_per_agg)):
            count(value, name)
        count(services, "services", low=0)
        for name, value in (("cores", cores), ("memory", memory), ("disks", disks),
                            ("disk_rate", disk_rate), ("nic", nic), ("tor_link", tor_link),
                            ("agg_link", agg_link), ("service_link", service_link)):
            amount(value, name, MIN_CAPACITY)
        amount(float(disks) * float(disk_rate), "disks x disk_rate", MIN_CAPACITY)
        self.servers, self.per_rack, self.racks_per_agg = int(servers), int(per_rack), int(racks_per_agg)
        self.racks = -(-self.servers // self.per_rack)
        self.aggs = -(-self.racks // self.racks_per_agg)
        self.services = int(services)
        self.capacity = np.tile(np.array([cores, memory, disks * disk_rate, disks * disk_rate],
                                         dtype=float), (self.servers, 1))          # ℛ(n, r)
        S, Rk, A = self.servers, self.racks, self.aggs
        self.physical = S + Rk + A + self.services
        one_way = np.concatenate([np.full(S, float(nic)), np.full(Rk, float(tor_link)),
                                  np.full(A, float(agg_link)), np.full(self.services, float(service_link))])
        self.link_capacity = np.concatenate([one_way, one_way])                   # ℬ(l)
        self.inverse_capacity = 1.0 / self.capacity
        self.inverse_link_capacity = 1.0 / self.link_capacity
        self.rack_of = np.arange(S, dtype=np.int64) // self.per_rack
        self.agg_of = self.rack_of // self.racks_per_agg
        self.options = dict(servers=servers, per_rack=per_rack, racks_per_agg=racks_per_agg,
                            cores=cores, memory=memory, disks=disks, disk_rate=disk_rate, nic=nic,
                            tor_link=tor_link, agg_link=agg_link, services=services,
                            service_link=service_link)

    @property
    def links(self):
        """Number of directed links."""
        return 2 * self.physical

    def chain(self, x):
        """The physical links from location x up to the core switch, bottom first."""
        S = self.servers
        if x < S:
            r = int(self.rack_of[x])
            return [x, S + r, S + self.racks + r // self.racks_per_agg]
        return [S + self.racks + self.aggs + (x - S)]

    def path(self, a, b):
        """𝒫(a, b): the directed links from location a to location b along the tree (the
        tree has one path per pair): up a's chain to the lowest common switch, down b's."""
        if a == b:
            return []
        ca, cb = self.chain(a), self.chain(b)
        if len(ca) == len(cb) == 3:
            k = 1 if ca[1] == cb[1] else (2 if ca[2] == cb[2] else 3)
            ca, cb = ca[:k], cb[:k]
        return ca + [self.physical + p for p in reversed(cb)]

    def __repr__(self):
        return f"Infrastructure({', '.join(f'{k}={v}' for k, v in self.options.items())})"


@dataclass(frozen=True)
class Application:
    """A TI-MRA graph G^a = ⟨V^a, E^a, T^a, w^a, δ, σ⟩ (§II-A), validated by `application`.

    Attributes
    ----------
    name : str
    nodes : tuple
        The names of V^a.
    service : numpy.ndarray
        Per node, -1 for a task (K^a), else the index j of the cloud service it is (C^a,
        placed on location S + j).
    demand : numpy.ndarray
        δ, (V, T, 4), per node, time instant and resource of RESOURCES (zero for services).
    edges : numpy.ndarray
        E^a, (E, 2) node indices (u, v), v depends on u.
    bandwidth : numpy.ndarray
        σ, (E, T) Gbps.
    weight : float
        w^a in (0, 1].
    arrival : int
        The instant it is submitted (and starts, if accepted).
    """
    name: str
    nodes: tuple
    service: np.ndarray
    demand: np.ndarray
    edges: np.ndarray
    bandwidth: np.ndarray
    weight: float
    arrival: int

    @property
    def duration(self):
        """|T^a|: its number of time instants."""
        return self.demand.shape[1]

    @property
    def tasks(self):
        """|K^a|: its number of tasks (the nodes that are not cloud services)."""
        return int((self.service < 0).sum())


def application(name, nodes, edges=(), *, duration, weight=1.0, arrival=0, service=None,
                demand=None, bandwidth=None):
    """A validated Application.

    Parameters
    ----------
    name : str
    nodes : list of str
        Node names, unique.
    edges : list of pair
        (u, v) pairs, each end a node's name (text) or its index (an integer: a name is
        never read as an index, nor an index as a name).
    duration : int
        Instants, in [1, MAX_CELLS].
    weight : float
        In (0, 1].
    arrival : int
        In [0, MAX_CELLS), one of the MAX_CELLS instants a simulation's residual capacity can
        hold (it runs in [arrival, arrival + duration): an arrival at MAX_CELLS could never
        fit).
    service : list, optional
        Per node, None/-1 for a task or a service index (an integer up to MAX_CELLS).
    demand : array_like, optional
        (V, duration, 4), in [0, MAX_AMOUNT] (1e12); None for all zeros.
    bandwidth : array_like, optional
        (E, duration), in [0, MAX_AMOUNT].

    Returns
    -------
    Application

    Raises
    ------
    ValueError
        Naming the problem: a cyclic graph, an edge to an unknown node or a self-loop, values
        out of bounds or NaN, series shorter (or longer) than the duration.
    TypeError
        A name that is not text or a number that is not one.
    """
    if not isinstance(name, str):
        raise TypeError(f"an application's name must be text, got {name!r}")
    if isinstance(nodes, str) or not np.iterable(nodes):
        raise TypeError(f"application {name!r}: nodes must be a list of names, got {nodes!r}")
    nodes = tuple(nodes)
    if not all(isinstance(n, str) for n in nodes):
        raise TypeError(f"application {name!r}: node names must be text, got "
                        f"{[n for n in nodes if not isinstance(n, str)][:3]}")
    if not nodes:
        raise ValueError(f"application {name!r} has no nodes")
    if len(set(nodes)) != len(nodes):
        raise ValueError(f"application {name!r}: duplicate node names")
    duration = count(duration, f"application {name!r}: duration")
    V = len(nodes)
    index = {n: i for i, n in enumerate(nodes)}
    for field, value in (("service", service), ("edges", edges)):
        if value is not None and (isinstance(value, str) or not np.iterable(value)):
            raise TypeError(f"application {name!r}: {field} must be a list, got {value!r}")
    service = [None] * V if service is None else list(service)
    if len(service) != V:
        raise ValueError(f"application {name!r}: service must give -1/None or a service index "
                         f"per node ({V}), got {len(service)}")
    svc = np.array([-1 if s is None else count(s, f"application {name!r}: node "
                                                  f"{nodes[v]!r}: service", low=-1)
                    for v, s in enumerate(service)], dtype=np.int64)
    E = []
    for e in edges:
        if isinstance(e, str) or not np.iterable(e) or len(e) != 2:
            raise ValueError(f"application {name!r}: an edge is a pair (u, v), got {e!r}")
        pair = []
        for x in e:
            if isinstance(x, numbers.Integral) and not isinstance(x, bool):
                if not 0 <= x < V:
                    raise ValueError(f"application {name!r}: edge {tuple(e)} to unknown node {x}")
                pair.append(int(x))
            elif isinstance(x, str) and x in index:
                pair.append(index[x])
            else:
                raise ValueError(f"application {name!r}: edge {tuple(e)} to unknown node {x!r}")
        if pair[0] == pair[1]:
            raise ValueError(f"application {name!r}: edge {tuple(e)} is a self-loop (u ≠ v)")
        E.append(pair)
    E = np.array(E, dtype=np.int64).reshape(-1, 2)
    if len({tuple(p) for p in E.tolist()}) != len(E):
        raise ValueError(f"application {name!r}: duplicate edges")
    D = (np.zeros((V, duration, len(RESOURCES))) if demand is None
         else check.real_array(demand, f"application {name!r}: demand", 3))
    if D.ndim != 3 or D.shape[0] != V or D.shape[2] != len(RESOURCES):
        raise ValueError(f"application {name!r}: demand must be (nodes, duration, "
                         f"{len(RESOURCES)}), got shape {D.shape}")
    if D.shape[1] != duration:
        raise ValueError(f"application {name!r}: the demand series has {D.shape[1]} instants, "
                         f"the duration is {duration}")
    bounded(D, f"application {name!r}: demand")
    if (D[svc >= 0] > 0).any():
        raise ValueError(f"application {name!r}: cloud services take no computing demand")
    B = (np.zeros((len(E), duration)) if bandwidth is None
         else check.real_array(bandwidth, f"application {name!r}: bandwidth", 2))
    if B.shape != (len(E), duration):
        raise ValueError(f"application {name!r}: bandwidth must be (edges, duration) = "
                         f"({len(E)}, {duration}), got shape {B.shape}")
    bounded(B, f"application {name!r}: bandwidth")
    weight = check.real(weight, f"application {name!r}: weight")
    if not 0 < weight <= 1:
        raise ValueError(f"application {name!r}: weight must be in (0, 1], got {weight!r}")
    arrival = count(arrival, f"application {name!r}: arrival (an instant)", low=0,
                    high=MAX_CELLS - 1)
    app = Application(str(name), nodes, svc, np.ascontiguousarray(D), E,
                      np.ascontiguousarray(B), float(weight), int(arrival))
    sort_nodes(app)                     # refuses a cycle
    return app


def bounded(a, name):
    """Refuse entries that are NaN, infinite, negative or above MAX_AMOUNT, naming the
    first one and its index."""
    check.finite_non_negative(a, name)
    if a.size and a.max() > MAX_AMOUNT:
        where = np.argwhere(a > MAX_AMOUNT)[0]
        raise ValueError(f"{name} must be at most {MAX_AMOUNT:g}: {a[tuple(where)]} at index "
                         f"{tuple(where.tolist())}")
    return a


def start_instants(app):
    """Per node, its initial execution time: the first instant with a demand (its own, or
    on an edge it sends or receives); the duration if it has none."""
    active = (app.demand > 0).any(axis=2)
    for (u, v), s in zip(app.edges, app.bandwidth):
        active[u] |= s > 0
        active[v] |= s > 0
    return np.where(active.any(axis=1), active.argmax(axis=1), app.duration)


def sort_nodes(app):
    """SortNodes (Algorithm 1, line 5): every node after the nodes it depends on, and, among
    the nodes whose dependencies are placed, by initial execution time, then index (Kahn's
    topological sort).

    Parameters
    ----------
    app : Application

    Returns
    -------
    numpy.ndarray
        int64 node indices.

    Raises
    ------
    ValueError
        A cyclic graph, naming the nodes on cycles.
    """
    if not isinstance(app, Application):
        raise TypeError(f"app must be a packer.Application (made by application()), got "
                        f"{type(app).__name__}")
    V = len(app.nodes)
    indegree = np.zeros(V, dtype=np.int64)
    out = [[] for _ in range(V)]
    for u, v in app.edges.tolist():
        indegree[v] += 1
        out[u].append(v)
    start = start_instants(app)
    ready = [(int(start[v]), v) for v in range(V) if indegree[v] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, u = heapq.heappop(ready)
        order.append(u)
        for v in out[u]:
            indegree[v] -= 1
            if indegree[v] == 0:
                heapq.heappush(ready, (int(start[v]), v))
    if len(order) < V:
        stuck = [app.nodes[v] for v in range(V) if indegree[v] > 0]
        raise ValueError(f"application {app.name!r}: the graph has a cycle through {stuck}")
    return np.array(order, dtype=np.int64)


def active_span(app, v):
    """[lo, hi): the instants from node v's first to its last demand (its own or its
    edges'), relative to the application's start; (0, 0) if it has none."""
    active = (app.demand[v] > 0).any(axis=1)
    for (u, x), s in zip(app.edges.tolist(), app.bandwidth):
        if v in (u, x):
            active |= s > 0
    idx = np.flatnonzero(active)
    return (0, 0) if idx.size == 0 else (int(idx[0]), int(idx[-1]) + 1)


def request(app, view):
    """What a method is told of `app` and reserves for it.

    "ti-mra": the application itself, its demands per instant (§II-A). "peak": what a tenant
    without TI-MRA gives (§II-A, §IV: "only peak demands ... a constant temporal function",
    like the hose model): each node's peak per resource held over its whole span
    (active_span), each edge's peak over the instants both its nodes' spans cover.

    Parameters
    ----------
    app : Application
    view : str
        "ti-mra" or "peak".

    Returns
    -------
    Application
    """
    check.choice(view, VIEW.name, VIEWS)
    if view == "ti-mra":
        return app
    spans = [active_span(app, v) for v in range(len(app.nodes))]
    D = np.zeros_like(app.demand)
    for v, (lo, hi) in enumerate(spans):
        D[v, lo:hi] = app.demand[v].max(axis=0)
    B = np.zeros_like(app.bandwidth)
    for e, (u, v) in enumerate(app.edges.tolist()):
        B[e, max(spans[u][0], spans[v][0]):min(spans[u][1], spans[v][1])] = app.bandwidth[e].max()
    return dataclasses.replace(app, demand=D, bandwidth=B)


def dependencies(app):
    """ℰ(v) per node: (edge index, source node) of the edges with v as destination."""
    deps = [[] for _ in app.nodes]
    for e, (u, v) in enumerate(app.edges.tolist()):
        deps[v].append((e, u))
    return deps


def check_fits(infra, apps):
    """Refuse applications that name a cloud service the infrastructure lacks."""
    for a in apps:
        if (a.service >= infra.services).any():
            raise ValueError(f"application {a.name!r} uses service "
                             f"{int(a.service.max())}, the infrastructure has {infra.services}")
