"""The import graph of src/papernotes: no cycle between the stage packages, and no hidden import.

Read from the source (the AST), so imports inside functions count as much as those at the top:
an import inside a function hides a cycle without removing it (STYLE.md, principle 19). Each
stage package (corpus, intake, classify, check, site, migrate, cli) is one node; each top-level
module (cache.py, disk.py, markdown.py…) is a node of its own.

An import inside a function of one of our modules or of a core dependency is allowed only with a
measured start-up cost in a comment on its line or just above it (``# lazy: 40 ms (importtime)``),
or when it is listed in ``ALLOWED`` with the reason. Optional extras (openai, sklearn, pypdf…)
load through ``papernotes.extras.require`` and are not our modules: they are not counted.
"""
from __future__ import annotations

import ast
import functools
import re
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "papernotes"
STAGES = ("corpus", "intake", "classify", "check", "site", "migrate", "cli")
MEASURED = re.compile(r"#.*\blazy:.*\d+(?:\.\d+)?\s*ms\b")

# (importing module, imported module) → why it stays inside a function with no start-up figure.
ALLOWED: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the imported module (resolved to a module of ours when it is one)
    line: int
    in_function: bool
    commented: bool  # a measured figure in a comment on its line or the comment lines just above
    typing_only: bool = False  # under `if TYPE_CHECKING:`: never run


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def node(module: str) -> str:
    """The graph node a module belongs to: its stage package, else the top-level module itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in STAGES else module


def _resolve(name: str) -> str:
    """The deepest module of ours that ``name`` names (``a.b.func`` → ``a.b``), else ``name``."""
    probe = name
    while probe not in MODULES and "." in probe:
        probe = probe.rsplit(".", 1)[0]
    return probe if probe in MODULES else name


def _commented(lines: list[str], first: int, last: int) -> bool:
    """A measured figure on the lines ``first``..``last`` (a run of import statements) or in the comment
    lines just above them."""
    if any(MEASURED.search(lines[i - 1]) for i in range(first, last + 1)):
        return True
    i = first - 2
    while i >= 0 and lines[i].lstrip().startswith("#"):
        if MEASURED.search(lines[i]):
            return True
        i -= 1
    return False


def _runs(body: list[ast.stmt]) -> list[list[ast.Import | ast.ImportFrom]]:
    """The runs of consecutive import statements in a block (one comment may speak for a run)."""
    runs: list[list[ast.Import | ast.ImportFrom]] = []
    for statement in body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            if runs and runs[-1] and runs[-1][-1] is previous:
                runs[-1].append(statement)
            else:
                runs.append([statement])
        previous = statement
    return runs


def imports_of(module: str) -> list[Import]:
    path = MODULES[module]
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: list[Import] = []

    def visit(tree: ast.AST, in_function: bool, typing_only: bool = False) -> None:
        for field in ("body", "orelse", "finalbody"):
            body = getattr(tree, field, None)
            for run in _runs(body if isinstance(body, list) else []):
                commented = _commented(lines, run[0].lineno, run[-1].end_lineno or run[-1].lineno)
                for statement in run:
                    add(statement, in_function, commented, typing_only)
        for child in ast.iter_child_nodes(tree):
            if not isinstance(child, (ast.Import, ast.ImportFrom)):
                checking = isinstance(child, ast.If) and ast.unparse(child.test) in ("TYPE_CHECKING",
                                                                                       "typing.TYPE_CHECKING")
                visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)),
                      typing_only or checking)

    def add(statement: ast.Import | ast.ImportFrom, in_function: bool, commented: bool, typing_only: bool) -> None:
        if isinstance(statement, ast.Import):
            targets = {_resolve(a.name) for a in statement.names}
        else:
            if statement.level:
                base = package[: len(package) - (statement.level - 1)]
                source = ".".join(base + ([statement.module] if statement.module else []))
            else:
                source = statement.module or ""
            # `from papernotes.site import build` imports the module papernotes.site.build, and reads the
            # package papernotes.site's namespace: a package whose __init__ imports the importer is a cycle
            targets = {_resolve(f"{source}.{a.name}") for a in statement.names}
            if source in MODULES:
                targets.add(source)
        found.extend(Import(module, target, statement.lineno, in_function, commented, typing_only)
                     for target in sorted(targets) if target != module)

    visit(ast.parse(text, filename=str(path)), False)
    return found


@functools.cache
def every_import() -> list[Import]:
    """Every import of every module (read when a test asks: not at collection, in every worker)."""
    return [imp for m in MODULES for imp in imports_of(m)]


def core_dependencies() -> set[str]:
    """Import names of the packages `pip install papernotes` installs (pyproject's dependencies)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = {re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0].lower().replace("_", "-")
              for d in project["dependencies"]}
    names = {top for top, dists in packages_distributions().items()
             if any(d.lower().replace("_", "-") in wanted for d in dists)}
    assert len(names) >= len(wanted) - 1, f"core dependencies not installed? {wanted} → {names}"
    return names


