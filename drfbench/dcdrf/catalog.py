"""DC-DRF's entries in the registry (drfbench.api; Kash, O'Shea, Volos, SoCC'18): the
divisible-demands input kind, run through drfbench.allocate (dcdrf.demands), and the
family's methods (dcdrf.methods). Loaded by the registry without the package's modules."""
from ..api import ISA, THREADS, InputKind, Method, Option

DEMANDS = "demands"
NO_ROUND_LIMIT = 2**62

EPSILON = Option("epsilon", float, 0.0, "DC-DRF's tolerance: a resource counts as exhausted "
                 "once its residual is at most epsilon (Algorithm 2 line 16)", "[0, 1)")
DEADLINE = Option("deadline", float, None, "seconds after which the inner loop stops at the "
                  "end of its round (line 19); None: none", "(0, inf]")
MAX_ROUNDS = Option("max_rounds", int, None, "rounds after which the inner loop stops "
                    "(deterministic); None: no limit", f"[1, {NO_ROUND_LIMIT}]")
_KERNEL = (DEADLINE, MAX_ROUNDS, ISA)

KINDS = (
    InputKind(DEMANDS, ("demands",), "drfbench.allocate(demands, method, ...)",
              "dcdrf.workloads:read_demands", properties="drf.properties", names="tenant",
              dispatch="dcdrf.demands:allocate"),
)

METHODS = (
    Method("edrf", "dcdrf", DEMANDS, "EDRF, Algorithm 1: the conventional single-threaded baseline",
           "dcdrf.methods:run_edrf", _KERNEL, label="EDRF", exact=True, conventional=True),
    Method("dcdrf", "dcdrf", DEMANDS, "DC-DRF, Algorithm 2's inner loop, parallel",
           "dcdrf.methods:run_dcdrf", (*_KERNEL, EPSILON, THREADS), label="DC-DRF", exact=True),
    Method("sdcdrf", "dcdrf", DEMANDS, "DC-DRF on one thread (sDC-DRF)",
           "dcdrf.methods:run_dcdrf", (*_KERNEL, EPSILON), label="sDC-DRF", exact=True),
    Method("pedrf", "dcdrf", DEMANDS, "parallel EDRF stopped at the deadline (pEDRF: epsilon = 0)",
           "dcdrf.methods:run_dcdrf", (*_KERNEL, THREADS), label="pEDRF", exact=True),
    Method("pedrf1", "dcdrf", DEMANDS, "parallel EDRF for exactly one round (pEDRF-1, akin to HUG)",
           "dcdrf.methods:run_dcdrf", (*_KERNEL, THREADS), label="pEDRF-1", max_rounds=1),
    Method("edrf-event", "dcdrf", DEMANDS,
           "exact EDRF, event-driven (drfbench's own); epsilon gives DC-DRF's rounds",
           "dcdrf.methods:run_edrf_event", (*_KERNEL, EPSILON, THREADS), label="edrf-event",
           exact=True),
)

# The declared options each pipeline step sweeps, a run per value (sweep's name -> option):
# its flag (_command.steps), its rule's values from the config (drfbench.pipeline.flags).
STEP_SWEEPS = {"guarantees": {"epsilons": "epsilon"}, "controller": {"threads": "threads"}}
