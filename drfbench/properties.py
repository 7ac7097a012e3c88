"""The property checker's core: verdicts and counterexamples, the loop that checks a
property over instances, the table of a family's checks, and the way to find them.

Each family's property module declares what it owns in one `PropertySet`, its CHECKS:
drfbench.drf.properties (the DRF lecture's properties on divisible demands),
drfbench.hdrf.properties (H-DRF's on trees), drfbench.drfh.properties (DRFH's on
heterogeneous servers). The registry names that module for each input kind
(drfbench.api.KINDS[kind].properties), and `checks_for(kind)` imports it by that name: the
one way code outside a family reaches the family's checks.

    from drfbench import properties
    trees = properties.checks_for("tree")        # drfbench.hdrf.properties.CHECKS
    trees.check("hdrf", trees.random(50))          # {property: Verdict}
    trees.table(["hdrf", "flatten"], count=200)    # tidy rows, one per (method, property)

A check takes a method (a registered method's name or a callable, as the family's method
class wraps it) and one instance or an iterable of them, and returns a Verdict: holds, the
number of instances checked (where the property applies) and violated, the largest
violation found (`worst`, relative or a count, as each check says), and the counterexample
behind it. A check reports a violation only when it exceeds `tol` (default 1e-6): far above
float64 rounding (the methods are computed in float64, CEEI polished to ~1e-12) and far
below the violations the checks exist to find. "Holds" means no violation was found on
these instances (and, for strategy-proofness, among the misreports tried): evidence, not
proof.
"""
import importlib
import inspect
import math
from dataclasses import dataclass, field

import numpy as np

from . import api

TOL = 1e-6
# A table row's columns about the verdict (PropertySet.columns orders them with the rest).
VERDICT_COLUMNS = ("property", "property_name", "holds", "checked", "violated",
                   "violated_fraction", "worst")


@dataclass(frozen=True)
class Counterexample:
    """An instance on which the property fails, what happens, and the numbers.

    Attributes
    ----------
    instance : object
    description : str
        What happens.
    details : dict
        The numbers.
    """
    instance: object
    description: str
    details: dict = field(default_factory=dict)

    def __str__(self):
        return f"{self.description} [{self.instance}]"


@dataclass(frozen=True)
class Verdict:
    """A property checked over instances.

    Attributes
    ----------
    property : str
    method : str
    holds : bool
        No violation beyond tol on the `checked` instances.
    checked : int
        The instances where the property applies.
    violated : int
        How many instances violate it.
    worst : float
        The largest violation (relative, see each property).
    counterexample : Counterexample or None
        The instance behind it.
    """
    property: str
    method: str
    holds: bool
    checked: int
    violated: int
    worst: float
    counterexample: Counterexample | None

    def __bool__(self):
        return self.holds


def shortfall(got, owed):
    """How far each entry of `got` falls below what it is owed, relative.

    Parameters
    ----------
    got, owed : array_like
        What each entry gets and what it is owed.

    Returns
    -------
    ndarray
        `1 - got / owed`, negative above it; where nothing is owed, 0, or `-inf` if it gets
        something. A relative gain `got / had - 1` is `-shortfall(got, had)`.
    """
    got = np.asarray(got, dtype=np.float64)
    owed = np.asarray(owed, dtype=np.float64)
    ratio = np.divide(got, owed, out=np.where(got > 0, np.inf, 1.0), where=owed > 0)
    return 1.0 - ratio


def violation(magnitude, tol, counterexample):
    """What a check returns on one instance.

    Parameters
    ----------
    magnitude : array_like
        One per user, node, misreport...: a shortfall, a gain, an error or a count.
    tol : float
        The largest magnitude that is no violation.
    counterexample : callable
        `counterexample(i)`: the counterexample of entry `i`.

    Returns
    -------
    tuple
        The largest magnitude, and `counterexample(i)` of that largest entry when it
        exceeds `tol`, else None.
    """
    m = np.atleast_1d(np.asarray(magnitude, dtype=np.float64))
    if m.size == 0:
        return 0.0, None
    i = int(np.argmax(m))
    return float(m[i]), (counterexample(i) if m[i] > tol else None)


def rounded(values):
    """Numbers for a counterexample's details (tasks, shares), rounded to 6 decimals.

    Parameters
    ----------
    values : array_like
        Numbers, of any shape.

    Returns
    -------
    float or list
        The rounded numbers as Python floats, in nested lists of the input's shape.
    """
    return np.round(np.asarray(values, dtype=float), 6).tolist()


