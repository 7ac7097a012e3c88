"""The one discrete-event cluster simulator: machines with capacity vectors, tasks arriving
from a trace or from endless backlogs, a policy deciding launches, processor sharing where
a policy oversubscribes a machine, sampled metrics as arrays and tidy rows.

    from drfbench import sim
    res = sim.simulate(machines, sim.Trace(user, job, arrival, duration, demands), policy,
                       horizon=3600.0, sample=60.0)
    res.rows            # tidy dict rows: share_<r> and speed per user, utilization_<r>,
                        # jobs_finished
    res.samples, res.jobs, res.tasks, res.unschedulable

A policy is any object with add_tasks(user, count), schedule() -> (users, machines) and
release(user, machine) (sim.Policy), and may evict running tasks (preempt(): sim.PreemptingPolicy;
res.evictions, res.lost_work); drfbench.drf.scheduler(...) builds the online DRF and
slot schedulers of drfbench/drf/drf.pyx. sim.FifoFirstFit is a small example policy.

Modules: workload (machines, Trace, Backlog: validated inputs), policies (the protocol,
FifoFirstFit), engine (simulate: checks and results), kernel (the loop, drfbench/sim/sim.pyx,
behind named inputs and outputs), samples (the sampled state), literal (the same loop in
plain Python, its specification).
docs/simulator.md describes the model.
"""
from . import literal
from .engine import Simulation, simulate
from .policies import FifoFirstFit, Policy, PreemptingPolicy, TaskPolicy, take_back
from .workload import (FIT_SLACK, MAX_RUNNING, UNBOUNDED, Backlog, Trace, fits_somewhere,
                       machines, running_bound, task_queues)

__all__ = ["FIT_SLACK", "MAX_RUNNING", "UNBOUNDED", "Backlog", "FifoFirstFit", "Policy",
           "PreemptingPolicy", "Simulation", "TaskPolicy", "Trace", "fits_somewhere", "literal",
           "machines", "running_bound", "simulate", "take_back", "task_queues"]
