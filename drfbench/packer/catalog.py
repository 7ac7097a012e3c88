"""Packer's entries in the registry (drfbench.api; Marcon and Barcellos, IFIP Networking
2017): the applications input kind and Packer with its rivals (packer.simulate). Loaded by
the registry without the package's modules."""
from ..api import ISA, THREADS, InputKind, Method, Option

APPLICATIONS = "applications"
VIEWS = ("ti-mra", "peak")     # what a method is told of an application (`request`)
SCORE_NAMES = ("literal", "best-fit", "per-path", "bottleneck", "best-fit-per-path",
               "best-fit-bottleneck")    # Eq. 8's readings (packer.allocate.SCORES)

VIEW = Option("view", str, "ti-mra", "what a method is told of an application: its "
              "time-indexed demands, or their peak", choices=VIEWS)
_OPTIONS = (VIEW, THREADS, ISA)
SCORE = Option("score", str, "literal", "Packer's score: Eq. 6-8 as written, or a reading of "
               "Eq. 8 (best-fit, per path, bottleneck link)", choices=SCORE_NAMES)

# The options a run records beside its view (packer.Result's fields, the evaluation's
# columns; None for a method that takes none)
RECORDED = (SCORE,)

# The pipeline steps' declared options (drfbench._command.steps, drfbench.pipeline.flags):
# the evaluation's Packer reading, the sensitivity study's view and readings (a run each),
# the threads of both
STEP_OPTIONS = {"evaluate": ("score", THREADS.name), "sensitivity": ("view", THREADS.name)}
STEP_SWEEPS = {"sensitivity": {"scores": "score"}}

KINDS = (
    InputKind(APPLICATIONS, ("infrastructure", "applications"),
              "drfbench.packer.simulate(infrastructure, applications, method, ...)",
              "packer.workload:read_inputs"),
)

METHODS = (
    Method("packer", "packer", APPLICATIONS, "Packer: Algorithm 1 with the score of Eq. "
           "6-8 over servers and paths, whole applications or none",
           "packer.simulate:run_method", (*_OPTIONS, SCORE), label="Packer"),
    Method("tetris", "packer", APPLICATIONS, "Tetris: alignment score of demand and "
           "residual, network only penalized (remote penalty)",
           "packer.simulate:run_method", _OPTIONS, label="Tetris"),
    Method("packer-slots", "packer", APPLICATIONS, "slot-based: four equal slots per "
           "server, first fit", "packer.simulate:run_method", _OPTIONS, label="Slots"),
)
