"""DRFQ's middlebox simulator (drfbench.drfq): the kernel against the literal transcription
decision by decision, the properties DRFQ promises (single-resource fair queueing,
weights, max-min, equal dominant shares within the bound, work conservation), the
dovetailing example, determinism, the registry's methods and options, the costs file,
the rows, the evaluation and the pipeline steps, and bad input."""
import dataclasses
import math

import numpy as np
import pytest

import drfbench
from conftest import assert_same
from drfbench import api, drfq, rows
from drfbench.drfq import model
from drfbench.drfq.catalog import STAGE_BUFFER
from drfbench.drfq.__main__ import main

US = 1e-6
LECTURE = [[1 * US, 6 * US], [7 * US, 1 * US]]
METHODS = drfbench.methods(takes="flows")
OUTPUTS = ("served", "dispatched", "arrived", "dropped", "work", "busy_seconds",
           "blocked_seconds", "series", "decisions", "bottleneck")


def random_case(seed):
    """2-6 flows on 1-4 resources with integer-microsecond costs (ties; some zero on a
    resource, never on all), a cycle of 1-2 cost vectors, weights 1-3, every source, small
    buffers (drops), short round trips (many TCP cycles), every packet-cost distribution."""
    rng = np.random.default_rng(seed)
    n, m, K = int(rng.integers(2, 7)), int(rng.integers(1, 5)), int(rng.integers(1, 3))
    costs = rng.integers(0, 4, (n, K, m)).astype(float)
    for i, k in np.argwhere(costs.max(axis=2) == 0):
        costs[i, k, rng.integers(0, m)] = 1.0
    source = [str(s) for s in rng.choice(model.SOURCES, n)]
    rates = [float(rng.choice([1e5, 2.5e5, 5e5])) if s in model.OPEN_LOOP else None for s in source]
    duration = 1e-3
    return costs * US, dict(
        weights=rng.choice([1.0, 2.0, 3.0], n), source=source, rates=rates,
        packet_costs=str(rng.choice(model.PACKET_COSTS)), resource=int(rng.integers(0, m)),
        duration=duration, interval=duration / 7, rtt=float(rng.choice([5e-6, 2e-5])),
        buffer=int(rng.integers(1, 6)), stage_buffer=int(rng.integers(1, 4)),
        initial_window=int(rng.integers(1, 4)), bins=7, seed=seed)


def own(options, method):
    """`options` less those `method` does not take (its registered options: resource
    for fq and bottleneck, interval for bottleneck)."""
    spec = api.method_info(method)
    return {k: v for k, v in options.items() if spec.takes_option(k)}


@pytest.mark.parametrize("method", METHODS)
def test_kernel_equals_literal_transcription(method):
    for seed in range(12):
        costs, options = random_case(seed)
        options = own(options, method)
        kernel = drfq.simulate(costs, method, decisions=True, **options)
        literal = drfq.simulate(costs, method, decisions=True, literal=True, **options)
        assert kernel.dispatched.sum() > 50
        assert_same(kernel, literal, OUTPUTS)


def test_kernel_equals_literal_on_the_lecture_flows():
    for method in METHODS:
        for source in drfq.SOURCES:
            options = own(dict(duration=2e-3, interval=3e-4, rtt=5e-5, source=source, buffer=8,
                               rates=[1.5e5, 1.5e5] if source in model.OPEN_LOOP else None,
                               packet_costs="exponential", decisions=True), method)
            assert_same(drfq.simulate(LECTURE, method, **options),
                        drfq.simulate(LECTURE, method, literal=True, **options), OUTPUTS)


def test_single_resource_drfq_is_fair_queueing():
    """With one resource the dominant resource is it: every fair method makes the
    decisions of SFQ on it."""
    for seed in range(6):
        costs, options = random_case(100 + seed)
        costs = costs.max(axis=2, keepdims=True)
        options.update(resource=0, decisions=True)
        runs = [drfq.simulate(costs, s, **own(options, s))
                for s in ("drfq", "drfq-dovetail", "fq", "bottleneck")]
        for r in runs[1:]:
            assert_same(r, runs[0], OUTPUTS[:-1])      # all but the bottleneck's re-decisions
        assert (runs[3].bottleneck == 0).all()


