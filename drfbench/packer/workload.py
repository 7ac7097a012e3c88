"""Applications for Packer: the seeded workload suite of the paper's evaluation (§III-A),
and a JSON format that users can write by hand.

The suite (the paper gives the shapes and the rules, not the numbers; ours are below and
in docs/families/packer/choices.md): applications arrive as a Poisson process of `rate` per time
instant; each is a MapReduce job (with probability `mapreduce`) or a 3-tier web service.

  MapReduce   an input store (cloud service 0) → 2-10 mappers → 1-4 reducers → an output
              store (service 0); map phase 3-15 instants, then the reduce phase 3-15; the
              store feeds the mappers during the map phase, the shuffle (every mapper to
              every reducer) runs in the first half of the reduce phase, the reducers write
              in its last instant.
  web service 2-6 front ends → 2-6 application servers → 1-2 databases, for 10-40 instants,
              every node active throughout, demands following a daily-like wave.

Computing demands: as in Tetris and the paper, each task's peak per resource is uniform in
[0, one slot] (a quarter of a server). Bandwidth: per edge a level drawn from a lognormal
with median 50 Mbps and σ = 1, capped at 500 Mbps (heavy tailed: most flows small, a few
large, as Benson et al. [17] and Kandula et al. [22] describe datacenter traffic; the
numbers are our choice), times BOTTLENECK[bottleneck] (1 for "network", the suite as it
was; smaller for "balanced" and "compute", so that computing resources bind as often as
the network, or first). The weight w^a is uniform in (0, 1].

The shape over time (`temporal`; the peaks, sizes, graphs and arrivals of a seed are the
same under every shape):

  jitter         per instant, the peak times a factor uniform in [0.5, 1] (MapReduce, and
                 every edge) or times the wave 0.75 + 0.25 sin(...) (web, one phase per node
                 shared by its resources and its edges); no structure across resources
  phased         MapReduce by stage (PHASES): the map stage CPU- and disk-read-heavy, the
                 shuffle (the reduce phase's first half) network-heavy with little
                 computing, the reduce stage disk-write-heavy; each resource's level times
                 the jitter's factor; web services as under jitter
  complementary  across resources and across applications: each resource of a node (the
                 bandwidth of its edges too) follows its own cosine between TROUGH and 1
                 of its peak, one period over the node's (or edge's) active window, the
                 resources' phases 2π/5 apart and the application's own phase uniform
                 (the paper's premises: "applications have complementary demands across
                 time", "utilization of different resources peaks at different times")

Files: `load_applications` reads applications from JSON, `load_infrastructure` an
Infrastructure from its keywords; `read_inputs` both, for `drfbench run`.
"""
import inspect
import json
import numbers
from pathlib import Path

import numpy as np

from .. import _inputs
from .._io import replacing
from .. import _validation as check
from .model import (MAX_CELLS, RESOURCES, Application, Infrastructure, application,
                    count as integer)

SLOTS = 4                       # slots per server (§III-A, following [8])
BANDWIDTH_MEDIAN, BANDWIDTH_SIGMA, BANDWIDTH_CAP = 0.05, 1.0, 0.5   # Gbps
TEMPORAL = ("jitter", "phased", "complementary")
# The bandwidth's scale per bottleneck (docs/families/packer/choices.md: on the paper's tree, at
# saturation, the network binds first at 1, both about together at 0.3, computing at 0.1)
BOTTLENECK = {"network": 1.0, "balanced": 0.3, "compute": 0.1}
# phased: per MapReduce stage, each resource's level as a fraction of its peak (RESOURCES)
PHASES = {"map": (1.0, 0.5, 0.3, 1.0), "shuffle": (0.1, 0.5, 0.1, 0.1),
          "reduce": (0.5, 0.5, 1.0, 0.1)}
TROUGH = 0.1                    # complementary: a resource's least level, of its peak
MAX_APPLICATIONS = 10**6        # workload's count: about 15 minutes of generation


def slot_size(infra=None):
    """One slot: a quarter of a server's capacity (the slot-based scheme's unit).

    Parameters
    ----------
    infra : Infrastructure, optional
        Default: the paper's.

    Returns
    -------
    numpy.ndarray
    """
    return (infra or Infrastructure(servers=1)).capacity[0] / SLOTS


