"""Every registered family has the files docs/adding-a-family.md lists, and keeps its
settings to itself: a family registered without one of them fails here, naming it."""
import ast
import csv
import importlib
import inspect
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

import drfbench
from drfbench import api, pipeline
from conftest import ROOT


def family_files(family):
    """What docs/adding-a-family.md asks of a family: (what, the paths that would do); a
    family whose catalog declares KERNEL = False (pure Python) has no kernel and no
    literal transcription, and no method of it is declared literal."""
    kernel = importlib.import_module(f"drfbench.{family}.catalog").__dict__.get("KERNEL", True)
    assert kernel or not drfbench.methods(family=family, literal=True), family
    return [(what, paths) for what, paths in [
        ("its kernel", [ROOT / f"drfbench/{family}/{family}.pyx"]),
        ("its package", [ROOT / f"drfbench/{family}/__init__.py"]),
        ("its catalog: its input kinds and methods", [ROOT / f"drfbench/{family}/catalog.py"]),
        ("its pipeline steps (python -m drfbench.<family>)", [ROOT / f"drfbench/{family}/__main__.py"]),
        ("its literal transcription, the kernel's test oracle", [ROOT / f"drfbench/{family}/literal.py"]),
        ("its schema fragment, with its defaults", [ROOT / f"workflows/schemas/{family}.schema.yaml"]),
        ("its rules", sorted((ROOT / "workflows/rules").glob(f"{family}*.smk"))),
        ("its notebooks", sorted((ROOT / "notebooks").glob(f"{family}*.py"))),
        ("its tests", sorted((ROOT / f"tests/{family}").glob("test_*.py"))),
        ("its fuzz tests, one module per input kind it brings",
         sorted((ROOT / f"tests/{family}").glob("test_fuzz_*.py"))),
        ("its docs page", [ROOT / f"docs/families/{family}.md"]),
        ("its reference results", sorted((ROOT / f"reference/default/{family}").rglob("*.csv"))),
        ("its reference figures", sorted((ROOT / "reference/default/figures").glob(f"{family}_*.png"))),
    ] if kernel or not what.startswith(("its kernel", "its literal"))]


@pytest.mark.parametrize("family", api.families())
def test_a_family_has_every_file_the_page_lists(family):
    missing = [f"{what}: {', '.join(str(p.relative_to(ROOT)) for p in paths) or 'none found'}"
               for what, paths in family_files(family) if not paths or not all(p.exists() for p in paths)]
    assert missing == [], f"family {family!r} lacks " + "; ".join(missing)


def fragment(family):
    """The family's schema fragment as written, and as drfbench.pipeline completes it."""
    path = ROOT / f"workflows/schemas/{family}.schema.yaml"
    raw = yaml.safe_load(path.read_text())
    return raw, pipeline.declared(raw, family, path.name)


@pytest.mark.parametrize("family", api.families())
def test_a_family_owns_one_config_key_with_defaults(family):
    """Its schema fragment defines one top-level key, named after it, every setting of
    which has a default (the default profile's value, or its option's declared default):
    profiles only scale them."""
    _, completed = fragment(family)
    assert list(completed["properties"]) == [family]

    def without_default(part, path):
        for key, sub in part.get("properties", {}).items():
            if "properties" in sub:
                yield from without_default(sub, f"{path}.{key}")
            elif "default" not in sub:
                yield f"{path}.{key}"
    assert list(without_default(completed["properties"][family], family)) == []


@pytest.mark.parametrize("family", api.families())
def test_a_family_is_named_on_its_page(family):
    """Its page names every method (docs/index.md's row of it is generated: docs_hooks.py;
    the README's table is the front page's summary, not a list a family must join)."""
    labels = [api.method_info(m).name for m in drfbench.methods(family=family)]
    page = (ROOT / f"docs/families/{family}.md").read_text()
    assert all(f"`{name}`" in page for name in labels), [n for n in labels if f"`{n}`" not in page]


@pytest.mark.parametrize("family", api.families())
def test_a_family_page_shows_its_reference_figures(family):
    """Its page shows at least one of its committed reference figures (docs_hooks.py puts
    them in the site, and fails the build on one that is not committed)."""
    page = (ROOT / f"docs/families/{family}.md").read_text()
    shown = re.findall(r"!\[[^\]]*\]\(\.\./reference-figures/([\w.-]+\.png)\)", page)
    assert [n for n in shown if n.startswith(f"{family}_")], f"docs/families/{family}.md shows none"
    assert all((ROOT / "reference/default/figures" / n).is_file() for n in shown), shown


