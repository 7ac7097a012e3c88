"""The fuzz suite for the applications input kind (drfbench.packer): the infrastructure,
applications (Python and JSON), simulate's methods and options, Algorithm 2 and the
workload generator, given values near the bounds and of the wrong shape or type, either
answer within the invariants (capacities and link bandwidths respected, whole applications
or none, finite revenue; guarantees met and the link not exceeded) or refuse with a
ValueError/TypeError (tests/fuzz.py); and the issue's cases as regressions."""
import json
import os
import tempfile

import numpy as np
import pandas as pd
from hypothesis import strategies as st

import drfbench
import fuzz
from drfbench import packer
from drfbench.packer.model import MAX_AMOUNT, MAX_CELLS, MIN_CAPACITY
from test_packer import usage

FUZZED = ("applications",)   # the input kinds this module fuzzes (tests/test_families.py)

METHODS = drfbench.methods(takes="applications")
BIG = 10**400                # an integer too large for a float: OverflowError in float()
WILD = st.sampled_from([0, -1, 1e-300, float("nan"), float("inf"), -float("inf"), 1e308,
                        MAX_AMOUNT * 10, True, "1", None, [1], 2**70, BIG,
                        pd.Timedelta(seconds=1)])
AMOUNTS = st.sampled_from([0.0, MIN_CAPACITY, 0.25, 1.0, 4.0, 16.0, MAX_AMOUNT])
CAPACITIES = st.sampled_from([MIN_CAPACITY, 0.5, 1.0, 16.0, 100.0, MAX_AMOUNT])
KEYWORDS = ("servers", "per_rack", "racks_per_agg", "cores", "memory", "disks", "disk_rate",
            "nic", "tor_link", "agg_link", "services", "service_link")


def maybe(strategy, wild=WILD):
    """Mostly `strategy`, one time in six a wild value (not where hypothesis starts)."""
    return st.tuples(st.integers(0, 5), strategy, wild).map(lambda x: x[2] if x[0] == 5 else x[1])


# ---------------------------------------------------------------------------------------
# Helpers run in the worker (module level: picklable)
# ---------------------------------------------------------------------------------------


def infrastructure(**keywords):
    infra = packer.Infrastructure(**keywords)
    return infra.capacity, infra.link_capacity


def run(infra_keywords, specs, method, options):
    """Build the infrastructure and applications, simulate; plain arrays of the result."""
    infra = packer.Infrastructure(**infra_keywords)
    apps = [packer.application(**spec) for spec in specs]
    res = packer.simulate(infra, apps, method, threads=1, **options)
    used, link = usage(res)
    return dict(placements=res.placements, services=[a.service for a in res.applications],
                server=res.server, link=res.link, used=used, used_link=link,
                capacity=infra.capacity, link_capacity=infra.link_capacity,
                servers=infra.servers, revenue=res.revenue(), utilization=res.utilization(),
                rows=len(res.rows()))


