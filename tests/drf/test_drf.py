"""Classic DRF (drfbench.drf, drfbench/drf/drf.pyx): the online scheduler and slot scheduler
against a literal Python loop, the divisible methods on the lecture's worked examples and
against each other / scipy, and the DRF-vs-slots simulator."""
import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp

from cases import seeds, task_policy
from drfbench import drf, sim
from drfbench.drf import literal
from drfbench.drf.properties import lecture_examples, method_of



def random_cluster(rng):
    n, m, M = int(rng.integers(1, 7)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
    D = rng.integers(1, 6, size=(n, m)).astype(float)          # integers: exact ties
    D[rng.random((n, m)) < 0.2] = 0.0
    D[:, 0] = np.maximum(D[:, 0], 1.0)
    C = rng.integers(5, 25, size=(M, m)).astype(float)
    w = None if rng.random() < 0.5 else rng.integers(1, 4, size=n).astype(float)
    tasks = None if rng.random() < 0.5 else rng.choice([0, 1, 3, 10, np.inf], size=n)
    return D, C, w, tasks


# ---------------------------------------------------------------------------------------
# Online DRF
# ---------------------------------------------------------------------------------------


def test_online_drf_lecture_example():
    res = drf.online_drf([[1, 4], [3, 1]], [9, 18])
    assert res.tasks.tolist() == [3, 2]
    np.testing.assert_allclose(res.allocation, [[3, 12], [6, 2]])
    np.testing.assert_allclose(res.shares, [2 / 3, 2 / 3])
    assert res.order_users.tolist() == [0, 1, 0, 1, 0]
    assert res.order_machines.tolist() == [0] * 5


@pytest.mark.parametrize("weights,expected", [([2, 1], [16, 8]), ([1, 3], [6, 18]), ([1, 1], [12, 12])])
def test_online_drf_weights_launch_in_proportion(weights, expected):
    res = drf.online_drf([[1, 1], [1, 1]], [24, 24], weights=weights)
    assert res.tasks.tolist() == expected


def test_online_drf_lecture_dominant_share_example():
    """The lecture's definition: on <10 CPU, 4 GB>, a user allocated <2 CPU, 1 GB> has
    memory as her dominant resource (1/4 > 2/10) and a dominant share of 25%; the worked
    examples' row (drf_examples.csv, REPRODUCTION.md's L14) holds the same allocation."""
    res = drf.online_drf([[2, 1]], [10, 4], tasks=[1])
    np.testing.assert_allclose(res.allocation, [[2, 1]])
    np.testing.assert_allclose(res.shares, [0.25])
    row, = [r for r in lecture_examples() if r["example"].startswith("<10 CPU, 4 GB>")]
    assert (row["tasks"], row["share_0"], row["share_1"]) == pytest.approx((1, 0.2, 0.25))


def test_online_drf_lecture_max_min_example():
    """Max-min fairness "handles if a user uses less than her fair share": user 1 uses
    only 20% of her 33% entitlement, the two others share the rest equally."""
    res = drf.online_drf([[1], [1], [1]], [100], tasks=[20, np.inf, np.inf])
    assert res.tasks.tolist() == [20, 40, 40]


def test_online_drf_finite_queues_and_a_task_that_never_fits():
    res = drf.online_drf([[1, 1], [2, 1], [10, 1]], [9, 9], tasks=[2, np.inf, 5])
    assert res.tasks.tolist() == [2, 3, 0]                    # user 2's task is too big
    res = drf.online_drf([[1, 1], [1, 1]], [10, 10], tasks=[0, 4])
    assert res.tasks.tolist() == [0, 4]


@pytest.mark.parametrize("seed", seeds(150))
def test_online_schedulers_match_the_literal_loop(seed):
    rng = np.random.default_rng(seed)
    D, C, w, tasks = random_cluster(rng)
    slots = 0 if seed % 3 else int(rng.integers(1, 4))
    if slots:
        if tasks is not None:
            tasks = np.where(np.isinf(tasks), 7, tasks)
        res = drf.slot_schedule(D, C, slots, weights=w, tasks=tasks)
    else:
        res = drf.online_drf(D, C, weights=w, tasks=tasks)
    expected = literal.online(D, C, w, tasks, slots)
    assert (res.order_users.tolist(), res.order_machines.tolist()) == \
        (expected.users.tolist(), expected.machines.tolist())
    assert res.decisions <= len(expected.users) + len(D)            # one heap decision per launch or set-aside
    if not slots:
        used = np.zeros_like(C)
        np.add.at(used, res.order_machines, D[res.order_users])
        assert (used <= C * (1 + 1e-12)).all()


def test_the_kernel_and_the_literal_loop_name_their_launches():
    """Both fill kernel.Launches; the kernel's scheduler takes its inputs by name."""
    D, C = np.array([[1.0, 4], [3, 1]]), np.array([[9.0, 18]])
    launches = drf.scheduler(D, C).schedule()
    expected = literal.online(D, C)
    assert launches._fields == expected._fields == ("users", "machines")
    assert launches.users.tolist() == expected.users.tolist() == [0, 1, 0, 1, 0]


def test_online_drf_is_max_min_on_dominant_shares():
    """No user with a smaller dominant share could still fit a task (static, one machine)."""
    rng = np.random.default_rng(7)
    for _ in range(50):
        D = rng.integers(1, 5, size=(5, 3)).astype(float)
        C = np.array([40.0, 30.0, 50.0])
        res = drf.online_drf(D, C)
        free = C - res.allocation.sum(axis=0)
        assert not any((D[i] <= free + 1e-9).all() for i in range(5))     # work conserving
        # a user two tasks ahead of another could have given one up: never the case
        dom = (D / C).max(axis=1)
        for i in range(5):
            for j in range(5):
                if (D[j] <= free + D[i] + 1e-9).all():
                    assert res.shares[i] - dom[i] <= res.shares[j] + dom[j] + 1e-12


def test_scheduler_release_and_add_tasks():
    s = drf.scheduler([[1.0], [1.0]], [2.0])
    users, machines = s.schedule()
    assert sorted(users.tolist()) == [0, 1] and s.schedule()[0].size == 0
    s.release(0, 0)
    assert s.schedule()[0].tolist() == [0]                    # freed capacity goes back
    s = drf.scheduler([[1.0, 1.0], [1.0, 3.0]], [[4.0, 4.0], [4.0, 4.0]], tasks=[0, 0])
    assert s.schedule()[0].size == 0
    s.add_tasks(1, 5)
    users, machines = s.schedule()
    assert users.tolist() == [1, 1] and machines.tolist() == [0, 1]
    s.add_tasks(0, -1)                                        # now infinite
    users, machines = s.schedule()
    assert users.tolist() == [0, 0] and s.queued.tolist() == [-1, 3]   # memory is full
    s.release(1, 0)
    # machine 0 now has <3, 3> free; user 0 (share 2/8) goes first, ties at 3/8 go to the
    # lower index, then user 1's <1, 3> no longer fits and user 0 takes the rest
    assert s.schedule()[0].tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="no task running"):
        drf.scheduler([[1.0]], [2.0]).release(0, 0)
    with pytest.raises(IndexError):
        s.release(5, 0)


