"""The production rules as registered methods on the scenario kind (drfbench.api):

    simulate(scenario, rule, **options) -> Run     one rule on a scenario, to the end
    Run                                            its result: .simulation, .scenario,
                                                   rows() one per job, shares(times)
    Timeline                                       a run's tasks: held(times, by, groups)

A rule is run by the cluster simulator (drfbench.sim) as drfbench.production.policies'
policy of that name, with no horizon: every job runs to its end (a scenario's jobs all fit
on the empty cluster, or the policy refuses it naming the job).
"""
from dataclasses import dataclass

import numpy as np

from .. import api, rows
from . import policies
from .catalog import SCENARIO
from .scenario import Scenario, scenario as as_scenario


@dataclass(frozen=True, eq=False)
class Timeline:
    """A run's tasks, one entry each: leaf (an index), machine, arrival, start, end (s),
    demand (n, m); any simulator's task table, its users mapped to leaves."""
    leaf: np.ndarray
    machine: np.ndarray
    arrival: np.ndarray
    start: np.ndarray
    end: np.ndarray
    demand: np.ndarray

    def held(self, times, by, groups):
        """(T, groups, m): at each of `times`, the demands of the tasks running then
        (start <= t < end) summed per group, `by` one of "leaf" and "machine" or an array
        of each task's group."""
        key = getattr(self, by) if isinstance(by, str) else np.asarray(by)
        times = np.asarray(times, dtype=np.float64)
        out = np.zeros((len(times), groups, self.demand.shape[1]))
        for k, now in enumerate(times):
            on = (self.start <= now) & (now < self.end)
            np.add.at(out[k], key[on], self.demand[on])
        return out

    def outstanding(self, times, groups):
        """(T, groups) int: each leaf's tasks arrived and not ended (arrival <= t < end,
        waiting or running) at each of `times`."""
        times = np.asarray(times, dtype=np.float64)
        out = np.zeros((len(times), groups), dtype=np.int64)
        for k, now in enumerate(times):
            out[k] = np.bincount(self.leaf[(self.arrival <= now) & (now < self.end)],
                                 minlength=groups)
        return out


@dataclass(frozen=True, eq=False)
class Run:
    """A rule's run.

    Attributes
    ----------
    method : str
        The rule's name.
    scenario : Scenario
    simulation : drfbench.sim.Simulation
        Its users are jobs: its task table's `user` is the scenario's job index.
    """
    method: str
    scenario: Scenario
    simulation: object

    def jobs(self):
        """Per job, in the scenario's order: (start of its first task, end of its last)."""
        t = self.simulation.tasks
        J = len(self.scenario.arrival)
        start, finish = np.full(J, np.inf), np.full(J, -np.inf)
        np.minimum.at(start, t["user"], t["start"])
        np.maximum.at(finish, t["user"], t["end"])
        return start, finish

    def timeline(self):
        """Its tasks as a Timeline (each task's leaf, in Scenario.leaves' order)."""
        s, t = self.scenario, self.simulation.tasks
        leaf_of = np.full(len(s.paths), -1)
        leaf_of[s.leaves] = np.arange(len(s.leaves))
        return Timeline(leaf_of[s.queue[t["user"]]], t["machine"], t["arrival"], t["start"],
                        t["end"], s.demand[t["user"]])

    def shares(self, times):
        """Each leaf queue's share of each resource at each of `times`: the demands of its tasks
        running then over the cluster's total.

        Parameters
        ----------
        times : array_like
            Seconds.

        Returns
        -------
        numpy.ndarray
            (T, L, m), the leaves in Scenario.leaves' order.
        """
        s = self.scenario
        return self.timeline().held(times, "leaf", len(s.leaves)) / s.capacity.sum(axis=0)

    def rows(self, **columns):
        """Tidy rows, one per job: its queue (path), arrival, tasks, first start, last end and wait
        (first start - arrival, s), stamped.

        Parameters
        ----------
        **columns
            Columns added to every row.

        Returns
        -------
        drfbench.rows.Rows
        """
        s = self.scenario
        start, finish = self.jobs()
        return rows.stamped([
            {"method": self.method, "job": j, "queue": s.paths[q], "arrival": float(a),
             "tasks": int(n), "start": float(b), "finish": float(f), "wait": float(b - a)}
            for j, (q, a, n, b, f) in enumerate(zip(s.queue.tolist(), s.arrival, s.tasks,
                                                    start, finish))], **columns)


def simulate(spec, rule, **options):
    """`rule` on a scenario, to the end: a Run.

    Parameters
    ----------
    spec : Scenario, dict or path
        The scenario, or a YAML/JSON file of it (drfbench.production.scenario).
    rule : str
        A registered rule (drfbench.methods(takes="scenario")).
    **options
        The rule's options, checked by the registry (drfbench.run).

    Returns
    -------
    Run
    """
    return api.run(rule, spec, takes=SCENARIO, **options)


def run_rule(spec, scenario, **options):
    """The registry's implementation of every production rule: policies.run with the
    options the method takes, checked by the registry (policies.Settings).

    Parameters
    ----------
    spec : Method
        The method as registered.
    scenario : Scenario
    **options
        RulePolicy's.

    Returns
    -------
    Run
    """
    s = as_scenario(scenario)
    return Run(spec.name, s, policies.run(s, spec.name, **options))