@pytest.mark.parametrize("family", api.families())
def test_a_family_declares_its_own_methods_in_its_catalog(family):
    """The methods of drfbench/<family>/catalog.py are the family's, implemented in its
    package; the kinds it declares are taken by a method."""
    catalog = importlib.import_module(f"drfbench.{family}.catalog")
    assert {m.family for m in catalog.METHODS} == {family}
    assert [m.name for m in catalog.METHODS] == list(drfbench.methods(family=family))
    assert [m.name for m in catalog.METHODS if not m.implementation.startswith(f"{family}.")] == []
    assert all(drfbench.methods(takes=k.name) for k in catalog.KINDS)


def test_every_input_kind_names_its_reader_and_entry_point():
    for kind in api.KINDS.values():
        assert kind.inputs and kind.entry.startswith("drfbench.")
        module, _, function = kind.reader.partition(":")
        assert (ROOT / "drfbench" / (module.replace(".", "/") + ".py")).is_file(), kind.reader
        if kind.properties:
            assert (ROOT / "drfbench" / (kind.properties.replace(".", "/") + ".py")).is_file()
        assert drfbench.methods(takes=kind.name), f"no method takes {kind.name}"


def test_every_input_kind_is_fuzzed():
    """Each input kind is named in the FUZZED tuple of a fuzz test module
    (tests/**/test_fuzz_*.py), and every kind has its section in docs/accepts.md or on the
    page of a family whose methods take it."""
    fuzzed = set()
    for path in (ROOT / "tests").rglob("test_fuzz_*.py"):
        match = re.search(r"^FUZZED = \(([^)]*)\)", path.read_text(), re.M)
        fuzzed |= set(re.findall(r"\"(\w+)\"", match.group(1))) if match else set()
    assert fuzzed == set(api.KINDS), sorted(set(api.KINDS) ^ fuzzed)
    pages = {k: (ROOT / "docs/accepts.md").read_text() + "".join(
        (ROOT / f"docs/families/{api.method_info(m).family}.md").read_text()
        for m in drfbench.methods(takes=k)) for k in api.KINDS}
    assert [k for k, text in pages.items() if f"`{k}`" not in text] == []


OPTION_TYPES = (int, float, bool, str, list)


@pytest.mark.parametrize("family", api.families())
def test_every_option_is_declared_with_a_default_its_check_accepts(family):
    """Each option of the family's methods: one declaration per name (the same Option for
    every method taking it), a type, a one-line description, bounds that parse, a default
    its own check accepts."""
    declared = {}
    for name in drfbench.methods(family=family):
        for option in api.method_info(name).options.values():
            assert declared.setdefault(option.name, option) is option, (name, option.name)
    for option in declared.values():
        assert option.type in OPTION_TYPES and option.description, option
        assert "\n" not in option.description, option
        if option.bounds:
            assert re.fullmatch(r"[\[(][-\w.+]+, [-\w.+]+[\])]", option.bounds), option
        assert option.check(option.default) is option.default


@pytest.mark.parametrize("family", api.families())
def test_the_declarations_are_the_only_defaults(family):
    """The registry fills in every option a method does not get (Method.checked), so an
    implementation keeps a keyword default only for an option some of its methods do not
    take; a kind's dispatch (drfbench.allocate) is a public function whose defaults are the
    declared ones (those it takes as **options: filled in from their declarations)."""
    by_implementation = {}
    for name in drfbench.methods(family=family):
        spec = api.method_info(name)
        by_implementation.setdefault(spec.implementation, []).append(spec)
    for implementation, specs in by_implementation.items():
        dispatch = api.KINDS[specs[0].takes].dispatch
        params = inspect.signature(api.function(dispatch or implementation)).parameters
        generic = any(p.kind is p.VAR_KEYWORD for p in params.values())    # **options: as given
        for spec in specs:
            assert generic or set(spec.options) <= set(params), \
                (spec.name, set(spec.options) - set(params))
        if dispatch:
            assert all(params[o].default == spec.options[o].default
                       for spec in specs for o in spec.options if o in params), implementation
            continue
        everyone = set.intersection(*(set(spec.options) for spec in specs)) & set(params)
        with_default = {o for o in everyone if params[o].default is not inspect.Parameter.empty}
        assert with_default == set(), (implementation, with_default)


