"""Classic DRF (Ghodsi et al., NSDI'11) and the methods the DRF lecture (cs262a, Stoica &
Ghodsi) compares it with, in its two models:

Discrete tasks on a cluster (drfbench.drf.tasks; kernel drfbench/drf/drf.pyx)
    online_drf(demands, machines)        "schedule a task to the user with the smallest
                                          dominant share", until no user's next task fits
    slot_schedule(demands, machines, k)  Hadoop fair scheduler: k slots per machine
    schedule(demands, machines, method)  either, by its registered name
    scheduler(...)                       the stateful kernel, a policy for drfbench.sim
    drf_vs_slots(...)                    the lecture's DRF-vs-slots experiment, on drfbench.sim

Divisible Leontief users (drfbench.drf.divisible; the property table, drfbench.drf.properties)
    drf(D, w)               progressive filling on weighted dominant shares (exact, NumPy)
    asset_fairness(D, w)    progressive filling on weighted sums of shares
    ceei(D, w)              competitive equilibrium from equal incomes, solved exactly
    (also drfbench.allocate(D, "drf" | "asset-fairness" | "ceei"))

`python -m drfbench.drf properties | slots` runs the lecture's table and the experiment
(drfbench.drf.__main__).
"""
from .divisible import (asset_fairness, ceei, divisible_demands, drf, progressive_filling,
                        utilities)
from .tasks import (JobType, TaskAllocation, drf_vs_slots, online_drf, schedule, scheduler,
                    slot_schedule, task_demands)

__all__ = ["JobType", "TaskAllocation", "asset_fairness", "ceei", "divisible_demands", "drf",
           "drf_vs_slots", "online_drf", "progressive_filling", "schedule", "scheduler",
           "slot_schedule", "task_demands", "utilities"]
