"""Slurm's Fair Tree: Level FS per association and the FairShare factor per user, with the
usage it is computed from (TRES billing, decayed with a half-life).

Restated from SchedMD/slurm at commit 284c3b95f08a2dc2478499837b03355e1b9c5c75
(2026-08-20): src/plugins/priority/multifactor/fair_tree.c (_calc_assoc_fs,
_cmp_level_fs, _calc_tree_fs), src/common/assoc_mgr.c (fs_assoc_ptr and children lists,
level_shares, _normalize_assoc_shares_fair_tree, assoc_mgr_tres_weighted) and
src/plugins/priority/multifactor/priority_multifactor.c (the decay factor); the algorithm
as doc/html/fair_tree.shtml describes it.

- An association with shares "parent" (Fairshare=parent, SLURMDB_FS_USE_PARENT) is looked
  through: its children, and it, rank among the children of its nearest ancestor that is
  not "parent" (their fair-share parent), and it adds no shares there;
- S = shares / the sum of the shares of the fair-share parent's children ("parent" ones
  count 0; a "parent" association takes its fair-share parent's S);
- U = usage / the fair-share parent's usage (an account's usage is its children's sum);
- Level FS = S / U (+inf when U = 0; 0 when S = 0); a "parent" user gets +inf, a
  "parent" account none;
- from the root down, each list of siblings sorted by Level FS, highest first (users
  before accounts on ties; otherwise in the order given), users take ranks N, N-1, ...
  (N users in all) and FairShare = rank / N; a user tied with the sibling before it, or
  first under an account tied with the sibling before that account, keeps the rank
  before.

The page's tie rule "sibling accounts with the same Level FS have their children merged
before sorting" is not what the code does: _count_tied_accounts stops at the first account
after the tied one (since the algorithm's first commit, 2014), so tied accounts are ranked
one after the other, the second starting tied. This module follows the code; Slurm's
test24.4 passes either way (its tied accounts aE and aF only hold users of Level FS +inf).
"""
import math
import numbers
from typing import NamedTuple

PARENT = "parent"          # shares of an association that uses its parent's fair share
NO_VAL = 4294967294.0     # Slurm's NO_VAL, the Level FS of a "parent" account
DECAY_LN2 = 0.693          # priority_multifactor.c: decay_factor = 1 - 0.693 / half-life


class Association(NamedTuple):
    """Fair Tree's numbers for one association (sshare's columns).

    Attributes
    ----------
    norm_shares : float
        S.
    usage : float
        RawUsage.
    norm_usage : float
        The usage over the root's.
    effective_usage : float
        U.
    level_fs : float
        None for the root and for "parent" accounts.
    fairshare : float
        Users only, else None.
    """
    norm_shares: float       # S
    usage: float             # RawUsage
    norm_usage: float        # usage / the root's
    effective_usage: float   # U
    level_fs: float          # None for the root and for "parent" accounts
    fairshare: float         # users only, else None