def parts(part):
    """Every object in a schema part, at any depth."""
    if isinstance(part, dict):
        yield part
        part = list(part.values())
    for item in part if isinstance(part, list) else ():
        yield from parts(item)


@pytest.mark.parametrize("family", api.families())
def test_the_schema_fragment_copies_no_declaration(family):
    """A setting that is an option, or a list of methods, says so (`x-option`,
    `x-methods`) and drfbench.pipeline fills in the declaration: no fragment lists an
    option's choices or a family's or kind's methods by hand."""
    raw, _ = fragment(family)
    declared = {frozenset(o.choices) for m in drfbench.methods()
                for o in api.method_info(m).options.values() if o.choices}
    declared |= {frozenset(drfbench.methods(takes=k)) for k in api.KINDS}
    declared |= {frozenset(drfbench.methods(family=f)) for f in api.families()}
    copied = [p["enum"] for p in parts(raw) if frozenset(p.get("enum", ())) in declared]
    assert copied == []


@pytest.mark.parametrize("family", api.families())
def test_the_schema_fragment_names_only_declared_choices(family):
    """A setting of the family's completed schema fragment named after one of its options
    with choices (`slot_model`, or `slot_models` for a sweep of them) allows only those
    choices."""
    _, completed = fragment(family)
    options = {o.name: o for m in drfbench.methods(family=family)
               for o in api.method_info(m).options.values() if o.choices}

    def settings(part):
        for key, sub in part.get("properties", {}).items():
            yield key, sub
            yield from settings(sub)
    checked = 0
    for key, part in settings(completed["properties"][family]):
        option = options.get(key) or options.get(key.removesuffix("s"))
        for enum in [p["enum"] for p in parts(part) if "enum" in p] if option else ():
            assert set(enum) <= set(option.choices), (key, enum, option.choices)
            checked += 1
    assert checked or not any(o.name in str(completed) for o in options.values())


# The source files a setting can be spelled in: the package's and the workflow's code.
SOURCES = ("drfbench/**/*.py", "drfbench/**/*.pyx", "workflows/**/*.smk",
           "workflows/schemas/*.yaml")


def spelling(option):
    """A pattern of option `option` spelled as a setting: its flag, a keyword or key, an
    attribute of a step's args or a rule's params, an x-option (not a mere word in prose, nor
    a longer flag: --slots-from is not --slots)."""
    return re.compile(rf"{re.escape(pipeline_flag(option))}(?![\w-])|\b(args|params)\.{option}\b|"
                      rf"\b{option}=(?!=)|[\"']{option}[\"']|x-option: {option}\b")


def spelled_in(option, steps=(), sources=SOURCES):
    """The source files (`sources`, relative to the checkout) that spell `option` as a
    setting: the count issue 35 tracks, over every option, as each setting's path through
    the code. A step's name in quotes (one of `steps`: DRF's step `slots`) is not a setting."""
    pattern = spelling(option)
    names = re.compile("|".join(rf"[\"']{re.escape(s)}[\"']" for s in steps) or "(?!)")
    return {path.relative_to(ROOT).as_posix() for glob in sources for path in ROOT.glob(glob)
            if pattern.search(names.sub("", path.read_text()))}


def pipeline_flag(option):
    from drfbench._command import flag
    return flag(option)


def step_options(family):
    """The declared options `family`'s pipeline steps take or sweep (its catalog's
    STEP_OPTIONS, STEP_SWEEPS), as {step: {name on the command line and in the config:
    option}}."""
    catalog = importlib.import_module(f"drfbench.{family}.catalog")
    taken = {}
    for step, names in getattr(catalog, "STEP_OPTIONS", {}).items():
        taken.setdefault(step, {}).update(names if isinstance(names, dict) else
                                          {name: name for name in names})
    for step, sweeps in getattr(catalog, "STEP_SWEEPS", {}).items():
        taken.setdefault(step, {}).update(sweeps)
    return taken


STEPPED = [f for f in api.families() if step_options(f)]


