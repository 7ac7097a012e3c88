"""The package's import graph: no cycles (imports inside functions count too), and no
library module imports the workflow-only modules."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "drfbench"
WORKFLOW_ONLY = {"drfbench.pipeline"}


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path):
    """The drfbench modules `path` imports, anywhere in it."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
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
    return found


def graph():
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: {m for m in imports(path) if m in modules and m != name}
            for name, path in modules.items()}


def test_no_import_cycles():
    edges = graph()
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(edges[node]):
            if state.get(nxt) == "open":
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            if nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])


def test_library_modules_never_import_the_workflow_modules():
    edges = graph()
    offenders = {m: sorted(edges[m] & WORKFLOW_ONLY) for m in edges
                 if m not in WORKFLOW_ONLY and edges[m] & WORKFLOW_ONLY}
    assert offenders == {}
