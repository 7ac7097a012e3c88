"""One trace through the cluster simulator under a DRFH scheduler.

    simulate(servers, tasks, scheduler="best-fit", **options) -> DRFHSimulation

`servers` and `tasks` are paths or DataFrames in the generic trace format (trace.py).
"""
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from .. import rows as tidy
from .. import sim
from .schedulers import DEFAULT_SLOTS, SCHEDULERS, LiteralScheduler, scheduler as make
from .trace import read_servers, read_tasks


@dataclass(frozen=True, eq=False)
class DRFHSimulation:
    """What simulate() returns.

    utilization    DataFrame indexed by sample time, one column per resource (named as in
                   the trace): the fraction of the pool's resource in use (time-shared
                   tasks count at their speed)
    shares         DataFrame indexed by sample time, one column per user (its label): its
                   global dominant share, max over resources of its share of the pool
    jobs           DataFrame: job, user (labels), submit (first arrival), finish (last
                   task's end; NaN if unfinished by the end or the horizon, or if a task
                   of it fits no server)
    completion     DataFrame per user: submitted, completed (tasks finished by the end),
                   ratio (completed / submitted: the paper's task completion ratio)
    unschedulable  the tasks table's rows of the tasks that fit no server (reported, never
                   run; the rest of the trace runs)
    run            the drfbench.sim.Simulation itself; scheduler, slots: as asked
    """
    scheduler: str
    slots: int
    resources: tuple
    utilization: pd.DataFrame
    shares: pd.DataFrame
    jobs: pd.DataFrame
    completion: pd.DataFrame
    unschedulable: pd.DataFrame
    run: sim.Simulation

    @cached_property
    def _rows(self):
        out = []
        base = {"scheduler": self.scheduler, "slots": self.slots}
        for r in self.resources:
            for t, v in self.utilization[r].items():
                out.append({**base, "metric": "utilization", "time": t, "user": None,
                            "resource": r, "value": v})
        for u in self.shares.columns:
            for t, v in self.shares[u].items():
                out.append({**base, "metric": "share", "time": t, "user": u, "resource": None,
                            "value": v})
        return out

    def rows(self, **columns):
        """Tidy rows, stamped (drfbench.rows): one per sample and resource ("utilization")
        and per sample and user ("share"), with `columns` added to each."""
        stamp = tidy.stamp()
        return [{**row, **columns, **stamp} for row in self._rows]


def _frames(servers, tasks):
    resources, C = read_servers(servers)
    trace = read_tasks(tasks, resources)
    return resources, C, trace


def simulate(servers, tasks, scheduler="best-fit", *, sample=60.0, horizon=math.inf,
             slots=DEFAULT_SLOTS, weights=None, index=True, threads=None, isa=None,
             literal=False):
    """Run the tasks on the servers under `scheduler` ("best-fit", "first-fit" or "slots",
    with `slots` per maximum server) until every task is done or `horizon` seconds.

    sample   seconds between samples of utilization and shares
    weights  per user, in order of first appearance in the tasks, or a dict label -> weight
    index    use the server index (False: the literal scan; same decisions)
    literal  run the NumPy transcription instead of the kernel (tests; slow)
    """
    if scheduler not in SCHEDULERS:
        raise ValueError(f"unknown scheduler {scheduler!r}; known: {', '.join(SCHEDULERS)}")
    resources, C, trace = _frames(servers, tasks)
    names = list(trace.names)
    if isinstance(weights, dict):
        absent = [u for u in names if u not in weights]
        if absent:
            raise ValueError(f"weights lack user(s) {absent[:5]}")
        weights = [weights[u] for u in names]
    if literal:
        policy = LiteralScheduler(C, trace, scheduler, slots=slots, weights=weights)
    else:
        policy = make(C, trace, scheduler, slots=slots, weights=weights, index=index,
                      threads=threads, isa=isa)
    run = sim.simulate(C, trace, policy, horizon=horizon, sample=sample, isa=isa)
    time = pd.Index(run.samples["time"], name="time")
    utilization = pd.DataFrame(run.samples["utilization"], index=time, columns=list(resources))
    shares = pd.DataFrame(run.samples["share"].max(axis=2) if run.samples["share"].size
                          else np.zeros((len(time), len(names))), index=time, columns=names)
    frame = tasks if isinstance(tasks, pd.DataFrame) else pd.read_csv(tasks)
    jobs = pd.DataFrame({"job": np.unique(frame["job"].to_numpy())[run.jobs["job"]],
                         "user": np.array(names, dtype=object)[run.jobs["user"]],
                         "submit": run.jobs["submit"], "finish": run.jobs["finish"]})
    done = np.isfinite(run.tasks["end"])
    submitted = np.bincount(trace.user, minlength=trace.users)
    completed = np.bincount(trace.user[done], minlength=trace.users)
    completion = pd.DataFrame({"user": names, "submitted": submitted, "completed": completed,
                               "ratio": completed / np.maximum(submitted, 1)})
    return DRFHSimulation(scheduler=scheduler, slots=int(slots) if scheduler == "slots" else 0,
                          resources=resources, utilization=utilization, shares=shares,
                          jobs=jobs, completion=completion,
                          unschedulable=frame.iloc[run.unschedulable].reset_index(drop=True),
                          run=run)