def package_cycle(imports: list[Import], node=node) -> list[tuple[str, str, Import]] | None:  # type: ignore[no-untyped-def]
    """One cycle between graph nodes (``node``: a module's stage package), as its edges each with an import that
    makes it; None if none."""
    edges: dict[str, dict[str, Import]] = defaultdict(dict)
    for imp in imports:
        a, b = node(imp.module), node(imp.target)
        if imp.target.startswith("papernotes") and a != b:
            edges[a].setdefault(b, imp)
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def dfs(v: str) -> list[str] | None:
        state[v] = 1
        path.append(v)
        for w in sorted(edges[v]):
            if state.get(w) == 1:
                return path[path.index(w):] + [w]
            if w not in state and (found := dfs(w)):
                return found
        state[v] = 2
        path.pop()
        return None

    for v in sorted(edges):
        if v not in state and (cycle := dfs(v)):
            return [(a, b, edges[a][b]) for a, b in zip(cycle, cycle[1:])]
    return None


def test_the_graph_is_read_from_every_module() -> None:
    assert len(MODULES) > 100
    assert sum(1 for i in every_import() if i.target.startswith("papernotes.")) > 300
    assert any(i.in_function for i in every_import())  # in-function imports are seen
    assert {node(m) for m in MODULES} >= set(STAGES)


def test_no_cycle_between_stage_packages() -> None:
    cycle = package_cycle(every_import())
    assert cycle is None, "import cycle between packages: " + ", ".join(
        f"{a} → {b} ({i.module}:{i.line} imports {i.target})" for a, b, i in cycle)


def test_no_cycle_between_modules_at_top_level() -> None:
    """Inside a stage too: a module-level import cycle makes the import order matter (a package's __init__
    that imports a submodule which reads the package back)."""
    top = [i for i in every_import() if not i.in_function and not i.typing_only]
    assert sum(1 for i in top if i.target.startswith("papernotes")) > 300  # the graph was read
    cycle = package_cycle(top, node=lambda module: module)
    assert cycle is None, "import cycle between modules: " + ", ".join(
        f"{a} → {b} ({i.module}:{i.line} imports {i.target})" for a, b, i in cycle)


def test_the_cycle_finder_reports_a_cycle_with_its_path() -> None:
    made = [Import("papernotes.corpus.parse", "papernotes.site.plan", 17, True, False),
            Import("papernotes.site.build", "papernotes.corpus.load", 3, False, False)]
    cycle = package_cycle(every_import() + made)
    assert cycle is not None
    assert all(b == a2 for (_, b, _), (a2, _, _) in zip(cycle, cycle[1:])) and cycle[0][0] == cycle[-1][1]
    assert ("corpus", "site") in [(a, b) for a, b, _ in cycle]  # the edge made is the one that closes it


def test_in_function_imports_carry_a_measured_figure() -> None:
    core = core_dependencies()
    hidden = [i for i in every_import()
              if i.in_function and not i.commented and (i.module, i.target) not in ALLOWED
              and (i.target.startswith("papernotes") or i.target.split(".")[0] in core)]
    assert not hidden, "imports inside functions with no measured reason (`# lazy: N ms (importtime)`):\n" + "\n".join(
        f"  {MODULES[i.module].relative_to(ROOT)}:{i.line} imports {i.target}" for i in hidden)


def test_allowed_entries_still_exist() -> None:
    present = {(i.module, i.target) for i in every_import() if i.in_function}
    assert set(ALLOWED) <= present, set(ALLOWED) - present


MAX_LINES = 500
"""STYLE.md, principle 9: modules around 100–200 lines, a ceiling near 500."""


def test_no_source_file_is_over_the_ceiling() -> None:
    sizes = {path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in MODULES.values()}
    assert len(sizes) > 100
    assert {p: n for p, n in sizes.items() if n > MAX_LINES} == {}
