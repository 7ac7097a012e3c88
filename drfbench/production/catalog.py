"""The production rules' entries in the registry (drfbench.api; issue 37): the scenario
input kind and one method per production scheduler's fairness rule, each run by the
cluster simulator as drfbench.production.policies has it (Kueue's and Armada's
preemption off by default). The rules are
restated in Python from their projects' sources (docs/families/production/choices.md):
the family has no kernel and no transcription (KERNEL). Loaded by the registry without
the package's modules."""
from ..api import InputKind, Method, Option

SCENARIO = "scenario"
KERNEL = False                     # pure Python: no kernel, no literal transcription
HALF_LIFE = 7 * 24 * 3600.0        # Slurm's default PriorityDecayHalfLife (7 days), s

HALF_LIFE_OPTION = Option("half_life", float, HALF_LIFE, "Slurm's PriorityDecayHalfLife: "
                          "seconds over which billed usage decays to half (0: no decay)",
                          "[0, inf]")
MAX_TRES = Option("max_tres", bool, True, "Slurm's PriorityFlags=MAX_TRES: bill a job by "
                  "its largest weighted resource (false: their sum)")
FIXED = Option("fixed", bool, True, "YARN-11482's fix of the DRF comparator (false: the "
               "pre-fix comparison, two resources only)")

S2A, S2B = "LessThanOrEqualToFinalShare", "LessThanInitialShare"   # Kueue's strategies
STRATEGIES = Option("strategies", str, "none", "Kueue's fair preemption strategies, in "
                    "order, comma separated (upstream's default: both, S2-a first; none: "
                    "no preemption)", choices=("none", S2A, S2B, f"{S2A},{S2B}",
                                               f"{S2B},{S2A}"))
PROTECTED_FRACTION = Option("protected_fraction", float, None, "Armada's preemption: "
                            "queues above this fraction of their fair share may be "
                            "preempted (None: no preemption)", "[0, inf)")
RATE_LIMIT = Option("rate_limit", int, None, "at most this many jobs evicted in any "
                    "rate_interval (None: no limit)", "[1, 1000000000]")
RATE_INTERVAL = Option("rate_interval", float, 60.0, "the rate limit's window, seconds",
                       "(0, inf)")
BEST_EFFORT = Option("best_effort", bool, False, "Kueue's BestEffortFIFO as far as "
                     "preemption goes: a head that cannot start even by preempting lets "
                     "the jobs behind it try (kueue#7101's fix)")

# Kueue's Admission Fair Sharing (KEP-4136): the Configuration's admissionFairSharing and
# every ClusterQueue's admissionScope.admissionMode UsageBasedAdmissionFairSharing
AFS = Option("admission_fair_sharing", bool, False, "Kueue's Admission Fair Sharing: a "
             "ClusterQueue's jobs wait by their local queue's weighted decayed usage first")
USAGE_HALF_LIFE = Option("usage_half_life", float, HALF_LIFE, "AFS's usageHalfLifeTime: "
                         "seconds over which a local queue's usage decays to half (0: none "
                         "kept; upstream has no default: its docs' 168 h)", "[0, inf)")
SAMPLING_INTERVAL = Option("usage_sampling_interval", float, 300.0, "AFS's "
                           "usageSamplingInterval: seconds between samples of a local "
                           "queue's usage", "(0, inf)")
RESOURCE_WEIGHTS = Option("resource_weights", list, None, "AFS's resourceWeights: one per "
                          "resource of the scenario, >= 0 (None: 1 each)")

# RulePolicy's options, in order: drfbench.production.policies.Settings' fields (each
# rule takes its own: the methods below; the others stay at their defaults)
OPTIONS = (HALF_LIFE_OPTION, MAX_TRES, FIXED, STRATEGIES, PROTECTED_FRACTION, RATE_LIMIT,
           RATE_INTERVAL, BEST_EFFORT, AFS, USAGE_HALF_LIFE, SAMPLING_INTERVAL,
           RESOURCE_WEIGHTS)

KINDS = (
    InputKind(SCENARIO, ("scenario",), "drfbench.production.simulate(scenario, rule, ...)",
              "production.scenario:read_inputs"),
)

# The pipeline step's declared options (drfbench._command.steps, drfbench.pipeline.flags)
STEP_OPTIONS = {"side-by-side": ("half_life", "max_tres", "fixed"),
                "preemption": ("rate_interval",)}

_RUN = "production.rules:run_rule"
METHODS = (
    Method("kueue", "production", SCENARIO, "Kueue's fair sharing: the admission "
           "tournament by dominant resource share of borrowed capacity, cohorts, quotas; fair "
           "preemption; Admission Fair Sharing",
           _RUN, (STRATEGIES, RATE_LIMIT, RATE_INTERVAL, BEST_EFFORT, AFS, USAGE_HALF_LIFE,
                  SAMPLING_INTERVAL, RESOURCE_WEIGHTS), label="Kueue"),
    Method("armada", "production", SCENARIO, "Armada: the queue whose dominant-resource "
           "cost over weight (1 / priority factor) with the job added is lowest; preemption "
           "above the protected fraction", _RUN, (PROTECTED_FRACTION, RATE_LIMIT,
                                                   RATE_INTERVAL), label="Armada"),
    Method("mesos-drf", "production", SCENARIO, "Mesos's hierarchical DRF sorter, roles "
           "below their quota guarantee first", _RUN, (), label="Mesos DRF"),
    Method("slurm-fairtree", "production", SCENARIO, "Slurm's Fair Tree: jobs by FairShare "
           "rank over decayed usage billed by TRES", _RUN, (HALF_LIFE_OPTION, MAX_TRES),
           label="Slurm Fair Tree"),
    Method("yarn-fair-drf", "production", SCENARIO, "YARN FairScheduler's "
           "DominantResourceFairnessPolicy comparator down the queue tree, one container "
           "at a time", _RUN, (FIXED,), label="YARN Fair DRF"),
)
