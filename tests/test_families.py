"""Every registered family has the files docs/adding-a-family.md lists, and keeps its
settings to itself: a family registered without one of them fails here, naming it."""
import re

import pytest
import yaml

import drfbench
from drfbench import api
from conftest import ROOT


def family_files(family):
    """What docs/adding-a-family.md asks of a family: (what, the paths that would do)."""
    return [
        ("its kernel", [ROOT / f"drfbench/{family}/{family}.pyx"]),
        ("its package", [ROOT / f"drfbench/{family}/__init__.py"]),
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


@pytest.mark.parametrize("family", api.families())
def test_a_family_owns_one_config_key_with_defaults(family):
    """Its schema fragment defines one top-level key, named after it, every setting of
    which has a default (the default profile's value): profiles only scale them."""
    fragment = yaml.safe_load((ROOT / f"workflows/schemas/{family}.schema.yaml").read_text())
    assert list(fragment["properties"]) == [family]

    def without_default(part, path):
        for key, sub in part.get("properties", {}).items():
            if "properties" in sub:
                yield from without_default(sub, f"{path}.{key}")
            elif "default" not in sub:
                yield f"{path}.{key}"
    assert list(without_default(fragment["properties"][family], family)) == []


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