def test_scheduler_dynamic_matches_reference_after_releases():
    """Interleave releases and schedules; after each schedule, the kernel's state equals a
    fresh literal run on the remaining capacity with the running tasks as a starting point."""
    rng = np.random.default_rng(3)
    D = np.array([[1.0, 2.0], [2.0, 1.0], [1.0, 1.0]])
    C = np.array([[6.0, 6.0], [5.0, 7.0]])
    s = drf.scheduler(D, C)
    running = []
    for _ in range(30):
        users, machines = s.schedule()
        running += list(zip(users.tolist(), machines.tolist()))
        used = np.zeros_like(C)
        for i, k in running:
            used[k] += D[i]
        assert (used <= C + 1e-9).all()
        np.testing.assert_allclose(s.usage, used, atol=1e-9)
        assert not any((used[k] + D[i] <= C[k] + 1e-9).all() for i in range(3) for k in range(2))
        for _ in range(int(rng.integers(1, 4))):
            i, k = running.pop(int(rng.integers(len(running))))
            s.release(i, k)


def test_slot_schedule_counts_slots_not_resources():
    res = drf.slot_schedule([[2, 2], [1, 0.5]], [[4, 15]] * 3, 4)
    assert res.tasks.tolist() == [6, 6]                       # 12 slots, equal counts
    assert res.allocation.sum(axis=0)[0] == 18                # 12 CPUs oversubscribed to 18
    res = drf.slot_schedule([[1, 1], [1, 1]], [[1, 1]] * 3, 2, weights=[2, 1])
    assert res.tasks.tolist() == [4, 2]


