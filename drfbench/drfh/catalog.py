"""DRFH's entries in the registry (drfbench.api; Wang, Liang, Li: DRF in cloud computing
systems with heterogeneous servers): the servers input kind with exact DRFH and
per-server DRF for divisible tasks (Sec. III-D, V-A; drfh.exact), and the trace input
kind with the discrete schedulers of Sec. V-B and Sec. VI's slots (drfh.simulation).
Loaded by the registry without the package's modules."""
from ..api import ISA, THREADS, InputKind, Method, Option

SERVERS = "servers"
TRACE = "trace"
SOLVERS = ("aggregate", "lp")
DEFAULT_SLOTS = 14          # Table II's best
SLOT_MODELS = ("timeshare", "capped")

WEIGHTS = Option("weights", list, None, "per user, > 0 (None: equal)")
_SERVER_OPTIONS = (WEIGHTS, Option("tasks", list, None, "tasks each user has to run (None or "
                                   "inf: as many as fit)"))
SOLVER = Option("solver", str, "aggregate", "how problem (7) is solved: the aggregated "
                "progressive rounds, or HiGHS's LP (the test oracle)", choices=SOLVERS)
SAMPLE = Option("sample", float, 60.0, "seconds between utilization samples", "(0, inf)")
HORIZON = Option("horizon", float, float("inf"), "seconds simulated at most (inf: until the "
                 "last task ends)", "[0, inf]")
_TRACE_OPTIONS = (
    SAMPLE, HORIZON, WEIGHTS,
    Option("index", bool, True, "find servers through the server index (False: a linear "
           "scan)"),
    THREADS, ISA,
)
SLOTS = Option("slots", int, DEFAULT_SLOTS, "slots per maximum server, scaled to each server",
               "[1, inf)")
SLOT_MODEL = Option("slot_model", str, "timeshare", "what a slot gives a task: a time share "
                    "of its server, or a cap", choices=SLOT_MODELS)
# The run's options, not its scheduler's (drfh.simulation.run_method takes them off), and
# those a step's rows record beside what the run was asked (DRFHSimulation.asked).
RUN = (SAMPLE, HORIZON, SLOT_MODEL)
RECORDED = (HORIZON,)
# The scheduler's own (drfh.simulation.scheduler reads them; the others go to the kernel).
SCHEDULER = (SLOTS, WEIGHTS)

KINDS = (
    InputKind(SERVERS, ("demands", "servers"),
              "drfbench.drfh.allocate(demands, servers, method, ...)", "drfh.exact:read_inputs",
              properties="drfh.properties", names="user"),
    InputKind(TRACE, ("servers", "tasks"),
              "drfbench.drfh.simulate(servers, tasks, method, ...) (drfbench.drfh.scheduler "
              "for the cluster simulator)", "drfh.trace:read_inputs"),
)

METHODS = (
    Method("drfh", "drfh", SERVERS, "DRFH, problem (7): equal weighted global dominant "
           "shares under per-server capacities, in progressive rounds",
           "drfh.exact:run_exact", (*_SERVER_OPTIONS, SOLVER), label="DRFH", exact=True),
    Method("per-server-drf", "drfh", SERVERS, "naive extension (Sec. III-D): DRF on each "
           "server alone", "drfh.exact:run_exact", _SERVER_OPTIONS, label="Per-server DRF"),
    Method("drfh-first-fit", "drfh", TRACE, "First-Fit DRFH: the lowest global "
           "dominant share, on the first server where its task fits",
           "drfh.simulation:run_method", _TRACE_OPTIONS, label="First-Fit DRFH",
           literal=True),
    Method("drfh-best-fit", "drfh", TRACE, "Best-Fit DRFH: the lowest global dominant "
           "share, on the server minimizing Eq. 9", "drfh.simulation:run_method",
           _TRACE_OPTIONS, label="Best-Fit DRFH", literal=True),
    Method("drfh-slots", "drfh", TRACE, "slots: k per maximum server, scaled to each "
           "server (Sec. VI's baseline)", "drfh.simulation:run_method",
           (*_TRACE_OPTIONS, SLOTS, SLOT_MODEL), label="Slots", literal=True),
)

# The declared options each pipeline step takes ({the step's name: option} where it has its
# own, as Fig. 4's sampling) and sweeps, a run per value (sweep's name -> option): their
# flags (_command.steps), their rules' values from the config's `drfh.sim` and
# `drfh.sensitivity` (drfbench.pipeline.flags).
STEP_OPTIONS = {"dynamic": {"dynamic_sample": "sample"},
                "run": ("horizon", "sample", "slots", "slot_model"),
                "slots-search": ("horizon", "sample", "slot_model"),
                "sharing": ("horizon", "sample"),
                "sensitivity": ("horizon", "sample")}
STEP_SWEEPS = {"slots-search": {"slot_grid": "slots"},
               "sensitivity": {"slot_grid": "slots", "slot_models": "slot_model"}}
