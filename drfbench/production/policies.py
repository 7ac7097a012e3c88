"""The production rules as cluster-simulator policies on a Scenario: which queue's job goes
next decided by each rule's pure function (drfbench.production's modules), and, as an
option, which running jobs it evicts (Kueue's fair preemption, Armada's preemption above a
protected fraction of the fair share: drfbench.production.preemption).

    policy(scenario, rule, **options) -> RulePolicy   a drfbench.sim TaskPolicy
    run(scenario, rule, **options) -> drfbench.sim.Simulation

Users are jobs (user j is the scenario's job j, Scenario.trace()), so that a policy picks
among jobs. At each decision the rule picks one leaf queue among those holding a waiting
job (a leaf's jobs wait in order of priority, highest first, then arrival, then their
order in the file; the head of the line blocks the rest of its queue); the leaf's head job
starts if it fits within the limits of its queue and every ancestor and on the nodes, its
tasks each on the first node (in index order) with room, else the leaf is passed over
until the next call. The rules that admit whole jobs (`GANG`: kueue, armada,
slurm-fairtree) start all of a job's tasks at once or none; mesos-drf and yarn-fair-drf
start one task per decision.

- kueue: the admission tournament (pkg/scheduler, fair sharing): from the root cohort
  down, the child whose winner is not borrowing (after admission), then whose dominant
  resource share with the winner's request (kueue.dominant_resource_share, compared by
  kueue.compare) is lower, then the job's priority and arrival; queues become
  ClusterQueues (leaves) and cohorts (inner queues) of one flavour, quotas the
  guarantees (an inner queue's own quota what its guarantee adds to its children's,
  the root's the capacity no top queue is guaranteed), with borrowing and lending
  limits; a job is admitted only within what its ClusterQueue may use (`available`);
  with admission_fair_sharing, a leaf's line goes by its jobs' local queues' usage first
  (kueue.afs_usage of each local queue's consumed resources: sampled every
  usage_sampling_interval after its last update with what its admitted jobs hold,
  kueue.afs_decayed, the samples due between two events folded into one decay of as many
  intervals; an admission decays them to that instant and adds kueue.afs_penalty at once,
  Kueue's push and settlement in one), re-ordered whenever a local queue's usage changes,
  as Kueue rebuilds the ClusterQueue's heap;
- armada: the leaf whose cost with the job added (armada.cost, weight 1 / priority
  factor) is lowest; queues are flat (inner queues only bound by their limits);
- mesos-drf: leaves below their guarantee on some resource first (the quota stage), each
  stage in the hierarchical DRF sorter's order (mesos.DRFSorter, weights by path);
- slurm-fairtree: the highest FairShare (slurm.fair_tree over the queues as accounts and
  leaves as users, shares the queues' `shares`), usage billed per second by
  slurm.billable (weights 1 / the cluster's capacity, MAX_TRES by default) and decayed
  with `half_life` (slurm.decayed);
- yarn-fair-drf: from the root down, the first child once the children are sorted (as
  FSParentQueue sorts them; Python's sort is a TimSort as Java's List.sort, so the
  pre-fix comparator, which is not antisymmetric, is asked the same pairs) by
  yarn.compare (usage of its subtree, min share its guarantee, its weight, start time 0,
  its path), with YARN-11482's fix unless `fixed` is False.

Preemption (off by default: the policies as they were, bit for bit), kueue and armada:
before each launch decision (the simulator's preempt()), the job the rule would start next,
if it cannot start now, may evict running preemptible jobs of other leaves, whole jobs,
the most recently started first within a queue (Kueue: lower priority first): kueue with
`strategies` (Kueue's names, in order: preemption.DEFAULT_STRATEGIES is upstream's default
[LessThanOrEqualToFinalShare, LessThanInitialShare]), candidates from the ClusterQueues that
are borrowing; armada with `protected_fraction`, candidates from the queues above that
fraction of their demand-capped adjusted fair share (armada.fair_shares over the leaves,
demand what each holds and waits for). Either evicts only a set that lets the job start,
starts it in the same decision (ahead of the launch order, so that the evicted jobs cannot
take its room back: the re-admission of kueue#7101 and #6929), and one job preempts per
decision (Kueue preempts for one workload of a cohort per scheduling cycle). `rate_limit`:
at most that many jobs evicted in any `rate_interval` seconds (default 60), else the job
waits. `best_effort` (Kueue's BestEffortFIFO, as far as preemption goes): a leaf's head
that cannot start, even by preemption, lets the jobs behind it in its line try in turn,
the first that can start (as it is or by preemption) going ahead of it; without it (the
default) the head blocks its line, and a job behind it that would preempt never gets to
(kueue#7101's missed preemption, tests/production/test_preemption.py). An evicted job
goes back to its leaf's line with its full work (a restart: the
simulator's default; the policy's clock needs it).

The policy keeps its own clock from the events it is told (arrivals and completions: it
never oversubscribes, so a task ends its duration after it starts).
"""
import functools
import heapq
import math
from dataclasses import make_dataclass

