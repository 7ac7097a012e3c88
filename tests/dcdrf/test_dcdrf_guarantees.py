"""DC-DRF's §3 guarantees (drfbench.dcdrf.guarantees) against literal transcriptions: Lemma
3.1's loop with mu fixed written out in plain Python, the checks recomputed by brute force
from literal.dcdrf and literal.edrf, and worked examples of the 1/(1 - eps) bound."""
import math

import numpy as np
import pytest

from drfbench import rows as tidy
from drfbench.dcdrf import guarantees, literal
from drfbench.properties import misreports


def lemma_loop(D, eps):
    """Algorithm 2's inner loop with mu_tr = mu_1r throughout (Lemma 3.1's first
    assumption), in plain Python: its iterations and c = min_r mu_1r / max_r mu_1r."""
    n, m = len(D), len(D[0])
    d = [[D[i][r] / max(D[i]) for r in range(m)] for i in range(n)]
    mu = [sum(d[i][r] for i in range(n)) for r in range(m)]
    s = [1.0] * m
    S = set(range(n))
    t = 0
    while S:
        live = [r for r in range(m) if any(d[i][r] > 0 for i in S)]
        x = min(s[r] / mu[r] for r in live)
        s = [s[r] - x * mu[r] for r in range(m)]
        S = {i for i in S if all(s[r] > eps + literal.SLACK for r in range(m) if d[i][r] > 0)}
        t += 1
    positive = [v for v in mu if v > 0]
    return t, min(positive) / max(positive)


@pytest.mark.parametrize("seed", range(40))
def test_fixed_mu_loop_matches_its_transcription_and_the_lemma(seed):
    rng = np.random.default_rng(seed)
    eps = [0.01, 0.05, 0.1, 0.3][seed % 4]
    D = (guarantees.regular_instance(int(rng.integers(2, 12)), rng) if seed % 2
         else rng.uniform(0.01, 1, size=(int(rng.integers(2, 9)), int(rng.integers(2, 7)))))
    t, c = guarantees.fixed_mu_rounds(D, eps)
    want_t, want_c = lemma_loop(D.tolist(), eps)
    assert t == want_t and math.isclose(c, want_c, rel_tol=1e-12)
    assert t < 1 + math.log(c) / math.log(1 - eps) + 1e-9       # Lemma 3.1
    assert guarantees.lemma_bound(c, eps) == 1 + math.log(c) / math.log(1 - eps)


def test_bound_worked_examples():
    # C alone on resource 1: round 1 exhausts resource 0 (A and B leave) with half of
    # resource 1 left; at eps = 0.6 C leaves with 0.5 tasks, EDRF gives it 1: ratio 2,
    # within 1 / (1 - 0.6) = 2.5, and checked, since nobody else demands resource 1.
    D = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    assert guarantees.fairness_bound([D], 0.6) == (1, 0, 2.0, 2.0)
    # A shares resource 0 with B, which resource 1 exhausted in round 1 (0.25 of resource
    # 0 left): at eps = 0.3 A leaves with 0.5 tasks, EDRF gives it 0.75. A ratio of 1.5
    # above 1 / 0.7, but not checked: B is bottlenecked elsewhere (the paper's exception).
    D = np.array([[1.0, 0.0], [0.5, 1.0], [0.0, 1.0]])
    checked, violated, worst, worst_any = guarantees.fairness_bound([D], 0.3)
    assert (checked, violated, worst) == (0, 0, 1.0) and math.isclose(worst_any, 1.5)


def brute_force(D, eps, seed, index, random_misreports=4):
    """Per instance, by the checks' definitions from literal.dcdrf: the largest free
    fraction a tenant's resources leave it, and the largest dominant-share gain of a
    misreport (the same reports the check tries)."""
    def tasks(A, i):
        return min(A[i, r] / D[i, r] for r in range(D.shape[1]) if D[i, r] > 0)
    A = literal.dcdrf(D, epsilon=eps)[0]
    free = 1 - A.sum(axis=0)
    slack = max(min(free[r] for r in range(D.shape[1]) if D[i, r] > 0) for i in range(len(D)))
    rng = np.random.default_rng([seed, index])
    gain = 0.0
    for i in range(len(D)):
        for report in misreports(D[i], rng, random_misreports):
            lie = D.copy()
            lie[i] = report
            gain = max(gain, (tasks(literal.dcdrf(lie, epsilon=eps)[0], i) - tasks(A, i)) * D[i].max())
    return slack, gain


@pytest.mark.parametrize("eps", [0.05, 0.2])
def test_pareto_and_strategy_proofness_checks_by_brute_force(eps):
    instances = guarantees.random_instances(12, seed=5)
    found = [brute_force(D, eps, 5, k) for k, D in enumerate(instances)]
    checked, violated, worst, _ = guarantees.pareto_epsilon(instances, eps)
    assert (checked, violated) == (12, sum(s > eps + guarantees.TOL for s, _ in found))
    assert math.isclose(worst, max(s for s, _ in found), abs_tol=1e-15)
    checked, violated, worst, _ = guarantees.strategy_proofness_epsilon(instances, eps, seed=5)
    assert (checked, violated) == (12, sum(g > eps + guarantees.TOL for _, g in found))
    assert math.isclose(worst, max(0.0, *(g for _, g in found)), abs_tol=1e-15)


def test_table_rows(tmp_path):
    rows = guarantees.table(instances=6, bound_instances=20, seed=1, epsilons=(0.1,),
                            resources=(4,), lemma_instances=2)
    assert [r["check"] for r in rows] == list(guarantees.CHECKS)
    assert all(r["holds"] == (r["violated"] == 0) for r in rows)
    path = tidy.write(rows, tmp_path / "guarantees.csv")
    table = tidy.read(path)
    assert list(table.columns[:len(guarantees.COLUMNS)]) == list(guarantees.COLUMNS)
    lemma = table[table["check"] == "lemma_3_1"].iloc[0]
    assert lemma["tenants"] == 16 and lemma["worst_ratio"] < 1


@pytest.mark.parametrize("epsilons,message", [(["0"], "--epsilons must each be > 0"),
                                              (["0.1", "1"], "argument --epsilons: must be a "
                                               "finite number >= 0 and < 1, got '1'"),
                                              ([], "required: --epsilons")])
def test_the_step_sweeps_the_declared_epsilon(tmp_path, capsys, epsilons, message):
    """--epsilons is a sweep of DC-DRF's declared epsilon (catalog.STEP_SWEEPS): the
    declaration's bounds [0, 1), and the step's own > 0; refused in one line, status 2,
    nothing written."""
    from drfbench.dcdrf.__main__ import main
    out = tmp_path / "g.csv"
    args = ["guarantees", "--out", str(out), "--instances", "2", "--bound-instances", "2",
            "--resources", "16", "--lemma-instances", "1"]
    with pytest.raises(SystemExit) as exit_:
        main(args + (["--epsilons", *epsilons] if epsilons else []))
    assert exit_.value.code == 2 and message in capsys.readouterr().err and not out.exists()
