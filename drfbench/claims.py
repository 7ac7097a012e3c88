"""Claims as data: every claim of the papers drfbench reproduces, with how our number is
computed from the committed results and the rule that gives its verdict, in one table
(reference/claims/, one file per paper), rendered into REPRODUCTION.md (`drfbench claims`). docs/claims.md
describes the table, the expression language and the verdict rules.

    from drfbench import claims
    table = claims.load("reference/claims")
    outcomes = claims.evaluate_table(table, "reference")   # one Outcome per claim, in order
    text = claims.render(table, outcomes)                   # REPRODUCTION.md
    claims.disagreements(outcomes)                          # verdicts the table states wrongly
    claims.mutate(table, "reference", 12)                   # rules that cannot fail, or raise
    claims.fingerprint(table)                               # the rules, as one hash
    claims.stability(table, "reference", "results", 1000)   # verdicts on fresh seeds

A value is a selection of a results file's rows (`file`, `where`, `by`, `of`) or an
expression over earlier values; expressions are parsed with Python's `ast` and evaluated
node by node over a fixed set of operators and FUNCTIONS (no attribute access, no
subscripts, no other calls): a table can name columns and values, nothing else.
"""
import ast
import functools
import hashlib
import json
import math
import operator
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import _inputs, rows

# The verdicts (docs/claims.md; `verdict` says the order a claim's rule tries them in).
VERDICTS = ("reproduced", "direction only", "inconclusive", "not reproduced", "not testable")
CLAIM_KEYS = {"id", "where", "claim", "paper", "values", "measured", "figure", "test",
              "direction", "ci", "paper_value", "tolerance", "verdict", "why", "robust", "moves"}
SELECTION_KEYS = {"file", "from", "where", "by", "of"}
_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_MARKER = re.compile(r"^\{\{(claims|counts|summary|stability)(?: ([\w./-]+))?\}\}$")
RULE_KEYS = rows.RULE_KEYS   # what `fingerprint` hashes of a claim
NOT_RERUN = "not rerun"     # a stability row whose claim reads a file the fresh run lacks


class ClaimError(ValueError):
    """The claims table is malformed: a bad expression, an unknown name, a missing file."""


class MissingResults(ClaimError):
    """A results file the table reads is not there.

    Attributes
    ----------
    name : str
        The file, as the table names it.
    """

    def __init__(self, message, name):
        super().__init__(message)
        self.name = name


class _Missing:
    """An earlier value that could not be computed for want of a results file: a claim
    that names it raises its MissingResults."""

    def __init__(self, error):
        self.error = error


def _ordered(a, b):
    return (min(a, b), max(a, b))


# The paper's words and the values each admits around the paper's number X (docs/claims.md,
# "Tolerances"): the only tolerances a claim may state, the same for every claim.
TOLERANCES = {
    "about": (lambda x: _ordered(x / 1.5, x * 1.5), "within a factor of 1.5 of X"),
    "at least": (lambda x: (x, math.inf), "X or more"),
    "at most": (lambda x: (-math.inf, x), "X or less"),
    "substantially more": (lambda x: (x + 0.5 * abs(x) if x else 0.5, math.inf),
                           "at least 1.5 X (X = 0: at least 0.5)"),
    "substantially less": (lambda x: (-math.inf, x / 1.5), "at most X / 1.5 (X > 0)"),
    "order of magnitude": (lambda x: _ordered(x / math.sqrt(10), x * math.sqrt(10)),
                           "within half an order of magnitude of X (a factor √10)"),
}


def band(tolerance, value):
    """The values the paper's words admit around its number.

    Parameters
    ----------
    tolerance : str
        The paper's words, one of TOLERANCES.
    value : float
        The paper's number.

    Returns
    -------
    tuple of float
        (low, high).

    Raises
    ------
    ClaimError
        `tolerance` is not one of TOLERANCES.
    """
    if tolerance not in TOLERANCES:
        raise ClaimError(f"tolerance {tolerance!r} is not one of {', '.join(TOLERANCES)}")
    return TOLERANCES[tolerance][0](float(value))


def _within(x, tolerance, value):
    """Whether every entry of `x` lies in the band of `tolerance` around `value`."""
    low, high = band(tolerance, value)
    s = _series(x).astype(float)
    return bool(len(s) and ((s >= low) & (s <= high)).all())


# --------------------------------------------------------------------------------------
# The expression language
# --------------------------------------------------------------------------------------

def _series(x):
    return x if isinstance(x, pd.Series) else pd.Series(np.atleast_1d(x))


def _one(x):
    """The one distinct entry of `x`; NaN of none (a selection may be empty on other data)."""
    values = pd.unique(_series(x).dropna().to_numpy())
    if not len(values):
        return math.nan
    if len(values) != 1:
        raise ClaimError(f"one() of {len(values)} distinct values: {list(values)[:5]}")
    return values[0]


@functools.lru_cache(maxsize=None)
def _t975(dof):
    from scipy import stats
    return float(stats.t.ppf(0.975, dof))


def _ci95(x):
    """The half-width of the 95% Student t interval of the mean of `x`."""
    s = _series(x).dropna().to_numpy(dtype=float)
    if len(s) < 2:
        raise ClaimError(f"ci95() needs at least 2 values, got {len(s)}")
    return _t975(len(s) - 1) * float(s.std(ddof=1)) / math.sqrt(len(s))