import numpy as np

from .. import _validation as check
from .. import sim
from ..declarations import take_only
from . import armada, kueue, mesos, preemption, slurm, yarn
from .catalog import (AFS, FIXED, HALF_LIFE_OPTION, OPTIONS, PROTECTED_FRACTION,
                      RESOURCE_WEIGHTS, STRATEGIES)
from .scenario import scenario as as_scenario

RULES = ("kueue", "armada", "mesos-drf", "slurm-fairtree", "yarn-fair-drf")
GANG = frozenset({"kueue", "armada", "slurm-fairtree"})
FLAVOUR = "default"              # Kueue's one resource flavour here
CLUSTER = "cluster"              # the Mesos sorter's one agent


Settings = make_dataclass("Settings", [(o.name, o.type) for o in OPTIONS], frozen=True)
Settings.__module__ = __name__
Settings.__doc__ = """RulePolicy's options: the catalog's OPTIONS, by name."""


def settings(**options):
    """RulePolicy's options as a Settings: those given (any of the catalog's OPTIONS), the
    others at their declared defaults; each flag True or False.

    Raises
    ------
    TypeError
        An option not of OPTIONS, a flag that is not True or False.
    """
    take_only("RulePolicy", options, [o.name for o in OPTIONS])
    for o in OPTIONS:
        if o.type is bool and o.name in options and \
                not isinstance(options[o.name], (bool, np.bool_)):
            raise TypeError(f"{o.name} must be True or False, got {options[o.name]!r:.80}")
    return Settings(**{o.name: options.get(o.name, o.default) for o in OPTIONS})