def test_the_families_on_the_mechanism():
    assert {"drfq", "drf", "dcdrf", "drfh", "packer"} <= set(STEPPED)


@pytest.mark.parametrize("family", STEPPED)
def test_the_steps_take_their_options_from_the_declarations(family):
    """A family that lists its steps' options (catalog.STEP_OPTIONS, STEP_SWEEPS) spells
    none of them, nor a sweep's name, in its steps' parser or its rules: the flags come
    from the declarations (_command.steps), the rules' values from the config by
    drfbench.pipeline.flags. Caught on DRFQ before: --rtt, --interval, --duration,
    --packet-costs in drfq/__main__.py and workflows/rules/drfq.smk; on DRF: --slots in
    drf/__main__.py and drf.smk; on DRFH: --horizon, --sample, --slots, --slot-model in
    drfh/__main__.py and its three rules files."""
    taken = step_options(family)
    steps_and_rules = {f"drfbench/{family}/__main__.py",
                       *(p.relative_to(ROOT).as_posix()
                         for p in (ROOT / "workflows/rules").glob(f"{family}*.smk")
                         if in_family_places(p.relative_to(ROOT).as_posix(), family))}
    for name in sorted({n for step in taken.values() for pair in step.items() for n in pair}):
        assert spelled_in(name, steps=taken) & steps_and_rules == set(), name


def test_each_option_of_the_template_is_spelled_in_at_most_two_files():
    """Issue 35, item 2, on the family every new one copies: each option its catalog
    declares is spelled in at most two of its source files, its declaration (catalog.py)
    and its use (its schema's x-option); its step and rule take it through the mechanism
    (_command.steps, pipeline.flags). Caught before: --scale and params.scale in the
    template's __main__.py and skeleton.smk."""
    sources = [f"template/{glob}" for glob in SOURCES]
    catalog = (TEMPLATE / f"drfbench/{TEMPLATE_NAME}/catalog.py").read_text()
    options = re.findall(r"\bOption\(\"(\w+)\"", catalog)
    steps = re.search(r"STEP_OPTIONS = (\{.*\})", catalog).group(1)
    assert options
    for option in options:
        spelled = spelled_in(option, steps=ast.literal_eval(steps), sources=sources)
        assert f"template/drfbench/{TEMPLATE_NAME}/catalog.py" in spelled, option
        assert len(spelled) <= 2, (option, sorted(spelled))



# Issue 35, item 2, family by family: the options each family has brought under the rule,
# spelled in at most two of the family's own source files (its package, its rules, its
# schema fragment: the declaration and its use). The lists grow; an option leaves its list
# only with a reason.
AT_MOST_TWO = {"drfq": ("bins", "buffer", "initial_window", "interval", "rates", "resource",
                        "rtt", "stage_buffer", "weights", "decisions", "duration",
                        "packet_costs", "seed", "source"),
               "drfh": ("solver", "horizon", "sample", "slot_model", "index", "threads", "tasks",
                        "slots", "weights"),
               "drf": ("slots", "tasks", "weights"),
               "dcdrf": ("max_rounds", "deadline", "epsilon", "isa", "threads"),
               "hdrf": ("incremental", "sets", "tasks"),
               "packer": ("score", "view", "threads"),
               "production": ("admission_fair_sharing", "best_effort", "fixed", "half_life",
                              "max_tres", "protected_fraction", "rate_interval", "rate_limit",
                              "resource_weights", "strategies", "usage_half_life",
                              "usage_sampling_interval")}