@pytest.mark.parametrize("method", ["drfq", "fq"])
def test_weights_split_throughput(method):
    """One resource, backlogged flows of equal cost: packets in the weights' ratio, each
    within one packet of it (SFQ's bound)."""
    w = np.array([1.0, 2.0, 3.0])
    r = drfq.simulate([[2 * US]] * 3, method, weights=w, duration=0.01)
    assert r.busy[0] == pytest.approx(1.0)
    per_weight = r.dispatched / w
    assert per_weight.max() - per_weight.min() <= 1.0
    assert np.allclose(r.throughput / r.throughput.sum(), w / w.sum(), rtol=1e-3)


@pytest.mark.parametrize("method", ["drfq", "drfq-dovetail"])
def test_flow_below_its_share_gets_all_it_sends(method):
    """Max-min: a flow sending less than its fair share loses nothing; the backlogged
    flows share the rest equally (dominant shares)."""
    costs = LECTURE + [[2 * US, 2 * US]]
    rate = 3e4                                # its fair dominant share is ~1/3: ~1.7e5 packets/s
    r = drfq.simulate(costs, method, rates=[None, None, rate], duration=0.1)
    assert r.dropped[2] == 0
    assert r.arrived[2] - r.served[2] <= 2
    assert r.throughput[2] == pytest.approx(rate, rel=1e-3)
    assert r.dominant_share[0] == pytest.approx(r.dominant_share[1], rel=1e-3)


def normalized_service(result):
    """Per dispatch, every flow's cumulative normalized dominant service (the sum of its
    packets' dominant costs over its weight), and each flow's largest normalized packet."""
    f = result.flows
    _, flows = result.decisions
    k = np.zeros(f.n, dtype=np.int64)
    total = np.zeros(f.n)
    largest = np.zeros(f.n)
    history = np.empty((len(flows), f.n))
    for step, i in enumerate(flows.tolist()):
        c = np.array([f.packet_cost(i, int(k[i]), j) for j in range(f.m)]) / f.weights[i]
        k[i] += 1
        largest[i] = max(largest[i], c.max())
        total[i] += c.max()
        history[step] = total
    return history, largest


@pytest.mark.parametrize("method,packet_costs", [("drfq", "fixed"), ("drfq", "exponential"),
                                                    ("drfq", "uniform"),
                                                    ("drfq-dovetail", "fixed")])
def test_backlogged_dominant_service_within_the_bound(method, packet_costs):
    """Backlogged flows: after every dispatch, any two flows' normalized dominant services
    differ by at most the larger of their largest normalized packet (SFQ's bound, Goyal et
    al. Theorem 1, on DRFQ's virtual time: the paper's bound of a packet's processing time,
    per pair). Over the run the weighted dominant shares are equal to within it.
    Dovetailing meets it with a fixed cost vector per flow; with per-packet variation it
    credits complementary packets by design (test_dovetailing_...), so no such bound."""
    rng = np.random.default_rng(7)
    for _ in range(4):
        n, m = int(rng.integers(2, 7)), int(rng.integers(2, 5))
        costs = rng.integers(0, 6, (n, m)) * US
        costs[:, 0] += US
        w = rng.choice([1.0, 2.0, 3.0], n)
        r = drfq.simulate(costs, method, weights=w, duration=2e-3, packet_costs=packet_costs,
                          seed=int(rng.integers(100)), decisions=True)
        history, largest = normalized_service(r)
        gap = history[:, :, None] - history[:, None, :]
        allowed = np.maximum(largest[:, None], largest[None, :])
        assert (gap <= allowed[None] * (1 + 1e-9)).all()
        if packet_costs == "fixed":
            share = r.dominant_share / w
            in_flight = (m + (m - 1) * STAGE_BUFFER) * largest.max() / r.settings.duration
            assert share.max() - share.min() <= largest.max() / r.settings.duration + in_flight


def test_lecture_example_gets_the_drf_allocation():
    """<1, 6> and <7, 1> us: DRF's equal dominant shares x (6 us) = y (7 us) with the CPU
    full, x + 7y = 1/us: x = 1/7 and y = 6/49 packets per us, dominant shares 6/7."""
    r = drfq.simulate(LECTURE, "drfq", duration=0.1)
    assert r.throughput == pytest.approx([1e6 / 7, 6e6 / 49], rel=1e-3)
    assert r.dominant_share == pytest.approx([6 / 7, 6 / 7], rel=1e-3)
    assert r.busy[0] == pytest.approx(1.0, rel=1e-4)
    assert np.array_equal(r.dominant_resource, [1, 0])


