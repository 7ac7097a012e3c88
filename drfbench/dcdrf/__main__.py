"""The DC-DRF family's pipeline steps (workflows/rules/dcdrf_*.smk):

    python -m drfbench.dcdrf workload | baseline | run | extrapolate ...   the sweeps (sweeps.py)
    python -m drfbench.dcdrf controller ...                              the outer loop (controller.py)
    python -m drfbench.dcdrf guarantees ...                              §3's guarantees (guarantees.py)
    python -m drfbench.dcdrf azure ...                                   Fig. 2's Azure activity (azure.py)
"""
import sys

from . import azure, controller, guarantees, sweeps


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["controller"]:
        return controller.main(argv[1:])
    if argv[:1] == ["guarantees"]:
        return guarantees.main(argv[1:])
    if argv[:1] == ["azure"]:
        return azure.main(argv[1:])
    return sweeps.main(argv)


if __name__ == "__main__":
    main()
