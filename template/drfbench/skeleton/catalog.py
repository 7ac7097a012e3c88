"""The skeleton family's entries in the registry (drfbench.api): the template a family
starts from (docs/adding-a-family.md), its one input kind and its one method, DRF's equal
dominant shares for users whose demands never end (Ghodsi et al., NSDI'11, Sec. 4.1).
Loaded by the registry without the package's modules."""
from ..api import InputKind, Method, Option

DEMANDS = "skeleton_demands"

SCALE = Option("scale", float, 1.0, "the fraction of every resource shared out", "(0, 1]")

KINDS = (
    InputKind(DEMANDS, ("demands",), "drfbench.skeleton.share(demands, method, ...)",
              "skeleton.shares:read_inputs", names="user"),
)

METHODS = (
    Method("skeleton", "skeleton", DEMANDS, "equal dominant shares, each user's tasks in "
           "the proportions of its demand vector, until a resource runs out",
           "skeleton.shares:run_equal", (SCALE,), label="Skeleton", exact=True),
)

# The declared options each pipeline step takes: its flags (_command.steps), its rule's
# values from the config (drfbench.pipeline.flags).
STEP_OPTIONS = {"share": ("scale",)}