def test_dovetailing_credits_complementary_packets():
    """The paper's dovetailing example: flow 0 alternates <1, 2> and <2, 1>, flow 1 sends
    <2, 2>. Memoryless DRFQ charges flow 0 its dominant 2 per packet (equal packets);
    dovetailing charges its sums <3, 3> per two packets, so it sends 4 for flow 1's 3."""
    costs = [[[1 * US, 2 * US], [2 * US, 1 * US]], [[2 * US, 2 * US], [2 * US, 2 * US]]]
    memoryless = drfq.simulate(costs, "drfq", duration=0.01)
    dovetail = drfq.simulate(costs, "drfq-dovetail", duration=0.01)
    assert memoryless.throughput[0] / memoryless.throughput[1] == pytest.approx(1.0, rel=1e-3)
    assert dovetail.throughput[0] / dovetail.throughput[1] == pytest.approx(4 / 3, rel=1e-3)
    assert dovetail.busy == pytest.approx([1.0, 1.0], rel=1e-3)


@pytest.mark.parametrize("method", METHODS)
def test_work_conserving(method):
    """A resource never idles while work waits for it: one resource with backlogged flows
    is always busy; in a pipeline, resource 0 always serves or holds a packet; flows
    bound on the NIC keep it busy but for the first packet's way there; open-loop flows
    below capacity lose nothing."""
    single = drfq.simulate([[1 * US], [3 * US], [2 * US]], method, duration=1e-2)
    assert single.busy[0] == pytest.approx(1.0, abs=1e-12)
    r = drfq.simulate(LECTURE + [[2 * US, 3 * US]], method, duration=1e-2,
                      **own({"interval": 1e-3}, method))
    assert r.busy[0] + r.blocked[0] == pytest.approx(1.0, abs=1e-12)
    nic = drfq.simulate([[1 * US, 6 * US], [2 * US, 5 * US]], method, duration=1e-2)
    assert nic.busy[1] >= 1.0 - 2 * US / 1e-2
    light = drfq.simulate(LECTURE, method, rates=[5e4, 5e4], source="poisson", duration=0.05)
    assert light.dropped.sum() == 0
    assert (light.arrived - light.served <= 4).all()


def test_tcp_sources():
    """A TCP flow alone fills the resource when the buffer holds a round trip's packets;
    with a small buffer it loses packets, halves its window and still gets most of the
    capacity; two equal TCP flows under drfq share evenly."""
    tcp = dict(source="tcp", duration=0.2, rtt=1e-4)   # one round trip: 50 packets < the buffer
    alone = drfq.simulate([[2 * US, 1 * US]], "fifo", **tcp)
    assert alone.throughput[0] >= 0.98 * 5e5
    small = drfq.simulate([[2 * US, 1 * US]], "fifo", buffer=5, **tcp)
    assert small.dropped[0] > 0 and small.throughput[0] >= 0.8 * 5e5
    pair = drfq.simulate([[2 * US, 1 * US]] * 2, "drfq", buffer=10, **tcp)
    assert pair.throughput[0] == pytest.approx(pair.throughput[1], rel=0.02)


def test_poisson_and_cost_distributions_have_their_means():
    r = drfq.simulate([[1 * US, 1 * US]], "fifo", rates=[1e5], source="poisson", duration=0.5,
                      packet_costs="exponential", seed=3)
    assert r.arrived[0] / 0.5 == pytest.approx(1e5, rel=0.02)
    assert r.work[0].sum() / r.served[0] == pytest.approx(2 * US, rel=0.02)


def test_bottleneck_oscillates_and_drfq_does_not():
    """Bottleneck fairness on the lecture's flows flips its resource every interval and
    loses throughput; DRFQ holds the DRF allocation."""
    b = drfq.simulate(LECTURE, "bottleneck", duration=0.2, interval=0.01)
    assert len(b.bottleneck) == 19
    assert (np.diff(b.bottleneck) != 0).all()
    d = drfq.simulate(LECTURE, "drfq", duration=0.2)
    assert (b.throughput < d.throughput).all()


