"""Kueue's fair sharing: the dominant resource share (DRS) of a ClusterQueue or Cohort and
the fair-preemption strategies that compare them.

Restated from kubernetes-sigs/kueue at commit ff69552e79ad21652c36caa97038382e55625cf7
(2026-08-22): pkg/cache/scheduler/fair_sharing.go (dominantResourceShare,
calculateLendable, CompareDRS, roundedWeightedShare), pkg/cache/scheduler/resource_node.go
(SubtreeQuota, localQuota, potentialAvailable, accumulateFromChild) and
pkg/scheduler/preemption/fairsharing/strategy.go with preemption.go (parseStrategies).

A node (ClusterQueue or Cohort) with quota per (flavour, resource):

- its subtree quota is its own nominal quota plus, from each child, the child's subtree
  quota less what the child keeps (its local quota: subtree quota - lending limit, at
  least 0, where a lending limit is set, else 0); a cohort's usage is the sum of its
  children's usage above their local quotas;
- borrowed_r = sum over flavours of max(0, usage + request - subtree quota), over the
  (flavour, resource) pairs of the node's subtree quota;
- lendable_r = sum over every flavour in the tree of potentialAvailable(parent): the
  root's subtree quota, and below it a node's local quota plus its parent's, capped at
  subtree quota + borrowing limit where one is set;
- DRS = max_r borrowed_r * 1000 / lendable_r (resources with lendable 0 left out; ties to
  the alphabetically first resource), divided by the node's fair weight; 0 at the root or
  when not borrowing, +inf when a weight-0 node borrows.

Fair preemption (KEP 1714) compares the preemptor's DRS with its incoming workload against
a target's: rule S2-a (LessThanOrEqualToFinalShare) preempts when preemptor <= target
after the candidate's removal, rule S2-b (LessThanInitialShare) when preemptor < target
before it; the default is S2-a, then S2-b for the candidates S2-a left.

Admission Fair Sharing (KEP-4136, keps/4136-admission-fair-sharing; at the same commit:
pkg/util/admissionfairsharing/admission_fair_sharing.go, calculateAlphaRate,
CalculateDecayedConsumed, CalculateEntryPenalty, CalculateUsage; the ordering of
pkg/cache/queue/cluster_queue.go, queueOrderingFunc) orders a ClusterQueue's pending
workloads by their LocalQueue's weighted decayed usage before the usual order:

- alpha(t) = 1 - 0.5^(t / half_life) (0 when half_life is 0);
- every sampling interval a LocalQueue's consumed resources become consumed * (1 - alpha(t))
  + usage * alpha(t), t the time since its last update and usage what its admitted
  workloads hold then (pkg/controller/core/localqueue_controller.go,
  reconcileConsumedUsage; half_life 0 resets them to nothing);
- admitting a workload adds at once the entry penalty alpha(sampling interval) * its
  request (pkg/scheduler/scheduler.go, updateEntryPenalty), settled into the consumed
  resources with a decay to that instant (pkg/controller/core/workload_controller.go,
  updateAfsConsumedUsage);
- a LocalQueue's usage is sum_r w_r (consumed_r + penalty_r) / its fairSharing weight
  (w_r the resourceWeights, default 1; +inf at weight 0), and pending workloads go by
  that usage, lower first, then priority (higher first), creation time, UID.

Amounts are floats here where upstream's resource.Quantity rounds to nano units
(6828427124n for 6.828427124...); resources are named as in a ResourceList, a missing
one holding 0.
"""
import math
import numbers
from typing import NamedTuple

MAX_INT64 = 2**63 - 1     # roundedWeightedShare's value for a weight-0 node that borrows


class Quota(NamedTuple):
    """One (flavour, resource) quota: nominal, and optional borrowing and lending limits.

    Attributes
    ----------
    nominal : float
    borrowing_limit : float, optional
    lending_limit : float, optional
    """
    nominal: float
    borrowing_limit: float = None
    lending_limit: float = None


