"""Every registered family has the files docs/adding-a-family.md lists, and keeps its
settings to itself: a family registered without one of them fails here, naming it."""
import importlib
import inspect
import re

import pytest
import yaml

import drfbench
from drfbench import api, pipeline
from conftest import ROOT


def family_files(family):
    """What docs/adding-a-family.md asks of a family: (what, the paths that would do)."""
    return [
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
    ]


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
def test_a_family_is_named_on_its_page_and_in_the_readme(family):
    labels = [api.method_info(m).name for m in drfbench.methods(family=family)]
    page = (ROOT / f"docs/families/{family}.md").read_text()
    readme = (ROOT / "README.md").read_text()
    assert all(f"`{name}`" in page for name in labels), [n for n in labels if f"`{n}`" not in page]
    assert f"docs/families/{family}.md" in readme


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
    (tests/**/test_fuzz_*.py, docs/accepts.md), and every kind has its section on the page."""
    fuzzed = set()
    for path in (ROOT / "tests").rglob("test_fuzz_*.py"):
        match = re.search(r"^FUZZED = \(([^)]*)\)", path.read_text(), re.M)
        fuzzed |= set(re.findall(r"\"(\w+)\"", match.group(1))) if match else set()
    assert fuzzed == set(api.KINDS), sorted(set(api.KINDS) ^ fuzzed)
    page = (ROOT / "docs/accepts.md").read_text()
    assert [k for k in api.KINDS if f"`{k}`" not in page] == []


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
    declared ones."""
    by_implementation = {}
    for name in drfbench.methods(family=family):
        spec = api.method_info(name)
        by_implementation.setdefault(spec.implementation, []).append(spec)
    for implementation, specs in by_implementation.items():
        dispatch = api.KINDS[specs[0].takes].dispatch
        params = inspect.signature(api.function(dispatch or implementation)).parameters
        for spec in specs:
            assert set(spec.options) <= set(params), (spec.name, set(spec.options) - set(params))
        if dispatch:
            assert all(params[o].default == spec.options[o].default
                       for spec in specs for o in spec.options), implementation
            continue
        everyone = set.intersection(*(set(spec.options) for spec in specs))
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
