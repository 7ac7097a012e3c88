"""DC-DRF (Kash, O'Shea, Volos, "DC-DRF: Adaptive Multi-Resource Sharing at Public Cloud
Scale", SoCC'18): EDRF, DC-DRF and its run-time configurations, on divisible demands.

    drfbench.allocate(demands, "edrf" | "dcdrf" | "sdcdrf" | "pedrf" | "pedrf1" | "edrf-event")
    workloads.generate(profile, tenants, resources)   Table 3's demand profiles (workloads.py)
    metrics.compare(result, exact)                    rounds, utilization, fairness, ...
    controller.run_intervals(...)                     the outer loop adapting epsilon
    churn.Schedule, churn.Churn                       demand churn and deadline changes
    guarantees.table(...)                             §3's guarantees on small instances
    azure.table(data)                                 Fig. 2: Azure VMs becoming active/idle

Modules: catalog (the family's input kind and methods, as the registry reads them),
demands (the divisible-demands kind: allocate, AllocationResult, which drfbench exports),
methods (how allocate calls the kernels edrf, dcdrf and edrf_event),
literal (Algorithms 1 and 2 written literally, the kernels' specification), workloads,
metrics, controller, churn, sweeps (the paper's configuration sweeps as pipeline steps),
guarantees (§3's properties, its 1/(1 - eps) bound and Lemma 3.1, checked),
azure (Fig. 2's fractions of Azure VMs becoming active or idle, from data/azure/), bench (`drfbench bench`). `python -m drfbench.dcdrf` runs the pipeline's steps;
docs/families/dcdrf/choices.md says what was chosen where the paper is silent.
"""
from . import churn, controller, metrics, workloads
from .demands import AllocationResult, allocate
from .methods import BASELINE

__all__ = ["AllocationResult", "BASELINE", "allocate", "churn", "controller", "metrics", "workloads"]