@pytest.mark.parametrize("kwargs,error", [
    (dict(demands=[[-1, 1]], capacity=[1, 1]), "non-negative"),
    (dict(demands=[[1, 1]], capacity=[1, 1, 1]), "must have 2 resource"),
    (dict(demands=[[0, 0]], capacity=[1, 1]), "all-zero tasks"),
    (dict(demands=[[1, 1]], capacity=[1, 1], tasks=[1.5]), "whole number"),
    (dict(demands=[[1, 1]], capacity=[1, 1], tasks=[-1]), "non-negative"),
    (dict(demands=[[1, 1]], capacity=[1, 1], weights=[0]), "positive"),
    (dict(demands=[1, 1], capacity=[1, 1]), "2-D"),
    (dict(demands=[[np.nan, 1]], capacity=[1, 1]), "must be finite: nan"),
])
def test_scheduler_rejects_bad_input(kwargs, error):
    with pytest.raises((ValueError, TypeError), match=error):
        drf.online_drf(**kwargs)


# ---------------------------------------------------------------------------------------
# Divisible methods
# ---------------------------------------------------------------------------------------

LECTURE = np.array([[1 / 9, 4 / 18], [3 / 9, 1 / 18]])


def random_divisible(rng, zeros=0.3):
    n, m = int(rng.integers(1, 7)), int(rng.integers(1, 5))
    D = rng.uniform(0.01, 1.0, size=(n, m)) if rng.random() < 0.7 else rng.integers(1, 9, size=(n, m)) / 8
    D[rng.random((n, m)) < zeros] = 0.0
    w = None if rng.random() < 0.5 else rng.integers(1, 4, size=n).astype(float)
    return D, w


def test_lecture_examples():
    np.testing.assert_allclose(drf.utilities(LECTURE, drf.drf(LECTURE)), [3, 2])
    np.testing.assert_allclose(drf.utilities(LECTURE, drf.ceei(LECTURE)), [45 / 11, 18 / 11], rtol=1e-9)
    np.testing.assert_allclose(drf.drf(LECTURE).max(axis=1), [2 / 3, 2 / 3])   # equal dominant shares
    # "DRF more fair, CEEI better utilization": CEEI uses all of both resources, DRF 7/9 of the memory
    np.testing.assert_allclose(drf.ceei(LECTURE).sum(axis=0), [1, 1], rtol=1e-9)
    np.testing.assert_allclose(drf.drf(LECTURE).sum(axis=0), [1, 7 / 9])
    lie = LECTURE.copy()
    lie[1, 1] = 2 / 18
    np.testing.assert_allclose(drf.utilities(LECTURE, drf.ceei(lie)), [3.6, 1.8], rtol=1e-9)
    # "User 2 increased her share of both CPU and memory" by lying under CEEI; not under DRF
    assert (drf.ceei(lie)[1] > drf.ceei(LECTURE)[1] + 0.05).all()
    np.testing.assert_allclose(drf.utilities(LECTURE, drf.drf(lie))[1], 2)
    asset = np.array([[2, 2], [1, 2]]) / 70
    A = drf.asset_fairness(asset)
    np.testing.assert_allclose(drf.utilities(asset, A), [15, 20])
    np.testing.assert_allclose(A.sum(axis=1), [60 / 70, 60 / 70])   # equal sums of shares
    assert (A[0] < 0.5).all()                # "User 1 has < 50% of both CPUs and RAM"
    np.testing.assert_allclose(drf.drf(asset)[0], [0.5, 0.5])        # DRF: half of both