def _slope(x, y):
    """The least-squares slope of y against x; NaN of fewer than two distinct x."""
    x, y = _series(x).astype(float).to_numpy(), _series(y).astype(float).to_numpy()
    ok = np.isfinite(x) & np.isfinite(y)
    if len(np.unique(x[ok])) < 2:
        return math.nan
    return float(np.polyfit(x[ok], y[ok], 1)[0])


def _holds_from(key, condition):
    """The smallest `key` from which `condition` holds at every larger key (NaN if it
    does not hold at the largest)."""
    order = np.argsort(_series(key).to_numpy(), kind="stable")
    keys = _series(key).to_numpy()[order]
    ok = _series(condition).to_numpy(dtype=bool)[order]
    if not len(ok) or not ok[-1]:
        return math.nan
    k = len(ok) - 1
    while k > 0 and ok[k - 1]:
        k -= 1
    return keys[k]


def _at(key, x, pick):
    """The `key` where `x` is largest (pick=argmax) or smallest (argmin)."""
    key, x = _series(key).reset_index(drop=True), _series(x).astype(float).reset_index(drop=True)
    return key.iloc[int(pick(x.to_numpy()))]


def _extreme(reduce, pairwise):
    def f(*args):
        if len(args) == 1:
            return reduce(_series(args[0]).dropna())
        return pairwise(args)
    return f


def _tick(violated, checked):
    """A property table's cell: ✓ when nothing is violated, else ✗ violated/checked."""
    return "✓" if violated == 0 else f"✗ {int(violated)}/{int(checked)}"


# name -> (function, what it does): the only calls an expression may make. Reductions take
# a column (or a value) and give one number; the others work entry by entry.
FUNCTIONS = {
    "size": (lambda x: len(_series(x)), "number of entries"),
    "count": (lambda c: int(_series(c).astype(bool).sum()), "entries where a condition holds"),
    "share": (lambda c: float(_series(c).astype(bool).mean()), "fraction of entries where a condition holds"),
    "sum": (lambda x: float(_series(x).sum()), "sum"),
    "mean": (lambda x: float(_series(x).mean()), "mean"),
    "median": (lambda x: float(_series(x).median()), "median"),
    "std": (lambda x: float(_series(x).std(ddof=1)), "sample standard deviation"),
    "min": (_extreme(lambda s: s.min(), min), "smallest entry (of one argument), or of its arguments"),
    "max": (_extreme(lambda s: s.max(), max), "largest entry (of one argument), or of its arguments"),
    "quantile": (lambda x, q: float(_series(x).quantile(q)), "quantile(x, q), q in [0, 1]"),
    "nunique": (lambda x: int(_series(x).nunique()), "number of distinct entries"),
    "one": (_one, "the one distinct entry (NaN of none, an error if there are several)"),
    "all": (lambda c: bool(_series(c).astype(bool).all()), "every entry holds"),
    "any": (lambda c: bool(_series(c).astype(bool).any()), "some entry holds"),
    "ci95": (_ci95, "half-width of the 95% Student t interval of the mean"),
    "slope": (_slope, "slope(x, y): least-squares slope of y against x"),
    "holds_from": (_holds_from, "holds_from(key, condition): the smallest key from which the condition holds at every larger key"),
    "argmax": (lambda key, x: _at(key, x, np.argmax), "argmax(key, x): the key where x is largest"),
    "argmin": (lambda key, x: _at(key, x, np.argmin), "argmin(key, x): the key where x is smallest"),
    "within": (_within, "within(x, tolerance, X): every entry of x in the band the paper's words admit around X"),
    "abs": (abs, "absolute value"),
    "log": (np.log, "natural logarithm"),
    "log10": (np.log10, "base-10 logarithm"),
    "sqrt": (np.sqrt, "square root"),
    "tick": (_tick, "tick(violated, checked): ✓, or ✗ violated/checked"),
}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.Pow: operator.pow}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
            ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}


def _vector(x):
    return isinstance(x, (pd.Series, np.ndarray))


