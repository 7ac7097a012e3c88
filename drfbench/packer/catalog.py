"""Packer's entries in the registry (drfbench.api; Marcon and Barcellos, IFIP Networking
2017): the applications input kind and Packer with its rivals (packer.simulate). Loaded by
the registry without the package's modules."""
from ..api import InputKind, Method

APPLICATIONS = "applications"
_OPTIONS = frozenset({"view", "threads", "isa"})     # view: what a policy is told

KINDS = (
    InputKind(APPLICATIONS, ("infrastructure", "applications"),
              "drfbench.packer.simulate(infrastructure, applications, policy, ...)",
              "packer.workload:read_inputs"),
)

METHODS = (
    Method("packer", "packer", APPLICATIONS, "Packer: Algorithm 1 with the score of Eq. "
           "6-8 over servers and paths, whole applications or none",
           "packer.simulate:run_policy", _OPTIONS | {"score"}, label="Packer"),
    Method("tetris", "packer", APPLICATIONS, "Tetris: alignment score of demand and "
           "residual, network only penalized (remote penalty)",
           "packer.simulate:run_policy", _OPTIONS, label="Tetris"),
    Method("packer-slots", "packer", APPLICATIONS, "slot-based: four equal slots per "
           "server, first fit", "packer.simulate:run_policy", _OPTIONS, label="Slots"),
)
