"""Production schedulers' fairness rules (issue 37): registered methods on the scenario
input kind, and the conformance API.

    simulate(scenario, rule, **options) -> Run   a rule on a scenario, to the end
    scenario(spec) -> Scenario                   the input kind (a dict, a YAML/JSON file)

Rules (drfbench.methods(family="production")): kueue, armada, mesos-drf, slurm-fairtree,
yarn-fair-drf, each run by the cluster simulator as drfbench.production.policies has it;
`python -m drfbench.production` runs the pipeline's steps;
docs/families/production/choices.md says what was chosen where the upstream code is
ambiguous.

Each conformance module restates one production scheduler's rule from its source and is
tested against the vectors of that project's own unit tests (tests/production/):

- `armada`: water-filled fair shares, the dominant-resource cost, the fairness error;
- `kueue`: the dominant resource share of borrowed capacity, fair preemption's targets,
  Admission Fair Sharing's decayed usage and order;
- `mesos`: the hierarchical DRF sorter;
- `slurm`: Fair Tree's Level FS and FairShare;
- `yarn`: FairScheduler's DominantResourceFairnessPolicy comparator.
"""
from .rules import Run, simulate
from .scenario import Scenario, scenario

__all__ = ["Run", "Scenario", "scenario", "simulate"]
