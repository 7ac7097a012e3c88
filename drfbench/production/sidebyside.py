"""The side-by-side scenario (issue 37, item 4): one workload every production rule, DRF,
H-DRF and DRFH run on.

    side_by_side(seed=0) -> dict      the scenario (drfbench.production.scenario's shape)
    write(path, seed=0)               it as a YAML file, one job a line
    PATH                              the committed file, data/side_by_side.yaml (seed 0)

A heterogeneous cluster of 12 CPU nodes (32 cpu, 128 GiB, no GPU) and 4 GPU nodes (16 cpu,
64 GiB, 4 GPUs): [448, 1792, 16] in all. The queues:

- `batch` (guarantee 64 cpu, 256 GiB): jobs of 4 tasks of 4 cpu, 16 GiB every 5 s from 0
  until 1800 s, then it stops submitting; alone at first, it fills the cluster by
  borrowing (twice the cluster's cpu asked for);
- `prod/web` (guarantee 96 cpu, 384 GiB): jobs of 4 tasks of 1 cpu, 4 GiB every 20 s from
  600 s, priority 1;
- `research` (weight 2, guarantee 192 cpu, 768 GiB, 16 GPUs), where H-DRF matters: two
  children of complementary demands, `cpu` (4 cpu, 4 GiB) and `mem` (1 cpu, 16 GiB), each
  a job every 10 s from 600 s, and `vision`, GPU-heavy gangs of 2 tasks of (4 cpu, 16
  GiB, 2 GPUs) every 120 s from 1200 s (limit 12 GPUs; Slurm shares 2);
all submitting until 3600 s. Durations are drawn uniformly from each queue's range with
numpy's default_rng(seed), rounded to the second.
"""
import json
from pathlib import Path

import numpy as np

from .._io import replacing

PATH = Path(__file__).parent / "data" / "side_by_side.yaml"
HORIZON = 3600.0          # the last submissions

# queue: (demand, tasks, first arrival, last arrival, interval, durations (low, high), priority)
STREAMS = {
    "batch": ([4, 16, 0], 4, 0, 1800, 5, (200, 400), 0),
    "prod/web": ([1, 4, 0], 4, 600, HORIZON, 20, (60, 180), 1),
    "research/cpu": ([4, 4, 0], 1, 600, HORIZON, 10, (120, 360), 0),
    "research/mem": ([1, 16, 0], 1, 600, HORIZON, 10, (120, 360), 0),
    "research/vision": ([4, 16, 2], 2, 1200, HORIZON, 120, (300, 900), 0),
}


def side_by_side(seed=0):
    """The scenario as a dict (see the module docstring); jobs in arrival order, streams in the
    order above at equal times.

    Parameters
    ----------
    seed : int

    Returns
    -------
    dict
    """
    rng = np.random.default_rng(seed)
    jobs = []
    for queue, (demand, tasks, first, last, every, (low, high), prio) in STREAMS.items():
        times = np.arange(first, last, every, dtype=np.float64)
        durations = np.round(rng.uniform(low, high, times.size))
        jobs += [{"queue": queue, "arrival": float(t), "tasks": tasks, "demand": demand,
                  "duration": float(d), "priority": prio} for t, d in zip(times, durations)]
    order = sorted(range(len(jobs)), key=lambda i: (jobs[i]["arrival"], i))
    return {
        "resources": ["cpu", "mem", "gpu"],
        "nodes": {"cpu": {"capacity": [32, 128, 0], "count": 12},
                  "gpu": {"capacity": [16, 64, 4], "count": 4}},
        "children": {
            "batch": {"guarantee": [64, 256, 0]},
            "prod": {"guarantee": [96, 384, 0], "children": {"web": {}}},
            "research": {"weight": 2, "guarantee": [192, 768, 16], "children": {
                "cpu": {}, "mem": {},
                "vision": {"limit": [448, 1792, 12], "shares": 2}}}},
        "jobs": [jobs[i] for i in order],
    }


def write(path, seed=0):
    """The scenario as YAML (flow style: JSON is YAML), one job a line.

    Parameters
    ----------
    path : str or Path
    seed : int
    """
    spec = side_by_side(seed)
    head = {k: v for k, v in spec.items() if k != "jobs"}
    lines = [f"{key}: {json.dumps(value)}" for key, value in head.items()]
    lines += ["jobs:"] + [f"  - {json.dumps(job)}" for job in spec["jobs"]]
    with replacing(path) as tmp:
        tmp.write_text("\n".join(lines) + "\n")