def load(text, name="apps.json"):
    """load_applications on a file `name` holding `text`; (name, nodes, edges by node
    name, demand) per application."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        apps = packer.load_applications(path)
    return [(a.name, a.nodes, [(a.nodes[u], a.nodes[v]) for u, v in a.edges.tolist()], a.demand)
            for a in apps]


# ---------------------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------------------


@st.composite
def applications(draw, wild=True):
    """Keyword arguments of packer.application: a small DAG (edges u -> v, u < v, by name or
    index) near the bounds; with `wild`, sometimes a field of the wrong value or type."""
    V = draw(st.integers(1, 4))
    T = draw(st.integers(1, 4))
    nodes = [f"n{i}" for i in range(V)]
    service = [draw(st.sampled_from([None, None, None, 0])) for _ in range(V)]
    demand = np.array(draw(st.lists(AMOUNTS, min_size=V * T * 4, max_size=V * T * 4))).reshape(V, T, 4)
    demand[[s is not None for s in service]] = 0.0
    pairs = [(u, v) for u in range(V) for v in range(u + 1, V)]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=4)) if pairs else []
    edges = [(nodes[u] if draw(st.booleans()) else u, nodes[v]) for u, v in chosen]
    bandwidth = np.array(draw(st.lists(st.sampled_from([0.0, 0.01, 0.3, 1.0, 5.0]),
                                       min_size=len(edges) * T, max_size=len(edges) * T)))
    spec = dict(name=draw(st.sampled_from(["a", "b", "c"])), nodes=nodes, edges=edges,
                duration=T, weight=draw(st.sampled_from([1e-300, 0.5, 1.0])),
                arrival=draw(st.integers(0, 3)), service=service, demand=demand,
                bandwidth=bandwidth.reshape(len(edges), T))
    if wild and draw(st.integers(0, 4)) == 0:
        field = draw(st.sampled_from(sorted(spec)))
        spec[field] = draw(st.one_of(WILD, st.sampled_from([np.ones(3), [[1, 2], [3]], "xy",
                                                            [("n0",)], [("n0", "n9")]])))
    return spec


INFRA = st.fixed_dictionaries({
    "servers": st.integers(1, 6), "per_rack": st.integers(1, 3), "racks_per_agg": st.integers(1, 2),
    "cores": CAPACITIES, "memory": CAPACITIES, "disks": st.sampled_from([1, 4]),
    "disk_rate": CAPACITIES, "nic": CAPACITIES, "tor_link": CAPACITIES, "agg_link": CAPACITIES,
    "service_link": CAPACITIES})


# ---------------------------------------------------------------------------------------
# The entry points
# ---------------------------------------------------------------------------------------


@fuzz.cases(keywords=st.dictionaries(st.sampled_from(KEYWORDS), maybe(
    st.one_of(st.integers(1, 8), CAPACITIES), st.sampled_from([0, -1, 2**62, MAX_CELLS + 1, 1e13,
                                                               BIG, float("nan"), True, "4",
                                                               None]))))
def test_infrastructure(keywords):
    outcome = fuzz.call(infrastructure, **keywords)
    if outcome.refused:
        return
    capacity, links = outcome.value
    assert np.isfinite(capacity).all() and (capacity >= MIN_CAPACITY).all()
    assert np.isfinite(links).all() and (links >= MIN_CAPACITY).all()


@fuzz.cases(spec=applications())
def test_application(spec):
    outcome = fuzz.call(packer.application, **spec)
    if outcome.refused:
        return
    a = outcome.value
    assert a.demand.shape == (len(a.nodes), a.duration, 4)
    assert np.isfinite(a.demand).all() and 0 <= a.demand.min() and a.demand.max() <= MAX_AMOUNT
    assert a.bandwidth.shape == (len(a.edges), a.duration) and np.isfinite(a.bandwidth).all()
    assert (a.edges[:, 0] != a.edges[:, 1]).all() and 0 < a.weight <= 1
    assert 0 <= a.arrival < MAX_CELLS


@fuzz.cases(infra=INFRA, specs=st.lists(applications(wild=False), min_size=1, max_size=4),
            method=st.sampled_from(METHODS), view=st.sampled_from(["ti-mra", "peak"]))
def test_simulate_respects_capacity_and_places_whole_applications(infra, specs, method, view):
    outcome = fuzz.call(run, infra, specs, method, dict(view=view))
    if outcome.refused:
        return
    r = outcome.value
    cap, link_cap = r["capacity"][:, None, :], r["link_capacity"][:, None]
    assert (r["used"] <= cap * (1 + 1e-9)).all()                    # Eq. 4
    assert (r["used_link"] <= link_cap * (1 + 1e-9)).all()          # Eq. 5
    np.testing.assert_allclose(r["server"], cap - r["used"], atol=1e-9, rtol=1e-9)
    np.testing.assert_allclose(r["link"], link_cap - r["used_link"], atol=1e-9, rtol=1e-9)
    S = r["servers"]
    for p, service in zip(r["placements"], r["services"]):
        if p is not None:                                            # whole, or none at all
            task = service < 0
            assert ((p[task] >= 0) & (p[task] < S)).all()
            assert (p[~task] == S + service[~task]).all()
    assert np.isfinite(r["revenue"]).all() and (r["revenue"] >= 0).all()
    assert np.isfinite(r["utilization"]).all()


@fuzz.cases(specs=st.lists(applications(), min_size=1, max_size=3),
            method=maybe(st.sampled_from(METHODS), st.sampled_from(["bestfit", 3, None])),
            options=st.dictionaries(st.sampled_from(["view", "score", "threads", "isa", "seed"]),
                                    st.sampled_from(["peak", "literal", "bottleneck", 1, 0, -2,
                                                     None, "generic", 2**70])))
def test_simulate_options(specs, method, options):
    infra = dict(servers=4, per_rack=2)
    outcome = fuzz.call(run, infra, specs, method, options)
    if not outcome.refused:
        assert np.isfinite(outcome.value["revenue"]).all()


def edge_ends():
    return maybe(st.sampled_from(["x", "y", "z"]), st.sampled_from([0, 1, None, ["x"], "w"]))


@fuzz.cases(nodes=st.lists(maybe(st.sampled_from(["x", "y", "z"]), st.sampled_from([0, 1, None])),
                           min_size=1, max_size=3, unique_by=repr),
            edges=st.lists(st.tuples(edge_ends(), edge_ends()), max_size=3),
            duration=maybe(st.integers(1, 3)), demand=maybe(st.one_of(
                st.sampled_from([1, [1, 2, 3], {"cpu": 2}, {"cpu": [1, 2, 3]}, {"gpu": 1},
                                 {"mem": "8"}, {"cpu": 1e300}, {"cpu": BIG}, {"cpu": [1, BIG, 1]}])),
                st.sampled_from([5, "cpu", [], None])),
            extra=st.dictionaries(st.sampled_from(["weight", "arrival", "name", "tasks"]), WILD,
                                  max_size=1))
def test_load_applications_matches_edges_by_name(nodes, edges, duration, demand, extra):
    spec = {"name": "a", "duration": duration,
            "nodes": [{"name": n, "demand": demand} if i == 0 else {"name": n}
                      for i, n in enumerate(nodes)],
            "edges": [{"from": u, "to": v, "bandwidth": 0.1} for u, v in edges], **extra}
    try:
        text = json.dumps({"applications": [spec]})
    except (TypeError, ValueError):                     # not JSON (a Timedelta)
        return
    outcome = fuzz.call(load, text)
    if outcome.refused:
        assert "applications file" in str(outcome.error)            # names the file
        return
    ((_, names, by_name, D),) = outcome.value
    assert list(names) == nodes and by_name == [tuple(e) for e in edges]   # never reversed
    assert np.isfinite(D).all()


@fuzz.cases(capacity=maybe(CAPACITIES), n=st.integers(0, 5), data=st.data())
def test_work_conserving(capacity, n, data):
    values = st.lists(maybe(AMOUNTS), min_size=n, max_size=n)
    g, d, w = data.draw(values), data.draw(values), data.draw(values)
    outcome = fuzz.call(packer.work_conserving, capacity, g, d, w)
    if outcome.refused:
        return
    r, g, d = outcome.value, np.asarray(g, float), np.asarray(d, float)
    assert np.isfinite(r).all() and (r >= np.minimum(g, d) * (1 - 1e-12)).all()   # guarantees
    assert (r <= d * (1 + 1e-12)).all() and r.sum() <= capacity * (1 + 1e-9) + 1e-12
    assert g.sum() <= capacity * (1 + 1e-9)                          # feasible, else refused


@fuzz.cases(count=maybe(st.integers(0, 6), st.sampled_from([-1, 10**7, 2.5, True])),
            rate=maybe(st.sampled_from([1e-3, 0.5, 8.0, 1e308])),
            mapreduce=maybe(st.sampled_from([0.0, 0.5, 1.0])), seed=maybe(st.integers(0, 9)))
def test_workload(count, rate, mapreduce, seed):
    outcome = fuzz.call(packer.workload, count, seed, rate=rate, mapreduce=mapreduce)
    if outcome.refused:
        return
    assert len(outcome.value) == count
    assert all(0 <= a.arrival < MAX_CELLS and np.isfinite(a.demand).all() for a in outcome.value)


def pieces(infra_keywords, spec, horizon, t, prices, method):
    """Cluster, place, resource_weights, sort_nodes and revenue on one application; the
    placement, the residual capacities, the weights, the order, the revenue."""
    infra = packer.Infrastructure(**infra_keywords)
    app = packer.application(**spec)
    cluster = packer.Cluster(infra, horizon)
    loc = packer.place(cluster, app, method, threads=1)
    return (loc, cluster.server, cluster.link, infra.capacity, infra.link_capacity,
            packer.resource_weights(cluster, t), packer.sort_nodes(app),
            packer.revenue(app, infra, *prices))


@fuzz.cases(spec=applications(), horizon=maybe(st.integers(7, 9)), t=maybe(st.integers(0, 6)),
            prices=st.tuples(maybe(st.sampled_from([0.0, 1.0, MAX_AMOUNT])), maybe(st.just(1.0))),
            method=st.sampled_from(METHODS))
def test_place_and_the_model_functions(spec, horizon, t, prices, method):
    outcome = fuzz.call(pieces, dict(servers=3, per_rack=2), spec, horizon, t, prices, method)
    if outcome.refused:
        return
    loc, server, link, cap, link_cap, w, order, money = outcome.value
    assert (server >= -1e-9 * cap[:, None, :]).all() and (link >= -1e-9 * link_cap[:, None]).all()
    if loc is None:                                                  # nothing left behind
        assert np.array_equal(server, np.repeat(cap[:, None, :], server.shape[1], axis=1))
        assert np.array_equal(link, np.repeat(link_cap[:, None], link.shape[1], axis=1))
    assert np.isfinite(w).all() and np.isfinite(money).all() and sorted(order) == list(range(len(order)))


def dump_and_load(specs):
    apps = [packer.application(**spec) for spec in specs]
    with tempfile.TemporaryDirectory() as tmp:
        packer.dump_applications(apps, os.path.join(tmp, "a.json"))
        back = packer.load_applications(os.path.join(tmp, "a.json"))
    return [(a.name, a.nodes, a.edges, a.demand, a.bandwidth, a.service, a.weight, a.arrival)
            for a in sorted(apps, key=lambda a: a.arrival)], \
           [(a.name, a.nodes, a.edges, a.demand, a.bandwidth, a.service, a.weight, a.arrival)
            for a in back]


@fuzz.cases(specs=st.lists(applications(wild=False), min_size=1, max_size=3))
def test_dump_and_load_round_trip(specs):
    outcome = fuzz.call(dump_and_load, specs)
    assert not outcome.refused, outcome.error
    for a, b in zip(*outcome.value):
        for x, y in zip(a, b):
            assert np.array_equal(x, y)


def infrastructure_file(keywords):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "infra.json")
        with open(path, "w") as f:
            json.dump(keywords, f)
        return packer.load_infrastructure(path).capacity


@fuzz.cases(keywords=st.dictionaries(st.sampled_from(KEYWORDS + ("racks",)), st.sampled_from(
    [1, 4, 0.5, 0, -1, 1e13, 1e400, BIG, True, "4", None, [1], 2**70])))
def test_load_infrastructure(keywords):
    outcome = fuzz.call(infrastructure_file, keywords)
    if outcome.refused:
        assert isinstance(outcome.error, ValueError) and "infrastructure file" in str(outcome.error)
    else:
        assert np.isfinite(outcome.value).all()


# ---------------------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------------------


def test_guarantees_beyond_the_capacity_are_refused():
    outcome = fuzz.call(packer.work_conserving, 1.0, [0.8, 0.8], [1, 1], [1, 1])
    assert isinstance(outcome.error, ValueError) and "guarantee" in str(outcome.error)
    assert fuzz.call(packer.work_conserving, 1.0, [0.5, 0.5], [1, 1], [1, 1]).value.tolist() == [0.5, 0.5]


def test_integer_node_names_in_json_are_refused_not_read_as_indices():
    spec = {"name": "a", "duration": 2, "nodes": [{"name": 1}, {"name": 0}],
            "edges": [{"from": 1, "to": 0}]}
    outcome = fuzz.call(load, json.dumps([spec]))
    assert isinstance(outcome.error, ValueError) and "'name' (text)" in str(outcome.error)
    spec["nodes"] = [{"name": "1"}, {"name": "0"}]
    outcome = fuzz.call(load, json.dumps([spec]))
    assert "node names, text" in str(outcome.error)
    spec["edges"] = [{"from": "1", "to": "0"}]
    assert fuzz.call(load, json.dumps([spec])).value[0][2] == [("1", "0")]


def test_a_scalar_demand_names_the_application_and_node():
    spec = {"name": "etl", "duration": 2, "nodes": [{"name": "map", "demand": 5}]}
    outcome = fuzz.call(load, json.dumps([spec]))
    assert isinstance(outcome.error, ValueError)
    assert "application 'etl', node 'map': demand" in str(outcome.error)


def test_bounds_of_instants_amounts_and_the_cluster():
    app = dict(name="a", nodes=["x"], duration=2)
    for field, value in [("duration", MAX_CELLS + 1), ("arrival", 2**62), ("weight", float("nan")),
                         ("demand", np.full((1, 2, 4), 1e300)), ("arrival", pd.Timedelta(1))]:
        assert fuzz.call(packer.application, **{**app, field: value}).refused, field
    for field, value in [("cores", 1e300), ("nic", 0.0), ("servers", 2**62), ("disks", True)]:
        assert fuzz.call(infrastructure, **{field: value}).refused, field
    late = dict(app, arrival=MAX_CELLS - 2)                # 4 servers x that horizon: too many cells
    outcome = fuzz.call(run, dict(servers=4, per_rack=2), [late], "packer", {})
    assert isinstance(outcome.error, ValueError) and "MAX_CELLS" in str(outcome.error)
    assert "rate" in str(fuzz.call(packer.workload, 3, 0, rate=1e-300).error)


def read_file(name, text):
    """packer's reader of `name` ("applications.json", "infrastructure.yaml", ...) on a file
    holding `text`; the infrastructure's capacities or the applications' weights."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        if name.startswith("infrastructure"):
            return packer.load_infrastructure(path).capacity
        return [a.weight for a in packer.load_applications(path)]