def evaluate(text, names):
    """The value of an expression, its names looked up in a mapping.

    Parameters
    ----------
    text : str
        Python syntax, a small subset: numbers, strings, lists, names, `+ - * / **`,
        comparisons, `in`, `and`, `or`, `not`, and calls of FUNCTIONS, or `col("name")` for a
        column whose name is not an identifier.
    names : mapping
        The values of the names.

    Returns
    -------
    object

    Raises
    ------
    ClaimError
        Anything else, naming it, or an unknown name.
    """
    try:
        tree = ast.parse(str(text).strip(), mode="eval")
    except SyntaxError as exc:
        raise ClaimError(f"{text!r} is not an expression: {exc.msg}") from None

    def visit(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise ClaimError(f"{text!r}: unknown name {node.id!r}")
            if isinstance(names[node.id], _Missing):
                raise names[node.id].error
            return names[node.id]
        if isinstance(node, (ast.List, ast.Tuple)):
            return [visit(e) for e in node.elts]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
            value = visit(node.operand)
            if isinstance(node.op, ast.USub):
                return -value
            return ~value if _vector(value) else not value
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](visit(node.left), visit(node.right))
        if isinstance(node, ast.BoolOp):
            values = [visit(v) for v in node.values]
            if any(_vector(v) for v in values):
                combine = operator.and_ if isinstance(node.op, ast.And) else operator.or_
                out = values[0]
                for v in values[1:]:
                    out = combine(out, v)
                return out
            return (all if isinstance(node.op, ast.And) else any)(bool(v) for v in values)
        if isinstance(node, ast.Compare):
            left, out = visit(node.left), None
            for op, right_node in zip(node.ops, node.comparators):
                right = visit(right_node)
                if isinstance(op, (ast.In, ast.NotIn)):
                    within = list(right) if isinstance(right, pd.Series) else right   # its entries
                    found = left.isin(within) if _vector(left) else left in within
                    result = (~found if _vector(found) else not found) if isinstance(op, ast.NotIn) else found
                elif type(op) in _COMPARE:
                    result = _COMPARE[type(op)](left, right)
                else:
                    raise ClaimError(f"{text!r}: comparison {type(op).__name__} is not allowed")
                out = result if out is None else out & result
                left = right
            return out
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            args = [visit(a) for a in node.args]
            if node.func.id == "col":
                if len(args) != 1 or args[0] not in names:
                    raise ClaimError(f"{text!r}: col() names one column, got {args}")
                return names[args[0]]
            if node.func.id not in FUNCTIONS:
                raise ClaimError(f"{text!r}: unknown function {node.func.id!r} (the functions: "
                                 f"{', '.join(FUNCTIONS)}, col)")
            try:
                return FUNCTIONS[node.func.id][0](*args)
            except (TypeError, ValueError) as exc:
                if isinstance(exc, ClaimError):
                    raise
                raise ClaimError(f"{text!r}: {node.func.id}(): {exc}") from None
        raise ClaimError(f"{text!r}: {type(node).__name__} is not allowed in a claim expression")
    return visit(tree.body)


@functools.lru_cache(maxsize=None)
def _names(text):
    """The names and the strings expression `text` mentions (the columns it may read)."""
    try:
        tree = ast.parse(str(text).strip(), mode="eval")
    except SyntaxError:
        return frozenset()
    return frozenset(n.id if isinstance(n, ast.Name) else n.value for n in ast.walk(tree)
                     if isinstance(n, ast.Name) or (isinstance(n, ast.Constant)
                                                    and isinstance(n.value, str)))


class _Columns(dict):
    """A table's columns as names for evaluate (and the values the claim defined before)."""

    def __init__(self, frame, values):
        super().__init__(values)
        self.frame = frame

    def __contains__(self, key):
        return key in self.frame.columns or super().__contains__(key)

    def __getitem__(self, key):
        if key in self.frame.columns:
            return self.frame[key]
        if super().__contains__(key):
            return super().__getitem__(key)
        raise KeyError(key)


# --------------------------------------------------------------------------------------
# Selections and values
# --------------------------------------------------------------------------------------

class Results:
    """The results files under a directory, read once each.

    Each through drfbench.rows.read, which checks their provenance columns; "True"/"False"
    text is turned into booleans. Call it with a file's name, relative to `root`.

    Parameters
    ----------
    root : str or Path
        The results directory.
    profiles : dict, optional
        A file `<profile>/...` is read from `<profiles[profile]>/...` where this names one.
    """

    def __init__(self, root, profiles=None):
        self.root = Path(root)
        self.profiles = dict(profiles or {})
        self._tables = {}

    def __call__(self, name):
        if name not in self._tables:
            profile, _, rest = str(name).partition("/")
            path = self.root / self.profiles.get(profile, profile) / rest
            if not path.is_file():
                raise MissingResults(f"{path} does not exist", name)
            table = rows.read(path)
            for column in table.columns:
                if table[column].dtype == object or str(table[column].dtype) in ("str", "string"):
                    seen = set(table[column].dropna().astype(str))
                    if seen and seen <= {"True", "False"}:
                        table[column] = table[column].map({"True": True, "False": False, True: True,
                                                           False: False})
            self._tables[name] = table
        return self._tables[name]


def select(spec, results, values):
    """A selection's value.

    The rows of `file` (or of the earlier values `from` names, one column each, joined on
    their keys) where `where` holds, `of` evaluated over them.

    Parameters
    ----------
    spec : dict
        The selection: `file` or `from`, `of`, and `where` and `by` (column names, or
        `{name: expression}`) if any.
    results : Results
        The results files.
    values : dict
        The values computed so far.

    Returns
    -------
    object or pandas.Series
        Per group of the `by` keys a Series indexed by the keys, else one value.

    Raises
    ------
    ClaimError
        A malformed selection, or `from` naming no earlier grouped value.
    """
    unknown = set(spec) - SELECTION_KEYS
    if unknown or ("file" in spec) == ("from" in spec) or "of" not in spec:
        raise ClaimError(f"a selection has `file` or `from`, and `of` (and may have `where`, "
                         f"`by`); got {sorted(spec)}")
    if "file" in spec:
        frame = results(spec["file"])
    else:
        sources = [spec["from"]] if isinstance(spec["from"], str) else list(spec["from"])
        for source in sources:
            if isinstance(values.get(source), _Missing):
                raise values[source].error
        missing = [s for s in sources if s not in values or not isinstance(values[s], pd.Series)]
        if missing:
            raise ClaimError(f"`from` names {missing}, not earlier grouped values")
        frame = pd.concat({s: values[s] for s in sources}, axis=1).reset_index()
    if "where" in spec:
        mask = evaluate(spec["where"], _Columns(frame, values))
        frame = frame[np.asarray(mask, dtype=bool)]
    if "by" not in spec:
        return evaluate(spec["of"], _Columns(frame, values))
    keys = {}
    for item in ([spec["by"]] if isinstance(spec["by"], (str, dict)) else spec["by"]):
        for name, expr in (item.items() if isinstance(item, dict) else [(item, item)]):
            keys[name] = pd.Series(np.asarray(evaluate(expr, _Columns(frame, values))), index=frame.index)
    used = [c for c in frame.columns if c in _names(spec["of"])]   # group only what `of` reads
    grouped = frame[used].groupby([keys[k] for k in keys], sort=True)
    groups = {key: evaluate(spec["of"], _Columns(part, values)) for key, part in grouped}
    if not groups:          # nothing selected: no groups, under the keys' names
        return pd.Series([], index=pd.MultiIndex.from_arrays([[]] * len(keys), names=list(keys)),
                         dtype=float)
    out = pd.Series(groups)
    out.index.names = list(keys)
    return out