class RulePolicy:
    """A production rule on a Scenario as a drfbench.sim policy (see the module docstring).

    State: used (M, m) and running (M,) per node, usage (Q, m) per queue (its subtree's
    running tasks), launched (J,) tasks per job, now (the clock).

    Parameters
    ----------
    spec : Scenario, dict or path
    rule : str
        One of RULES.
    **options
        Any of the catalog's OPTIONS by name (`settings`), as `policy` lists them;
        strategies also a sequence of Kueue's names (`preemption.strategies`).

    Raises
    ------
    ValueError
        An unknown rule, an option of another rule, a value out of bounds, a job the rule
        would never start.
    TypeError
        An unknown option, a flag that is not True or False.
    """

    def __init__(self, spec, rule, **options):
        if rule not in RULES:
            raise ValueError(f"rule must be one of {', '.join(map(repr, RULES))}; got {rule!r}")
        o = settings(**options)
        self._preemption_options(rule, o)
        s = self.scenario = as_scenario(spec)
        self.rule, self.gang = rule, rule in GANG
        if rule == "yarn-fair-drf" and not o.fixed and len(s.resources) != 2:
            raise ValueError(f"{FIXED.name}=False reproduces YARN-11482 with two resources "
                             f"only; the scenario has {len(s.resources)}")
        self.fixed, self.max_tres = bool(o.fixed), bool(o.max_tres)
        self.half_life = check.real(o.half_life, HALF_LIFE_OPTION.name)
        if rule == "slurm-fairtree":
            slurm.decayed(0.0, 0.0, self.half_life)          # refuses a bad half-life
        m = len(s.resources)
        self.total = s.capacity.sum(axis=0)
        self.room = s.capacity * (1.0 + sim.FIT_SLACK)
        self.used = np.zeros_like(s.capacity)
        self.running = np.zeros(len(s.capacity), dtype=np.int64)
        self.usage = np.zeros((len(s.paths), m))
        self.ancestry = [s.ancestry(q) for q in range(len(s.paths))]
        J = len(s.arrival)
        order = np.argsort(s.arrival, kind="stable")
        self.first_row = np.zeros(J, dtype=np.int64)
        self.first_row[order] = np.cumsum(s.tasks[order]) - s.tasks[order]
        self.waiting = np.zeros(J, dtype=np.int64)
        self.launched = np.zeros(J, dtype=np.int64)
        # per leaf: a heap of (its local queue's AFS usage, or 0, -prio, arrival, j)
        self.line = {int(q): [] for q in s.leaves}
        self.start, self.where = {}, {}               # running task rows: start, node
        self.rows = [[] for _ in range(J)]            # per job: its running task rows
        self.requeued = [[] for _ in range(J)]        # per job: its evicted rows, in order
        self.reserved = None                          # the job that preempted, next to start
        self.now = 0.0
        self.children = {q: s.children(q) for q in range(len(s.paths))}
        self.kueue_tree = None                        # Cohorts, made once
        self.stale = set()                            # leaves whose usage it lacks
        self.depth = [len(a) for a in self.ancestry]
        self.fairshare = None                         # Slurm's fair_tree at the clock
        if rule == "mesos-drf":
            self.sorter = mesos.DRFSorter()
            for q in s.leaves.tolist():
                self.sorter.add(s.paths[q])
                self.sorter.activate(s.paths[q])
            for q in range(1, len(s.paths)):
                self.sorter.update_weight(s.paths[q], float(s.weight[q]))
            # one agent holding the whole cluster: the sorter's shares need only the total
            self.sorter.add_agent(CLUSTER, self._named(self.total))
        if rule == "slurm-fairtree":
            self.billed = np.zeros(len(s.paths))             # decayed usage per leaf
            self.rate = np.zeros(len(s.paths))               # billing per second now
            self.tres_weights = {r: 1.0 / t for r, t in zip(s.resources, self.total) if t > 0}
        self._afs_options(o)
        self._check_startable()

    def _afs_options(self, o):
        """Check and keep Admission Fair Sharing's options (of Settings `o`); its state per
        local queue (see the module docstring)."""
        s = self.scenario
        if o.admission_fair_sharing and self.rule != "kueue":
            raise ValueError(f"{AFS.name} is Kueue's; rule is {self.rule!r}")
        self.afs = bool(o.admission_fair_sharing)
        half_life, interval = o.usage_half_life, o.usage_sampling_interval
        kueue.afs_penalty({}, interval, half_life)       # refuses a bad interval, half-life
        self.afs_half_life, self.afs_interval = float(half_life), float(interval)
        weights = o.resource_weights
        if weights is not None and (isinstance(weights, (str, bytes)) or not hasattr(
                weights, "__len__") or len(weights) != len(s.resources)):
            raise ValueError(f"{RESOURCE_WEIGHTS.name} must be a list of one number per "
                             f"resource ({', '.join(s.resources)}), got {weights!r:.80}")
        self.afs_weights = {} if weights is None else dict(zip(s.resources, weights))
        kueue.afs_usage({}, None, 1.0, self.afs_weights)    # refuses a bad weight
        n = len(s.local_queue_names)
        self.lq_usage = np.zeros((n, len(s.resources)))   # what its admitted jobs hold
        self.consumed = [{} for _ in range(n)]              # its decayed usage
        self.last = np.zeros(n)                             # its last update (s)
        self.score = np.zeros(n)                            # kueue.afs_usage of it now
        self.local_queues = {int(q): np.flatnonzero(s.local_queue_leaf == q).tolist()
                             for q in s.leaves}
        self.job_local_queue = s.local_queue.tolist()

    def _check_startable(self):
        """Refuse a job the rule would never start, on the empty cluster: a gang beyond its
        queues' limits or the nodes, or (Kueue) beyond its ClusterQueue's quota; the first
        job of each shape (leaf, tasks, demand) checked, the others alike."""
        s = self.scenario
        seen = set()
        for j, q in enumerate(s.queue.tolist()):
            n = int(s.tasks[j]) if self.gang else 1
            shape = (q, n, s.demand[j].tobytes())
            if shape in seen:
                continue
            seen.add(shape)
            why = self._beyond(q, n * s.demand[j]) or (
                None if self._place(q, j, n) is not None else "the nodes")
            if why:
                raise ValueError(f"job {j} (queue {s.paths[q]!r}): {self.rule} would never "
                                 f"start it: {n} task(s) of <"
                                 f"{', '.join(f'{v:g}' for v in s.demand[j])}> exceed {why}")

    def _preemption_options(self, rule, o):
        """Check and keep the preemption options of Settings `o` (see the module
        docstring); strategies a comma list as the registry has it ("none": no preemption)
        or a sequence."""
        names = o.strategies
        if isinstance(names, str):
            names = None if names == "none" else names.split(",")
        self.rules = None if names is None else preemption.strategies(names)
        if self.rules is not None and rule != "kueue":
            raise ValueError(f"{STRATEGIES.name} are Kueue's fair preemption; rule is {rule!r}")
        name, self.protected = PROTECTED_FRACTION.name, o.protected_fraction
        if self.protected is not None:
            if rule != "armada":
                raise ValueError(f"{name} is Armada's preemption; rule is {rule!r}")
            self.protected = check.real(self.protected, name, finite=True)
            if self.protected < 0:
                raise ValueError(f"{name} must be >= 0, got {self.protected}")
        self.rate = preemption.RateLimit(o.rate_limit, o.rate_interval)
        self.best_effort = bool(o.best_effort)
        self.preempts = self.rules is not None or self.protected is not None

    def _named(self, vector):
        return dict(zip(self.scenario.resources, map(float, vector)))

    # -- the simulator's calls ----------------------------------------------------------

    def add_tasks(self, user, count):
        self._advance(float(self.scenario.arrival[user]))
        if not self.waiting[user] and not self.launched[user]:
            s = self.scenario
            heapq.heappush(self.line[int(s.queue[user])], self._entry(int(user)))
        self.waiting[user] += count

    def preempt(self):
        """The task rows to evict now (see the module docstring): for the job the rule
        would start next, if it cannot start, the running jobs its preemption picks, if
        they make it fit and the rate limit lets them go; none without preemption."""
        self.reserved = None
        self._afs_refresh()
        ready = {q: line[0][-1] for q, line in self.line.items() if line}
        if not self.preempts or not ready:
            return np.zeros(0, dtype=np.int64)
        q = self._pick(ready)
        line = sorted(self.line[q]) if self.best_effort else self.line[q][:1]
        for *_, j in line:                    # the head, and with best_effort the rest
            n = int(self.waiting[j])
            if self._place(q, j, n) is not None:
                if j != ready[q]:                 # behind a blocked head: it goes first
                    self.reserved = (q, j)
                return np.zeros(0, dtype=np.int64)
            targets = self._targets(q, j, n)
            if targets:
                break
        if not targets or not self.rate.allows(self.now, len(targets)):
            return np.zeros(0, dtype=np.int64)
        self.rate.record(self.now, len(targets))
        rows = [row for c in targets for row in self._evict(c.job)]
        self.reserved = (q, j)
        return np.array(rows, dtype=np.int64)

    def schedule(self):
        users, machines, passed = [], [], set()
        self._afs_refresh()
        if self.reserved is not None:             # the preemptor first: its room is free
            q, j = self.reserved
            self.reserved = None
            where = self._place(q, j, int(self.waiting[j]))
            if where is not None:                 # (else rounding in the usage: it waits)
                self._launch(q, j, where)
                users += [j] * len(where)
                machines += where
        while True:
            ready = {q: line[0][-1] for q, line in self.line.items() if line and q not in passed}
            if ready:             # a head whose task fits on no node now is passed over
                heads = self.scenario.demand[list(ready.values())]
                fits = (self.used[None] + heads[:, None] <= self.room).all(axis=2).any(axis=1)
                passed.update(q for q, ok in zip(list(ready), fits.tolist()) if not ok)
                ready = {q: j for q, j in ready.items() if q not in passed}
            if not ready:
                break
            q = self._pick(ready)
            j = ready[q]
            n = int(self.waiting[j]) if self.gang else 1
            where = self._place(q, j, n)
            if where is None:
                passed.add(q)
                continue
            self._launch(q, j, where)
            users += [j] * n
            machines += where
        return np.array(users, dtype=np.int64), np.array(machines, dtype=np.int64)

    def release_task(self, task, user, machine):
        s = self.scenario
        self._advance(self.start.pop(task) + float(s.duration[user]))
        del self.where[task]
        self.rows[user].remove(task)
        d, q = s.demand[user], int(s.queue[user])
        self.running[machine] -= 1
        sim.take_back(self.used, machine, self.running[machine], d)
        for a in self.ancestry[q]:
            self.usage[a] = np.maximum(self.usage[a] - d, 0.0)
        if self.afs:
            self._afs_hold(q, user, -d)
        if self.rule == "mesos-drf":
            self.sorter.unallocated(s.paths[q], CLUSTER, self._named(d))
        self._changed(q)

    def release(self, user, machine):
        raise TypeError("RulePolicy needs to know which task finished: the simulator calls "
                        "release_task(task, user, machine)")

    # -- placement ------------------------------------------------------------------------

    def _beyond(self, q, request):
        """What keeps `request` from starting in leaf q now (a queue's limit, Kueue's
        available quota), or None."""
        s = self.scenario
        for a in self.ancestry[q]:
            over = self.usage[a] + request > s.limit[a] * (1.0 + sim.FIT_SLACK)
            if over.any():
                return f"queue {s.paths[a]!r}'s limit of {s.resources[np.argmax(over)]!r}"
        if self.rule == "kueue":
            tree = self._cohorts()
            for r, name in enumerate(s.resources):
                if request[r] > available(tree, s.paths[q], (FLAVOUR, name)) * \
                        (1.0 + sim.FIT_SLACK):
                    return f"what its ClusterQueue may use of {name!r} (quota and limits)"
        return None

    def _place(self, q, j, n):
        """Nodes for n tasks of job j (first fit each), or None if they do not all fit
        within the limits (and Kueue's available quota) and on the nodes. The nodes are
        scanned once: a task placed changes only its own node's room."""
        d = self.scenario.demand[j]
        if self._beyond(q, n * d) is not None:
            return None
        fit = np.flatnonzero((self.used + d <= self.room).all(axis=1))
        where = []
        for k in fit.tolist():       # only node k changes as tasks go on it: the next
            load = self.used[k] + d  # fitting node is k again or the next one that fit
            where.append(k)
            while len(where) < n and (load + d <= self.room[k]).all():
                load += d
                where.append(k)
            if len(where) == n:
                return where
        return None

    def _launch(self, q, j, where):
        s = self.scenario
        d = s.demand[j]
        for k in where:
            self.used[k] += d
            self.running[k] += 1
            if self.requeued[j]:                  # evicted rows first, as the simulator
                row = self.requeued[j].pop(0)
            else:
                row = int(self.first_row[j] + self.launched[j])
                self.launched[j] += 1
            self.start[row], self.where[row] = self.now, k
            self.rows[j].append(row)
            if self.rule == "mesos-drf":
                self.sorter.allocated(s.paths[q], CLUSTER, self._named(d))
        for a in self.ancestry[q]:
            self.usage[a] += len(where) * d
        self.waiting[j] -= len(where)
        if not self.waiting[j]:
            line = self.line[q]
            if line[0][-1] == j:
                heapq.heappop(line)
            else:                                 # a job behind the head (best_effort)
                line[:] = [entry for entry in line if entry[-1] != j]
                heapq.heapify(line)
        if self.afs:
            self._afs_admit(q, j, len(where) * d)
        self._changed(q)

    # -- preemption -----------------------------------------------------------------------

    def _evict(self, j):
        """Let job j's running tasks go (their rows, in launch order): back to waiting,
        first in its leaf's line by its usual order."""
        s = self.scenario
        d, q = s.demand[j], int(s.queue[j])
        rows, self.rows[j] = self.rows[j], []
        for row in rows:
            k = self.where.pop(row)
            del self.start[row]
            self.running[k] -= 1
            sim.take_back(self.used, k, self.running[k], d)
        for a in self.ancestry[q]:
            self.usage[a] = np.maximum(self.usage[a] - len(rows) * d, 0.0)
        if self.afs:
            self._afs_hold(q, j, -len(rows) * d)
        if not self.waiting[j]:
            heapq.heappush(self.line[q], self._entry(j))
        self.waiting[j] += len(rows)
        self.requeued[j] += rows
        self._changed(q)
        return rows

    def _fits_without(self, q, j, n, chosen):
        """Whether n tasks of job j (leaf q) would start once the jobs of `chosen`
        (Candidates) are gone."""
        s = self.scenario
        saved = self.used.copy(), self.usage.copy(), self.kueue_tree, self.stale
        self.kueue_tree = None        # Kueue's made for this fit: the caller reads the other
        try:
            for c in chosen:
                d = s.demand[c.job]
                for row in self.rows[c.job]:
                    self.used[self.where[row]] -= d
                for a in self.ancestry[int(s.queue[c.job])]:
                    self.usage[a] -= len(self.rows[c.job]) * d
            return self._place(q, j, n) is not None
        finally:
            self.used, self.usage, self.kueue_tree, self.stale = saved

    def _running_jobs(self, q, key):
        """The preemptible running jobs outside leaf q, sorted by key(job), less those
        finishing now (their completions are still to come at this instant)."""
        s = self.scenario
        jobs = [j for j, rows in enumerate(self.rows)
                if rows and s.preemptible[j] and int(s.queue[j]) != q and
                self.start[rows[0]] + float(s.duration[j]) > self.now]
        return sorted(jobs, key=key)

    def _targets(self, q, j, n):
        """The Candidates the rule's preemption evicts for n tasks of job j in leaf q,
        or None."""
        s = self.scenario
        fits = functools.partial(self._fits_without, q, j, n)
        started = {job: self.start[rows[0]] for job, rows in enumerate(self.rows) if rows}

        def held(job):
            return len(self.rows[job]) * s.demand[job]
        if self.rules is not None:
            # within a ClusterQueue: lower priority first, then the most recently started
            jobs = self._running_jobs(q, lambda job: (int(s.priority[job]), -started[job],
                                                      -job))
            candidates = [preemption.Candidate(job, s.paths[int(s.queue[job])], {
                (FLAVOUR, r): float(v) for r, v in zip(s.resources, held(job))})
                for job in jobs]
            request = {(FLAVOUR, r): float(v) for r, v in zip(s.resources, n * s.demand[j])}
            return preemption.kueue_targets(self._cohorts(), s.paths[q], request, candidates,
                                            self.rules, fits)
        leaves = s.leaves.tolist()
        weights = {leaf: 1.0 / float(s.priority_factor[leaf]) for leaf in leaves}
        wanted = self.usage[leaves].copy()
        for leaf_index, leaf in enumerate(leaves):
            for *_, job in self.line[leaf]:
                wanted[leaf_index] += self.waiting[job] * s.demand[job]
        _, adjusted, _ = armada.fair_shares(self.total, [weights[x] for x in leaves], wanted)
        fair = dict(zip(leaves, adjusted.tolist()))
        cost = dict(zip(leaves, armada.cost(self.usage[leaves], self.total,
                                            weight=[weights[x] for x in leaves]).tolist()))
        jobs = self._running_jobs(q, lambda job: (-cost[int(s.queue[job])], -started[job],
                                                  -job))
        candidates = [preemption.Candidate(job, int(s.queue[job]), held(job)) for job in jobs]
        mine = float(armada.cost(self.usage[q] + n * s.demand[j], self.total, weight=weights[q]))
        return preemption.armada_targets(mine, candidates, {x: self.usage[x] for x in leaves},
                                         self.total, weights, fair, self.protected, fits)

    # -- the rules ------------------------------------------------------------------------

    def _pick(self, ready):
        """The leaf whose head job goes next among `ready` ({leaf: head job})."""
        s = self.scenario
        if self.rule == "kueue":
            return self._tournament(0, ready, self._cohorts())[0]
        if self.rule == "armada":
            def key(q):
                j = ready[q]
                n = self.waiting[j]
                c = armada.cost(self.usage[q] + n * s.demand[j], self.total,
                                weight=1.0 / s.priority_factor[q])
                return (float(c),) + self._job_key(j)
            return min(ready, key=key)
        if self.rule == "mesos-drf":
            order = {p: i for i, p in enumerate(self.sorter.sort())}
            below = (self.usage < s.guarantee).any(axis=1)
            return min(ready, key=lambda q: (not below[q], order[s.paths[q]]))
        if self.rule == "slurm-fairtree":
            if self.fairshare is None:
                self.fairshare = slurm.fair_tree(self._associations())
            fs = self.fairshare
            return min(ready, key=lambda q: (-fs[s.paths[q]].fairshare,) + self._job_key(ready[q]))
        return self._yarn_descend(0, ready)

    def _job_key(self, j):
        s = self.scenario
        return -int(s.priority[j]), float(s.arrival[j]), int(j)

    def _cohorts(self):
        """The queues as Kueue's Cohorts with the current usage (see the module docstring):
        made once, then the usage of the leaves changed since and of their cohorts set
        again, deepest first, as kueue.Cohorts sums it (a cohort's usage what its
        children use above their local quotas)."""
        if self.kueue_tree is None:
            self.kueue_tree, self.stale = self._make_cohorts(), set()
        tree, s = self.kueue_tree, self.scenario
        if self.stale:
            for q in self.stale:
                usage = {(FLAVOUR, name): float(u) for name, u in zip(s.resources, self.usage[q])}
                tree.usage[s.paths[q]] = tree.spec[s.paths[q]]["usage"] = usage
            cohorts = {a for q in self.stale for a in self.ancestry[q][1:]} | {0}
            for a in sorted(cohorts, key=lambda a: -self.depth[a]):
                usage = {}
                for child in tree.children[s.paths[a]]:
                    for fr, u in tree.usage[child].items():
                        usage[fr] = usage.get(fr, 0) + max(0, u - tree.local_quota(child, fr))
                tree.usage[s.paths[a]] = usage
            self.stale = set()
        return tree

    def _make_cohorts(self):
        s = self.scenario
        nodes = {}
        for q, path in enumerate(s.paths):
            kids = self.children[q]
            own = s.guarantee[q] - s.guarantee[kids].sum(axis=0) if kids else s.guarantee[q]
            quotas = {}
            for r, name in enumerate(s.resources):
                b, lend = s.borrowing_limit[q, r], s.lending_limit[q, r]
                quotas[(FLAVOUR, name)] = kueue.Quota(
                    max(0.0, float(own[r])), None if math.isinf(b) else float(b),
                    None if math.isinf(lend) else float(lend))
            node = {"parent": None if q == 0 else s.paths[s.parent[q]],
                    "weight": float(s.weight[q]), "quotas": quotas}
            if not kids:
                node["usage"] = {(FLAVOUR, name): float(u)
                                 for name, u in zip(s.resources, self.usage[q])}
            nodes[path] = node
        return kueue.Cohorts(nodes)

    def _tournament(self, q, ready, tree):
        """(leaf, job, request) winning below queue q: Kueue's admission tournament."""
        s = self.scenario
        if not self.children[q]:
            j = ready[q]
            return q, j, {(FLAVOUR, r): float(v) for r, v in
                          zip(s.resources, self.waiting[j] * s.demand[j])}
        entrants = []
        for c in self.children[q]:
            if self._holds(c, ready):
                leaf, j, request = self._tournament(c, ready, tree)
                share = kueue.dominant_resource_share(tree, s.paths[c], request)
                entrants.append((share.borrowing, share, self._job_key(j), (leaf, j, request)))

        def order(a, b):
            return ((a[0] > b[0]) - (a[0] < b[0]) or kueue.compare(a[1], b[1])
                    or (a[2] > b[2]) - (a[2] < b[2]))
        return min(entrants, key=functools.cmp_to_key(order))[3]

    def _holds(self, q, ready):
        """Whether queue q's subtree holds a ready leaf."""
        return q in ready or any(self._holds(c, ready) for c in self.children[q])

    def _yarn_descend(self, q, ready):
        s = self.scenario
        while self.children[q]:
            kids = [c for c in self.children[q] if self._holds(c, ready)]
            items = [yarn.Schedulable(self.usage[c].tolist(), s.guarantee[c].tolist(),
                                      float(s.weight[c]), 0.0, s.paths[c]) for c in kids]
            ranked = sorted(range(len(kids)), key=functools.cmp_to_key(
                lambda a, b: yarn.compare(items[a], items[b], self.total.tolist(),
                                          self.fixed)))
            q = kids[ranked[0]]
        return q

    def _associations(self):
        s = self.scenario
        tree = {}
        for q, path in enumerate(s.paths):
            a = {"parent": None if q == 0 else s.paths[s.parent[q]]}
            if q:
                a["shares"] = float(s.shares[q])
            if not self.children[q]:
                a["user"], a["usage"] = True, float(self.billed[q])
            tree[path] = a
        return tree

    def _advance(self, now):
        """Move the clock to `now`; Slurm's usage decays and accrues the billing meanwhile
        (its fair_tree, kept while the usage stays, is then computed again)."""
        if self.rule == "slurm-fairtree" and now > self.now:
            dt = now - self.now
            self.fairshare = None
            for q in self.scenario.leaves.tolist():
                self.billed[q] = slurm.decayed(self.billed[q], dt, self.half_life) + \
                    self.rate[q] * dt
        self.now = max(self.now, now)

    # -- Admission Fair Sharing (kueue) ---------------------------------------------------

    def _entry(self, j):
        """Job j's place in its leaf's line: its local queue's AFS usage (0 without AFS),
        then -priority, arrival, j."""
        s = self.scenario
        key = float(self.score[s.local_queue[j]]) if self.afs else 0.0
        return key, -int(s.priority[j]), float(s.arrival[j]), int(j)

    def _afs_sample(self, lq):
        """Local queue lq's usage samples due by now, one every sampling interval after its
        last update, each with what it held since (constant in between: k samples are one
        of k intervals); whether there were any."""
        k = math.floor((self.now - self.last[lq]) / self.afs_interval)
        if k < 1:
            return False
        self.last[lq] += k * self.afs_interval
        self.consumed[lq] = {} if self.afs_half_life == 0 else kueue.afs_decayed(
            self.consumed[lq], self._named(self.lq_usage[lq]), k * self.afs_interval,
            self.afs_half_life)
        return True

    def _afs_rekey(self, q):
        """Leaf q's local queues' usage computed again and its line ordered by it (Kueue
        rebuilds the ClusterQueue's heap)."""
        s = self.scenario
        lqs = self.local_queues[q]
        before = self.score[lqs].tolist()
        for lq in lqs:
            self.score[lq] = kueue.afs_usage(self.consumed[lq], None,
                                             float(s.local_queue_weight[lq]), self.afs_weights)
        if self.score[lqs].tolist() != before:
            score, of = self.score.tolist(), self.job_local_queue
            line = self.line[q]
            line[:] = [(score[of[entry[-1]]],) + entry[1:] for entry in line]
            heapq.heapify(line)

    def _afs_refresh(self):
        """Every leaf's local queues sampled up to now, a leaf's line ordered again where
        one was."""
        if self.afs and self.now >= self.last.min() + self.afs_interval:   # some are due
            for q, lqs in self.local_queues.items():
                if [lq for lq in lqs if self._afs_sample(lq)]:
                    self._afs_rekey(q)

    def _afs_hold(self, q, j, delta):
        """Job j's local queue (in leaf q) holds delta more from now, its samples due first."""
        lq = int(self.scenario.local_queue[j])
        if self._afs_sample(lq):
            self._afs_rekey(q)
        self.lq_usage[lq] = np.maximum(self.lq_usage[lq] + delta, 0.0)

    def _afs_admit(self, q, j, request):
        """Job j admitted (leaf q) requesting `request`: its local queue holds it, and its
        consumed usage decays to now with it and takes the entry penalty (the scheduler's
        push and the workload controller's settlement, at one instant here)."""
        self._afs_hold(q, j, request)
        lq = int(self.scenario.local_queue[j])
        decayed = kueue.afs_decayed(self.consumed[lq], self._named(self.lq_usage[lq]),
                                    self.now - self.last[lq], self.afs_half_life)
        penalty = kueue.afs_penalty(self._named(request), self.afs_interval,
                                    self.afs_half_life)
        self.consumed[lq] = {r: decayed.get(r, 0.0) + penalty.get(r, 0.0)
                             for r in {**decayed, **penalty}}
        self.last[lq] = self.now
        self._afs_rekey(q)

    def _changed(self, q):
        """After a launch or a completion in leaf q: Kueue's cohorts lack q's usage,
        Slurm's billing rate is q's new usage billed."""
        self.stale.add(q)
        if self.rule == "slurm-fairtree":
            self.rate[q] = slurm.billable(self._named(self.usage[q]), self.tres_weights,
                                          self.max_tres)