def test_integers_too_large_for_a_float_name_the_file_and_field():
    """10**400 in any numeric field of the files, or given to the Python API, is a
    ValueError naming the field ("too large (401 digits)"), never an OverflowError."""
    app = {"name": "etl", "duration": 2, "nodes": [{"name": "map", "demand": {"cpu": 1}},
                                                  {"name": "out"}],
           "edges": [{"from": "map", "to": "out", "bandwidth": 0.1}]}

    def node(**keys):
        return {**app, "nodes": [{"name": "map", **keys}, {"name": "out"}]}

    edge = {**app, "edges": [{"from": "map", "to": "out", "bandwidth": [0.1, BIG]}]}
    for spec, field in [(node(demand={"cpu": BIG}), "node 'map', demand cpu is too large"),
                        (node(demand={"io_read": [1, BIG]}), "demand io_read at instant 1 is too large"),
                        (edge, "edge 'map' -> 'out', bandwidth at instant 1 is too large"),
                        ({**app, "weight": BIG}, "weight is too large"),
                        ({**app, "arrival": BIG}, "arrival"), ({**app, "duration": BIG}, "duration"),
                        (node(service=BIG), "service")]:
        for name, text in [("applications.json", json.dumps([spec])),
                           ("applications.yaml", json.dumps({"applications": [spec]}))]:
            outcome = fuzz.call(read_file, name, text)
            assert isinstance(outcome.error, ValueError), (field, outcome)
            message = str(outcome.error)
            assert "applications file" in message and name in message and field in message
            assert "application 'etl'" in message and len(message) < 300, message
    for key in KEYWORDS:
        for name in ("infrastructure.json", "infrastructure.yaml"):
            outcome = fuzz.call(read_file, name, json.dumps({key: BIG}))
            message = str(outcome.error)
            assert isinstance(outcome.error, ValueError) and name in message, (key, outcome)
            assert key in message and "401 digits" in message and len(message) < 200, message
    # the Python API: the same refusals, naming the argument
    for keywords, field in [({"cores": BIG}, "cores is too large (401 digits"),
                            ({"servers": BIG}, "servers must be an integer"),
                            ({"disks": 2, "disk_rate": BIG}, "disk_rate is too large")]:
        outcome = fuzz.call(run, keywords, [dict(name="a", nodes=["x"], duration=1)], "packer", {})
        assert isinstance(outcome.error, ValueError) and field in str(outcome.error), outcome
    spec = dict(name="a", nodes=["x", "y"], edges=[("x", "y")], duration=2)
    for field, value, message in [
            ("weight", BIG, "weight is too large (401 digits"),
            ("demand", [[[1, 0, 0, 0], [0, 0, BIG, 0]], [[0] * 4] * 2], "demand at index (0, 1, 2)"),
            ("bandwidth", [[BIG, 1]], "bandwidth at index (0, 0) is too large"),
            ("arrival", 10**5000, "an integer of 5001 digits")]:
        outcome = fuzz.call(run, {}, [{**spec, field: value}], "packer", {})
        assert isinstance(outcome.error, ValueError) and message in str(outcome.error), outcome
    outcome = fuzz.call(run, dict(servers=2), [{**spec, "demand": np.full((2, 2, 4), 2**70)}],
                        "packer", {})                       # fits a float, not the bound
    assert isinstance(outcome.error, ValueError) and "at most 1e+12" in str(outcome.error)
    for call, message in [((packer.work_conserving, BIG, [1], [1], [1]), "capacity is too large"),
                          ((packer.work_conserving, 4, [1, 1], [1, BIG], [1, 1]),
                           "demand at index (1,) is too large"),
                          ((packer.workload, 3, 0), None)]:
        outcome = fuzz.call(*call, **({"rate": BIG} if message is None else {}))
        assert isinstance(outcome.error, ValueError), outcome
        assert (message or "rate is too large") in str(outcome.error)


