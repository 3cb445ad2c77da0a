"""Dependency rules of the code base (shared/ARCHITECTURE.md), checked from the import
statements of every .py file under engine/, elements/, solvers/ and mbdae/:

(a) elements never import mbdae.engine.{model, system, drivers, io};
(b) mbdae.engine.{core, model, system, drivers} never import mbdae.engine.io;
(c) solvers import nothing of mbdae.engine but the State/Context protocol (engine.core.state)
    and the compiled-kernel toolbox (engine.core.compiled: the decorator and vector helpers);
(d) mbdae.engine.core never imports mbdae.elements;
(e) no import statement inside a function or method, except of an optional extra;
(f) no import cycle among the project's modules (module-level imports);
(g) the drivers (mbdae.engine.drivers) import no element module: they find families through
    the System by what they offer (System.family_with);
(h) a module loaded by name (importlib.import_module, __import__) comes from a dispatch table:
    a module-level dict named *_MODULES whose values are project modules (e.g. mbdae/cli.py's
    sub-commands, loaded when that command runs); the table's modules count as imports of
    its file (rules (a)-(d), (g) and the cycle check see them), and a literal name or a call
    in a file without such a table is a hidden import.

Rule (e) also accepts, inside functions, the parts of required packages that only some runs
need (LAZY_PARTS: SciPy's optimizers, dense/sparse eigensolvers, special functions and graph
algorithms), imported where they are
used to keep the start-up of `mbdae run` short.

PENDING lists the files with known violations, each with the reason; the lead empties it
once the branches that fix them are merged.  A violation in any other file fails."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"engine": "mbdae.engine", "elements": "mbdae.elements", "solvers": "mbdae.solvers",
           "mbdae": "mbdae"}
OPTIONAL_EXTRAS = {"matplotlib", "petsc4py", "mpi4py", "meshio", "capytaine", "netCDF4", "h5netcdf",
                   "sksparse", "numba", "kvxopt", "pypardiso", "scikits", "xarray", "h5py", "vtk", "pyvista"}
# parts of required packages imported inside the functions that need them (start-up time)
LAZY_PARTS = {"scipy.optimize", "scipy.linalg", "scipy.sparse.linalg", "scipy.special", "scipy.sparse.csgraph"}
DYNAMIC_IMPORTS = {"import_module", "__import__"}     # importlib.import_module, builtins.__import__
DISPATCH_SUFFIX = "_MODULES"

# file (relative to the repository) -> why it still breaks a rule; emptied after the merge
PENDING = {
}


# ---------------------------------------------------------------------- reading imports
def module_name(path):
    """Project module of a file: engine/x/y.py -> mbdae.engine.x.y (package: its __init__)."""
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    parts[0:1] = FOLDERS[parts[0]].split(".")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_files():
    files = []
    for folder in FOLDERS:
        files += sorted((ROOT / folder).rglob("*.py"))
    return files


class Import:
    """One imported module: its dotted name, line, and whether the statement sits inside a
    function body.  `dispatched`: named in a dispatch table (rule (h)), loaded by name when
    needed; `hidden`: a module loaded by name outside a dispatch table (the text says how)."""

    def __init__(self, name, line, in_function, dispatched=False, hidden=None):
        self.name, self.line, self.in_function = name, line, in_function
        self.dispatched, self.hidden = dispatched, hidden

    def __repr__(self):
        where = ", in a function" if self.in_function else ", by a dispatch table" if self.dispatched else ""
        return f"{self.name} (line {self.line}{where})"


def is_lazy_part(name):
    return any(name == p or name.startswith(p + ".") for p in LAZY_PARTS)


def dynamic_imports_of(tree, known_modules):
    """Rule (h) over a module's syntax tree: [Import] of the modules of its dispatch tables
    (module-level `*_MODULES = {...}` dicts), and of each call importlib.import_module(...) /
    __import__(...) that is not fed by such a table (marked `hidden`)."""
    tables = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id.endswith(DISPATCH_SUFFIX) for t in targets) \
                and isinstance(node.value, ast.Dict):
            for value in node.value.values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    name = value.value
                    tables.append(Import(name, value.lineno, False, dispatched=True,
                                         hidden=None if name in known_modules else
                                         f"dispatch table names '{name}', which is no project module"))
                else:
                    tables.append(Import("?", value.lineno, False, dispatched=True,
                                         hidden="dispatch table values must be module names (strings)"))
    calls = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
        if name not in DYNAMIC_IMPORTS:
            continue
        arg = node.args[0] if node.args else None
        if isinstance(arg, ast.Constant):
            calls.append(Import(str(arg.value), node.lineno, True,
                                hidden=f"{name}('{arg.value}'): a module loaded by a literal name (write an import)"))
        elif not tables:
            calls.append(Import("?", node.lineno, True,
                                hidden=f"{name}(...) with no dispatch table (*{DISPATCH_SUFFIX}) in the file"))
    return tables + calls


def imports_of(source, module, is_package, known_modules=()):
    """The imports of a module's source.  `from a import b` names module a.b when that is a
    project module, else a; relative imports are resolved against `module`."""
    tree = ast.parse(source)
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    found.append(Import(alias.name, child.lineno, in_function))
            elif isinstance(child, ast.ImportFrom):
                base = resolve_relative(child, module, is_package)
                for alias in child.names:
                    sub = f"{base}.{alias.name}"
                    found.append(Import(sub if sub in known_modules else base, child.lineno, in_function))
            visit(child, inside)

    visit(tree, False)
    return found + dynamic_imports_of(tree, known_modules)


def resolve_relative(node, module, is_package):
    if not node.level:
        return node.module
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[:len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def read_project():
    """{module: (file, [Import])} over the whole project."""
    files = project_files()
    modules = {module_name(f): f for f in files}
    known = set(modules)
    return {m: (f, imports_of(f.read_text(), m, f.name == "__init__.py", known)) for m, f in modules.items()}


# ---------------------------------------------------------------------- rules
def within(name, prefix):
    return name == prefix or name.startswith(prefix + ".")


def rule_violations(module, imports):
    """[(rule, text)] of one module's imports against rules (a)-(e) and (g)."""
    out = []
    seen = set()
    for imp in imports:
        if (imp.name, imp.line) in seen:
            continue
        seen.add((imp.name, imp.line))
        n = imp.name
        if within(module, "mbdae.elements") and any(
                within(n, f"mbdae.engine.{p}") for p in ("model", "system", "drivers", "io")):
            out.append(("a", f"elements import {imp}"))
        if any(within(module, f"mbdae.engine.{p}") for p in ("core", "model", "system", "drivers")) \
                and within(n, "mbdae.engine.io"):
            out.append(("b", f"imports the reader/writer {imp}"))
        if within(module, "mbdae.solvers") and within(n, "mbdae.engine") \
                and not within(n, "mbdae.engine.core.state") and not within(n, "mbdae.engine.core.compiled"):
            out.append(("c", f"solvers import {imp}"))
        if within(module, "mbdae.engine.core") and within(n, "mbdae.elements"):
            out.append(("d", f"engine.core imports {imp}"))
        if within(module, "mbdae.engine.drivers") and within(n, "mbdae.elements"):
            out.append(("g", f"a driver imports an element module {imp}"))
        if imp.hidden:
            out.append(("h", f"hidden import: {imp.hidden} (line {imp.line})"))
        elif imp.in_function and n.split(".")[0] not in OPTIONAL_EXTRAS and not is_lazy_part(n):
            out.append(("e", f"import inside a function: {imp}"))
    return out