# The files that spell an option's name for something else than the setting, not counted:
# (family, option) -> {file: what it spells there}: a second implementation that takes the
# value under its paper's or upstream's name, a shared function's keyword, an input's name,
# a result's column. Each must still spell it (the entry goes when the spelling does).
ELSEWHERE = {
    ("production", "fixed"): {"drfbench/production/yarn.py": "YARN's comparator restated "
                              "(yarn.compare): YARN-11482's fix its switch"},
    ("production", "max_tres"): {"drfbench/production/slurm.py": "Slurm's billing restated "
                                 "(slurm.billable): PriorityFlags=MAX_TRES its switch"},
    ("production", "half_life"): {"drfbench/production/kueue.py": "an input: kueue.afs_alpha's "
                                  "half_life is AFS's (the option usage_half_life)"},
    ("packer", "score"): {"drfbench/packer/literal.py": "Algorithm 1 and Eq. 6-8 written "
                          "literally (literal.Reference, the kernel's oracle)"},
    ("drfh", "horizon"): {"drfbench/drfh/simulation.py": "drfbench.sim.simulate's keyword, "
                          "given the reach the work bounds leave of the horizon"},
    ("drfh", "sample"): {"drfbench/drfh/simulation.py": "drfbench.sim.simulate's keyword, "
                         "given the checked interval"},
    ("drfh", "index"): {f"drfbench/drfh/{name}.py": "pandas' index= (a table's row labels)"
                        for name in ("__main__", "simulation", "trace")},
    ("drfh", "tasks"): {
        **{f: "the trace kind's tasks table (its input, --tasks)" for f in (
            "drfbench/drfh/__main__.py", "drfbench/drfh/trace.py",
            "workflows/rules/drfh_sim.smk", "workflows/rules/drfh_sensitivity.smk")},
        "drfbench/drfh/simulation.py": "the tasks table (an error names --tasks) and the jobs' "
        "tasks column",
        "drfbench/drfh/examples.py": "an allocation's tasks column",
        "drfbench/drfh/per_server.py": "its rows' tasks column (a user's tasks, mean over users)",
        "drfbench/drfh/properties.py": "a property instance's tasks, its data handed to each "
        "method, and the violations' tasks column"},
    ("drfh", "slots"): {"drfbench/drfh/literal.py": "the transcription's parameter "
                        "(LiteralScheduler's slots=, public)"},
    ("drfh", "weights"): {
        "drfbench/drfh/literal.py": "the transcription's parameter (LiteralScheduler's weights=)",
        "drfbench/drfh/properties.py": "a property instance's weights, its data handed to each "
        "method, and DRF's own weights= (the single-server check's api.run('drf'))"},
    ("drf", "weights"): {
        "drfbench/drf/literal.py": "the transcription's parameter",
        "drfbench/drf/kernel.py": "the kernel facade's input, the checked (n,) array",
        "drfbench/drf/divisible.py": "the divisible methods' weights, the demands kind's input "
        "(drfbench.allocate's weights=, not an option)",
        "drfbench/drf/properties.py": "a property instance's weights, its data"},
    ("drf", "slots"): {"drfbench/drf/literal.py": "the transcription's parameter (as the kernel's)",
                       "drfbench/drf/drf.pyx": "the kernel's parameter, slots per machine (0: DRF)",
                       "drfbench/drf/kernel.py": "the kernel facade's input, as the kernel's"},
    ("drf", "tasks"): {"drfbench/drf/literal.py": "the transcription's parameter",
                       "drfbench/drf/tasks.py": "TaskAllocation's tasks launched (its field, its "
                       "rows' column) and the tasks kind's name"},
    ("dcdrf", "max_rounds"): {"drfbench/dcdrf/literal.py": "the transcription's parameter"},
    ("hdrf", "tasks"): {
        "drfbench/hdrf/tree.py": "the tree file's tasks key, a leaf's count (its input) and "
        "Tree.tasks",
        "drfbench/hdrf/properties.py": "a random tree's tasks key (the tree file's) and a "
        "counterexample's tasks launched",
        "drfbench/hdrf/__main__.py": "the scale step's --tasks, the trace's size (not the option)",
        "workflows/rules/hdrf.smk": "the config's scale.tasks, given to that flag",
        "drfbench/hdrf/evaluation.py": "the throughput rows' tasks column (the trace's size)",
        "drfbench/hdrf/examples.py": "the examples' tasks column (tasks run per node)"},
    ("dcdrf", "deadline"): {"drfbench/dcdrf/churn.py": "the schedule's deadline event (a "
                            "change of it), in the rows' events column"},
    ("dcdrf", "epsilon"): {"drfbench/dcdrf/literal.py": "the transcription's parameter"},
    ("dcdrf", "threads"): {"drfbench/dcdrf/many_core.py": "OMP_PLACES' value threads (two "
                           "threads an SMT core), a run's `places`"},
    ("drfq", "seed"): {"drfbench/drfq/__main__.py": "the steps' common --seed (_command.steps, "
                       "every family's)", "workflows/rules/drfq.smk": "the config's seed, "
                       "every family's, given to that flag"},
}


