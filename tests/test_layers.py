"""The import layers of the house, read from the source (AST): every import at any level counts, inside
functions and under ``TYPE_CHECKING`` too, since each one is a dependency somebody must keep working.

- a game's rules (``games/*/rules.py``, ``games/*/ai.py`` and the modules of its package they import)
  import only the engine, the standard library, pydantic and typing_extensions, and their own game or family
  package;
- a game's presentation (``present.py``, and every module of ``games/`` that imports the bot: a game's
  own pictures, a family's presentation) imports only the kit (``bot.presentation``), the engine, its own
  game or family package, the standard library and Pillow;
- a game's declaration (``games/<id>/__init__.py``) imports only ``games.declaration``;
- the engine never imports the bot nor a game by name (only ``engine/core.py``, the registry, imports
  ``games``, which finds each game by its id);
- ``bot/`` imports no ``games.<id>`` module: only ``games`` (the registry) and ``games.declaration``;
- ``bot/handlers`` never import ``bot/store``; ``bot/render`` and ``bot/ui`` never import ``bot/services``;
  ``bot/ui`` imports neither ``bot/render`` nor the kit, ``bot/render`` not the kit: ui < render < kit;
- no import cycle in ``bot/`` (ui, render and the kit among the rest): tests/test_no_cycles.py;
- no registered game's id nor a family package's name is a string literal in ``bot/`` or ``engine/ai``:
  the bot asks a game's declaration and presentation, never tests its id.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

import games

ROOT = Path(__file__).resolve().parents[1]
STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}
KIT = "bot.presentation"
# What a game's rules may import beside the engine: the options' validation and the typed shapes.
RULES_LIBRARIES = frozenset({"pydantic", "typing_extensions"})
# Developer examples that draw sample pictures of one game by name (the gallery's and tests' sample views):
# not what a player sees, and each names its game once, where the sample is made.
EXAMPLES = frozenset({"bot/render/examples.py", "bot/league/examples.py"})


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)


@cache
def imports_of(path: Path) -> tuple[str, ...]:
    """Every module ``path`` imports, at any level; ``from a import b`` counts as ``a.b`` when ``a.b`` is a
    module of ours, else as ``a``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.append(candidate if is_ours(candidate) else base)
    return tuple(found)


