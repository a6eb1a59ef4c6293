"""No import cycle anywhere in bot/: the services are a graph, not a knot.

Every import statement counts, wherever it stands: at the top, inside a function, under
``if TYPE_CHECKING:``. A cycle hidden in a function is still a cycle of design (each side needs the
other), and it is the kind that grows. The graph is read from the source with ``ast`` (nothing is
imported), and Tarjan's algorithm finds its strongly connected components; any component of more
than one module, or a module importing itself, is a failure that names its modules.

Edges, precisely:
- ``import a.b.c`` is an edge to ``a.b.c`` (the deepest of its prefixes that is a bot module);
- ``from a.b import c`` is an edge to ``a.b.c`` when that is a module, else to ``a.b``;
- relative imports are resolved against the importing module's package;
- importing a module does not add an edge to its parent packages: Python runs a package's
  ``__init__`` before its submodules, but that is the package's own business (a submodule is not
  "imported by" its package unless the ``__init__`` says so, and then that explicit edge counts).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "bot"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(package: str = PACKAGE) -> dict[str, Path]:
    return {module_name(path): path for path in sorted((ROOT / package).rglob("*.py"))}


def _within(name: str, known: dict[str, Path]) -> str | None:
    """The deepest prefix of ``name`` that is a known module (``a.b.c`` -> ``a.b`` if ``c`` is a name)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def _base(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute module a ``from ... import`` names, relative levels resolved."""
    if level == 0:
        return target or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    package = package[: len(package) - (level - 1)]
    return ".".join(package + ([target] if target else []))


def imports_of(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The bot modules ``module`` imports, at any depth of its source."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _within(alias.name, known)
                if target is not None:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom):
            base = _base(module, is_package, node.level, node.module)
            for alias in node.names:
                full = f"{base}.{alias.name}" if base else alias.name
                target = full if full in known else _within(base, known)
                if target is not None:
                    found.add(target)
    found.discard(module)  # a package's __init__ naming its own names is no edge
    return found


def graph(package: str = PACKAGE) -> dict[str, set[str]]:
    known = modules(package)
    return {name: imports_of(name, path, known) for name, path in known.items()}


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (no recursion limit to meet); components in no particular order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work: list[tuple[str, Iterable[str]]] = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in edges:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Components of more than one module (no module has an edge to itself: see ``imports_of``)."""
    return sorted((c for c in strongly_connected(edges) if len(c) > 1),
                  key=lambda c: (-len(c), c))


def describe(component: list[str], edges: dict[str, set[str]]) -> str:
    members = set(component)
    lines = [f"cycle of {len(component)} modules:"]
    for name in component:
        inside = sorted(edges[name] & members)
        lines.append(f"  {name} -> {', '.join(inside)}")
    return "\n".join(lines)


# -- the checker checks itself on small graphs, so a green run means something --------------------
def test_tarjan_finds_a_cycle_and_leaves_a_chain_alone() -> None:
    chain = {"a": {"b"}, "b": {"c"}, "c": set()}
    assert cycles(chain) == []
    knot = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}}
    assert cycles(knot) == [["a", "b", "c"], ["e", "f"]]


def test_imports_at_any_depth_count(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "from bot.services import play\n"
        "from bot.store.rows import TableRow\n"
        "import bot.ui.words\n"
        "if TYPE_CHECKING:\n    from bot.services.clocks import ClockService\n"
        "def late():\n    from . import seats\n    return seats\n"
    )
    known = {name: source for name in ("bot.services", "bot.services.play", "bot.services.seats",
                                        "bot.services.clocks", "bot.store.rows", "bot.ui.words", "bot.ui")}
    assert imports_of("bot.services.m", source, known) == {
        "bot.services.play", "bot.store.rows", "bot.ui.words", "bot.services.clocks", "bot.services.seats"}


def test_bot_has_no_import_cycle() -> None:
    edges = graph()
    assert len(edges) > 50, "the walk found too few modules: is ROOT right?"
    found = cycles(edges)
    assert not found, "\n\n".join(describe(c, edges) for c in found)