def test_drf_population_monotonicity_fails_with_zero_demands():
    """The lecture's table marks DRF population-monotone; with zero demands it is not:
    A <0, 1>, B <1, 0>, C <1, 0.5>. With B, resource 1 fills first (B and C at dominant
    share 1/2) and A takes the rest of resource 2, 3/4; without B, A and C share
    resource 2 and A gets 2/3. With every demand positive no such example exists (the
    property table's checks, drf_properties.csv)."""
    D = np.array([[0, 1], [1, 0], [1, 0.5]])
    np.testing.assert_allclose(drf.utilities(D, drf.drf(D)), [3 / 4, 1 / 2, 1 / 2])
    without_b = D[[0, 2]]
    np.testing.assert_allclose(drf.utilities(without_b, drf.drf(without_b)), [2 / 3, 2 / 3])


def test_lecture_single_resource_example():
    """1,000,000 CPUs, tasks of 1 and 3 CPUs: DRF is max-min fairness, half the CPUs each."""
    rows = [r for r in lecture_examples() if r["example"].startswith("<1,000,000 CPU>")]
    assert [r["tasks"] for r in rows] == pytest.approx([500_000, 500_000 / 3])
    assert [r["share_0"] for r in rows] == pytest.approx([0.5, 0.5])


def test_lecture_weighted_example():
    """The lecture's weights: 9 : 1 gives dominant shares 9 : 1 (memory runs out first:
    user 2 gets 18/55 tasks, user 1 13.5 times as many); 10^10 : 10 is priority: user 1
    takes all the memory it can use (4.5 tasks), user 2 next to nothing."""
    rows = {(r["example"], r["user"]): r for r in lecture_examples()
            if "weights" in r["example"]}
    nine = [rows["<9 CPU, 18 GB>, weights 9 : 1 (the lecture's weighted fairness)", u] for u in (1, 2)]
    assert [r["tasks"] for r in nine] == pytest.approx([13.5 * 18 / 55, 18 / 55])
    assert nine[0]["share_1"] / nine[1]["share_0"] == pytest.approx(9)
    priority = [rows["<9 CPU, 18 GB>, weights 10^10 : 10 (the lecture's weighted fairness)", u]
                for u in (1, 2)]
    assert priority[0]["tasks"] == pytest.approx(4.5, rel=1e-6) and priority[1]["tasks"] < 1e-6


