"""H-DRF (Bhattacharya, Culler, Friedman, Ghodsi, Shenker, Stoica, SoCC'13): hierarchical
multi-resource fairness, and its rivals, on a tree of weighted nodes whose leaves run tasks.

    tree(spec)                          a validated Tree from a dict, a YAML/JSON file
    schedule(tree, machines, method)    a static run: .tasks, .allocation, .order
    scheduler(tree, machines, method)   the kernel (drfbench/hdrf/hdrf.pyx), a drfbench.sim policy
    allocate(tree, capacity, method)    divisible mode: each leaf's resource vector

Methods (drfbench.methods(family="hdrf")): hdrf, static-hdrf, naive-hdrf, flatten,
capacity, capacity-pareto. drfbench.hdrf.literal is the slides' algorithm written
literally, the kernel's specification; `python -m drfbench.hdrf` runs the pipeline's
steps. docs/families/hdrf/choices.md says what was chosen where the slides are silent.
"""
from .tasks import METHOD_MODES, Schedule, allocate, schedule, scheduler
from .tree import Tree, tree

__all__ = ["METHOD_MODES", "Schedule", "Tree", "allocate", "schedule", "scheduler", "tree"]