class Share(NamedTuple):
    """A node's dominant resource share (upstream's DRS).

    Attributes
    ----------
    weight : float
    ratio : float
        Unweighted: `max_r borrowed_r * 1000 / lendable_r`.
    resource : str
        The dominant resource ("" when not borrowing).
    borrowing : bool
        Usage above subtree quota on some (flavour, resource).
    borrowed : tuple
        Those (flavour, resource) pairs.
    """
    weight: float
    ratio: float            # unweighted: max_r borrowed_r * 1000 / lendable_r
    resource: str           # the dominant resource ("" when not borrowing)
    borrowing: bool         # usage above subtree quota on some (flavour, resource)
    borrowed: tuple         # those (flavour, resource) pairs

    @property
    def value(self):
        """The precise weighted share: 0 when ratio is 0, +inf at weight 0, else ratio / weight."""
        if self.ratio == 0:
            return 0.0
        return math.inf if self.weight == 0 else self.ratio / self.weight

    @property
    def zero_weight_borrows(self):
        return self.weight == 0 and self.ratio != 0

    def rounded(self):
        """roundedWeightedShare: ceil(value), MAX_INT64 for a weight-0 node that borrows."""
        return MAX_INT64 if self.zero_weight_borrows else math.ceil(self.value)

    def borrowing_on(self, requested):
        """Whether the node borrows on a (flavour, resource) requested with a positive amount.

        Parameters
        ----------
        requested : dict
            `{(flavour, resource): amount}`.

        Returns
        -------
        bool
        """
        return any((requested or {}).get(fr, 0) > 0 for fr in self.borrowed)