def _edge_level(rng, n):
    return np.minimum(BANDWIDTH_MEDIAN * rng.lognormal(0.0, BANDWIDTH_SIGMA, n), BANDWIDTH_CAP)


def _wave(n, phase):
    """complementary: (n, len(phase)) levels, per column a cosine between TROUGH and 1 over
    one period of n instants, shifted by that column's phase."""
    t = 2 * np.pi * np.arange(n)[:, None] / n
    return TROUGH + (1.0 - TROUGH) * 0.5 * (1.0 + np.cos(t + np.asarray(phase)[None, :]))


def _offsets(phase):
    """The phases of a node's resources and of its edges' bandwidth (the last), 2π/5 apart
    from the application's `phase`."""
    return phase + 2 * np.pi * np.arange(len(RESOURCES) + 1) / (len(RESOURCES) + 1)


def _mapreduce(rng, k, arrival, slot, temporal, scale, phase):
    m, r = int(rng.integers(2, 11)), int(rng.integers(1, 5))
    lm, lr = int(rng.integers(3, 16)), int(rng.integers(3, 16))
    T = lm + lr
    shuffle = max(1, lr // 2)
    nodes = ["input"] + [f"map{i}" for i in range(m)] + [f"reduce{i}" for i in range(r)] + ["output"]
    service = [0] + [None] * (m + r) + [0]
    D = np.zeros((len(nodes), T, len(RESOURCES)))
    peak = rng.uniform(0.0, 1.0, (m + r, len(RESOURCES))) * slot
    factor = rng.uniform(0.5, 1.0, (m + r, T, len(RESOURCES)))   # drawn under every shape
    if temporal == "phased":
        stage = np.array([PHASES["map"]] * lm + [PHASES["shuffle"]] * shuffle
                         + [PHASES["reduce"]] * (lr - shuffle))
        factor = factor * stage[None]
    elif temporal == "complementary":
        factor = np.zeros_like(factor)
        factor[:m, :lm] = _wave(lm, _offsets(phase)[:-1])
        factor[m:, lm:] = _wave(lr, _offsets(phase)[:-1])
    D[1:1 + m, :lm] = peak[:m, None] * factor[:m, :lm]
    D[1 + m:1 + m + r, lm:] = peak[m:, None] * factor[m:, lm:]
    edges, spans = [], []
    maps, reds = range(1, 1 + m), range(1 + m, 1 + m + r)
    edges += [(0, i) for i in maps]
    spans += [(0, lm)] * m
    edges += [(i, j) for i in maps for j in reds]
    spans += [(lm, lm + shuffle)] * (m * r)
    edges += [(j, len(nodes) - 1) for j in reds]
    spans += [(T - 1, T)] * r
    B = np.zeros((len(edges), T))
    level = _edge_level(rng, len(edges)) * scale
    for e, (lo, hi) in enumerate(spans):
        wobble = rng.uniform(0.5, 1.0, hi - lo)
        B[e, lo:hi] = level[e] * (_wave(hi - lo, _offsets(phase)[-1:])[:, 0]
                                  if temporal == "complementary" else wobble)
    return application(f"mapreduce-{k}", nodes, edges, duration=T, weight=1.0 - rng.random(),
                       arrival=arrival, service=service, demand=D, bandwidth=B)


def _webservice(rng, k, arrival, slot, temporal, scale, phase):
    f, a, d = int(rng.integers(2, 7)), int(rng.integers(2, 7)), int(rng.integers(1, 3))
    T = int(rng.integers(10, 41))
    nodes = [f"front{i}" for i in range(f)] + [f"app{i}" for i in range(a)] + [f"db{i}" for i in range(d)]
    V = len(nodes)
    phases = rng.uniform(0.0, 2 * np.pi, V)
    wave = 0.75 + 0.25 * np.sin(2 * np.pi * np.arange(T)[None, :] / T + phases[:, None])   # (V, T)
    peak = rng.uniform(0.0, 1.0, (V, len(RESOURCES))) * slot
    fronts, apps, dbs = range(f), range(f, f + a), range(f + a, V)
    edges = [(i, j) for i in fronts for j in apps] + [(i, j) for i in apps for j in dbs]
    level = _edge_level(rng, len(edges)) * scale
    if temporal == "complementary":
        waves = _wave(T, _offsets(phase))                                    # (T, 5)
        D = peak[:, None, :] * waves[None, :, :-1]
        B = level[:, None] * waves[None, :, -1]
    else:
        D = peak[:, None, :] * wave[:, :, None]
        B = level[:, None] * wave[[u for u, _ in edges]]
    return application(f"web-{k}", nodes, edges, duration=T, weight=1.0 - rng.random(),
                       arrival=arrival, demand=D, bandwidth=B)


def workload(count, seed=0, *, rate=8.0, mapreduce=0.5, infrastructure=None, temporal="jitter",
             bottleneck="network"):
    """`count` applications of the suite (module docstring), seeded.

    Parameters
    ----------
    count : int
        In [0, MAX_APPLICATIONS].
    seed : int
        Non-negative.
    rate : float
        Arrivals are a Poisson process of `rate` applications per instant, from instant 0;
        finite and `> 0`, and the last arrival before instant MAX_CELLS.
    mapreduce : float
        The fraction of MapReduce applications, in [0, 1].
    infrastructure : Infrastructure, optional
        Slots are sized on its servers (default: the paper's).
    temporal : str
        The shape of the demands over time, one of TEMPORAL.
    bottleneck : str
        Which resource binds, one of BOTTLENECK.

    Returns
    -------
    list of Application

    Raises
    ------
    ValueError
        A value out of bounds, naming it.
    TypeError
        `infrastructure` not an Infrastructure.
    """
    integer(count, "count", low=0)
    if count > MAX_APPLICATIONS:
        raise ValueError(f"count must be at most {MAX_APPLICATIONS}, got {count}")
    rate, mapreduce = check.real(rate, "rate"), check.real(mapreduce, "mapreduce")
    if not (np.isfinite(rate) and rate > 0) or not 0 <= mapreduce <= 1:
        raise ValueError(f"rate must be > 0 and mapreduce in [0, 1], got {rate!r}, {mapreduce!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {check.shown(seed)}")
    if infrastructure is not None and not isinstance(infrastructure, Infrastructure):
        raise TypeError(f"infrastructure must be a packer.Infrastructure or None, got "
                        f"{type(infrastructure).__name__}")
    check.choice(temporal, "temporal", TEMPORAL)
    scale = BOTTLENECK[check.choice(bottleneck, "bottleneck", tuple(BOTTLENECK))]
    rng = np.random.default_rng(seed)
    # the applications' phases (complementary) from a stream of their own: the same
    # applications under every shape
    phase = np.random.default_rng(rng.bit_generator.seed_seq.spawn(1)[0]).uniform(0.0, 2 * np.pi, count)
    slot = slot_size(infrastructure)
    arrivals = np.floor(np.cumsum(rng.exponential(1.0 / rate, count)))
    if count and not arrivals[-1] < MAX_CELLS:
        raise ValueError(f"rate {rate:g} spreads {count} arrivals past instant {MAX_CELLS} "
                         "(model.MAX_CELLS): raise it")
    arrivals = arrivals.astype(np.int64)
    kinds = rng.random(count) < mapreduce
    return [(_mapreduce if mr else _webservice)(rng, k, int(t), slot, temporal, scale, phase[k])
            for k, (t, mr) in enumerate(zip(arrivals.tolist(), kinds.tolist()))]


# ---------------------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------------------


def _from_dict(spec):
    """An application from its JSON object (load_applications): node names are text, and
    an edge's "from" and "to" name nodes (never indices)."""
    if not isinstance(spec, dict):
        raise ValueError(f"an application is a JSON object, got {type(spec).__name__}")
    name = spec.get("name", "application")
    if not isinstance(name, str):
        raise ValueError(f"an application's name must be text, got {name!r}{_quote(name)}")
    unknown = set(spec) - {"name", "duration", "weight", "arrival", "nodes", "edges"}
    if unknown:
        raise ValueError(f"application {name!r}: unknown key(s) {sorted(unknown)}")
    if "duration" not in spec or "nodes" not in spec:
        raise ValueError(f"application {name!r}: 'duration' and 'nodes' are required")
    T = spec["duration"]
    if isinstance(T, bool) or not isinstance(T, int) or not 1 <= T <= MAX_CELLS:
        raise ValueError(f"application {name!r}: duration must be an integer in [1, "
                         f"{MAX_CELLS}], got {check.shown(T)}")
    for key in ("nodes", "edges"):
        if not isinstance(spec.get(key, []), list):
            raise ValueError(f"application {name!r}: {key!r} must be a list, got "
                             f"{spec[key]!r:.80}")
    names, service, D = [], [], np.zeros((len(spec["nodes"]), T, len(RESOURCES)))
    for i, node in enumerate(spec["nodes"]):
        if not isinstance(node, dict) or not isinstance(node.get("name"), str):
            raise ValueError(f"application {name!r}: node {i} must be an object with a "
                             f"'name' (text), got {node!r:.80}"
                             f"{_quote(node.get('name')) if isinstance(node, dict) else ''}")
        names.append(node["name"])
        service.append(node.get("service"))
        demand = node.get("demand", {})
        if not isinstance(demand, dict):
            raise ValueError(f"application {name!r}, node {node['name']!r}: demand must be an "
                             f"object of resource: number or list, got {demand!r:.80}")
        bad = set(demand) - set(RESOURCES)
        if bad or set(node) - {"name", "service", "demand"}:
            raise ValueError(f"application {name!r}, node {node['name']!r}: unknown key(s) "
                             f"{sorted(bad | (set(node) - {'name', 'service', 'demand'}))}; "
                             f"resources are {list(RESOURCES)}")
        for r, values in demand.items():
            D[i, :, RESOURCES.index(r)] = _json_series(values, T, f"application {name!r}, node "
                                                                  f"{node['name']!r}, demand {r}")
    edges, B = [], []
    for e in spec.get("edges", []):
        if (not isinstance(e, dict) or not {"from", "to"} <= set(e) <= {"from", "to", "bandwidth"}
                or not isinstance(e["from"], str) or not isinstance(e["to"], str)):
            ends = (e.get("from"), e.get("to")) if isinstance(e, dict) else ("",)
            raise ValueError(f"application {name!r}: an edge is an object with 'from' and "
                             f"'to' (node names, text) and 'bandwidth', got {e!r:.120}"
                             + "".join(map(_quote, ends))[:80])
        edges.append((e["from"], e["to"]))
        B.append(_json_series(e.get("bandwidth", 0.0), T,
                              f"application {name!r}, edge {e['from']!r} -> {e['to']!r}, "
                              "bandwidth"))
    return application(name, names, edges, duration=T, weight=spec.get("weight", 1.0),
                       arrival=spec.get("arrival", 0), service=service, demand=D,
                       bandwidth=np.array(B).reshape(len(edges), T))


def _quote(value):
    """The hint for a name a YAML or JSON file gave as a number, boolean or null (`007`
    reads as 7, `true` as True): quote it to keep it text; else nothing."""
    if value is None or isinstance(value, (bool, int, float)):
        return " (a name the file's syntax reads as a number, boolean or null: quote it)"
    return ""


def _json_series(values, T, what):
    """A number (constant over the duration) or a list of T numbers; a number too large for
    a float (an integer of hundreds of digits) is refused naming `what` and its instant."""
    if isinstance(values, (int, float)) and not isinstance(values, bool):
        return np.full(T, check.real(values, what))
    if not isinstance(values, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                               for x in values):
        raise ValueError(f"{what}: a demand is a number or a list of numbers, got {values!r:.200}")
    if len(values) != T:
        raise ValueError(f"{what}: the demand series has {len(values)} instants, the "
                         f"application's duration is {T}")
    return np.array([check.real(x, f"{what} at instant {t}") for t, x in enumerate(values)])


def load_applications(path):
    """Applications from a JSON (or YAML: .yaml, .yml) file.

    The file is {"applications": [...]} or a list, each

        {"name": "etl", "arrival": 0, "duration": 3, "weight": 0.5,
         "nodes": [{"name": "store", "service": 0},
                   {"name": "map", "demand": {"cpu": [2, 4, 0], "mem": 8}},
                   {"name": "reduce", "demand": {"cpu": [0, 0, 3], "io_write": 20}}],
         "edges": [{"from": "store", "to": "map", "bandwidth": [0.2, 0.2, 0]},
                   {"from": "map", "to": "reduce", "bandwidth": 0.1}]}

    Units: cores, GB, MBps for io_write and io_read, Gbps; a demand is a list with one value
    per instant or one number (constant); missing resources are zero; `service` marks a
    cloud service (its index). Node names are text and edges name their nodes ("from",
    "to": never indices); the bounds are `application`'s.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    list of Application
        Sorted by arrival (stable).

    Raises
    ------
    ValueError
        Naming the file, the application and the field; a key beside "applications" (a
        misspelling), naming it.
    """
    spec = _inputs.document(path, "applications")
    if isinstance(spec, dict) and set(spec) != {"applications"}:
        unknown = sorted(set(spec) - {"applications"})
        raise ValueError(f"applications file {path}: "
                         + (f"unknown key(s) {unknown}; " if unknown else "")
                         + "the file is a list of applications or {'applications': [...]}")
    items = spec.get("applications") if isinstance(spec, dict) else spec
    if not isinstance(items, list):
        raise ValueError(f"applications file {path}: expected a list of applications or "
                         "{'applications': [...]}")
    try:
        apps = [_from_dict(a) for a in items]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"applications file {path}: {exc}") from None
    return sorted(apps, key=lambda a: a.arrival)