def own_sources(family):
    """The globs of `family`'s own source files (FAMILY_PLACES' code among SOURCES)."""
    return (f"drfbench/{family}/**/*.py", f"drfbench/{family}/**/*.pyx",
            f"workflows/rules/{family}.smk", f"workflows/rules/{family}_*.smk",
            f"workflows/schemas/{family}.schema.yaml")


@pytest.mark.parametrize("family", sorted(AT_MOST_TWO))
def test_each_option_brought_under_the_rule_is_spelled_in_at_most_two_files(family):
    """Caught before (e646559): DRFQ's buffer, stage_buffer and initial_window in
    model.settings' keywords and run_scheduler's call beside the catalog (3 files each),
    bins, rtt and interval in evaluation.py and Result.rows too (4 or 5); now model.Settings
    is made from the catalog's SETTINGS, the settings pass through as **settings, the
    evaluation takes its steps' options as they are (evaluation.step_settings) and a run's
    rows record the catalog's RECORDED. Production's twelve (3 to 6 files each): the
    rules' keywords in rules.run_rule and RulePolicy beside the catalog; now
    policies.Settings is made from the catalog's OPTIONS, the options pass through as
    **options and a message names an option by its declaration's name. H-DRF's incremental
    and sets in tasks.run_method, tasks.scheduler and kernel.tree_scheduler's keywords (4
    files each): now the kernel's settings pass through as **settings to the kernel's
    TreeScheduler. Packer's score in its steps, rules, evaluation and simulate.run_method
    (8 files): now its steps take it from the declarations (STEP_OPTIONS, STEP_SWEEPS),
    it passes through as **options to allocate.place and a run records the catalog's
    RECORDED. DRFH's horizon, sample and slot_model in sensitivity.py and simulation.py's
    layers too (study, under_each, slots_search, sharing, run_method's signature, the rows'
    keys): they travel as **options, the run's taken off by catalog.RUN, the rows record
    catalog.RECORDED; index and threads reach the kernel facade as **options. DRFQ's
    decisions, duration, packet_costs, source and seed (3 to 6 files): run_method's
    keywords, model.flows' signature, the sweep's and rows' literal keys; now model.flows
    takes the catalog's DRAWS by name, kernel.simulate its DECISIONS as **, and the rows'
    keys are the declarations' names. DC-DRF's deadline, epsilon, isa and threads (5 to 7
    files: bench.py's own parser, the sweeps' run ids, many_core's flag map, the
    controller's and guarantees' keywords): now bench's flags are their declarations, run
    ids and rows are keyed by the declarations' names and allocate takes **options. DRFH's
    slots and weights (7 and 6: the schedulers', sensitivity's and the facade's keywords):
    taken off the checked options by catalog.SCHEDULER. Packer's view and threads (8 and 7:
    the rules, the steps, evaluation and simulate): its steps take them from the
    declarations and pass them on as **options. H-DRF's tasks (8): catalog.TASKS, passed
    by its name."""
    declared = step_options(family)      # its steps' names are not settings
    shared = {o.name for o in (api.THREADS, api.ISA, api.LITERAL)}   # declared once for all
    for option in AT_MOST_TWO[family]:
        assert any(option in api.method_info(m).options for m in drfbench.methods(family=family))
        spelled = spelled_in(option, steps=declared, sources=own_sources(family))
        elsewhere = set(ELSEWHERE.get((family, option), ()))
        assert elsewhere <= spelled, (option, sorted(elsewhere - spelled))
        spelled -= elsewhere
        catalog = f"drfbench/{family}/catalog.py"      # a step's name may hide it from `spelled`
        assert option in shared or spelled_in(option, sources=[catalog]), option
        assert len(spelled) <= 2, (option, sorted(spelled))