@pytest.mark.parametrize("seed", seeds(100))
def test_drf_matches_the_edrf_kernel_and_dcdrf_at_zero(seed):
    D, w = random_divisible(np.random.default_rng(seed))
    A = drf.drf(D, w)
    np.testing.assert_allclose(method_of("edrf")(D, w), A, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(method_of("dcdrf", epsilon=0.0)(D, w), A, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", seeds(60))
def test_progressive_filling_invariants(seed):
    """Feasible, proportional to demand, and max-min fair on the measure: every user with
    demand uses a full resource on which no other user has a higher (weighted) level."""
    D, w = random_divisible(np.random.default_rng(100 + seed))
    weights = np.ones(len(D)) if w is None else w
    for method, measure in ((drf.drf, lambda A: A.max(axis=1)), (drf.asset_fairness, lambda A: A.sum(axis=1))):
        A = method(D, w)
        load = A.sum(axis=0)
        assert (load <= 1 + 1e-9).all()
        u = drf.utilities(D, A)
        np.testing.assert_allclose(A, u[:, None] * D, atol=1e-12)
        full = load >= 1 - 1e-9
        level = measure(A) / weights
        for i in np.flatnonzero((D > 0).any(axis=1)):
            assert any(level[i] >= level[D[:, r] > 0].max() * (1 - 1e-9)
                       for r in np.flatnonzero(full & (D[i] > 0)))


def primal_ceei(D, w):
    """The Eisenberg-Gale program solved in the primal with SLSQP (slow, for comparison)."""
    n = len(D)

    def objective(logx):
        return -w @ logx, -w

    cons = {"type": "ineq", "fun": lambda logx: 1 - D.T @ np.exp(logx),
            "jac": lambda logx: -(D.T * np.exp(logx))}
    start = np.log(np.full(n, 0.5 / max(D.sum(axis=0).max(), 1e-9)))
    res = scipy.optimize.minimize(objective, start, jac=True, constraints=[cons], method="SLSQP",
                                  options={"ftol": 1e-14, "maxiter": 1000})
    return np.exp(res.x)


@pytest.mark.parametrize("seed", seeds(40))
def test_ceei_is_optimal(seed):
    rng = np.random.default_rng(200 + seed)
    D, w = random_divisible(rng, zeros=0.2)
    D = D[(D > 0).any(axis=1)]
    if len(D) == 0:
        return
    w = rng.integers(1, 4, size=len(D)).astype(float) if seed % 2 else np.ones(len(D))
    A = drf.ceei(D, w)
    assert (A.sum(axis=0) <= 1 + 1e-12).all()
    x = drf.utilities(D, A)
    other = primal_ceei(D, w)
    assert w @ np.log(x) >= w @ np.log(other) - 1e-9
    np.testing.assert_allclose(x, other, rtol=1e-4)
    # no feasible direction improves the objective: perturbations stay below
    for _ in range(20):
        y = x * np.exp(rng.normal(0, 0.01, size=len(x)))
        y = y / max(1.0, (D.T @ y).max())
        assert w @ np.log(y) <= w @ np.log(x) + 1e-12


def test_single_resource_every_policy_splits_equally():
    D = np.array([[0.1], [0.5], [1.0]])
    for method in (drf.drf, drf.asset_fairness, drf.ceei, method_of("edrf"), method_of("dcdrf", epsilon=0.1)):
        np.testing.assert_allclose(method(D)[:, 0], [1 / 3] * 3, rtol=1e-9)
    np.testing.assert_allclose(drf.drf(D, [1, 2, 1])[:, 0], [0.25, 0.5, 0.25])


def test_policies_leave_all_zero_users_out():
    D = np.array([[0.5, 0.2], [0.0, 0.0], [0.1, 0.4]])
    for method in (drf.drf, drf.asset_fairness, drf.ceei, method_of("edrf")):
        A = method(D)
        assert (A[1] == 0).all() and (A[[0, 2]] > 0).all()
    assert drf.utilities(D, drf.drf(D))[1] == 0


def test_policies_accept_sparse_and_rows_above_one():
    D = sp.csr_array(LECTURE * 9)                           # rows above 1: only direction matters
    np.testing.assert_allclose(method_of("edrf")(D), drf.drf(LECTURE), rtol=1e-12)
    np.testing.assert_allclose(drf.drf(D), drf.drf(LECTURE), rtol=1e-12)


# ---------------------------------------------------------------------------------------
# The DRF-vs-slots simulation
# ---------------------------------------------------------------------------------------


def small_simulation(slots):
    """Two backlog users on drfbench.sim; rows with the user as its job type's name."""
    cluster = np.tile([4.0, 15.0], (4, 1))
    backlog = sim.Backlog([(2, 2), (1, 0.5)], tasks_per_job=[4, 4], duration=[10.0, 10.0])
    res = sim.simulate(cluster, backlog, task_policy(backlog.demands, cluster, slots),
                       horizon=200.0, sample=20.0)
    names = ["Type 1", "Type 2"]
    return [{**row, "job_type": names[row["user"]]} for row in res.rows if row["user"] is not None]


def finished(rows):
    out = {}
    for r in rows:
        if r["metric"] == "jobs_finished":
            assert r["value"] == out.get(r["job_type"], 0) + 1          # one row per job, in order
            out[r["job_type"]] = r["value"]
    return out


def test_simulation_drf_gives_equal_dominant_shares():
    rows = small_simulation(0)
    done = finished(rows)
    # 16 CPUs: DRF runs 4 type-1 tasks (8 CPU) and 8 type-2 tasks (8 CPU): 2x the jobs
    assert done == {"Type 1": 20, "Type 2": 40}
    shares = [r["value"] for r in rows if r["metric"] == "share_0" and r["time"] > 0]
    assert max(shares) <= 0.5 + 1e-9
    speeds = [r["value"] for r in rows if r["metric"] == "speed" and r["time"] > 0]
    assert min(speeds) == 1.0                                      # DRF never oversubscribes


def test_simulation_slots_share_slots_equally_and_oversubscribe():
    done = finished(small_simulation(4))
    # 16 slots, 8 each: 16 + 8 = 24 CPUs wanted on 16, tasks slowed 1.5x on average
    assert done["Type 1"] == done["Type 2"] or abs(done["Type 1"] - done["Type 2"]) <= 1
    assert done["Type 1"] > 20 and done["Type 2"] < 40
    done = finished(small_simulation(2))                           # 8 slots: CPUs left idle
    assert done["Type 1"] + done["Type 2"] < 60


def test_drf_vs_slots_reproduces_the_original_simulator():
    # Numbers from drfbench.drf.simulate_cluster before it moved onto drfbench.sim (same
    # seed, same jitter draws, same float operations): they must not change, but for the
    # last bit of one completion on a time-shared machine (296.4929660711766 before the
    # clock kept due times, issue 34: remaining work is no longer taken off step by step).
    types = [drf.JobType("A", (3, 1.5), 5, 30.0), drf.JobType("B", (0.7, 2.2), 3, 20.0)]
    rows = drf.drf_vs_slots(np.tile([4.0, 15.0], (3, 1)), types, [3], horizon=300.0, jitter=0.3,
                            seed=7, sample=50.0)
    expected = {
        0: (80, [("B", 294.9094071077968, 34), ("B", 298.3526518121991, 35)],
            [0.5, 0.06666666666666667, 1.0, 0.40833333333333327, 0.34222222222222226, 1.0]),
        3: (62, [("B", 268.718718037078, 14), ("B", 296.4929660711767, 15)],
            [0.8242876526458615, 0.10990502035278153, 0.6594301221166893, 0.1757123473541384,
             0.1472636815920398, 0.7530529172320217]),
    }
    for slots, (count, last_done, at_horizon) in expected.items():
        mine = [r for r in rows if r["slots"] == slots]
        assert len(mine) == count
        done = [(r["job_type"], r["time"], r["value"]) for r in mine if r["metric"] == "jobs_finished"]
        assert done[-2:] == last_done
        assert [r["value"] for r in mine if r["time"] == 300.0] == at_horizon


def test_simulation_cli_writes_tidy_csv(tmp_path):
    from drfbench.drf.__main__ import main
    out = tmp_path / "slots.csv"
    main(["slots", "--machines", "2", "--horizon", "120", "--slots", "2", "--tasks-per-job", "2",
              "--duration", "10", "--out", str(out)])
    text = out.read_text().splitlines()
    assert text[0].startswith("method,slots,job_type,time,metric,value")
    assert any(line.startswith("DRF,0,Type 2,") for line in text)
    assert any(line.startswith("slots (k=2),2,Type 1,") for line in text)