def test_same_seed_same_result():
    costs, options = random_case(5)
    options = own(dict(options, decisions=True), "drfq")
    assert_same(drfq.simulate(costs, "drfq", **options), drfq.simulate(costs, "drfq", **options),
                OUTPUTS)
    options.update(packet_costs="exponential")
    other = dict(options, seed=options["seed"] + 1)
    a, b = drfq.simulate(costs, "drfq", **options), drfq.simulate(costs, "drfq", **other)
    assert not np.array_equal(a.work, b.work)


def test_uniform_draws_match_the_kernel_bits():
    """model.uniform is the kernel's generator (exact halves of 2^-52 in (0, 1))."""
    u = [model.uniform(9, s, f, k) for s in range(3) for f in range(3) for k in range(50)]
    assert 0 < min(u) and max(u) < 1
    assert all((x * 2 ** 52 - 0.5).is_integer() for x in u)
    assert np.mean(u) == pytest.approx(0.5, abs=0.05)


def test_results_and_rows():
    r = drfq.simulate(LECTURE, "drfq", weights=[1, 2], rates=[None, 2e4], duration=0.01, bins=5)
    assert r.flows.sources == ["backlogged", "constant"]
    assert r.rates.shape == (5, 2)
    assert np.allclose(r.rates.mean(axis=0), r.throughput)
    table = r.rows()
    assert len(table) == 2
    assert all(c in table[0] for c in rows.PROVENANCE_NAMES)
    assert r.arrived[1] - r.served[1] <= 4      # behind flow 0's packets in the stage buffer
    assert table[1]["throughput"] == pytest.approx(2e4, rel=2e-2)
    assert len(r.series_rows()) == 10
    literal = drfq.simulate(LECTURE, "drfq", duration=1e-4, literal=True)
    assert literal.rows()[0]["literal"] is True


def test_evaluation_rows():
    lecture = drfq.lecture(duration=0.05)
    assert len(lecture) == 2 * 2 * (1 + 6)
    by = {(x["source"], x["scenario"], x["flow"]): x for x in lecture}
    assert by["backlogged", "drfq", 0]["ratio_to_alone"] == pytest.approx(6 / 7, rel=1e-2)
    assert by["tcp", "bottleneck", 1]["lecture_mbps"] == 32
    series = drfq.lecture_series(duration=0.05, bin_width=0.01)
    assert len(series) == 2 * 5 * 2
    sweep = drfq.sweep(flows=(2, 3), resources=(2,), distributions=("dominant",),
                       sources=("backlogged",), packets=50, interval=0.001)
    assert len(sweep) == 2 * len(METHODS)
    assert all(0 < x["share_jain"] <= 1 for x in sweep)
    fair = [x for x in sweep if x["method"] == "drfq"]
    assert all(x["share_spread"] < 0.05 for x in fair)


def test_the_registry_has_every_scheduler_and_its_options():
    """Five methods of kind flows, in the kernel's order; resource only for fq and
    bottleneck, interval only for bottleneck; the model's settings given no option are the
    declared defaults (model.Settings is made from the catalog's SETTINGS)."""
    assert METHODS == model.METHODS
    assert drfbench.methods(family="drfq") == METHODS
    kind = api.KINDS["flows"]
    assert kind.inputs == ("costs",) and kind.properties is None
    takes = {s: {"resource", "interval"} & set(api.method_info(s).options) for s in METHODS}
    assert takes == {"drfq": set(), "drfq-dovetail": set(), "fq": {"resource"},
                     "bottleneck": {"resource", "interval"}, "fifo": set()}
    defaults = api.method_info("bottleneck").defaults()
    settings = model.settings(2, "bottleneck")
    assert [f.name for f in dataclasses.fields(settings)] == ["method", "duration", "resource",
                                                              "interval", "rtt", "buffer",
                                                              "stage_buffer", "initial_window",
                                                              "bins"]
    assert {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)} == \
        {"method": "bottleneck", **{f.name: defaults[f.name]
                                       for f in dataclasses.fields(settings)[1:]}}
    assert (defaults["interval"], defaults["rtt"], defaults["buffer"], defaults["duration"],
            defaults["resource"], defaults["source"]) == (0.3, 1e-3, 100, 1.0, 0, "backlogged")
    with pytest.raises(TypeError, match="settings take no option rate"):
        model.settings(2, "drfq", rate=1.0)


