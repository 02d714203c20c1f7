"""The house's arrows point one way: no room imports a room above its floor, no circles.

The floors are listed here, once; ``docs/design.md`` draws the same picture. Every
import counts, at module level or inside a function (a lazy import is still an
arrow), except those under ``if TYPE_CHECKING:``, which only annotations use. A new
room must be given a floor here before its test passes.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

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
        "_safe_json",
        "loop",  # the run loop: numpy only; the master and the simulator plug into it
        "_home",
        "_proc",
        "_frozen_law",  # a frozen scipy law unpacked for its kernels: numpy and scipy only
    ),
    ("montecarlo", "generators"),
    ("conditioning", "order_stats"),
    ("codes", "ldpc", "tails"),
    ("load_bounds", "tables", "runtime"),
    # delays' decision tables weigh runtime's scheme times; data (the packaged measured
    # delays) returns them as a delays.Trace
    ("delays", "training", "data"),
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


#: the fields of a node that hold statements (a module's, a function's, a branch's...)
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(nodes: list) -> Iterator[ast.AST]:
    """Every statement of ``nodes`` and of the bodies nested in them. Imports and function
    definitions are statements: the expressions between them need no walk (they are most
    of the nodes)."""
    for node in nodes:
        yield node
        for name in _BODIES:
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def _type_only(tree: ast.Module) -> set[int]:
    """Ids of the import nodes under ``if TYPE_CHECKING:`` (annotations only, never run)."""
    out: set[int] = set()
    for node in _statements(tree.body):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(n) for n in _statements(node.body))
    return out


@cache
def _tree(path: Path) -> ast.Module:
    """The parsed module at ``path``: every scan below reads the package once per session."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _imports(path: Path, package: str) -> list[tuple[str, list[str]]]:
    """``(module, names)`` for every import of ``package`` in ``path``, anywhere in it
    except under ``if TYPE_CHECKING:`` (a type annotation's import runs nowhere)."""
    found: list[tuple[str, list[str]]] = []
    here = _module_name(path).split(".")
    if path.name != "__init__.py":
        here = here[:-1]
    tree = _tree(path)
    skip = _type_only(tree)
    for node in _statements(tree.body):
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


@cache  # the tests below only read it
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


# ---------------------------------------------------------------------------
# Every function fits on a screen: at most MAX_CODE_LINES lines of code, counting neither
# its docstring nor comment-only nor blank lines (its signature and decorators' lines count).

MAX_CODE_LINES = 80

#: the functions still longer, "path:qualified name" -> (lines of code now, why it stays).
#: A listed function may shrink (then lower its count) but never grow; once split to
#: MAX_CODE_LINES or less it must leave this dict. No new entry is expected.
LONG_FUNCTIONS: dict[str, tuple[int, str]] = {}


def _code_lines(source: str, tree: ast.Module | None = None) -> dict[str, int]:
    """Lines of code of every function in ``source`` (parsed as ``tree`` if given) by
    qualified name (``Class.method``, ``outer.inner``): its lines minus blank and
    comment-only lines minus its docstring's."""
    lines = source.splitlines()
    out: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        # a function or a class is a statement: only the bodies hold them
        children = [
            c for f in _BODIES for c in getattr(node, f, None) or () if isinstance(c, ast.AST)
        ]
        for child in children:
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                first = child.body[0]
                doc = (
                    first.end_lineno - first.lineno + 1  # type: ignore[operator]
                    if isinstance(first, ast.Expr)
                    and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)
                    else 0
                )
                span = lines[child.lineno - 1 : child.end_lineno]
                code = [ln for ln in span if ln.strip() and not ln.strip().startswith("#")]
                out[name] = len(code) - doc
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree if tree is not None else ast.parse(source), "")
    return out