def misreports(demand, rng, random_count=8):
    """Reports a user with true per-task demand `demand` might make instead.

    Each demanded resource scaled by 0.5, 0.8, 1.25, 1.5, 2 or 3; a resource it does not
    demand added at 5%, 25% or 100% of its largest demand; and `random_count` random reports
    (every entry scaled by `e**U(-1, 1)`, sometimes with a new resource). Reports are kept in
    (0, 1]: a report whose largest entry exceeds 1 is divided by it.

    Parameters
    ----------
    demand : numpy.ndarray
        (m,) the true per-task demand.
    rng : numpy.random.Generator
    random_count : int

    Returns
    -------
    list of numpy.ndarray
    """
    d = np.asarray(demand, dtype=np.float64)
    peak = d.max()
    out = []
    for r in range(len(d)):
        if d[r] > 0:
            for f in (0.5, 0.8, 1.25, 1.5, 2.0, 3.0):
                x = d.copy()
                x[r] *= f
                out.append(x)
        else:
            for f in (0.05, 0.25, 1.0):
                x = d.copy()
                x[r] = f * peak
                out.append(x)
    for _ in range(random_count):
        x = d * np.exp(rng.uniform(-1, 1, size=len(d)))
        if rng.random() < 0.3 and (d == 0).any():
            r = rng.choice(np.flatnonzero(d == 0))
            x[r] = peak * rng.uniform(0.01, 1.0)
        out.append(x)
    reports = []
    for x in out:
        top = x.max()
        if top > 1:
            x = x / top
        if top > 0 and not np.allclose(x, d, rtol=1e-12, atol=0):
            reports.append(x)
    return reports


def worst_misreport(inst, truthful, tasks_reporting, rng, random_count, tol, unit=1.0):
    """Strategy-proofness on one instance: the largest relative gain `u_i(A'_i) / u_i(A_i) - 1`
    over users i and the `misreports` of their demands.

    Parameters
    ----------
    inst : object
        The instance; the reports are made of `inst.demands[i] / unit`, in those units, and
        times `unit` again.
    truthful : array_like
        What each user runs reporting the truth.
    tasks_reporting : callable
        `tasks_reporting(i, report)`: what user i runs, counted with its true demand, when it
        reports `report`.
    rng : numpy.random.Generator
    random_count : int
        As `misreports` takes it.
    tol : float
    unit : float

    Returns
    -------
    worst : float
    counterexample : Counterexample or None
        If above tol.
    """
    tried = [(i, report * unit) for i in range(len(inst.demands))
             for report in misreports(inst.demands[i] / unit, rng, random_count)]
    got = np.array([tasks_reporting(i, report) for i, report in tried], dtype=np.float64)
    gain = -shortfall(got, [truthful[i] for i, _ in tried])

    def example(k):
        i, report = tried[k]
        return Counterexample(
            inst, f"user {i} reports <{', '.join(f'{v:.4g}' for v in report)}> and runs "
                  f"{got[k]:.6g} tasks instead of {truthful[i]:.6g}",
            dict(user=i, report=rounded(report), truthful_tasks=float(truthful[i]),
                 misreport_tasks=float(got[k])))
    return violation(gain, tol, example)


def worst_envy(inst, u, tasks_with, tol):
    """Envy-freeness on one instance: the largest relative gain
    `u_i(A_j w_i / w_j) / u_i(A_i) - 1` over users `i != j`.

    Parameters
    ----------
    inst : object
        The instance.
    u : array_like
        What each user runs with its own allocation.
    tasks_with : callable
        `tasks_with(i, j)`: what user i would run with j's allocation scaled by their
        weights.
    tol : float

    Returns
    -------
    worst : float
    counterexample : Counterexample or None
        If above tol.
    """
    pairs = [(i, j) for i in range(len(u)) for j in range(len(u)) if i != j]
    other = np.array([tasks_with(i, j) for i, j in pairs], dtype=np.float64)
    own = np.array([u[i] for i, _ in pairs], dtype=np.float64)

    def example(k):
        i, j = pairs[k]
        return Counterexample(inst, f"user {i} would run {other[k]:.6g} tasks with user {j}'s "
                                    f"allocation, {u[i]:.6g} with its own",
                              dict(envious=i, envied=j, tasks=rounded(u)))
    return violation(-shortfall(other, own), tol, example)