def test_simulate_is_drfbench_run():
    options = dict(duration=1e-3, source="tcp", rtt=1e-5, interval=2e-4, decisions=True)
    assert_same(drfq.simulate(LECTURE, "bottleneck", **options),
                drfbench.run("bottleneck", LECTURE, **options), OUTPUTS)


def test_rows_take_columns():
    r = drfq.simulate(LECTURE, "fq", resource=1, duration=1e-3, bins=2)
    table = r.rows(costs_file="c.csv")
    assert [x["costs_file"] for x in table] == ["c.csv"] * 2
    assert list(table[0])[-len(rows.PROVENANCE_NAMES) - 1:] == ["costs_file", *rows.PROVENANCE_NAMES]
    assert table[0]["resource"] == 1 and table[0]["interval"] is None
    assert all(x["run"] == 7 for x in r.series_rows(run=7))


def test_costs_file(tmp_path):
    """The flows kind's reader: one row per flow, a column per resource in pipeline order."""
    path = tmp_path / "costs.csv"
    path.write_text("cpu,nic\n1e-6,6e-6\n7e-6,1e-6\n")
    assert np.array_equal(api.KINDS["flows"].read(path)[0], LECTURE)
    path.write_text("cpu,nic\n1e-6,6e-6\n0,0\n")
    with pytest.raises(ValueError, match=r"costs file .*costs.csv: line 3 costs 0 on every resource"):
        drfq.read_inputs(path)
    path.write_text("cpu,nic\n1e-6,-6e-6\n")
    with pytest.raises(ValueError, match=r"column 'nic' must hold finite numbers >= 0"):
        drfq.read_inputs(path)


def test_pipeline_steps_write_rows(tmp_path):
    common = ["--duration", "0.02", "--interval", "0.005"]
    main(["lecture", *common, "--sources", "tcp", "--out", str(tmp_path / "l.csv")])
    main(["series", *common, "--bin-width", "0.005", "--out", str(tmp_path / "s.csv")])
    main(["sweep", "--flows", "2", "--resources", "2", "3", "--distributions", "uniform",
          "--sources", "backlogged", "--methods", "drfq", "fifo", "--packets", "20",
          "--interval", "0.001", "--out", str(tmp_path / "w.csv")])
    lecture, series, sweep = (rows.read_rows(tmp_path / f) for f in ("l.csv", "s.csv", "w.csv"))
    assert len(lecture) == 2 * 7 and {x["source"] for x in lecture} == {"tcp"}
    for x in lecture:          # the lecture's packet sizes: its rates alone in Mbps
        bits = {"0": 191 * 6, "1": 33 * 7}[x["flow"]]
        assert int(x["packet_bits"]) == bits
        assert float(x["mbps"]) == pytest.approx(float(x["throughput"]) * bits / 1e6)
    assert len(series) == 2 * 4 * 2
    assert [(x["resources"], x["method"]) for x in sweep] == [
        ("2", "drfq"), ("2", "fifo"), ("3", "drfq"), ("3", "fifo")]