def find_cycle(graph):
    """One import cycle of `graph` ({module: {imported modules}}) as a list of modules
    (first = last), or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    color = {m: WHITE for m in graph}
    for start in sorted(graph):
        if color[start] != WHITE:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        color[start] = GREY
        while stack:
            node, children = stack[-1]
            for child in children:
                if child not in graph:
                    continue
                if color[child] == GREY:
                    return path[path.index(child):] + [child]
                if color[child] == WHITE:
                    color[child] = GREY
                    path.append(child)
                    stack.append((child, iter(sorted(graph[child]))))
                    break
            else:
                color[node] = BLACK
                path.pop()
                stack.pop()
    return None


def import_graph(project, skip_files=()):
    """Module-level imports between project modules (function-level ones run late and are
    rule (e)'s business), leaving out the modules of `skip_files`."""
    graph = {}
    for module, (path, imports) in project.items():
        if str(path.relative_to(ROOT)) in skip_files:
            continue
        graph[module] = {i.name for i in imports if not i.in_function and i.name in project and i.name != module}
    # a dispatch table's modules are loaded late (when their command runs), but they are
    # dependencies all the same: they stay in the graph
    return graph


# ---------------------------------------------------------------------- the checks
PROJECT = read_project()


@pytest.mark.parametrize("module", sorted(PROJECT))
def test_dependency_rules(module):
    path, imports = PROJECT[module]
    rel = str(path.relative_to(ROOT))
    found = rule_violations(module, imports)
    if rel in PENDING:
        return
    assert not found, f"{rel}: " + "; ".join(f"rule ({r}) {text}" for r, text in found)


def test_pending_files_still_exist_and_still_break_a_rule():
    """An entry of PENDING whose file is gone or clean must be removed from it."""
    cycle = find_cycle(import_graph(PROJECT))
    for rel in PENDING:
        path = ROOT / rel
        assert path.exists(), f"PENDING lists {rel}, which does not exist"
        module = module_name(path)
        _, imports = PROJECT[module]
        assert rule_violations(module, imports) or (cycle and module in cycle), \
            f"{rel} no longer breaks a rule: remove it from PENDING"


def test_no_import_cycle():
    cycle = find_cycle(import_graph(PROJECT, skip_files=PENDING))
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


# ---------------------------------------------------------------------- the checker itself
def test_checker_sees_a_forbidden_arrow():
    bad = "import numpy as np\nfrom mbdae.engine.system import System\n"
    imports = imports_of(bad, "mbdae.elements.fake", False)
    assert [r for r, _ in rule_violations("mbdae.elements.fake", imports)] == ["a"]
    imports = imports_of("from ..io.mbdyn import output\n", "mbdae.engine.drivers.fake", False)
    assert imports[0].name == "mbdae.engine.io.mbdyn"
    assert [r for r, _ in rule_violations("mbdae.engine.drivers.fake", imports)] == ["b"]
    imports = imports_of("from mbdae.engine.core.state import State\nimport mbdae.engine.system\n",
                         "mbdae.solvers.fake", False)
    assert [r for r, _ in rule_violations("mbdae.solvers.fake", imports)] == ["c"]
    imports = imports_of("from mbdae.elements import body\n", "mbdae.engine.core.fake", False)
    assert [r for r, _ in rule_violations("mbdae.engine.core.fake", imports)] == ["d"]
    imports = imports_of("from mbdae.elements.joints import RigidJoints\n", "mbdae.engine.drivers.fake", False)
    assert [r for r, _ in rule_violations("mbdae.engine.drivers.fake", imports)] == ["g"]


def test_checker_sees_an_import_inside_a_function():
    src = ("def f():\n    import matplotlib.pyplot as plt\n"
           "class A:\n    def g(self):\n        from mbdae.engine.core import rotations\n")
    imports = imports_of(src, "mbdae.elements.fake", False)
    assert [(i.name, i.in_function) for i in imports] == [("matplotlib.pyplot", True),
                                                         ("mbdae.engine.core", True)]
    assert [r for r, _ in rule_violations("mbdae.elements.fake", imports)] == ["e"]


def test_checker_accepts_lazy_scipy_parts_but_no_other_import_in_a_function():
    src = ("def f():\n    from scipy.optimize import brentq\n    import scipy.sparse.linalg as spla\n"
           "def g():\n    import scipy.sparse as sp\n    import numpy\n")
    imports = imports_of(src, "mbdae.solvers.fake", False)
    found = rule_violations("mbdae.solvers.fake", imports)
    assert [r for r, _ in found] == ["e", "e"]
    assert "scipy.sparse (line 5" in found[0][1] and "numpy (line 6" in found[1][1]


def test_checker_sees_hidden_imports_and_reads_dispatch_tables():
    known = {"mbdae.cmd_plot", "mbdae.engine.system", "mbdae.elements.body"}
    # a dispatch table: its modules are imports of the file, its import_module call is fine
    src = ("import importlib\nCOMMAND_MODULES = {'plot': 'mbdae.cmd_plot'}\n"
           "def load(name):\n    return importlib.import_module(COMMAND_MODULES[name])\n")
    imports = imports_of(src, "mbdae.fake", False, known)
    assert [(i.name, i.dispatched) for i in imports if i.name.startswith("mbdae")] == [("mbdae.cmd_plot", True)]
    assert rule_violations("mbdae.fake", imports) == []
    # its modules are checked like imports (here: an element module named in engine.core)
    src = "X_MODULES = {'a': 'mbdae.elements.body'}\n"
    assert [r for r, _ in rule_violations("mbdae.engine.core.fake", imports_of(src, "mbdae.engine.core.fake",
                                                                                False, known))] == ["d"]
    # and they take part in the cycle check
    graph = import_graph({"mbdae.fake": (ROOT / "mbdae" / "fake.py", imports),
                          "mbdae.cmd_plot": (ROOT / "mbdae" / "cmd_plot.py",
                                             imports_of("import mbdae.fake\n", "mbdae.cmd_plot", False,
                                                        {"mbdae.fake"}))})
    assert find_cycle(graph) == ["mbdae.cmd_plot", "mbdae.fake", "mbdae.cmd_plot"]
    # hidden imports: a literal name, a call without a table, a table naming no module
    for src in ("import importlib\ndef f():\n    return importlib.import_module('mbdae.engine.system')\n",
                "from importlib import import_module\ndef f(n):\n    return import_module(n)\n",
                "def f(n):\n    return __import__(n)\n",
                "A_MODULES = {'x': 'mbdae.engine.nonesuch'}\n"):
        found = rule_violations("mbdae.fake", imports_of(src, "mbdae.fake", False, known))
        assert [r for r, _ in found] == ["h"], src


def test_checker_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
