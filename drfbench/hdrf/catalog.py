"""H-DRF's entries in the registry (drfbench.api; Bhattacharya et al., SoCC'13; the slides
by Ghodsi): the tree input kind and H-DRF with its rivals (hdrf.tasks). Loaded by the
registry without the package's modules."""
from ..api import ISA, InputKind, Method, Option

TREE = "tree"
MAX_SETS = 1024                    # kept open-sets, at most (the kernel's own limit)
INCREMENTAL = Option("incremental", bool, True, "keep the tree's shares up to date as tasks "
                     "start and end, rather than recomputing them (both decide the same)")
SETS = Option("sets", int, None, "open-sets kept (which task shapes fit where; None: as many "
              "as the kernel needs)", f"[1, {MAX_SETS}]")
TASKS = Option("tasks", list, None, "tasks each leaf has to run, whole numbers (None or inf: "
               "an infinite queue)")
_OPTIONS = (TASKS, INCREMENTAL, SETS, ISA)

KINDS = (
    InputKind(TREE, ("tree", "machines"),
              "drfbench.hdrf.schedule(tree, machines, method, ...) (drfbench.hdrf.scheduler for "
              "the cluster simulator, drfbench.hdrf.allocate for a divisible pool)",
              "hdrf.tree:read_inputs", properties="hdrf.properties"),
)

METHODS = (
    Method("hdrf", "hdrf", TREE, "H-DRF: top-down by lowest dominant share, siblings "
           "rescaled to the lowest non-blocked one, blocked nodes ignored",
           "hdrf.tasks:run_method", _OPTIONS, label="H-DRF", literal=True),
    Method("static-hdrf", "hdrf", TREE, "static H-DRF: top-down equalizing on raw usage, "
           "without the two invariants", "hdrf.tasks:run_method", _OPTIONS,
           label="Static H-DRF", literal=True),
    Method("naive-hdrf", "hdrf", TREE, "naive hierarchical DRF (Hadoop): raw subtree "
           "usage, a task that fits nowhere is waited for", "hdrf.tasks:run_method",
           _OPTIONS, label="Naive H-DRF", literal=True),
    Method("flatten", "hdrf", TREE, "hierarchy flattening: weighted DRF on the leaves, "
           "weights the products of weight fractions", "hdrf.tasks:run_method",
           _OPTIONS, label="Flattening", literal=True),
    Method("capacity", "hdrf", TREE, "capacity scheduler: each node limited to its "
           "guaranteed fraction (not Pareto efficient)", "hdrf.tasks:run_method", _OPTIONS,
           label="Capacity", literal=True),
    Method("capacity-pareto", "hdrf", TREE, "capacity scheduler filling idle capacity "
           "beyond the guarantees (Pareto)", "hdrf.tasks:run_method", _OPTIONS,
           label="Capacity (Pareto)", literal=True),
)
