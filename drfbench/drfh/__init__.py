"""DRFH (Wang, Liang, Li: "Dominant Resource Fairness in Cloud Computing Systems with
Heterogeneous Servers"): fair sharing of heterogeneous servers by global dominant shares.

    allocate(demands, servers, method)   exact DRFH for divisible tasks (problem (7), Sec.
                                         V-A), or per-server DRF (Sec. III-D); exact.py
    worked_example()                     the paper's Fig. 1 cluster and users
    simulate(servers, tasks, method="drfh-best-fit", **options)      one trace on the simulator
    scheduler(machines, trace, "drfh-best-fit" | "drfh-first-fit" | "drfh-slots")
                                         the kernel policy, for drfbench.sim
    capped(trace, machines, k)           the trace as slots of 1/k cap its tasks
                                         (the capped slot model)
    read_servers, read_tasks, alibaba_tasks, google_servers      the generic trace format

`python -m drfbench.drfh` runs the pipeline's steps; docs/families/drfh/choices.md says what was
chosen where the paper is silent.
"""
from .catalog import SOLVERS
from .exact import Allocation, allocate
from .examples import worked_example
from .literal import LiteralScheduler
from .schedulers import capped, slot_counts
from .simulation import DRFHSimulation, scheduler, simulate
from .trace import alibaba_tasks, google_servers, read_servers, read_tasks

__all__ = ["SOLVERS", "Allocation", "allocate", "worked_example",
           "DRFHSimulation", "LiteralScheduler", "alibaba_tasks", "capped",
           "google_servers", "read_servers", "read_tasks", "scheduler", "simulate",
           "slot_counts"]