def load_infrastructure(path):
    """An Infrastructure from a JSON (or YAML: .yaml, .yml) file of its keywords.

    For example

        {"servers": 80, "per_rack": 20, "racks_per_agg": 2, "cores": 16, "memory": 32}

    Keys left out take Infrastructure's defaults ({} is the paper's datacenter).

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    Infrastructure

    Raises
    ------
    ValueError
        An unknown key or a bad value, naming the file.
    """
    spec = _inputs.document(path, "infrastructure")
    where = f"infrastructure file {path}"
    if not isinstance(spec, dict):
        raise ValueError(f"{where}: expected a mapping of Infrastructure's keywords, got "
                         f"{type(spec).__name__}")
    known = inspect.signature(Infrastructure).parameters
    unknown = sorted(set(spec) - set(known))
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}; the keys are {list(known)}")
    try:
        return Infrastructure(**spec)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from None


def read_inputs(infrastructure_path, applications_path):
    """The applications kind's reader (`drfbench run`).

    Parameters
    ----------
    infrastructure_path : str or Path
        `load_infrastructure`'s file.
    applications_path : str or Path
        `load_applications`' file.

    Returns
    -------
    infrastructure : Infrastructure
    applications : list of Application

    Raises
    ------
    ValueError
        Naming the file.
    """
    return load_infrastructure(infrastructure_path), load_applications(applications_path)


def dump_applications(apps, path):
    """Write applications in load_applications' format, atomically: a failure leaves no file.

    Parameters
    ----------
    apps : list of Application
    path : str or Path

    Raises
    ------
    TypeError
        What is not an Application.
    """
    out = []
    for a in apps:
        if not isinstance(a, Application):
            raise TypeError(f"apps must be packer.Application objects, got {type(a).__name__}")
        nodes = []
        for i, n in enumerate(a.nodes):
            node = {"name": n}
            if a.service[i] >= 0:
                node["service"] = int(a.service[i])
            else:
                node["demand"] = {r: a.demand[i, :, k].tolist() for k, r in enumerate(RESOURCES)}
            nodes.append(node)
        edges = [{"from": a.nodes[u], "to": a.nodes[v], "bandwidth": a.bandwidth[e].tolist()}
                 for e, (u, v) in enumerate(a.edges.tolist())]
        out.append({"name": a.name, "arrival": a.arrival, "duration": a.duration,
                    "weight": a.weight, "nodes": nodes, "edges": edges})
    with replacing(path) as tmp:
        tmp.write_text(json.dumps({"applications": out}))
