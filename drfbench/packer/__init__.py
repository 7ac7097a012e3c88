"""Packer (Marcon and Barcellos, IFIP Networking 2017): packing applications with
time-varying demands for CPU, memory, disk and bandwidth onto a datacenter's tree, against
Tetris and slots.

    Infrastructure(...)                        the paper's 3-tier tree (sizes are keywords)
    workload(count, seed)                      the seeded MapReduce / web-service suite
    load_applications(path)                    TI-MRA applications from JSON
    load_infrastructure(path)                  an Infrastructure from a JSON/YAML of its keywords
    simulate(infra, apps, method)              "packer", "tetris" or "packer-slots": a Result
    work_conserving(capacity, g, d, w)         Algorithm 2

drfbench.packer.literal is Algorithm 1 and Eq. 6-8 written literally, the specification
of drfbench/packer/packer.pyx; `python -m drfbench.packer` runs the pipeline's steps;
docs/families/packer/choices.md says what was chosen where the paper is silent.
"""
from .allocate import Cluster, place, resource_weights
from .model import RESOURCES, Application, Infrastructure, application, sort_nodes
from .rates import work_conserving
from .simulate import Result, revenue, simulate
from .workload import dump_applications, load_applications, load_infrastructure, workload

__all__ = ["RESOURCES", "Application", "Cluster", "Infrastructure", "Result",
           "application", "dump_applications", "load_applications", "load_infrastructure", "place",
           "resource_weights", "revenue", "simulate", "sort_nodes", "work_conserving", "workload"]
