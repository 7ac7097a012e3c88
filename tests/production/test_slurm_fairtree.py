"""drfbench.production.slurm against Slurm's own test: testsuite/expect/test24.4 ("Test
of Fair Tree multifactor") with its association tree from test24.4.prog.c, SchedMD/slurm
at commit 284c3b95f08a2dc2478499837b03355e1b9c5c75. The expect script matches 35 lines of
sshare's output; each is one case here, its numbers (shown by sshare to 6 decimals)
compared to 5e-7: NormShares, RawUsage, NormUsage, EffectvUsage, FairShare (users) and
LevelFS (blank for the root and for Fairshare=parent).

test24.4.prog.c also sets usage on accounts aC (30), aDA (35) and aG (20); Slurm replaces
an account's usage by its children's sum (the expected RawUsage are 30, 45 and 20), so they
are left out here.
"""
import math

import pytest

from drfbench.production import slurm

P = slurm.PARENT
# name: (parent, shares, usage of a user or None for an account) in the program's order
ASSOCIATIONS = {
    "aA": ("root", 40, None), "aAA": ("aA", 30, None), "aAA|uAA1": ("aAA", 1, 20),
    "aAB": ("aA", 10, None), "aAB|uAB1": ("aAB", 1, 25), "aAB|uAB2": ("aAB", 1, 0),
    "aB": ("root", 60, None), "aBA": ("aB", 25, None), "aBA|uBA1": ("aBA", 1, 25),
    "aBB": ("aB", 35, None), "aBB|uBB1": ("aBB", 1, 0),
    "aC": ("root", 0, None), "aC|uC1": ("aC", 0, 30),
    "aD": ("root", 50, None), "aDA": ("aD", P, None), "aDA|uDA1": ("aDA", P, 10),
    "aDA|uDA2": ("aDA", 30, 10), "aDA|uDA3": ("aDA", 50, 25), "aD|uD1": ("aD", P, 20),
    "aD|uD2": ("aD", 40, 20), "aD|uD3": ("aD", 50, 25),
    "aE": ("root", 10, None), "aE|aE1": ("aE", 10, 0), "aE|aE2": ("aE", 10, 0),
    "root|u1": ("root", 10, 0),
    "aF": ("root", 20, None), "aF|uF1": ("aF", 10, 0), "aF|uF2": ("aF", 20, 0),
    "aG": ("root", 8, None), "aG|uG1": ("aG", 10, 10), "aGA": ("aG", 10, None),
    "aGA|uGA1": ("aGA", 20, 4), "aGA|uGA2": ("aGA", 20, 6),
    "root|u2": ("root", 10, 10),
}

# test24.4's expected lines: Account|User|RawShares|NormShares|RawUsage|NormUsage|
# EffectvUsage|FairShare|LevelFS (the TRES columns dropped).
EXPECTED = """
root|||0.000000|240||1.000000||
root|u1|10|0.048077|0|0.000000|0.000000|1.000000|inf
root|u2|10|0.048077|10|0.041667|0.041667|0.666667|1.153846
aA||40|0.192308|45|0.187500|0.187500||1.025641
aAA||30|0.750000|20|0.083333|0.444444||1.687500
aAA|uAA1|1|1.000000|20|0.083333|1.000000|0.619048|1.000000
aAB||10|0.250000|25|0.104167|0.555556||0.450000
aAB|uAB1|1|0.500000|25|0.104167|1.000000|0.523810|0.500000
aAB|uAB2|1|0.500000|0|0.000000|0.000000|0.571429|inf
aB||60|0.288462|25|0.104167|0.104167||2.769231
aBA||25|0.416667|25|0.104167|1.000000||0.416667
aBA|uBA1|1|1.000000|25|0.104167|1.000000|0.714286|1.000000
aBB||35|0.583333|0|0.000000|0.000000||inf
aBB|uBB1|1|1.000000|0|0.000000|0.000000|0.761905|inf
aC||0|0.000000|30|0.125000|0.125000||0.000000
aC|uC1|0|0.000000|30|0.125000|1.000000|0.047619|0.000000
aD||50|0.240385|110|0.458333|0.458333||0.524476
aD|uD1|parent|0.240385|20|0.083333|0.181818|0.476190|
aD|uD2|40|0.235294|20|0.083333|0.181818|0.238095|1.294118
aD|uD3|50|0.294118|25|0.104167|0.227273|0.333333|1.294118
aDA||parent|0.240385|45|0.187500|0.409091||
aDA|uDA1|parent|0.240385|10|0.041667|0.090909|0.476190|
aDA|uDA2|30|0.176471|10|0.041667|0.090909|0.380952|1.941176
aDA|uDA3|50|0.294118|25|0.104167|0.227273|0.333333|1.294118
aE||10|0.048077|0|0.000000|0.000000||inf
aE|aE1|10|0.500000|0|0.000000|0.000000|1.000000|inf
aE|aE2|10|0.500000|0|0.000000|0.000000|1.000000|inf
aF||20|0.096154|0|0.000000|0.000000||inf
aF|uF1|10|0.333333|0|0.000000|0.000000|1.000000|inf
aF|uF2|20|0.666667|0|0.000000|0.000000|1.000000|inf
aG||8|0.038462|20|0.083333|0.083333||0.461538
aG|uG1|10|0.500000|10|0.041667|0.500000|0.190476|1.000000
aGA||10|0.500000|10|0.041667|0.500000||1.000000
aGA|uGA1|20|0.500000|4|0.016667|0.400000|0.190476|1.250000
aGA|uGA2|20|0.500000|6|0.025000|0.600000|0.095238|0.833333
""".split()


