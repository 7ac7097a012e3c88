"""drfbench's H-DRF on Volcano's two H-DRF examples (volcano-sh/volcano,
pkg/scheduler/plugins/drf/hdrf_test.go, TestHDRF, at commit
1a562000439454b85eeed123cc206dc7521043ab).

Upstream's check is `if equality.Semantic.DeepEqual(test.expected, job.Allocated) {
t.Fatalf(...) }`: it compares the whole map of expected allocations (job name ->
*api.Resource) with one job's *api.Resource, which are never equal (different types), and
fails only when they are, so both examples pass whatever Volcano allocates. (Until commit
d56ca6ff8fdfafab69ff2b90daa59c870b0a1adf, "update UT tests", it compared
`test.expected[job.Name] != job.Allocated.String()`, which did check.) Here each example
is the same tree run through the registry, asserting what H-DRF gives, derived by hand:

- "rescaling test": one node of 10 CPU, 10G memory, 50 pods; root = {sci (weight 50):
  pg1, 10 tasks of <1 CPU, 1G>; eng (50) = {dev (50): pg21, 10 x <1 CPU>; prod (50):
  pg22, 10 x <1G>}}. eng's open children are rescaled to the lower of dev's and prod's
  shares, so eng's share is min(dev, prod)/10 and sci's is pg1/10: ties go to the child
  written first, so the rounds are sci, dev, prod until CPU and memory run out together at
  pg1 = pg21 = pg22 = 5, upstream's expectation.
- "blocking nodes test": one node of 30 CPU, 30G, 500 pods; root (weights 25 each) =
  {pg1, pg2: 30 x <1 CPU>; pg3 = {pg31 (50): 30 x <1 CPU>; pg32 (50): 30 x <1G>};
  pg4: 30 x <1G>}. Round by round every leaf gains a task until CPU runs out at pg1 =
  pg2 = pg31 = 10 (pg32 = pg4 = 10); pg1, pg2 and pg31 are then blocked and CPU leaves
  the shares, so pg3's share is pg32's memory alone and pg32 and pg4 split the last 10G:
  10, 10, 10, 15, 15, upstream's expectation.

So H-DRF gives what the test claims. Flattening (weighted DRF on the leaves, weights the
products of the weight fractions) does not: a leaf under eng or pg3 weighs half as much as
the leaves beside its parent, which take about twice its tasks (7, 3, 3 and 12, 12, 6, 10,
20).

Volcano counts memory in bytes and CPU in millicores; a task here is one pod with 1 CPU, 1G or
both, as its pod group asks.
"""
import pytest

from drfbench import api

RES = ["cpu", "mem", "pods"]
CPU, MEM = [1, 0, 1], [0, 1, 1]


def leaf(weight, demand, tasks):
    """A Volcano queue holding one pod group of `tasks` pods."""
    return {"weight": weight, "demand": demand, "tasks": tasks}


RESCALING = {"resources": RES, "children": {
    "sci": leaf(50, [1, 1, 1], 10),
    "eng": {"weight": 50, "children": {"dev": leaf(50, CPU, 10),
                                       "prod": leaf(50, MEM, 10)}}}}
BLOCKING = {"resources": RES, "children": {
    "pg1": leaf(25, CPU, 30), "pg2": leaf(25, CPU, 30),
    "pg3": {"weight": 25, "children": {"pg31": leaf(50, CPU, 30),
                                       "pg32": leaf(50, MEM, 30)}},
    "pg4": leaf(25, MEM, 30)}}

# (tree, the node's capacity, upstream's expected allocation per leaf in CPU, G, pods)
EXAMPLES = {
    "rescaling test": (RESCALING, [10, 10, 50], {
        "sci": [5, 5, 5], "eng/dev": [5, 0, 5], "eng/prod": [0, 5, 5]}),
    "blocking nodes test": (BLOCKING, [30, 30, 500], {
        "pg1": [10, 0, 10], "pg2": [10, 0, 10], "pg3/pg31": [10, 0, 10],
        "pg3/pg32": [0, 15, 15], "pg4": [0, 15, 15]}),
}


@pytest.mark.parametrize("literal", [False, True], ids=["kernel", "literal"])
@pytest.mark.parametrize("name", EXAMPLES)
def test_hdrf_gives_upstream_expectation(name, literal):
    tree, capacity, expected = EXAMPLES[name]
    options = {"literal": True} if literal else {}
    res = api.run("hdrf", tree, [capacity], **options)
    assert {path: held.tolist() for path, held in res.allocation.items()} == expected


@pytest.mark.parametrize("name", EXAMPLES)
def test_rivals_on_the_examples(name):
    """Static H-DRF agrees with H-DRF (neither example separates them); naive H-DRF
    waits for a CPU task that cannot fit, leaving memory idle."""
    tree, capacity, _ = EXAMPLES[name]
    hdrf = api.run("hdrf", tree, [capacity])
    assert api.run("static-hdrf", tree, [capacity]).tasks == hdrf.tasks
    naive = api.run("naive-hdrf", tree, [capacity])
    assert sum(held[1] for held in naive.allocation.values()) < capacity[1]


FLATTENED = {
    # sci weighs 1/2, dev and prod 1/4: pg1 gets twice their tasks, 7 + 3 CPU
    "rescaling test": {"sci": 7, "eng/dev": 3, "eng/prod": 3},
    # pg1, pg2, pg4 weigh 1/4, pg31 and pg32 1/8: CPU 12 + 12 + 6, memory 10 + 20
    "blocking nodes test": {"pg1": 12, "pg2": 12, "pg3/pg31": 6, "pg3/pg32": 10,
                            "pg4": 20},
}


@pytest.mark.parametrize("name", EXAMPLES)
def test_flattening_differs(name):
    tree, capacity, _ = EXAMPLES[name]
    assert api.run("flatten", tree, [capacity]).tasks == FLATTENED[name]