def available(tree, name, fr):
    """How much of a resource a ClusterQueue of a kueue.Cohorts may still take
    (pkg/cache/scheduler/resource_node.go, available).

    Its guaranteed (local) quota left, plus what its parent has left, capped by its
    borrowing limit.

    Parameters
    ----------
    tree : kueue.Cohorts
    name : str
        The ClusterQueue.
    fr : tuple
        (flavour, resource).

    Returns
    -------
    float
    """
    parent = tree.parent[name]
    usage = tree.usage[name].get(fr, 0)
    subtree = tree.subtree[name].get(fr, 0)
    if parent is None:
        return subtree - usage
    local = tree.local_quota(name, fr)
    from_parent = available(tree, parent, fr)
    limit = tree.quotas[name].get(fr, kueue.Quota(0)).borrowing_limit
    if limit is not None:
        stored = subtree - local
        used_there = max(0, usage - local)
        from_parent = min(stored - used_there + limit, from_parent)
    return max(0, local - usage) + from_parent


def policy(spec, rule, **options):
    """The RulePolicy of `rule` (one of RULES) on a scenario.

    Parameters
    ----------
    spec : Scenario, dict or path
    rule : str
    **options
        RulePolicy's: half_life (s, slurm-fairtree), max_tres (slurm-fairtree), fixed
        (yarn-fair-drf), strategies (kueue), protected_fraction (armada), rate_limit,
        rate_interval (s) and best_effort (kueue, armada: with preemption),
        admission_fair_sharing, usage_half_life (s), usage_sampling_interval (s) and
        resource_weights (kueue: Admission Fair Sharing).

    Returns
    -------
    RulePolicy
    """
    return RulePolicy(spec, rule, **options)


def run(spec, rule, *, horizon=math.inf, sample=None, **options):
    """Simulate the scenario's jobs under `rule` (drfbench.sim.simulate on its nodes).

    Parameters
    ----------
    spec : Scenario, dict or path
    rule : str
    horizon : float
        Seconds.
    sample : float, optional
        Seconds between samples.
    **options
        RulePolicy's.

    Returns
    -------
    drfbench.sim.Simulation
    """
    s = as_scenario(spec)
    return sim.simulate(s.capacity, s.trace(), RulePolicy(s, rule, **options),
                        horizon=horizon, sample=sample)
