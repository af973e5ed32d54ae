"""The layout holds: no import circle inside screening/, nothing under screening/ imports bot/,
no module over 450 lines and no function over 80 lines in screening/ and bot/ (unless the module's
docstring says why it must stay whole, with the words "stays whole").

Imports are read with ``ast`` from the source, every ``import`` and ``from ... import`` at any
depth (a lazy import inside a function still ties two modules together), ``TYPE_CHECKING`` blocks
excepted: they exist for annotations only and never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 80


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The project modules ``path`` imports (resolved to the longest known module name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()

    def add(name: str) -> None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != me:
            found.add(name)

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            for alias in node.names:
                add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def graph(roots: tuple[str, ...] = ("screening", "bot")) -> dict[str, set[str]]:
    files = [p for r in roots for p in (REPO / r).rglob("*.py")]
    known = {module_name(p) for p in files}
    return {module_name(p): imports_of(p, known) for p in files}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            strong(v)
    return out


def test_no_import_circle_inside_screening() -> None:
    g = {m: {d for d in deps if d.startswith("screening")} for m, deps in graph().items()
         if m.startswith("screening")}
    assert cycles(g) == []


def test_the_detector_sees_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_screening_never_imports_bot() -> None:
    offenders = {m: sorted(d for d in deps if d.split(".")[0] == "bot")
                 for m, deps in graph().items() if m.startswith("screening")}
    assert {m: d for m, d in offenders.items() if d} == {}


# the layers above data/ in the flow (data -> screen -> engines -> queue -> output -> fronts): the data layer imports
# none of them (the eighteenth session moved the unknown-column reading, which had data/ import screen/, up)
ABOVE_DATA = ("screening.screen", "screening.engines", "screening.queue", "screening.output", "screening.digest",
              "screening.push")


def test_the_data_layer_imports_nothing_above_it() -> None:
    offenders = {m: sorted(d for d in deps if d.startswith(ABOVE_DATA))
                 for m, deps in graph().items() if m.startswith("screening.data")}
    assert {m: d for m, d in offenders.items() if d} == {}


def _stays_whole(tree: ast.Module) -> bool:
    doc = ast.get_docstring(tree) or ""
    return "stays whole" in doc


def test_modules_and_functions_are_small() -> None:
    too_long: list[str] = []
    for root in ("screening", "bot"):
        for path in sorted((REPO / root).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text)
            if _stays_whole(tree):
                continue
            n = len(text.splitlines())
            if n > MAX_MODULE_LINES:
                too_long.append(f"{path.relative_to(REPO)}: {n} lines")
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = (node.end_lineno or node.lineno) - node.lineno + 1
                    if length > MAX_FUNCTION_LINES:
                        too_long.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name}: {length} lines")
    assert too_long == []


def test_every_module_says_what_it_holds() -> None:
    missing = [str(p.relative_to(REPO)) for root in ("screening", "bot") for p in (REPO / root).rglob("*.py")
               if p.stat().st_size and not ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")))]
    assert missing == []
