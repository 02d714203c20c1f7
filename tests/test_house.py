"""The house's arrows point one way: no room imports a room above its floor, no circles.

The floors are listed here, once; ``docs/design.md`` draws the same picture. Every
import counts, at module level or inside a function (a lazy import is still an
arrow), except those under ``if TYPE_CHECKING:``, which only annotations use. A new
room must be given a floor here before its test passes.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# floor -> rooms of ``gctheory`` (a room is a top-level module or package); bottom first
FLOORS: tuple[tuple[str, ...], ...] = (
    (
        "_validate",
        "_names",
        "_threads",
        "_compiled",
        "_output",
        "_progress",
        "_tables",
        "_group_failure",
    ),
    ("montecarlo", "generators"),
    ("conditioning", "order_stats"),
    ("codes", "ldpc", "tails"),
    ("load_bounds", "tables", "runtime"),
    ("delays", "training"),  # delays' decision tables weigh runtime's scheme times
    ("cluster", "tradeoff", "sweeps", "sgc", "hetero", "calibration", "coverage_study"),
    ("plots",),
    ("commands", "cli", "__main__", "__init__"),
)
# arrows kept for one release only, by deprecated aliases that warn when used (CHANGELOG.md)
DEPRECATED_SHIMS = {("gctheory.tradeoff", "gctheory.plots.tradeoff")}  # plot_tradeoff, until 0.3
FLOOR = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def _type_only(tree: ast.AST) -> set[int]:
    """Ids of the import nodes under ``if TYPE_CHECKING:`` (annotations only, never run)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return out


def _imports(path: Path, package: str) -> list[tuple[str, list[str]]]:
    """``(module, names)`` for every import of ``package`` in ``path``, anywhere in it
    except under ``if TYPE_CHECKING:`` (a type annotation's import runs nowhere)."""
    found: list[tuple[str, list[str]]] = []
    here = _module_name(path).split(".")
    if path.name != "__init__.py":
        here = here[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_only(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((a.name, []) for a in node.names)
    return [(m, n) for m, n in found if m == package or m.startswith(package + ".")]


def _modules(package: str) -> dict[str, Path]:
    return {_module_name(p): p for p in (ROOT / package).rglob("*.py")}


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _graph(package: str) -> dict[str, set[str]]:
    modules = _modules(package)
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        for module, names in _imports(path, package):
            # ``from gctheory import ldpc`` imports the module gctheory.ldpc, not the package
            submodules = [f"{module}.{n}" for n in names if f"{module}.{n}" in modules]
            targets = submodules if submodules and len(submodules) == len(names) else [module]
            for target in targets:
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in modules and target != name and (name, target) not in DEPRECATED_SHIMS:
                    graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
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

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_every_room_has_a_floor():
    rooms = {_room(m) for m in _modules("gctheory")}
    assert rooms - set(FLOOR) == set(), "give the new room a floor in FLOORS"


def test_no_room_imports_a_room_above_its_floor():
    wrong = []
    for source, targets in _graph("gctheory").items():
        for target in targets:
            a, b = _room(source), _room(target)
            if a != b and FLOOR[b] > FLOOR[a]:
                wrong.append(f"{source} (floor {FLOOR[a]}) imports {target} (floor {FLOOR[b]})")
    assert wrong == []


@pytest.mark.parametrize("package", ["gctheory", "paper_checks"])
def test_no_circles_between_modules(package):
    assert _cycles(_graph(package)) == []


def test_no_circles_between_rooms():
    rooms: dict[str, set[str]] = defaultdict(set)
    for source, targets in _graph("gctheory").items():
        rooms[_room(source)].update(_room(t) for t in targets if _room(t) != _room(source))
    assert _cycles(rooms) == []


def test_the_check_sees_a_circle_and_an_upward_arrow():
    # negative controls: the same functions on a made-up graph
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert FLOOR["plots"] > FLOOR["tradeoff"]  # so tradeoff -> plots is an upward arrow