class Perturbed(Results):
    """The results under `root` as `mutate` perturbs them.

    In every file, each column the claims may read as a measurement (numbers and booleans,
    not provenance, not the keys `_keys` finds) is changed per distinct value, drawn from
    `seed` and the file's name (each file its own stream, so that adding a file moves no
    other file's draws): a number multiplied by a factor log-uniform in [1/3, 3], a boolean
    flipped one time in three, and so is a count (an integer column: none becomes one, some
    none). Equal entries of a column stay equal (one() still finds one).

    Parameters
    ----------
    root : str or Path
        The results directory.
    seed : sequence of int
        The draws' seed.
    keys : dict
        Per file, its key columns (exact, axes), as `_keys` finds them.
    """

    def __init__(self, root, seed, keys):
        super().__init__(root)
        self.seed, self.keys = seed, keys

    def __call__(self, name):
        if name not in self._tables:
            table = super().__call__(name).copy()
            rng = np.random.default_rng([*self.seed, *str(name).encode()])
            for column in table.columns:
                data = table[column]
                exact, axes = self.keys.get(name, ((), ()))
                if column in rows.PROVENANCE_NAMES or column in exact or (
                        column in axes and pd.api.types.is_integer_dtype(data)):
                    continue
                if data.dtype == bool:
                    flip = {v: bool(rng.random() < 1 / 3) for v in (False, True)}
                    table[column] = data ^ data.map(flip)
                elif pd.api.types.is_numeric_dtype(data):
                    distinct = pd.unique(data.dropna().to_numpy())
                    new = distinct * np.exp(rng.uniform(-math.log(3), math.log(3), len(distinct)))
                    if pd.api.types.is_integer_dtype(data):     # a count: none or some
                        flip = rng.random(len(distinct)) < 1 / 3
                        new = np.where(flip, (distinct == 0).astype(float), new)
                    table[column] = data.map(dict(zip(distinct, new)))
            self._tables[name] = table
        return self._tables[name]


def _selected_by(text):
    """The names expression `text` compares for equality or membership (`policy == 'x'`,
    `k in [1, 2]`): keys, not measurements."""
    try:
        tree = ast.parse(str(text).strip(), mode="eval")
    except SyntaxError:
        return set()
    return {n.id for node in ast.walk(tree) if isinstance(node, ast.Compare)
            and all(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in node.ops)
            for n in [node.left, *node.comparators] if isinstance(n, ast.Name)}


def _keys(table):
    """{file: (the columns its selections group by or compare for equality, the other
    columns their `where` reads)}: `mutate` leaves the first as they are, and the second
    where they are integers (an axis: `interval > 50`)."""
    keys = {}

    def walk(specs):
        for spec in (specs or {}).values():
            if isinstance(spec, dict) and "file" in spec:
                by = spec.get("by", [])
                named = set()
                for item in ([by] if isinstance(by, (str, dict)) else by):
                    for name, expr in (item.items() if isinstance(item, dict) else [(item, item)]):
                        named |= _names(expr)
                where = spec.get("where", "")
                exact, axes = keys.setdefault(spec["file"], (set(), set()))
                exact.update(named | _selected_by(where))
                axes.update(_names(where))
    for paper in table["papers"]:
        walk(paper.get("values"))
        for section in paper["sections"]:
            for claim in section["claims"]:
                walk(claim.get("values"))
    return keys