def worst_departure(inst, u, tasks_without, tol):
    """Population monotonicity on one instance: the largest shortfall `1 - u'_j / u_j` over
    leaving users k and remaining users j.

    Parameters
    ----------
    inst : object
        The instance.
    u : array_like
        What every user runs with all present.
    tasks_without : callable
        `tasks_without(keep)`: what the users of boolean mask `keep` run when the others
        leave.
    tol : float

    Returns
    -------
    worst : float
    counterexample : Counterexample or None
        If above tol.
    """
    n = len(u)
    after = [tasks_without(np.arange(n) != k) for k in range(n)]
    loss = np.array([shortfall(after[k], np.delete(u, k)) for k in range(n)])

    def example(flat):
        k, j = divmod(flat, n - 1)
        who = j + (j >= k)
        return Counterexample(
            inst, f"when user {k} leaves, user {who} runs {after[k][j]:.6g} tasks instead of {u[who]:.6g}",
            dict(leaving=k, user=who, before=rounded(u), after=rounded(after[k])))
    return violation(loss.ravel(), tol, example)


class NamedMethod:
    """A callable method of one input kind, named.

    A family's method class subclasses it: `takes`, the input kind;
    `registered(method, **options)`, the callable running a registered method; `__call__`,
    how the checks call it.

    Parameters
    ----------
    fn : callable
    name : str, optional
    """
    takes = None

    def __init__(self, fn, name=None):
        self.fn = fn
        self.name = name or getattr(fn, "__name__", repr(fn))

    def __repr__(self):
        return f"{type(self).__name__}({self.name})"

    @classmethod
    def of(cls, method, name=None, **options):
        """`method` as a `cls`.

        Parameters
        ----------
        method : str, callable or NamedMethod
            Itself, a registered method's name taking `cls.takes` (run with `options`, named by
            its label), or a callable.
        name : str, optional
        **options
            The registered method's.

        Returns
        -------
        NamedMethod
        """
        if isinstance(method, cls):
            return method
        if isinstance(method, str):
            spec = api.method_info(method, cls.takes)
            return cls(cls.registered(method, **options), name or spec.label or method)
        return cls(method, name)


def instances_of(cls, make, instances):
    """Instances of `cls`, as a generator.

    Parameters
    ----------
    cls : type
    make : callable
        Makes a `cls` from its arguments.
    instances : object or iterable
        One `cls` instance, or an iterable of them and of `make`'s arguments (a tuple of
        them, or the one argument).

    Returns
    -------
    generator of cls
    """
    if isinstance(instances, cls):
        yield instances
        return
    for item in instances:
        if isinstance(item, cls):
            yield item
        else:
            yield make(*item) if isinstance(item, tuple) else make(item)