def association_tree():
    tree = {"root": {"parent": None}}
    for name, (parent, shares, usage) in ASSOCIATIONS.items():
        tree[name] = {"parent": parent, "shares": shares}
        if usage is not None:
            tree[name].update(user=True, usage=usage)
    return tree


RESULT = slurm.fair_tree(association_tree())


def shown(text):
    return None if text == "" else float(text)     # float("inf") reads sshare's "inf"


@pytest.mark.parametrize("line", EXPECTED, ids=[line.split("|")[0] + "|" + line.split("|")[1]
                                                for line in EXPECTED])
def test24_4(line):
    account, user, _, norm, raw, norm_usage, effective, fairshare, level = line.split("|")
    got = RESULT[account + ("|" + user if user else "")]
    close = dict(abs=5e-7)
    assert got.norm_shares == pytest.approx(float(norm), **close)
    assert got.usage == pytest.approx(float(raw), **close)
    if norm_usage:
        assert got.norm_usage == pytest.approx(float(norm_usage), **close)
    assert got.effective_usage == pytest.approx(float(effective), **close)
    assert got.fairshare == (None if not fairshare else pytest.approx(float(fairshare), **close))
    if shown(level) is None:
        # the root's and "parent" accounts' Level FS are blank; a "parent" user's, +inf,
        # is blank too in sshare
        assert got.level_fs is None or (user and math.isinf(got.level_fs))
    else:
        assert got.level_fs == pytest.approx(shown(level), **close)


def test24_4_all_35_lines_are_checked():
    assert len(EXPECTED) == 35 and len(RESULT) == 35


def test_uD2_and_uD3_differ_in_level_fs():
    """test24.4's note: uD2 and uD3 do not have the same Level FS (sshare's 6 digits hide
    it), which is why uD3 ties with uDA3 and not with uD2."""
    assert RESULT["aD|uD3"].level_fs == RESULT["aDA|uDA3"].level_fs
    assert RESULT["aD|uD2"].level_fs < RESULT["aD|uD3"].level_fs


def test_decay_halves_in_a_half_life():
    """PriorityDecayHalfLife: usage decays to about half in one half-life (exactly
    (1 - 0.693 / h) ** h, 0.49997 for a week)."""
    week = 7 * 86400
    assert slurm.decayed(100.0, week, week) == pytest.approx(50.0, rel=1e-3)
    assert slurm.decayed(100.0, 2 * week, week) == pytest.approx(25.0, rel=1e-3)
    assert slurm.decayed(100.0, week, 0) == 100.0


def test_billing_sum_and_max_tres():
    """assoc_mgr_tres_weighted: the weighted sum, or with MAX_TRES the largest node TRES
    plus the global ones (here a license)."""
    tres = {"cpu": 4, "mem": 64, "gres/gpu": 1, "license/matlab": 2}
    weights = {"cpu": 1.0, "mem": 0.25, "gres/gpu": 8.0, "license/matlab": 0.5}
    assert slurm.billable(tres, weights) == 4 + 16 + 8 + 1
    assert slurm.billable(tres, weights, max_tres=True,
                          node=["cpu", "mem", "gres/gpu"]) == 16 + 1


@pytest.mark.parametrize("tree, message", [
    ({"r": {"parent": None}, "a": {"parent": "x"}}, "parent 'x' is not an account"),
    ({"r": {"parent": None}, "a": {"parent": "r", "usage": 3}}, "usage is given on users"),
    ({"r": {"parent": None}, "s": {"parent": None}}, "one root"),
    ({"r": {"parent": None}, "u": {"parent": "r", "user": True, "shares": -1}},
     "shares must be"),
])
def test_bad_trees_are_named(tree, message):
    with pytest.raises(ValueError, match=message):
        slurm.fair_tree(tree)