def mutate(table, root, copies, seed=0):
    """Whether every rule can fail (docs/claims.md, "Rules that can fail").

    Each claim's verdict over Perturbed copies of the results. A claim that says in `robust`
    why no such copy moves its verdict shows it move by its `moves` instead (its values
    replaced by those expressions, on the results as they are).

    Parameters
    ----------
    table : dict
        The claims table (`load`).
    root : str or Path
        The results directory.
    copies : int
        How many Perturbed copies.
    seed : int
        Their seed.

    Returns
    -------
    fixed : list
        The claims whose verdict never moves from their verdict on `root`.
    raised : list of tuple
        The claims whose rule raises, each with its error.
    """
    found = {o.claim["id"]: o.verdict for o in evaluate_table(table, root)}
    keys = _keys(table)
    moved, raised = set(), {}
    for copy in range(copies):
        results = Perturbed(root, (seed, copy), keys)
        for paper in table["papers"]:
            try:
                with np.errstate(all="ignore"):
                    shared = compute(paper.get("values"), results)
            except (ClaimError, ArithmeticError) as exc:
                raised.setdefault(paper["id"], str(exc))
                continue
            for section in paper["sections"]:
                for claim in section["claims"]:
                    if section.get("ours") or claim.get("verdict") == "not testable":
                        continue
                    try:
                        with np.errstate(all="ignore"):     # perturbed data: log(0) and such
                            values = compute(claim.get("values"), results, shared)
                            if verdict(claim, values) != found[claim["id"]]:
                                moved.add(claim["id"])
                    except (ClaimError, ArithmeticError) as exc:
                        raised.setdefault(claim["id"], str(exc))
    results = Results(root)
    for paper in table["papers"]:         # a robust claim's verdict moves by its `moves`
        for claim in (c for s in paper["sections"] for c in s["claims"] if "robust" in c):
            try:
                with np.errstate(all="ignore"):
                    shifted = compute(paper.get("values"), results, moves=claim["moves"])
                    values = compute(claim.get("values"), results, shifted, moves=claim["moves"])
                    if verdict(claim, values) != found[claim["id"]]:
                        moved.add(claim["id"])
            except (ClaimError, ArithmeticError) as exc:
                raised.setdefault(claim["id"], f"`moves`: {exc}")
    fixed = [c["id"] for p in table["papers"] for s in p["sections"] if not s.get("ours")
             for c in s["claims"] if c["verdict"] != "not testable"
             and c["id"] not in moved and c["id"] not in raised]
    return fixed, sorted(raised.items())


def compute(specs, results, values=None, partial=False, moves=None):
    """Every value of `specs`, in order, each seeing the ones before it (and `values`).

    Parameters
    ----------
    specs : dict
        `{name: selection or expression}`.
    results : Results
        The results files.
    values : dict, optional
        Values given beforehand.
    partial : bool
        A value whose results file is missing is left a _Missing (raising where it is used)
        instead of raising here.
    moves : dict, optional
        `{name: expression}`: a value named there replaced by its expression (over the values
        so far, its own included) before the next is computed.

    Returns
    -------
    dict
        The values, by name.

    Raises
    ------
    ClaimError
        A value that cannot be computed, naming it.
    """
    values = dict(values or {})
    moves = moves or {}
    for name, spec in (specs or {}).items():
        try:
            values[name] = (select(spec, results, values) if isinstance(spec, dict)
                            else evaluate(spec, values))
            if name in moves:
                values[name] = evaluate(moves[name], values)
        except ClaimError as exc:
            if not isinstance(exc, MissingResults):
                raise ClaimError(f"value {name!r}: {exc}") from None
            error = MissingResults(f"value {name!r}: {exc}", exc.name)
            if not partial:
                raise error from None
            values[name] = _Missing(error)
    return values


def fingerprint(table):
    """A hash of the table's rules and the papers' words (each claim's RULE_KEYS, each paper's
    shared values).

    What a run's verdicts were decided by, recorded with the results decided by it (the
    stability report, reference/*/README.md), so that a rule changed after the data shows,
    and with every row of a run (its provenance, drfbench.rows). Edits of measured, why,
    verdict or prose leave it.

    Parameters
    ----------
    table : dict
        The claims table (`load`).

    Returns
    -------
    str
        16 hex digits.
    """
    return rows.fingerprint(table["papers"])


def fresh_name(profile, offset):
    """The results directory of a profile run with a seed offset.

    Parameters
    ----------
    profile : str
    offset : int
        The pipeline's `seed_offset`.

    Returns
    -------
    str
        `<profile>-seeds<offset>`, under results/.
    """
    return f"{profile}-seeds{offset}"


def stability(table, reference, root, offset):
    """The stability report's rows: each claim's verdict on the reference results and on a run
    on fresh seeds.

    `flipped` where they differ; a claim one of whose files the fresh run lacks is NOT_RERUN,
    naming the first (`missing`).

    Parameters
    ----------
    table : dict
        The claims table (`load`).
    reference : str or Path
        The reference results directory.
    root : str or Path
        The fresh run's results, `<root>/<profile>-seeds<offset>/...`.
    offset : int
        The fresh run's seed offset (the pipeline's `seed_offset`).

    Returns
    -------
    drfbench.rows.Rows
        Stamped with the table's fingerprint and the seed offset.
    """
    found = {o.claim["id"]: o.verdict for o in evaluate_table(table, reference)}
    profiles = {Path(f).parts[0] for f in files(table)}
    results = Results(root, {p: fresh_name(p, offset) for p in profiles})
    out = []
    for paper in table["papers"]:
        with np.errstate(all="ignore"):
            shared = compute(paper.get("values"), results, partial=True)
        for section in paper["sections"]:
            for claim in section["claims"]:
                if section.get("ours") or claim["verdict"] == "not testable":
                    continue
                try:
                    with np.errstate(all="ignore"):
                        fresh, why = verdict(claim, compute(claim.get("values"), results, shared)), ""
                except MissingResults as exc:
                    fresh, why = NOT_RERUN, exc.name
                out.append({"claim": claim["id"], "paper": paper["id"],
                            "reference": found[claim["id"]], "fresh": fresh,
                            "flipped": fresh not in (NOT_RERUN, found[claim["id"]]),
                            "missing": why})
    # the table that decided them, whichever it is (the stamp's: the source tree's)
    return rows.Rows(out, {"seed_offset": offset, **rows.stamp(rows.NO_KERNEL),
                           "claims_table": fingerprint(table)})