def _number(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or \
            not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be a finite number >= 0, got {value!r:.80}")
    return float(value)


def fair_tree(tree):
    """Fair Tree over an association tree.

    Parameters
    ----------
    tree : dict
        Each association's name to a dict with `parent` (a name; None for the one root),
        `user` (True for a user association, a leaf), `shares` (raw shares `>= 0`, or
        "parent"; not for the root) and, on users only, `usage` (`>= 0`, already decayed and
        billed: see `decayed` and `billable`).

    Returns
    -------
    dict
        `{name: Association}`.

    Raises
    ------
    ValueError
        Not one root, a root with shares "parent", an association not descending from the
        root, unknown keys, a parent that is not an account, usage on an account.
    """
    parent, user, shares, usage = {}, {}, {}, {}
    for name, a in tree.items():
        unknown = set(a) - {"parent", "user", "shares", "usage"}
        if unknown:
            raise ValueError(f"association {name!r}: unknown keys {sorted(unknown)}")
        parent[name], user[name] = a.get("parent"), bool(a.get("user", False))
        if parent[name] is not None and (parent[name] not in tree or user[parent[name]]):
            raise ValueError(f"association {name!r}: parent {parent[name]!r} is not an account")
        s = a.get("shares", 1 if parent[name] is not None else None)
        shares[name] = s if s in (PARENT, None) else _number(s, f"association {name!r}: shares")
        if "usage" in a and not user[name]:
            raise ValueError(f"association {name!r}: usage is given on users only "
                             "(an account's is its children's sum)")
        usage[name] = _number(a.get("usage", 0), f"association {name!r}: usage")
    roots = [n for n in tree if parent[n] is None]
    if len(roots) != 1:
        raise ValueError(f"the tree must have one root (no parent), got {roots}")
    root = roots[0]
    if user[root] or shares[root] == PARENT:
        raise ValueError(f"the root {root!r} must be an account without shares 'parent'")

    children = {n: [] for n in tree}
    for n in tree:
        if parent[n] is not None:
            children[parent[n]].append(n)
    order, stack = [], [root]
    while stack:                                   # pre-order; a cycle never reaches root
        n = stack.pop()
        order.append(n)
        stack.extend(reversed(children[n]))
    if len(order) != len(tree):
        raise ValueError("every association must descend from the root (a cycle?)")
    for n in reversed(order):                      # accounts: their children's sum
        if not user[n]:
            usage[n] = sum(usage[c] for c in children[n])

    def fs_parent(n):
        up = parent[n]
        while shares[up] == PARENT:
            up = parent[up]
        return up

    fs_children = {n: [] for n in tree}
    for n in order[1:]:
        fs_children[fs_parent(n)].append(n)
    level_shares = {p: sum(shares[c] for c in kids if shares[c] != PARENT)
                    for p, kids in fs_children.items()}

    def norm_shares(n):
        a = fs_parent(n) if shares[n] == PARENT else n
        total = level_shares[fs_parent(a)]
        return shares[a] / total if total else 0.0

    S, U, LF = {}, {}, {}
    for n in order[1:]:
        S[n] = norm_shares(n)
        up = usage[fs_parent(n)]
        U[n] = usage[n] / up if up else 0.0
        if shares[n] == PARENT:
            LF[n] = math.inf if user[n] else None
        else:
            LF[n] = 0.0 if S[n] == 0 else (S[n] / U[n] if U[n] else math.inf)

    n_users = sum(user.values())
    fairshare = {}
    state = {"rank": n_users, "rnt": n_users}

    def rank_level(siblings, account_tied):
        # a "parent" account sorts as NO_VAL (4294967294) does upstream; it holds no
        # users (they rank beside it), and None stands for NO_VAL in the ties too
        ranked = sorted(siblings, key=lambda n: (-(NO_VAL if LF[n] is None else LF[n]),
                                                 not user[n]))
        previous = None
        for i, n in enumerate(ranked):
            tied = True if i == 0 and account_tied else previous == LF[n]
            if user[n]:
                if not tied:
                    state["rank"] = state["rnt"]
                fairshare[n] = state["rank"] / n_users
                state["rnt"] -= 1
            else:
                rank_level(fs_children[n], tied)
            previous = LF[n]

    rank_level(fs_children[root], False)
    total = usage[root]
    out = {root: Association(0.0, total, 1.0 if total else 0.0, 1.0, None, None)}
    for n in order[1:]:
        out[n] = Association(S[n], usage[n], usage[n] / total if total else 0.0, U[n],
                             LF[n], fairshare.get(n))
    return out


def decayed(usage, elapsed, half_life):
    """Usage after `elapsed` seconds of decay: `usage * (1 - 0.693 / half_life) ** elapsed`,
    Slurm's per-second factor (half the usage after about one half-life).

    Parameters
    ----------
    usage : float
    elapsed : float
        Seconds.
    half_life : float
        Seconds; `<= 0` means no decay (PriorityDecayHalfLife=0).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        A positive half-life of at most 0.693 seconds.
    """
    usage, elapsed = _number(usage, "usage"), _number(elapsed, "elapsed")
    half_life = float(half_life)
    if half_life <= 0:
        return usage
    if half_life <= DECAY_LN2:
        raise ValueError(f"half_life must exceed {DECAY_LN2} seconds, got {half_life}")
    return usage * (1.0 - DECAY_LN2 / half_life) ** elapsed


def billable(tres, weights, max_tres=False, node=None):
    """A job's billable TRES (assoc_mgr_tres_weighted): `sum_r weight_r * tres_r`.

    Parameters
    ----------
    tres, weights : dict
        `{name: amount}`; a TRES without a weight counts 0.
    max_tres : bool
        PriorityFlags=MAX_TRES: the largest weighted node TRES plus the sum of the others.
    node : iterable of str, optional
        The node TRES (cpu, mem, node, GRES: all by default).

    Returns
    -------
    float
    """
    value = {r: _number(q, f"tres {r!r}") * _number(weights.get(r, 0.0), f"weight of {r!r}")
             for r, q in tres.items()}
    if not max_tres:
        return sum(value.values())
    node = set(tres) if node is None else set(node)
    per_node = [v for r, v in value.items() if r in node]
    return max(per_node, default=0.0) + sum(v for r, v in value.items() if r not in node)
