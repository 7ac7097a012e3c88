"""DRFH (Wang, Liang, Li): dominant resource fairness across heterogeneous servers.

Schedulers and traces (this part):
    simulate(servers, tasks, scheduler="best-fit", **options)   one trace on the simulator
    scheduler(machines, trace, "best-fit" | "first-fit" | "slots")   the kernel policy
    read_servers, read_tasks, alibaba_tasks, google_servers      the generic trace format

`python -m drfbench.drfh` runs the pipeline's steps; docs/families/drfh-schedulers.md says
what was chosen where the paper is silent.
"""
from .schedulers import SCHEDULERS, LiteralScheduler, scheduler, slot_counts
from .simulation import DRFHSimulation, simulate
from .trace import alibaba_tasks, google_servers, read_servers, read_tasks

__all__ = ["SCHEDULERS", "DRFHSimulation", "LiteralScheduler", "alibaba_tasks",
           "google_servers", "read_servers", "read_tasks", "scheduler", "simulate",
           "slot_counts"]