# --------------------------------------------------------------------------------------
# Numbers as text
# --------------------------------------------------------------------------------------

def number(value, spec=""):
    """`value` as text; minus signs typographic (−).

    Parameters
    ----------
    value : float or pandas.Series or str
        A Series is written as its entries joined by ", "; text as it is.
    spec : str
        A Python format spec, or one ending in `t` for m·10ⁿ (".1t": 5.3·10⁻³).

    Returns
    -------
    str
    """
    if isinstance(value, pd.Series):
        return ", ".join(number(v, spec) for v in value)
    if isinstance(value, str):
        return value
    if isinstance(value, (float, np.floating)) and math.isnan(value):
        raise ClaimError("a number to show is NaN")
    if spec.endswith("t"):
        digits = int(spec[1:-1] or 0) if spec.startswith(".") else 0
        if value == 0:
            return "0"
        exponent = math.floor(math.log10(abs(value)))
        mantissa = round(value / 10 ** exponent, digits)
        if abs(mantissa) >= 10:
            mantissa, exponent = mantissa / 10, exponent + 1
        head = f"{mantissa:.{digits}f}"
        text = (f"10{str(exponent).translate(_SUPERSCRIPT)}" if head in ("1", "1.0") and digits == 0
                else f"{head}·10{str(exponent).translate(_SUPERSCRIPT)}")
        return text.replace("-", "−") if value < 0 else text
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    return format(value, spec).replace("-", "−")


def fill(text, values):
    """`text` with every {expression} or {expression:spec} replaced by its value, as `number`
    writes it ({{ and }} are braces).

    Parameters
    ----------
    text : str
    values : dict
        The values the expressions read.

    Returns
    -------
    str
    """
    def one(match):
        body = match.group(1)
        expr, spec = body, ""
        head, sep, tail = body.rpartition(":")
        if sep and re.fullmatch(r"[<>^=]?[+ -]?,?(\.\d+)?[a-zA-Z%]?", tail):
            expr, spec = head, tail
        return number(evaluate(expr, values), spec)
    escaped = str(text).replace("{{", "\0").replace("}}", "\1")
    return _PLACEHOLDER.sub(one, escaped).replace("\0", "{").replace("\1", "}")


# --------------------------------------------------------------------------------------
# The table, its verdicts and REPRODUCTION.md
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    """A claim, our values and the verdict its rule gives.

    Attributes
    ----------
    claim : dict
        Its entry in the table.
    paper : str
    section : str
    values : dict
        Our values.
    measured : str
        The text of its measured cell.
    why : str
        The text of its why cell.
    verdict : str or None
        None for our own statements.
    """
    claim: dict
    paper: str
    section: str
    values: dict
    measured: str
    why: str
    verdict: str | None


def load(path):
    """The claims table in a directory, each paper checked for its shape (the fields of
    docs/claims.md).

    Parameters
    ----------
    path : str or Path
        The directory: `head.md` (the top of REPRODUCTION.md) and one `<paper>.yaml` per
        paper (`id`, `title`, `order`, `template`: the paper's part of REPRODUCTION.md beside
        it, `sections`).

    Returns
    -------
    dict
        `template` (the parts of REPRODUCTION.md) and `papers`, in `order`.

    Raises
    ------
    ClaimError
        A missing file or a malformed paper, naming it.
    """
    path = Path(path)
    if not path.is_dir():
        raise ClaimError(f"{path}: the claims table is a directory of <paper>.yaml files")
    head = path / "head.md"
    if not head.is_file():
        raise ClaimError(f"{head} does not exist: the top of REPRODUCTION.md")
    papers = []
    for file in sorted(path.glob("*.yaml")):
        paper = _inputs.document(file, "claims")
        if not isinstance(paper, dict) or not {"id", "title", "order", "template", "sections"} <= set(paper):
            raise ClaimError(f"{file}: a paper has `id`, `title`, `order`, `template` and `sections`")
        paper["template"] = path / paper["template"]
        paper["file"] = file
        papers.append(paper)
    if not papers:
        raise ClaimError(f"{path}: no <paper>.yaml")
    papers.sort(key=lambda p: p["order"])
    seen = set()
    for paper in papers:
        for section in paper["sections"]:
            for claim in section["claims"]:
                _check_claim(claim, section, f"{paper['file']}: claim {claim.get('id')!r}", seen)
    return {"template": [head] + [p["template"] for p in papers], "papers": papers}


