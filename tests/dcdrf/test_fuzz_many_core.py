"""The fuzz suite for the many-core set's configuration file (`python -m drfbench.dcdrf
many-core --config`, drfbench/dcdrf/many_core.py): generated files, as documents and as
text, near the options' names and of the wrong shape. Each plans its runs (every one a
`drfbench bench` command its parser accepts, its CSV inside the folder) or refuses with a
ValueError/TypeError (tests/fuzz.py: a hang or another exception fails the example)."""
import tempfile
from pathlib import Path

from hypothesis import strategies as st

import fuzz
from drfbench.dcdrf import bench, many_core

FUZZED = ()     # a step's configuration, not an input kind of drfbench.api

NAMES = st.sampled_from([*many_core.OPTIONS, *many_core.OWN, "runs", "tenant", "isa", ""])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 2**70), st.sampled_from(
    [0.001, 1e-400, float("nan"), float("inf"), "G0", "U9", "avx512", "scalar", "cores",
     "threads", "dcdrf", "edrf-event", "float32", "float16", "", "1,2", "{isa}"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(NAMES, inner, max_size=3)), max_leaves=6)
RUNS = st.dictionaries(st.one_of(st.sampled_from(["a", "b_{isa}", "../x", "", "{isa}"]),
                                 st.integers(0, 3)),
                       st.one_of(st.dictionaries(NAMES, VALUES, max_size=4), VALUES),
                       max_size=3)
CONFIGS = st.one_of(st.fixed_dictionaries({"runs": RUNS}, optional={
    name: VALUES for name in ("tenants", "threads", "isas", "places", "floor", "epsilons")}),
    VALUES)


def check(runs, out):
    for path, env, argv in runs:
        assert path.parent == Path(out) and path.suffix == ".csv"
        assert env["OMP_PLACES"] in ("cores", "threads") and env["OMP_PROC_BIND"] == "close"
        assert argv[-2:] == ["--csv", str(path)]
        bench.parse_args(argv)


@fuzz.cases(config=CONFIGS)
def test_a_generated_configuration_plans_or_is_refused(config):
    outcome = fuzz.call(many_core.plan, config, "set")
    if not outcome.refused:
        check(outcome.value, "set")


@fuzz.cases(text=st.one_of(st.text(max_size=80), st.sampled_from([
    "runs: {a: {threads: [1, 2]}}\n", "runs: {a: {threads: [1, 2]}\n", "runs: [a]\n",
    "runs:\n  a: &x {threads: [1]}\n  b: *x\n", "runs: {a: {tenants: 1e999}}\n",
    "\ufeffruns: {a: {}}\n", "runs: {a: {}, a: {}}\n"])))
def test_a_generated_file_plans_or_is_refused(text):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "many.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        outcome = fuzz.call(many_core.plan, str(path), "set")
    if not outcome.refused:
        check(outcome.value, "set")