def test_a_sweep_s_flag_is_its_option_s_declaration():
    """DRF's slots step sweeps hadoop-slots' declared `slots`: --slots takes one or more
    whole numbers within [1, 1e7], required (a sweep's runs are given); pipeline.flags
    writes the config's list as its values."""
    from drfbench._command import options_of, steps
    from drfbench.drf import __main__ as step
    parsed = []
    original = step.run_step
    try:
        step.run_step = lambda parser, body, argv: parsed.append(parser.parse_args(argv))
        step.main(["slots", "--out", "x.csv", "--slots", "3", "5"])
    finally:
        step.run_step = original
    assert options_of(parsed[0]) == {"slots": [3, 5]}
    for bad in (["--slots", "0"], ["--slots", "2.5"], []):
        with pytest.raises(SystemExit):
            step.main(["slots", "--out", "x.csv", *bad])
    assert pipeline.flags({"slots": [2, 4, 6], "machines": 3}, "drf", "slots") == "--slots 2 4 6"
    with pytest.raises(ValueError, match="family 'drf' lists no options of step 'bogus'"):
        pipeline.flags({}, "drf", "bogus")
    p, _ = steps("drf", "", {"s": ""}, sweeps={"s": {"counts": "slots"}})
    assert options_of(p.parse_args(["s", "--out", "x.csv", "--counts", "1", "2"])) == \
        {"counts": [1, 2]}
    with pytest.raises(ValueError, match="option 'tasks': a list, so not swept"):
        steps("drf", "", {"s": ""}, sweeps={"s": {"tasks": "tasks"}})


def test_a_step_s_flags_are_its_options_declarations():
    """DRFQ's sweep: --packet-costs, --rtt, --interval with the declared defaults, types and
    bounds; pipeline.flags writes the config's values for them."""
    from drfbench._command import options_of, steps
    from drfbench.drfq import __main__ as step
    from drfbench.drfq.catalog import RTT
    parsed = []
    original = step.run_step
    try:
        step.run_step = lambda parser, body, argv: parsed.append(parser.parse_args(argv))
        step.main(["sweep", "--out", "x.csv", "--rtt", "0.5"])
    finally:
        step.run_step = original
    assert options_of(parsed[0]) == {"packet_costs": "fixed", "rtt": 0.5, "interval": 0.3}
    assert RTT != 0.5
    with pytest.raises(SystemExit):
        step.main(["sweep", "--out", "x.csv", "--rtt", "0"])          # bounds: (0, 1e9]
    settings = {"rtt": 0.001, "interval": 0.3, "packet_costs": "uniform", "duration": 5.0}
    assert pipeline.flags(settings, "drfq", "sweep") == \
        "--packet-costs uniform --rtt 0.001 --interval 0.3"
    with pytest.raises(ValueError, match="family 'drfq' lists no options of step 'bogus'"):
        pipeline.flags(settings, "drfq", "bogus")
    with pytest.raises(ValueError, match="family 'drfq' declares no option 'bogus'"):
        steps("drfq", "", {"sweep": ""}, options={"sweep": ("rtt", "bogus")})



def test_a_step_s_own_name_for_an_option():
    """DRFH's dynamic step takes `sample` as its own `dynamic_sample` (catalog.STEP_OPTIONS
    {"dynamic": {"dynamic_sample": "sample"}}: Fig. 4 samples every 10 s, the trace runs
    every 60): the flag --dynamic-sample has the declaration's bounds and default, the step
    gets it as `sample`, and pipeline.flags writes the config's `dynamic_sample`."""
    from drfbench._command import options_of
    from drfbench.drfh import __main__ as step
    from drfbench.drfh.catalog import STEP_OPTIONS
    parser = step.parser()
    parsed = parser.parse_args(["dynamic", "--out", "x.csv", "--summary", "s.csv",
                                "--dynamic-sample", "50"])
    assert options_of(parsed) == {"sample": 50.0}
    default = parser.parse_args(["dynamic", "--out", "x.csv", "--summary", "s.csv"])
    assert options_of(default) == {"sample": api.method_info("drfh-best-fit").defaults()["sample"]}
    for bad in (["--dynamic-sample", "0"], ["--sample", "5"]):
        with pytest.raises(SystemExit):
            parser.parse_args(["dynamic", "--out", "x.csv", "--summary", "s.csv", *bad])
    settings = {"dynamic_sample": 10, "sample": 60, "horizon": 3600}
    assert STEP_OPTIONS["dynamic"] == {"dynamic_sample": "sample"}
    assert pipeline.flags(settings, "drfh", "dynamic") == "--dynamic-sample 10"
    assert pipeline.flags(settings | {"slot_grid": [10, 14], "slot_model": "capped"}, "drfh",
                          "slots-search") == \
        "--horizon 3600 --sample 60 --slot-model capped --slot-grid 10 14"

