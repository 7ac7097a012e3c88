"""The package's import graph, counting imports inside functions and by
importlib.import_module / __import__ with a literal name:
- no cycles between modules, nor between packages (drfbench.<x>: a family whose module
  imports the core that imports the family back is a cycle though no module-level one is);
- no module outside a family imports that family: the rest of drfbench reaches a family
  through the registry's strings (the "module:function" implementations, InputKind
  readers and dispatches of the families' catalogs, drfbench/<family>/catalog.py, which
  drfbench.api loads by file; drfbench.properties.checks_for through
  InputKind.properties; drfbench's allocate and AllocationResult by name);
- the registry, drfbench/api.py, and drfbench/declarations.py name no family, and the
  registry stays small: at most API_LINES lines, and reading it imports no family module and loads no kernel;
- no library module imports the workflow-only modules.
On the code before issue 24's item 2 the package and family rules failed:
drfbench.properties imported drfbench.drf, drfbench.drfh and drfbench.hdrf at module
level, and drfbench.hdrf.evaluation, drfbench.hdrf.__main__ and drfbench.drfh.__main__
imported drfbench.properties back (drfbench.properties -> drfbench.hdrf ->
drfbench.properties)."""
import ast
import re
import subprocess
import sys

import drfbench
from conftest import ROOT

PACKAGE = ROOT / "drfbench"
WORKFLOW_ONLY = {"drfbench.pipeline"}
API_LINES = 250
FAMILIES = set(drfbench.families())


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source, name, is_package=False):
    """The drfbench modules that module `name` (of text `source`) imports, anywhere in it:
    import statements, and importlib.import_module or __import__ of a literal string."""
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("drfbench")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target.startswith("drfbench"):
                if node.module:          # "from . import x" needs x, not the package's body
                    found.add(target)
                found |= {f"{target}.{a.name}" for a in node.names}
        elif (isinstance(node, ast.Call) and node.args
              and getattr(node.func, "attr", getattr(node.func, "id", None))
              in ("import_module", "__import__")
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and node.args[0].value.startswith("drfbench")):
            found.add(node.args[0].value)
    return found


def graph():
    """{module: the drfbench modules it imports}."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: {m for m in imports(path.read_text(), name, path.name == "__init__.py")
                   if m in modules and m != name}
            for name, path in modules.items()}


def package_of(module):
    """drfbench.<x>: the package (or top-level module) `module` belongs to."""
    return ".".join(module.split(".")[:2])


def package_graph(edges):
    """{package: the packages its modules import}, from a module graph."""
    out = {}
    for module, targets in edges.items():
        out.setdefault(package_of(module), set()).update(
            package_of(t) for t in targets if package_of(t) != package_of(module))
    return out


def cycle(edges):
    """An import cycle in `edges` as a list of names (first repeated last), or None."""
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, stack + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def family_of(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in FAMILIES else None


def test_no_import_cycles():
    assert cycle(graph()) is None


def test_no_import_cycles_between_packages():
    """Caught on the code before item 2: drfbench.drfh -> drfbench.properties ->
    drfbench.drfh (drfh.__main__ imported the core, which imported drfh), and the same
    with hdrf (hdrf.evaluation imported guarantee_slack from the core)."""
    assert cycle(package_graph(graph())) is None


def test_no_module_outside_a_family_imports_it():
    """Caught on the code before item 2: drfbench.properties imported drfbench.drf,
    drfbench.drfh and drfbench.hdrf."""
    edges = graph()
    offenders = {m: sorted(t for t in targets if family_of(t) not in (None, family_of(m)))
                 for m, targets in edges.items()}
    assert {m: t for m, t in offenders.items() if t} == {}


def test_library_modules_never_import_the_workflow_modules():
    edges = graph()
    offenders = {m: sorted(edges[m] & WORKFLOW_ONLY) for m in edges
                 if m not in WORKFLOW_ONLY and edges[m] & WORKFLOW_ONLY}
    assert offenders == {}


def test_the_graph_sees_imports_in_functions_and_by_importlib():
    source = ("import importlib\n"
              "def f(kind):\n"
              "    from ..drf import tasks\n"
              "    importlib.import_module('drfbench.hdrf.tree')\n"
              "    __import__('drfbench.drfh')\n"
              "    importlib.import_module(f'drfbench.{kind}')   # a registry string: not seen\n")
    assert imports(source, "drfbench.sim.engine") == {
        "drfbench.drf", "drfbench.drf.tasks", "drfbench.hdrf.tree", "drfbench.drfh"}


def test_a_family_importing_the_core_that_imports_it_back_is_a_package_cycle():
    """The shape the code had before item 2: no cycle between modules, one between
    packages."""
    before = {"drfbench.properties": {"drfbench.hdrf"}, "drfbench.hdrf": {"drfbench.hdrf.tasks"},
              "drfbench.hdrf.tasks": set(), "drfbench.hdrf.evaluation": {"drfbench.properties"}}
    assert cycle(before) is None
    assert cycle(package_graph(before)) == ["drfbench.hdrf", "drfbench.properties",
                                            "drfbench.hdrf"]


def test_the_registry_names_no_family_and_is_small():
    """drfbench/api.py and the declarations it collects, drfbench/declarations.py: no
    family's package or method in them, as a module reference (`drfbench.<family>`,
    `<family>.<module>`, an import) or a string; the registry at most API_LINES lines.
    Caught on the code before issue 35: the 30 register calls of every family and DC-DRF's
    allocate in 479 lines."""
    names = FAMILIES | set(drfbench.methods())
    for module in ("api", "declarations"):
        source = (PACKAGE / f"{module}.py").read_text()
        strings = {node.value for node in ast.walk(ast.parse(source))
                   if isinstance(node, ast.Constant) and isinstance(node.value, str)}
        assert sorted(strings & names) == [], module
        references = {f for f in FAMILIES if re.search(rf"\b{re.escape(f)}\.\w", source)}
        assert sorted(references) == [], module
    assert len((PACKAGE / "api.py").read_text().splitlines()) <= API_LINES
    assert graph()["drfbench.api"] <= {"drfbench.declarations", "drfbench._machine",
                                       "drfbench._validation"}
    assert graph()["drfbench.declarations"] <= {"drfbench._machine", "drfbench._validation"}


def test_reading_the_registry_imports_no_family_module_and_no_kernel():
    """Every family's catalog is read, none of its other modules (which import SciPy's
    optimizers, pandas), and no compiled kernel."""
    code = ("import sys, drfbench\n"
            "drfbench.methods(); drfbench.api.KINDS\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('drfbench.'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.split()
    catalogs = {f"drfbench.{f}.catalog" for f in FAMILIES}
    assert catalogs <= set(loaded)
    assert [m for m in loaded if family_of(m) and m not in catalogs] == []
    assert [m for m in loaded if "_kernels" in m] == []