def is_ours(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def root(name: str) -> str:
    return name.split(".")[0]


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def families() -> list[str]:
    """Family packages: packages of ``games/`` that are not registered games (``games/rummies``)."""
    packages = (p.parent.name for p in (ROOT / "games").glob("*/__init__.py"))
    return sorted(name for name in packages if name not in games.REGISTERED)


def own_packages(path: Path) -> list[str]:
    """The game or family package a module of ``games/`` belongs to, and the family packages."""
    rel = path.relative_to(ROOT / "games").parts
    own = [f"games.{rel[0]}"] if len(rel) > 1 else []
    return own + [f"games.{family}" for family in families()]


def presentation_modules() -> list[Path]:
    """``present.py`` of every game and family, and every module of ``games/`` that imports the bot."""
    return [p for p in sources("games") if p.name == "present.py"
            or any(root(name) == "bot" for name in imports_of(p))]


def rules_modules() -> list[Path]:
    """``rules.py`` and ``ai.py`` of every game and family, and the modules of ``games/`` they import."""
    seen: dict[Path, None] = {}
    todo = [p for p in sources("games") if p.name in ("rules.py", "ai.py")]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen[path] = None
        for name in imports_of(path):
            if under(name, "games") and name not in ("games", "games.declaration") and is_ours(name):
                target = ROOT.joinpath(*name.split("."))
                module = target.with_suffix(".py")
                todo.append(module if module.is_file() else target / "__init__.py")
    return sorted(seen)


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_rules_import_only_the_engine() -> None:
    bad = []
    for path in rules_modules():
        own = own_packages(path)
        for name in imports_of(path):
            ok = (root(name) in STDLIB or root(name) in RULES_LIBRARIES or under(name, "engine")
                  or any(under(name, pkg) for pkg in own))
            if not ok:
                bad.append(f"{rel(path)} imports {name}")
    assert not bad, "\n".join(bad) + "\n(a game's rules and ai.py import only engine.*, the standard library, " \
        "pydantic, typing_extensions and their own game or family package: the bot's words go in present.py)"


def test_presentations_import_only_the_kit() -> None:
    import bot.presentation

    kit = {KIT, *(f"{KIT}.{name}" for name in bot.presentation.__all__)}  # ``from bot.presentation import words``
    modules = presentation_modules()
    assert len(modules) >= len([g for g in games.REGISTERED if games.declaration(g).chat_table])
    bad = []
    for path in modules:
        own = own_packages(path)
        for name in imports_of(path):
            ok = (root(name) in STDLIB or root(name) == "PIL" or name in kit or under(name, "engine")
                  or any(under(name, pkg) for pkg in own))
            if not ok:
                bad.append(f"{rel(path)} imports {name}")
    assert not bad, "\n".join(bad) + "\n(a presentation imports only the kit, bot.presentation (its __all__: " \
        "Presentation, GameWords, words, t, nt...), engine.*, its own game or family package, the standard " \
        "library and PIL; what it needs of the rest of the bot belongs in the kit)"


def test_declarations_import_only_the_declaration() -> None:
    bad = []
    for game in games.REGISTERED:
        path = ROOT / "games" / game / "__init__.py"
        if not path.is_file():
            bad.append(f"{rel(path)} is missing: the declaration, DECLARATION = Declaration(...)")
            continue
        bad += [f"{rel(path)} imports {name}" for name in imports_of(path)
                if root(name) not in STDLIB and name != "games.declaration"]
    assert not bad, "\n".join(bad) + "\n(a declaration is plain data: it imports games.declaration only)"


def test_the_engine_imports_no_bot_and_no_game() -> None:
    bad = []
    for path in sources("engine"):
        for name in imports_of(path):
            registry = name == "games" and rel(path) == "engine/core.py"
            if root(name) == "bot" or (root(name) == "games" and not registry):
                bad.append(f"{rel(path)} imports {name}")
    assert not bad, "\n".join(bad)


def test_the_bot_imports_no_game_by_name() -> None:
    bad = [f"{rel(path)} imports {name}" for path in sources("bot") for name in imports_of(path)
           if root(name) == "games" and name not in ("games", "games.declaration")]
    assert not bad, "\n".join(bad) + "\n(the bot reaches a game through games.declaration(id) and its presentation)"


LAYERS = [  # (modules under, may not import)
    ("bot/handlers", "bot.store"),
    ("bot/render", "bot.services"),
    ("bot/ui", "bot.services"),
    ("bot/ui", "bot.render"),
    ("bot/ui", "bot.presentation"),
    ("bot/render", "bot.presentation"),
    ("bot/render", "bot.handlers"),
    ("bot/ui", "bot.handlers"),
    ("bot/presentation", "bot.services"),
    ("bot/presentation", "bot.handlers"),
]


@pytest.mark.parametrize(("folder", "forbidden"), LAYERS, ids=[f"{f}-{n}" for f, n in LAYERS])
def test_layers(folder: str, forbidden: str) -> None:
    bad = [f"{rel(path)} imports {name}" for path in sources(folder) for name in imports_of(path)
           if under(name, forbidden)]
    assert not bad, "\n".join(bad)


def string_literals(path: Path) -> Iterator[tuple[int, str]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


@pytest.mark.parametrize("folder", ["bot", "engine/ai"])
def test_no_game_id_in_the_bot(folder: str) -> None:
    named = set(games.REGISTERED) | set(families())
    bad = [f"{rel(path)}:{line} {value!r}" for path in sources(folder) if rel(path) not in EXAMPLES
           for line, value in string_literals(path) if value in named]
    assert not bad, "\n".join(bad) + "\n(a game id in the bot: ask the game's declaration (a capability) or " \
        "its presentation (words, pictures) instead of testing the id)"


def test_the_layers_see_what_they_check() -> None:
    """The test reads real imports: a function-level import and a TYPE_CHECKING one are both found."""
    assert "engine.core" in imports_of(ROOT / "bot" / "services" / "hands" / "toggle_hand.py")
    assert "games" in imports_of(ROOT / "engine" / "core.py")  # imported inside a function
    assert any(p.name == "picture.py" for p in presentation_modules())
    assert any(p.name == "moves.py" for p in rules_modules())
    assert "rummies" in families()