def test_an_arrival_is_an_instant_of_the_cell_budget():
    """Arrivals index the residual capacity's MAX_CELLS instants: MAX_CELLS - 1 is the
    last an application can arrive at (and run on one server), MAX_CELLS is refused."""
    app = dict(name="a", nodes=["x"], duration=1)
    assert fuzz.call(packer.application, **app, arrival=MAX_CELLS - 1).value.arrival == MAX_CELLS - 1
    outcome = fuzz.call(packer.application, **app, arrival=MAX_CELLS)
    assert isinstance(outcome.error, ValueError)
    assert f"arrival (an instant) must be an integer in [0, {MAX_CELLS - 1}]" in str(outcome.error)


# names as written in YAML -> the text they stay, or None where YAML reads a number, a
# boolean or null (then the name must be quoted) (issue 34)
YAML_NAMES = {"yes": "yes", "on": "on", "off": "off", "1:30": "1:30", "2024-01-01": "2024-01-01",
              "0b11": "0b11", "map": "map", "007": None, "1e3": None, "true": None,
              "null": None, "0x10": None, "'007'": "007", "'true'": "true"}


def load_yaml(text):
    """load_applications on a YAML file holding `text`: (name, nodes, edges) of each."""
    return [app[:3] for app in load(text, "apps.yaml")]


