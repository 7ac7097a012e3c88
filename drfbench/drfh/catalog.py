"""DRFH's entries in the registry (drfbench.api; Wang, Liang, Li: DRF in cloud computing
systems with heterogeneous servers): the servers input kind with exact DRFH and
per-server DRF for divisible tasks (Sec. III-D, V-A; drfh.exact), and the trace input
kind with the discrete schedulers of Sec. V-B and Sec. VI's slots (drfh.simulation).
Loaded by the registry without the package's modules."""
from ..api import InputKind, Method

SERVERS = "servers"
TRACE = "trace"
_SERVER_OPTIONS = frozenset({"weights", "tasks"})
_TRACE_OPTIONS = frozenset({"sample", "horizon", "weights", "index", "threads", "isa", "literal"})

KINDS = (
    InputKind(SERVERS, ("demands", "servers"),
              "drfbench.drfh.allocate(demands, servers, method, ...)", "drfh.exact:read_inputs",
              properties="drfh.properties", names="user"),
    InputKind(TRACE, ("servers", "tasks"),
              "drfbench.drfh.simulate(servers, tasks, scheduler, ...) (drfbench.drfh.scheduler "
              "for the cluster simulator)", "drfh.trace:read_inputs"),
)

METHODS = (
    Method("drfh", "drfh", SERVERS, "DRFH, problem (7): equal weighted global dominant "
           "shares under per-server capacities, in progressive rounds",
           "drfh.exact:run_exact", _SERVER_OPTIONS | {"solver"}, label="DRFH", exact=True),
    Method("per-server-drf", "drfh", SERVERS, "naive extension (Sec. III-D): DRF on each "
           "server alone", "drfh.exact:run_exact", _SERVER_OPTIONS, label="Per-server DRF"),
    Method("drfh-first-fit", "drfh", TRACE, "First-Fit DRFH: the lowest global "
           "dominant share, on the first server where its task fits",
           "drfh.simulation:run_scheduler", _TRACE_OPTIONS, label="First-Fit DRFH"),
    Method("drfh-best-fit", "drfh", TRACE, "Best-Fit DRFH: the lowest global dominant "
           "share, on the server minimizing Eq. 9", "drfh.simulation:run_scheduler",
           _TRACE_OPTIONS, label="Best-Fit DRFH"),
    Method("drfh-slots", "drfh", TRACE, "slots: k per maximum server, scaled to each "
           "server (Sec. VI's baseline)", "drfh.simulation:run_scheduler",
           _TRACE_OPTIONS | {"slots", "slot_model"}, label="Slots"),
)