@pytest.mark.parametrize("call,message", [
    (lambda: drfq.simulate([[1e-6, -1e-6]]), "negative"),
    (lambda: drfq.simulate([[1e-6, math.nan]]), "finite"),
    (lambda: drfq.simulate([[1e-6, math.inf]]), "finite"),
    (lambda: drfq.simulate([[1e-6, 2e-6], [1e-6]]), "flow 1's cost vector"),
    (lambda: drfq.simulate([[1e-6, 2e-6], [0.0, 0.0]]), "flow 1 is zero on every resource"),
    (lambda: drfq.simulate([[[1e-6], [0.0]]]), "cost vector 1 of its cycle"),
    (lambda: drfq.simulate([1e-6, 2e-6]), "costs must be"),
    (lambda: drfq.simulate(LECTURE, "wfq"), "unknown method 'wfq'; registered methods taking flows"),
    (lambda: drfq.simulate(LECTURE, "drf"), "method 'drf' takes demands, not flows"),
    (lambda: drfq.simulate(LECTURE, source="udp"), "source must be one of 'backlogged', 'constant', 'poisson', 'tcp'; got 'udp'"),
    (lambda: drfq.simulate(LECTURE, source=["tcp"]), "one per flow"),
    (lambda: drfq.simulate(LECTURE, packet_costs="pareto"), "packet_costs must be one of"),
    (lambda: drfq.simulate(LECTURE, duration=-1.0), r"duration must lie in \(0, 1e\+09\], got -1.0"),
    (lambda: drfq.simulate(LECTURE, duration=0.0), r"duration must lie in \(0, 1e\+09\], got 0.0"),
    (lambda: drfq.simulate(LECTURE, weights=[1, 0]), "flow 1's weight"),
    (lambda: drfq.simulate(LECTURE, weights=[1, 2, 3]), "one entry per flow"),
    (lambda: drfq.simulate(LECTURE, rates=[1e4, -1.0]), "flow 1's rate"),
    (lambda: drfq.simulate(LECTURE, source="poisson", rates=[1e4, None]), "flow 1: source 'poisson' needs a rate"),
    (lambda: drfq.simulate(LECTURE, source=["tcp", "tcp"], rates=[1e4, None]), "takes no rate"),
    (lambda: drfq.simulate(LECTURE, "fq", resource=2), "resource must be"),
    (lambda: drfq.simulate(LECTURE, "drfq", resource=1), "method 'drfq' takes no option resource"),
    (lambda: drfq.simulate(LECTURE, "fq", interval=0.3), "method 'fq' takes no option interval"),
    (lambda: drfbench.run("fifo", LECTURE, threads=2), "method 'fifo' takes no option threads"),
    (lambda: drfq.simulate(LECTURE, "bottleneck", interval=0.0), r"interval must lie in \(0, 1e\+09\]"),
    (lambda: drfq.simulate(LECTURE, "bottleneck", duration=10.0, interval=1e-8), "re-decides"),
    (lambda: drfq.simulate(LECTURE, rtt=math.nan), r"rtt must lie in \(0, 1e\+09\], got nan"),
    (lambda: drfq.simulate(LECTURE, seed=-1), "seed"),
    (lambda: drfq.simulate(LECTURE, literal=True, isa="generic"), "literal transcription has none"),
    (lambda: drfq.sweep(distributions=("zipf",)), "unknown cost distribution"),
])
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_lecture_flows_alone_run_at_the_lectures_mbps():
    """The inferred packet sizes (evaluation.LECTURE_BITS) give backlogged flows alone the
    lecture's 191 and 33 Mbps, and leave DRFQ's fraction of alone as in packets/s."""
    from drfbench.drfq.evaluation import lecture
    rows = {(x["scenario"], x["flow"]): x for x in lecture(sources=("backlogged",), duration=0.05)}
    assert rows["alone", 0]["mbps"] == pytest.approx(191, rel=1e-3)
    assert rows["alone", 1]["mbps"] == pytest.approx(33, rel=1e-3)
    for flow in (0, 1):
        drfq_row, alone = rows["drfq", flow], rows["alone", flow]
        assert drfq_row["mbps"] / alone["mbps"] == pytest.approx(drfq_row["ratio_to_alone"])


def test_flows_take_the_declared_draws_at_their_defaults_and_no_other():
    """model.flows takes the catalog's DRAWS by name (issue 35: declared once), each at its
    declared default unless given; a keyword that is none of them is refused by name."""
    from drfbench.drfq.catalog import DRAWS
    costs = [[1e-6, 6e-6], [7e-6, 1e-6]]
    assert [o.name for o in DRAWS] == ["source", "packet_costs", "seed"]
    given = model.flows(costs, source="backlogged", packet_costs="fixed", seed=0)
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(
        dataclasses.astuple(model.flows(costs)), dataclasses.astuple(given)))
    f = model.flows(costs, source="tcp", packet_costs="exponential", seed=3)
    assert (f.sources, f.packet_costs, f.seed) == (["tcp", "tcp"], 2, 3)
    with pytest.raises(TypeError, match="takes no option duration; its draws: source, "
                       "packet_costs, seed"):
        model.flows(costs, duration=1.0)