@fuzz.cases(st.lists(st.sampled_from(sorted(YAML_NAMES)), min_size=3, max_size=3),
            st.sampled_from(["applications", "applications", "aplications", "apps"]))
def test_yaml_names_as_written(names, top):
    """An applications file in YAML: names YAML 1.2 reads as text (yes, on, 1:30, dates)
    are those names; one read as a number, boolean or null is refused with the hint to
    quote it; a top-level key other than `applications` is refused, naming it."""
    app, node, other = names
    text = (f"{top}:\n  - name: {app}\n    duration: 1\n    nodes:\n"
            f"      - {{name: {node}, demand: {{cpu: 1}}}}\n"
            f"      - {{name: other{other}, demand: {{mem: 1}}}}\n"
            f"    edges:\n      - {{from: {node}, to: other{other}}}\n")
    outcome = fuzz.call(load_yaml, text)
    if top != "applications":
        assert outcome.refused and f"unknown key(s) ['{top}']" in str(outcome.error)
        return
    if YAML_NAMES[app] is None or YAML_NAMES[node] is None:
        assert outcome.refused and "quote it" in str(outcome.error), outcome
        return
    assert not outcome.refused, outcome.error
    other_name = f"other{other}"
    assert outcome.value == [(YAML_NAMES[app], (YAML_NAMES[node], other_name),
                              [(YAML_NAMES[node], other_name)])]