def _check_claim(claim, section, where, seen):
    unknown = set(claim) - CLAIM_KEYS
    if unknown:
        raise ClaimError(f"{where}: unknown field(s) {sorted(unknown)}")
    if claim.get("id") in seen or "measured" not in claim or "claim" not in claim:
        raise ClaimError(f"{where}: every claim has a unique `id`, `claim` and `measured`")
    seen.add(claim["id"])
    if section.get("ours"):
        return
    if claim.get("verdict") not in VERDICTS:
        raise ClaimError(f"{where}: `verdict` must be one of {', '.join(VERDICTS)}")
    if ("test" in claim or "ci" in claim) == (claim["verdict"] == "not testable"):
        raise ClaimError(f"{where}: a claim has a `test` or `ci` unless it is not testable")
    if ("ci" in claim) != ("tolerance" in claim and "paper_value" in claim) or (
            "ci" in claim and "direction" in claim):
        raise ClaimError(f"{where}: `ci` comes with `paper_value` and `tolerance` (its sign "
                         "is the band's: no `direction`), and they with it")
    if "ci" in claim:
        try:
            band(claim["tolerance"], claim["paper_value"])
        except (ClaimError, TypeError, ValueError) as exc:
            raise ClaimError(f"{where}: {exc}") from None
    if "robust" in claim and not (isinstance(claim["robust"], str) and claim["robust"].strip()):
        raise ClaimError(f"{where}: `robust` says in words why no perturbation moves the verdict")
    if ("robust" in claim) != ("moves" in claim) or "moves" in claim and not (
            isinstance(claim["moves"], dict) and claim["moves"]):
        raise ClaimError(f"{where}: `robust` comes with `moves`, the values ({{name: "
                         "expression}}) that move its verdict, and they with it")
    if claim["verdict"] != "reproduced" and not claim.get("why"):
        raise ClaimError(f"{where}: a verdict other than reproduced says `why`")


def interval(values):
    """The 95% interval of the mean of `values`.

    Parameters
    ----------
    values : array_like

    Returns
    -------
    tuple of float
        (low, high).
    """
    half = _ci95(values)
    mean = float(_series(values).mean())
    return mean - half, mean + half


def verdict(claim, values):
    """The verdict of a claim's rule on our values (docs/claims.md, "The verdicts").

    Not testable without a `test` or `ci`. With `ci`, an equivalence test of the 95% interval
    of its values against the band its `tolerance` admits around `paper_value`: reproduced
    inside the band (and `test`, if any, holds), direction only outside it (or `test`
    failing) but on the band's side of zero, inconclusive when it overlaps the band and more,
    else not reproduced. Without: reproduced when `test` holds, direction only when
    `direction` does, else not reproduced.

    Parameters
    ----------
    claim : dict
        Its entry in the table.
    values : dict
        Our values.

    Returns
    -------
    str
        One of VERDICTS.

    Raises
    ------
    ClaimError
        A rule giving several values where it needs one.
    """
    if "test" not in claim and "ci" not in claim:
        return "not testable"

    def holds(key):
        result = evaluate(claim[key], values)
        if _vector(result):
            raise ClaimError(f"claim {claim['id']!r}: `{key}` gives {len(result)} values; "
                             "use all() or any()")
        return bool(result)
    if "ci" in claim:
        low, high = interval(evaluate(claim["ci"], values))
        if math.isnan(low) or math.isnan(high):
            return "not reproduced"
        band_low, band_high = band(claim["tolerance"], claim["paper_value"])
        inside = band_low <= low and high <= band_high
        if inside and ("test" not in claim or holds("test")):
            return "reproduced"
        if inside or high < band_low or low > band_high:
            signed = (band_low >= 0 and low > 0) or (band_high <= 0 and high < 0)
            return "direction only" if signed else "not reproduced"
        return "inconclusive"
    if holds("test"):
        return "reproduced"
    if "direction" in claim and holds("direction"):
        return "direction only"
    return "not reproduced"


def evaluate_table(table, root):
    """One Outcome per claim of `table`, in order, from the results under `root`.

    Parameters
    ----------
    table : dict
        The claims table (`load`).
    root : str or Path
        The results directory.

    Returns
    -------
    list of Outcome

    Raises
    ------
    ClaimError
        A claim whose values cannot be computed, naming it.
    """
    results = Results(root)
    outcomes = []
    for paper in table["papers"]:
        shared = compute(paper.get("values"), results)
        for section in paper["sections"]:
            for claim in section["claims"]:
                try:
                    values = compute(claim.get("values"), results, shared)
                    measured = fill(claim["measured"], values)
                    why = fill(claim.get("why", ""), values)
                    found = None if section.get("ours") else verdict(claim, values)
                except ClaimError as exc:
                    raise ClaimError(f"claim {claim['id']!r}: {exc}") from None
                outcomes.append(Outcome(claim, paper["id"], section["id"], values, measured, why, found))
    return outcomes


def disagreements(outcomes):
    """One line per claim whose verdict by its rule is not the one the table states.

    Parameters
    ----------
    outcomes : list of Outcome

    Returns
    -------
    list of str
    """
    return [f"claim {o.claim['id']}: the table says {o.claim['verdict']!r}, its rule gives "
            f"{o.verdict!r} (measured: {o.measured})"
            for o in outcomes if o.verdict is not None and o.verdict != o.claim["verdict"]]


def _cell(text):
    return " ".join(str(text).split()).replace("|", "\\|")