def _amount(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or \
            not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be a finite number >= 0, got {value!r:.80}")
    return value


class Cohorts:
    """A tree of Cohorts and ClusterQueues.

    Amounts are in any unit, the same one for a resource throughout.

    Parameters
    ----------
    nodes : dict
        Each name to a dict with `parent` (a name, or None for a root), `weight` (fair
        weight, default 1, `>= 0`), `quotas` (`{(flavour, resource): nominal or Quota}`)
        and, on leaves only (ClusterQueues), `usage` (`{(flavour, resource): amount}`).

    Raises
    ------
    ValueError
        Unknown keys, an unknown parent, parents forming a cycle, usage on a Cohort, naming
        the node.
    """

    def __init__(self, nodes):
        self.spec = {name: dict(node) for name, node in nodes.items()}
        self.parent, self.weight, self.quotas, self.children = {}, {}, {}, {}
        for name, node in self.spec.items():
            unknown = set(node) - {"parent", "weight", "quotas", "usage"}
            if unknown:
                raise ValueError(f"node {name!r}: unknown keys {sorted(unknown)}")
            parent = node.get("parent")
            if parent is not None and parent not in self.spec:
                raise ValueError(f"node {name!r}: parent {parent!r} is not a node")
            self.parent[name] = parent
            self.weight[name] = _amount(node.get("weight", 1.0), f"node {name!r}: weight")
            self.quotas[name] = {fr: self._quota(name, fr, q)
                                 for fr, q in node.get("quotas", {}).items()}
            self.children.setdefault(name, [])
            if parent is not None:
                self.children.setdefault(parent, []).append(name)
        for name in self.spec:
            seen, up = {name}, self.parent[name]
            while up is not None:
                if up in seen:
                    raise ValueError(f"node {name!r}: its parents form a cycle")
                seen.add(up)
                up = self.parent[up]
        self.subtree, self.usage = {}, {}
        for root in (n for n in self.spec if self.parent[n] is None):
            self._accumulate(root)

    @staticmethod
    def _quota(name, fr, q):
        q = q if isinstance(q, Quota) else Quota(q)
        where = f"node {name!r}, {fr}"
        _amount(q.nominal, f"{where}: nominal quota")
        for limit, value in (("borrowing limit", q.borrowing_limit),
                             ("lending limit", q.lending_limit)):
            if value is not None:
                _amount(value, f"{where}: {limit}")
        return q

    def _accumulate(self, name):
        """SubtreeQuota and Usage of `name`'s subtree, leaves first (accumulateFromChild)."""
        quota = {fr: q.nominal for fr, q in self.quotas[name].items()}
        usage = dict(self.spec[name].get("usage", {}))
        if usage and self.children[name]:
            raise ValueError(f"node {name!r}: usage is given on ClusterQueues (leaves) only")
        for fr, amount in usage.items():
            _amount(amount, f"node {name!r}, {fr}: usage")
        for child in self.children[name]:
            self._accumulate(child)
            for fr, q in self.subtree[child].items():
                quota[fr] = quota.get(fr, 0) + q - self.local_quota(child, fr)
            for fr, u in self.usage[child].items():
                usage[fr] = usage.get(fr, 0) + max(0, u - self.local_quota(child, fr))
        self.subtree[name], self.usage[name] = quota, usage

    def local_quota(self, name, fr):
        """What a node keeps from its parent: subtree quota - lending limit (`>= 0`), else 0.

        Parameters
        ----------
        name : str
        fr : tuple
            (flavour, resource).

        Returns
        -------
        float
        """
        limit = self.quotas[name].get(fr, Quota(0)).lending_limit
        return 0 if limit is None else max(0, self.subtree[name].get(fr, 0) - limit)

    def potential_available(self, name, fr):
        """The most of `fr` the node could use: potentialAvailable.

        Parameters
        ----------
        name : str
        fr : tuple
            (flavour, resource).

        Returns
        -------
        float
        """
        parent = self.parent[name]
        if parent is None:
            return self.subtree[name].get(fr, 0)
        avail = self.local_quota(name, fr) + self.potential_available(parent, fr)
        limit = self.quotas[name].get(fr, Quota(0)).borrowing_limit
        return avail if limit is None else min(self.subtree[name].get(fr, 0) + limit, avail)

    def root(self, name):
        while self.parent[name] is not None:
            name = self.parent[name]
        return name

    def with_usage(self, name, delta):
        """A copy with a ClusterQueue's usage changed.

        Parameters
        ----------
        name : str
            The ClusterQueue.
        delta : dict
            `{(flavour, resource): amount}`, negative to remove a workload.

        Returns
        -------
        Cohorts

        Raises
        ------
        ValueError
            No such node, or a usage that would go below 0.
        """
        if name not in self.spec:
            raise ValueError(f"no node {name!r}")
        nodes = {n: dict(node) for n, node in self.spec.items()}
        usage = dict(nodes[name].get("usage", {}))
        for fr, amount in delta.items():
            usage[fr] = usage.get(fr, 0) + amount
            if usage[fr] < 0:
                raise ValueError(f"node {name!r}, {fr}: usage would be {usage[fr]}, below 0")
        nodes[name]["usage"] = usage
        return Cohorts(nodes)


def dominant_resource_share(tree, name, request=None):
    """The Share of a node of a Cohorts tree with a request added to its usage
    (dominantResourceShare).

    Parameters
    ----------
    tree : Cohorts
    name : str
        The node.
    request : dict, optional
        `{(flavour, resource): amount}`, the incoming workload.

    Returns
    -------
    Share

    Raises
    ------
    ValueError
        No node of that name.
    """
    if name not in tree.spec:
        raise ValueError(f"no node {name!r}")
    weight, parent = tree.weight[name], tree.parent[name]
    if parent is None:
        return Share(weight, 0.0, "", False, ())
    request = request or {}
    borrowing, borrowed = {}, []
    for fr, quota in tree.subtree[name].items():
        amount = request.get(fr, 0) + tree.usage[name].get(fr, 0) - quota
        if amount > 0:
            borrowing[fr[1]] = borrowing.get(fr[1], 0) + amount
            borrowed.append(fr)
    if not borrowing:
        return Share(weight, 0.0, "", False, ())
    lendable = {}
    for fr in tree.subtree[tree.root(name)]:
        lendable[fr[1]] = lendable.get(fr[1], 0) + tree.potential_available(parent, fr)
    ratio, dominant = 0.0, ""
    for resource, amount in borrowing.items():
        if lendable.get(resource, 0) > 0:
            r = amount * 1000.0 / lendable[resource]
            if r > ratio or (r == ratio and resource < dominant):
                ratio, dominant = r, resource
    return Share(weight, ratio, dominant, True, tuple(borrowed))


def compare(a, b):
    """CompareDRS: -1, 0 or 1 as a's share is below, equal to or above b's.

    Lower is scheduled first, higher preempted first; weight-0 borrowers are above all
    others, ordered by their unweighted ratio.

    Parameters
    ----------
    a, b : Share

    Returns
    -------
    int
    """
    if a.zero_weight_borrows and b.zero_weight_borrows:
        x, y = a.ratio, b.ratio
    elif a.zero_weight_borrows or b.zero_weight_borrows:
        return 1 if a.zero_weight_borrows else -1
    else:
        x, y = a.value, b.value
    return (x > y) - (x < y)


def less_than_or_equal_to_final_share(preemptor_new, target_old, target_new):
    """Rule S2-a: preempt when the preemptor's share with its workload is at most the target's
    after the candidate's removal.

    Parameters
    ----------
    preemptor_new : Share
        The preemptor's, with its workload.
    target_old : Share
        The target's, before the removal.
    target_new : Share
        The target's, after the removal.

    Returns
    -------
    bool
    """
    return compare(preemptor_new, target_new) <= 0


def less_than_initial_share(preemptor_new, target_old, target_new):
    """Rule S2-b: preempt when the preemptor's share with its workload is below the target's
    before the removal.

    Parameters
    ----------
    preemptor_new : Share
        The preemptor's, with its workload.
    target_old : Share
        The target's, before the removal.
    target_new : Share
        The target's, after the removal.

    Returns
    -------
    bool
    """
    return compare(preemptor_new, target_old) < 0


# parseStrategies' default when none is configured: S2-a first, then S2-b.
DEFAULT_STRATEGIES = (less_than_or_equal_to_final_share, less_than_initial_share)


# Admission Fair Sharing (see the module docstring)

def _seconds(value, what, positive=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or \
            not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{what} must be a finite number of seconds "
                         f"{'> 0' if positive else '>= 0'}, got {value!r:.80}")
    return float(value)


def _resources(amounts, what):
    if not isinstance(amounts, dict):
        raise ValueError(f"{what} must be a mapping of resource names to amounts, got "
                         f"{amounts!r:.80}")
    return {r: _amount(v, f"{what} of {r!r}") for r, v in amounts.items()}


def afs_alpha(elapsed, half_life):
    """calculateAlphaRate: the weight of the usage sampled after `elapsed` seconds,
    `1 - 0.5**(elapsed / half_life)`.

    Parameters
    ----------
    elapsed : float
        Seconds.
    half_life : float
        Seconds.

    Returns
    -------
    float
        0 when `half_life` is 0.
    """
    elapsed = _seconds(elapsed, "elapsed")
    half_life = _seconds(half_life, "half_life")
    return 0.0 if half_life == 0 else 1.0 - 0.5 ** (elapsed / half_life)


def afs_decayed(consumed, usage, elapsed, half_life):
    """CalculateDecayedConsumed: `consumed * (1 - alpha) + usage * alpha`, over the resources
    of either.

    Parameters
    ----------
    consumed : dict
        `{resource: amount}` consumed so far.
    usage : dict
        `{resource: amount}` sampled now.
    elapsed, half_life : float
        Seconds: `alpha = afs_alpha(elapsed, half_life)`.

    Returns
    -------
    dict
        `{resource: amount}`.
    """
    consumed, usage = _resources(consumed, "consumed"), _resources(usage, "usage")
    alpha = afs_alpha(elapsed, half_life)
    return {r: consumed.get(r, 0.0) * (1.0 - alpha) + usage.get(r, 0.0) * alpha
            for r in {**consumed, **usage}}


def afs_penalty(request, sampling_interval, half_life):
    """CalculateEntryPenalty: `alpha(sampling_interval) * request`, what admitting a workload
    adds at once to its LocalQueue's usage.

    Parameters
    ----------
    request : dict
        `{resource: amount}` the workload requests.
    sampling_interval, half_life : float
        Seconds.

    Returns
    -------
    dict
        `{resource: amount}`.
    """
    request = _resources(request, "request")
    alpha = afs_alpha(_seconds(sampling_interval, "sampling_interval", positive=True),
                      half_life)
    return {r: v * alpha for r, v in request.items()}


def afs_usage(consumed, penalty=None, weight=1.0, resource_weights=None):
    """CalculateUsage: a LocalQueue's usage, `sum_r w_r (consumed_r + penalty_r) / weight`,
    its resources summed in name order.

    Parameters
    ----------
    consumed : dict
        `{resource: amount}`.
    penalty : dict, optional
        `{resource: amount}` (`afs_penalty`).
    weight : float
        The LocalQueue's.
    resource_weights : dict, optional
        w_r per resource, default 1.

    Returns
    -------
    float
        +inf at weight 0.
    """
    merged = _resources(consumed, "consumed")
    for r, v in _resources(penalty or {}, "penalty").items():
        merged[r] = merged.get(r, 0.0) + v
    weights = _resources(resource_weights or {}, "resource_weights")
    weight = _amount(weight, "weight")
    usage = sum(weights.get(r, 1.0) * merged[r] for r in sorted(merged))
    return math.inf if weight == 0 else usage / weight


class Pending(NamedTuple):
    """A pending workload as AFS orders it.

    Attributes
    ----------
    local_queue : object
        Its LocalQueue.
    priority : int
    created : float
        Creation time (s).
    uid : str
    """
    local_queue: object
    priority: int = 0
    created: float = 0.0
    uid: str = ""


def afs_order(pending, usage):
    """queueOrderingFunc: the indices of pending workloads in admission order.

    By usage[local_queue] (afs_usage; lower first), then priority (higher first), creation
    time, UID.

    Parameters
    ----------
    pending : list of Pending
    usage : dict
        Each LocalQueue's usage (`afs_usage`).

    Returns
    -------
    list of int

    Raises
    ------
    ValueError
        A LocalQueue without a usage, or with a NaN one.
    """
    pending = list(pending)
    for p in pending:
        if p.local_queue not in usage:
            raise ValueError(f"no usage given for local queue {p.local_queue!r:.80}")
        if math.isnan(usage[p.local_queue]):
            raise ValueError(f"local queue {p.local_queue!r:.80}: usage is NaN")
    return sorted(range(len(pending)), key=lambda i: (
        usage[pending[i].local_queue], -pending[i].priority, pending[i].created,
        pending[i].uid))
