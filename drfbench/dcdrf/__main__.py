"""The DC-DRF family's pipeline steps (workflows/rules/dcdrf_*.smk), in one parser:

    python -m drfbench.dcdrf workload | baseline | run | extrapolate ...   the sweeps (sweeps.py)
    python -m drfbench.dcdrf controller ...                              the outer loop (controller.py)
    python -m drfbench.dcdrf guarantees ...                              §3's guarantees (guarantees.py)
    python -m drfbench.dcdrf azure ...                                   Fig. 2's Azure activity (azure.py)
    python -m drfbench.dcdrf many-core ...                               the many-core reference set (many_core.py)
"""
from .._command import run_step, steps
from . import azure, controller, guarantees, many_core, sweeps
from .catalog import STEP_SWEEPS


def main(argv=None):
    p, sub = steps("dcdrf", "DC-DRF's pipeline steps: the sweeps, the outer loop, §3's "
                   "guarantees, Fig. 2's Azure activity.",
                   {**sweeps.STEPS, "controller": "the outer loop: epsilon tuned over control "
                    "intervals", "guarantees": "§3's guarantees on small random instances",
                    "azure": "Fig. 2's Azure activity",
                    "many-core": "the many-core reference set: drfbench bench runs of a "
                    "configuration file"}, flags=(), sweeps=STEP_SWEEPS)
    sweeps.arguments(sub)
    for name, module in (("controller", controller), ("guarantees", guarantees),
                         ("azure", azure), ("many-core", many_core)):
        module.arguments(sub[name])
    bodies = {**sweeps.BODIES, "guarantees": guarantees.step, "azure": azure.step,
              "many-core": many_core.step,
              "controller": lambda args: controller.step(sub["controller"], args)}
    return run_step(p, lambda args: bodies[args.command](args), argv)


if __name__ == "__main__":
    main()