def _section_table(section, outcomes):
    """A section's Markdown table: our statements (`ours`) or the paper's claims, with a
    figure column where some row names figures."""
    ours = section.get("ours")
    figures = any("figure" in o.claim for o in outcomes)
    head = (["#", "statement"] if ours else ["#", "claim (paper)", "paper"]) + ["measured here"]
    head += (["figure"] if figures else []) + ([] if ours else ["verdict"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for o in outcomes:
        c = o.claim
        cells = [c["id"], f"{c['where']}: {c['claim']}" if c.get("where") else c["claim"]]
        cells += ([] if ours else [c.get("paper", "")]) + [o.measured]
        if figures:
            cells.append(", ".join(f"`{f}`" for f in str(c["figure"]).split()) if "figure" in c else "—")
        if not ours:
            cells.append(f"**{o.verdict}**" + (f": {o.why}" if o.why else ""))
        lines.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    return "\n".join(lines)


def _counts(outcomes):
    """{verdict: [claim ids]} for the outcomes with a verdict, in VERDICTS' order."""
    found = {v: [o.claim["id"] for o in outcomes if o.verdict == v] for v in VERDICTS}
    return {v: ids for v, ids in found.items() if ids}


def _counts_line(outcomes):
    counts = _counts(outcomes)
    total = sum(len(ids) for ids in counts.values())
    parts = [f"**{len(ids)} {v}** ({', '.join(ids)})" for v, ids in counts.items()]
    return f"{total} claims: " + ", ".join(parts) + "."


def _summary(table, outcomes):
    lines = ["| paper | claims | " + " | ".join(VERDICTS) + " |", "|" + "---|" * (len(VERDICTS) + 2)]
    for paper in table["papers"]:
        mine = [o for o in outcomes if o.paper == paper["id"] and o.verdict is not None]
        counts = _counts(mine)
        lines.append(f"| {paper['title']} | {len(mine)} | "
                     + " | ".join(str(len(counts.get(v, []))) for v in VERDICTS) + " |")
    return "\n".join(lines)


def _stability(table, root, name):
    """The {{stability FILE}} paragraph: what the stability report `root`/FILE (written by
    `stability`) says, the claims whose verdict flipped on fresh seeds in a table."""
    path = Path(root) / name
    if not path.is_file():
        return f"No stability report: the results have no `{name}` (docs/claims.md, \"Stability\")."
    report = rows.read(path)
    rerun = report[report["fresh"] != NOT_RERUN]
    flipped = rerun[rerun["flipped"].astype(str) == "True"]
    made, now = str(report["claims_table"].iloc[0]), fingerprint(table)
    missing = sorted(set(report.loc[report["fresh"] == NOT_RERUN, "missing"]))
    first = report.iloc[0]
    lines = [
        f"**Stability on fresh seeds** (`{name}`): the claims table (fingerprint "
        f"`{made}`{', as now' if made == now else f'; the table now is `{now}`: rules changed since'}) "
        f"decided every verdict again on a run with every seed offset by {first['seed_offset']}, "
        f"at commit {str(first['git_commit'])[:10]} on {first['cpu_model']} "
        f"({first['cpu_count']} CPUs), {first['timestamp']}: {len(rerun)} of {len(report)} "
        f"verdicts rerun, **{len(flipped)} flipped**"
        + (f" ({', '.join(flipped['claim'])}); " if len(flipped) else "; ")
        + f"{len(report) - len(rerun)} not rerun (their files were not regenerated: "
        + (", ".join(f"`{m}`" for m in missing) or "none") + ")."]
    if len(flipped):
        lines += ["", "| # | reference seeds | fresh seeds |", "|---|---|---|"]
        lines += [f"| {r.claim} | {r.reference} | {r.fresh} |" for r in flipped.itertuples()]
    return "\n".join(lines)


def render(table, outcomes, root=None):
    """REPRODUCTION.md, from the template.

    Every {{claims SECTION}}, {{counts PAPER}}, {{summary}} and {{stability FILE}} line is
    replaced by the section's table, the paper's verdict counts, the counts of every paper
    and what the stability report FILE says. Every section is placed exactly once.

    Parameters
    ----------
    table : dict
        The claims table (`load`).
    outcomes : list of Outcome
        `evaluate_table`'s.
    root : str or Path, optional
        The results directory, under which the stability reports lie.

    Returns
    -------
    str

    Raises
    ------
    ClaimError
        A section placed not exactly once, a marker naming nothing, or a {{stability}} line
        without `root`.
    """
    sections = {s["id"]: s for p in table["papers"] for s in p["sections"]}
    papers = {p["id"] for p in table["papers"]}
    placed = []
    out = []
    lines = [line for template in table["template"]
             for line in Path(template).read_text().splitlines() + [""]][:-1]
    for line in lines:
        match = _MARKER.match(line.strip())
        if not match:
            out.append(line)
            continue
        kind, name = match.groups()
        if kind == "summary":
            out.append(_summary(table, outcomes))
        elif kind == "stability" and name:
            if root is None:
                raise ClaimError(f"{line.strip()}: render() needs the results directory")
            out.append(_stability(table, root, name))
        elif kind == "claims" and name in sections:
            placed.append(name)
            out.append(_section_table(sections[name], [o for o in outcomes if o.section == name]))
        elif kind == "counts" and name in papers:
            out.append(_counts_line([o for o in outcomes if o.paper == name and o.verdict]))
        else:
            raise ClaimError(f"{line.strip()} names no {kind[:-1]} of the claims table")
    if sorted(placed) != sorted(sections):
        raise ClaimError(f"every section is placed once; placed {placed}, "
                         f"sections {sorted(sections)}")
    return "\n".join(out) + "\n"


def files(table):
    """The results files the table reads, relative to its results directory.

    Parameters
    ----------
    table : dict
        The claims table (`load`).

    Returns
    -------
    list of str
        Sorted.
    """
    found = []

    def walk(specs):
        for spec in (specs or {}).values():
            if isinstance(spec, dict) and "file" in spec:
                found.append(spec["file"])
    for paper in table["papers"]:
        walk(paper.get("values"))
        for section in paper["sections"]:
            for claim in section["claims"]:
                walk(claim.get("values"))
    return sorted(set(found))