# Where a family's files lie (docs/adding-a-family.md): `{f}` is its name.
FAMILY_PLACES = (r"drfbench/{f}/.+", r"tests/{f}/.+", r"workflows/rules/{f}(_\w+)?\.smk",
                 r"workflows/schemas/{f}\.schema\.yaml", r"notebooks/{f}(_\w+)?\.py",
                 r"workflows/report/figures/{f}_\w+\.rst", r"docs/families/{f}(/[\w-]+)?\.md",
                 r"reference/\w+/{f}/.+", r"reference/\w+/figures/{f}_\w+\.(png|md)",
                 r"reference/claims/{f}\.(yaml|md)")
TEMPLATE = ROOT / "template"
TEMPLATE_NAME = "skeleton"


def in_family_places(path, family):
    return any(re.fullmatch(place.format(f=re.escape(family)), path) for place in FAMILY_PLACES)


def test_a_family_s_files_lie_in_its_places():
    """Every file of the checkout named after a family (a folder or a file name `<family>`,
    `<family>_...`, `<family>.`) lies in one of that family's places, and so does every
    file of the template."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    named = re.compile(r"(^|/)({})([_./-]|$)".format("|".join(map(re.escape, api.families()))))
    stray = [p for p in tracked if not p.startswith("template/")
             and (m := named.search(p)) and not in_family_places(p, m.group(2))]
    assert stray == []
    template = [str(p.relative_to(TEMPLATE)) for p in TEMPLATE.rglob("*") if p.is_file()
                and "__pycache__" not in p.parts]
    assert template and [p for p in template if not in_family_places(p, TEMPLATE_NAME)] == []


@pytest.mark.slow
def test_a_family_from_the_template_runs_through_the_command_and_the_pipeline(tmp_path):
    """The template copied under a new name into a copy of the checkout, with one line
    added to the smoke profile and no other file edited: its method runs through
    `drfbench run`, its tests pass and its rule and notebook through the pipeline."""
    name, checkout = "toyfam", tmp_path / "checkout"
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for part in ("drfbench", "workflows", "notebooks", "tests", "reference/claims"):
        shutil.copytree(ROOT / part, checkout / part, ignore=skip)
    for part in ("Snakefile", "pyproject.toml"):
        shutil.copy(ROOT / part, checkout / part)
    for source in TEMPLATE.rglob("*"):
        target = checkout / str(source.relative_to(TEMPLATE)).replace(TEMPLATE_NAME, name)
        if source.is_file() and "__pycache__" not in source.parts:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(source.read_text().replace(TEMPLATE_NAME, name)
                              .replace(TEMPLATE_NAME.capitalize(), name.capitalize()))
    with open(checkout / "workflows/config/smoke.yaml", "a") as profile:
        profile.write(f"{name}: {{users: 20, resources: 3}}\n")     # the one shared line
    env = {**os.environ, "PYTHONPATH": str(checkout)}

    def run(*command, cwd=tmp_path):
        proc = subprocess.run([sys.executable, *command], cwd=cwd, env=env,
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        return proc

    (tmp_path / "demands.csv").write_text("user,cpu,mem\nann,0.1,0.4\nbob,0.3,0.1\n")
    run("-m", "drfbench", "run", name, "demands.csv", "--scale", "0.5", "--out", "rows.csv")
    with open(tmp_path / "rows.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["user"] for r in rows] == ["ann", "bob"]
    assert float(rows[0]["dominant_share"]) == pytest.approx(0.5 / (1 + 1 / 3))  # mem runs out
    run("-m", "pytest", "-q", "-p", "no:cacheprovider", f"tests/{name}", cwd=checkout)
    table, figure = (f"results/smoke/{name}/{name}_shares.csv",
                     f"results/smoke/figures/{name}_shares.png")
    run("-m", "snakemake", "--snakefile", str(checkout / "Snakefile"), "--cores", "2",
        "--directory", str(tmp_path / "work"), "--", table, figure)
    with open(tmp_path / "work" / table) as f:
        assert len(list(csv.DictReader(f))) == 20
    assert (tmp_path / "work" / figure).stat().st_size > 0
