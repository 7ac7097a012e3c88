"""Classic DRF's entries in the registry (drfbench.api; Ghodsi et al., NSDI'11; the
cs262a lecture): the tasks-on-machines input kind and its methods (drf.tasks), and the
divisible methods (drf.divisible), which take DC-DRF's kind by its name and run through
its dispatch. Loaded by the registry without the package's modules."""
from ..api import ISA, InputKind, Method, Option

DEMANDS = "demands"          # DC-DRF's kind (drfbench.dcdrf.catalog), taken by its name
TASKS = "tasks"

WEIGHTS = Option("weights", list, None, "per user, > 0 (None: equal)")
TASK_COUNTS = Option("tasks", list, None, "tasks each user has to run, whole numbers "
                     "(None or inf: an infinite queue)")
SLOTS = Option("slots", int, None, "slots per machine (hadoop-slots needs it)", "[1, 1e7]")

KINDS = (
    InputKind(TASKS, ("demands", "machines"),
              "drfbench.drf.schedule(demands, machines, method, ...) (drfbench.drf.scheduler "
              "for the cluster simulator)", "drf.tasks:read_inputs", names="user"),
)

METHODS = (
    Method("drf", "drf", DEMANDS, "divisible DRF by progressive filling (NumPy, small instances)",
           "drf.divisible:run_drf", label="DRF", exact=True),
    Method("asset-fairness", "drf", DEMANDS, "asset fairness by progressive filling (NumPy)",
           "drf.divisible:run_asset_fairness", label="Asset"),
    Method("ceei", "drf", DEMANDS, "competitive equilibrium from equal incomes (NumPy, exact)",
           "drf.divisible:run_ceei", label="CEEI"),
    Method("online-drf", "drf", TASKS, "online DRF: the next task goes to the lowest dominant share",
           "drf.tasks:run_method", (WEIGHTS, TASK_COUNTS, ISA), label="DRF"),
    Method("hadoop-slots", "drf", TASKS, "slot-based fair sharing, k slots per machine "
           "(Hadoop's fair scheduler)", "drf.tasks:run_method",
           (WEIGHTS, TASK_COUNTS, SLOTS, ISA), label="slots"),
)

# The declared options each pipeline step sweeps, a run per value (sweep's name -> option):
# its flag (_command.steps), its rule's values from the config (drfbench.pipeline.flags).
STEP_SWEEPS = {"slots": {"slots": "slots"}}
# The declared options each step takes (drfbench.pipeline.flags): decisions times online-drf
# as declared, taking none.
STEP_OPTIONS = {"decisions": ()}