@cache  # the tests below only read it
def _long_functions() -> dict[str, int]:
    found = {}
    for path in sorted((ROOT / "gctheory").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        source = path.read_text(encoding="utf-8")
        for name, size in _code_lines(source, _tree(path)).items():
            if size > MAX_CODE_LINES:
                found[f"{rel}:{name}"] = size
    return found


def _violations(
    found: dict[str, int], listed: dict[str, tuple[int, str]]
) -> dict[str, dict[str, Any]]:
    """What breaks the rule: new long functions, listed ones that grew, shrank or left."""
    return {
        "new": {k: v for k, v in found.items() if k not in listed},
        "grown": {
            k: (listed[k][0], v) for k, v in found.items() if k in listed and v > listed[k][0]
        },
        "shrunk": {
            k: (listed[k][0], v) for k, v in found.items() if k in listed and v < listed[k][0]
        },
        "gone": {k: v[0] for k, v in listed.items() if k not in found},
    }


def test_no_function_is_longer_than_a_screen():
    bad = _violations(_long_functions(), LONG_FUNCTIONS)
    assert bad["new"] == {}, f"split these into named steps of at most {MAX_CODE_LINES} lines"
    assert bad["grown"] == {}, "a listed long function grew (listed, now): split it instead"


def test_the_list_of_long_functions_is_current():
    bad = _violations(_long_functions(), LONG_FUNCTIONS)
    assert bad["gone"] == {}, "split or gone: remove these from LONG_FUNCTIONS"
    assert bad["shrunk"] == {}, "shorter now (listed, now): lower their counts in LONG_FUNCTIONS"
    assert all(0 < len(why) <= 100 for _, why in LONG_FUNCTIONS.values())


def test_the_rule_flags_a_new_a_grown_a_shrunk_and_a_gone_function():
    # negative control: made-up findings against a made-up list
    listed = {"a.py:f": (90, "why"), "a.py:g": (90, "why"), "a.py:h": (90, "why")}
    found = {"a.py:f": 91, "a.py:g": 85, "a.py:new": 81}
    assert _violations(found, listed) == {
        "new": {"a.py:new": 81},
        "grown": {"a.py:f": (90, 91)},
        "shrunk": {"a.py:g": (90, 85)},
        "gone": {"a.py:h": 90},
    }
    assert _violations({"a.py:f": 90}, {"a.py:f": (90, "why")}) == {
        "new": {},
        "grown": {},
        "shrunk": {},
        "gone": {},
    }


def _made_up(name: str, code_lines: int, indent: str = "") -> str:
    """A function of ``code_lines`` lines of code (its signature one of them), padded with
    a three-line docstring, comments and blank lines that must not count."""
    doc = f'{indent}    """A docstring\n{indent}    of three\n{indent}    lines."""\n'
    pad = f"{doc}{indent}    # a comment\n\n"
    body = "".join(f"{indent}    x{i} = {i}  # trailing\n" for i in range(code_lines - 1))
    return f"{indent}def {name}(a):\n{pad}{body}"


def test_the_counter_flags_a_long_function_and_skips_docstrings_and_comments():
    # negative control: made-up modules through the same counter
    at_limit = _made_up("fits", MAX_CODE_LINES)
    over = _made_up("long", MAX_CODE_LINES + 1, "    ")
    source = f"{at_limit}\n\nclass C:\n{over}\n" + _made_up("inner", 2, "        ")
    sizes = _code_lines(source)
    assert sizes["fits"] == MAX_CODE_LINES  # at the limit: allowed
    assert sizes["C.long.inner"] == 2  # a nested function counts in its own right and,
    assert sizes["C.long"] == MAX_CODE_LINES + 1 + 2 + 3  # docstring too, in its parent's
    assert {k for k, v in sizes.items() if v > MAX_CODE_LINES} == {"C.long"}


# ---------------------------------------------------------------------------
# Every module can be read at a sitting: at most MAX_MODULE_LINES lines, all of them
# (docstrings, comments and blank lines count); a longer one becomes a package whose
# modules are its concepts, the package re-exporting the old import paths.

MAX_MODULE_LINES = 600

#: the modules still longer, path -> (lines now, why it stays). A listed module may shrink
#: (then lower its count) but never grow; once at MAX_MODULE_LINES or less it must leave.
#: No new entry is expected.
LONG_MODULES: dict[str, tuple[int, str]] = {}


def _long_modules(root: Path = ROOT) -> dict[str, int]:
    """Lines of every module of ``root/gctheory`` longer than MAX_MODULE_LINES, by path."""
    found = {}
    for path in sorted((root / "gctheory").rglob("*.py")):
        size = len(path.read_text(encoding="utf-8").splitlines())
        if size > MAX_MODULE_LINES:
            found[path.relative_to(root).as_posix()] = size
    return found


def test_no_module_is_longer_than_a_sitting():
    bad = _violations(_long_modules(), LONG_MODULES)
    assert bad["new"] == {}, f"make these packages by concept ({MAX_MODULE_LINES} lines at most)"
    assert bad["grown"] == {}, "a listed long module grew (listed, now): split it instead"


def test_the_list_of_long_modules_is_current():
    bad = _violations(_long_modules(), LONG_MODULES)
    assert bad["gone"] == {}, "split or gone: remove these from LONG_MODULES"
    assert bad["shrunk"] == {}, "shorter now (listed, now): lower their counts in LONG_MODULES"
    assert all(0 < len(why) <= 100 for _, why in LONG_MODULES.values())


def test_the_module_rule_counts_every_line_and_flags_a_long_module(tmp_path):
    # negative control: a made-up package, one module at the limit, one a line over it
    # (its docstring, comments and blank lines count), one listed and grown
    pkg = tmp_path / "gctheory" / "sub"
    pkg.mkdir(parents=True)
    (pkg / "at_limit.py").write_text("x = 1\n" * MAX_MODULE_LINES, encoding="utf-8")
    over = '"""A docstring."""\n' + "# a comment\n\n" * (MAX_MODULE_LINES // 2)
    (pkg / "over.py").write_text(over, encoding="utf-8")
    (pkg / "listed.py").write_text("\n" * (MAX_MODULE_LINES + 5), encoding="utf-8")
    found = _long_modules(tmp_path)
    assert found == {
        "gctheory/sub/over.py": MAX_MODULE_LINES + 1,
        "gctheory/sub/listed.py": MAX_MODULE_LINES + 5,
    }
    bad = _violations(found, {"gctheory/sub/listed.py": (MAX_MODULE_LINES + 2, "why")})
    assert bad["new"] == {"gctheory/sub/over.py": MAX_MODULE_LINES + 1}
    assert bad["grown"] == {"gctheory/sub/listed.py": (MAX_MODULE_LINES + 2, MAX_MODULE_LINES + 5)}
