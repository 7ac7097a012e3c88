"""Production schedulers' fairness rules as pure functions: the conformance API.

Each module restates one production scheduler's rule from its source and is tested
against the vectors of that project's own unit tests (tests/production/):

- `armada`: water-filled fair shares, the dominant-resource cost, the fairness error;
- `kueue`: the dominant resource share of borrowed capacity and fair preemption's targets;
- `mesos`: the hierarchical DRF sorter;
- `slurm`: Fair Tree's Level FS and FairShare;
- `yarn`: FairScheduler's DominantResourceFairnessPolicy comparator.
"""