@dataclass(frozen=True, eq=False)
class PropertySet:
    """What a family's property module declares, its CHECKS.

    Attributes
    ----------
    kind : str
        The input kind (a key of drfbench.api.KINDS, whose `properties` names the module).
    instance : type
        The instance class.
    read : callable
        `read(instances)`: one instance or many, in the forms the family accepts, as a
        generator of instances.
    random : callable
        `random(count, seed=0, **options)`: random instances (a generator).
    method : type
        The NamedMethod subclass that runs a registered method or a callable on an instance.
    checks : dict
        `{name: check(method, instances, *, tol, collect) -> Verdict}`.
    names : dict
        `{name: display name}`.
    columns : tuple
        The table's columns, in order (VERDICT_COLUMNS, method, label, agrees,
        counterexample, counterexamples, the claim column, and the generator's options).
    pool : callable, optional
        `pool(property, count, seed, **options)`: the instances the table checks `property`
        on (None: the same random ones for every property).
    claim : str
        The table's column for the paper's (or the lecture's) marks.
    claims : dict
        The marks, `{method: {property: holds}}`.
    """
    kind: str
    instance: type
    read: object
    random: object
    method: type
    checks: dict
    names: dict
    columns: tuple
    pool: object = None
    claim: str = "claim"
    claims: dict = field(default_factory=dict)

    def instances_for(self, prop, count, seed=0, **options):
        """The instances the table checks `prop` on: pool's, else `count` random ones.

        Parameters
        ----------
        prop : str
        count : int
        seed : int
        **options
            The pool's (or the random generator's).

        Returns
        -------
        list
        """
        if self.pool is None:
            return list(self.random(count, seed, **options))
        return list(self.pool(prop, count, seed, **options))

    def verdict(self, name, method, instances, check_one, tol, collect=None, **options):
        """Check property `name` over the instances.

        Parameters
        ----------
        name : str
        method : NamedMethod
        instances : iterable
        check_one : callable
            `check_one(method, instance, tol, index, **options)` gives None where the property
            does not apply, else (violation, counterexample or None), as `violation` does.
        tol : float
        collect : list, optional
            Receives every counterexample.
        **options
            Passed to `check_one`.

        Returns
        -------
        Verdict
        """
        method = self.method.of(method)
        checked = violated = 0
        worst, example = 0.0, None
        for index, inst in enumerate(self.read(instances)):
            found = check_one(method, inst, tol, index=index, **options)
            if found is None:
                continue
            checked += 1
            magnitude, counterexample = found
            if counterexample is not None:
                violated += 1
                if collect is not None:
                    collect.append(counterexample)
                if magnitude > worst or example is None:
                    worst, example = magnitude, counterexample
        return Verdict(name, method.name, violated == 0, checked, violated, worst, example)

    def check(self, method, instances=None, *, properties=None, count=100, seed=0, tol=TOL,
              **options):
        """Check a method's properties.

        Parameters
        ----------
        method : str, callable or NamedMethod
            A registered method's name, or a callable (see `NamedMethod.of`).
        instances : optional
            One instance or many, in the forms the family accepts; None: the table's
            instances of each property.
        properties : iterable of str, optional
            The checks to run (default: every one).
        count, seed : int
            How many of the table's instances, from which seed, when `instances` is None.
        tol : float
            The largest violation that counts as none.
        **options
            The pool's (or the random generator's) options.

        Returns
        -------
        dict
            {property: Verdict}.
        """
        method = self.method.of(method)
        given = None if instances is None else list(self.read(instances))
        return {prop: self.checks[prop](
                    method, self.instances_for(prop, count, seed, **options) if given is None
                    else given, tol=tol)
                for prop in properties or self.checks}

    def table(self, methods, count=200, seed=0, *, tol=TOL, progress=None, **options):
        """The property table: every check of every method on its pool of instances.

        Parameters
        ----------
        methods : list of str or dict
            Registered methods' names (the column `label` is theirs), or {name: method}.
        count, seed : int
            Instances per property, and the seed they are drawn from.
        tol : float
            The largest violation that counts as none.
        progress : file, optional
            Gets a line per row.
        **options
            The pool's options; those in `columns` a column each.

        Returns
        -------
        list of dict
            Tidy rows (`columns`), one per (method, property): the verdict, the claim
            where there is one, and every counterexample found.
        """
        named = (((name, self.method.of(p, name)) for name, p in methods.items())
                 if isinstance(methods, dict) else ((p, self.method.of(p)) for p in methods))
        pools = {prop: self.instances_for(prop, count, seed, **options) for prop in self.checks}
        params = inspect.signature(self.pool or self.random).parameters.values()
        given = {**{p.name: p.default for p in params if p.default is not p.empty}, **options}
        keys = {k: v for k, v in given.items() if k in self.columns}
        tag = "".join(f"{k}={v} " for k, v in keys.items())
        rows = []
        for name, method in named:
            for prop, check in self.checks.items():
                found = []
                v = check(method, pools[prop], tol=tol, collect=found)
                claim = self.claims.get(name, {}).get(prop)
                row = {**keys, "method": name, "label": method.name, "property": prop,
                       "property_name": self.names[prop], "holds": v.holds,
                       "checked": v.checked, "violated": v.violated,
                       "violated_fraction": v.violated / v.checked if v.checked else 0.0,
                       "worst": v.worst if math.isfinite(v.worst) else "inf",
                       self.claim: "" if claim is None else claim,
                       "agrees": "" if claim is None else claim == v.holds,
                       "counterexample": "" if v.counterexample is None else str(v.counterexample),
                       "counterexamples": " || ".join(str(c) for c in found)}
                rows.append({column: row[column] for column in self.columns})
                if progress:
                    print(f"{tag}{name:18s} {prop:30s} {'holds' if v.holds else 'VIOLATED'} "
                          f"({v.violated}/{v.checked})", file=progress, flush=True)
        return rows


def checks_for(kind):
    """The property checks of an input kind.

    Parameters
    ----------
    kind : str
        An input kind, a key of `drfbench.api.KINDS`.

    Returns
    -------
    PropertySet
        The CHECKS of the module the registry names for it
        (`drfbench.api.KINDS[kind].properties`), imported by that name.

    Raises
    ------
    ValueError
        The kind has no property checks (the kinds with some are named), or its module
        declares another kind's.
    """
    having = [k for k, spec in api.KINDS.items() if spec.properties]
    if kind not in having:
        raise ValueError(f"input kind {kind!r} has no property checks; kinds with some: "
                         f"{', '.join(having)}")
    checks = importlib.import_module(f"drfbench.{api.KINDS[kind].properties}").CHECKS
    if checks.kind != kind:
        raise ValueError(f"drfbench.{api.KINDS[kind].properties} declares the checks of "
                         f"{checks.kind!r}, not {kind!r}")
    return checks
