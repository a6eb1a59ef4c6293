"""Every registered game (``games.REGISTERED``) against the whole contract, one test id per game and check,
so a game added without one of its parts fails here by name (docs/adding-a-game.md walks through them).

In the spirit of OpenSpiel's random simulation test: random games checked at every step for clone, JSON
and replay equality, illegal actions that change nothing, the fast path agreeing with the public one,
events and views with the common fields (engine.events), and views that leak no card of another seat's
hand. Then the bot's side: the declaration agrees with the engine, a presentation answers for every
action, event and view, the title and rules exist in English and Russian, every word of the game's
package has a Russian translation, every picture the declaration names draws (real Pillow), and a short
game plays through the bot's services against the fake Bot API.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import io
import random
import re
import sys
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import games
from engine.cards import parse_card
from engine.core import Game, IllegalAction, State, get_game
from engine.events import check_event, check_view
from engine.record import replay
from tests.fakebot.ratelimit import RateLimits

ROOT = Path(__file__).resolve().parents[1]
STEPS = 600  # random actions per game at most (the quick options end most games well before)
CHECK_EVERY = 5  # the full checks (clone, JSON, views, fast path) every few steps, and at the end
SEEDS = (11, 12)

pytestmark = pytest.mark.parametrize("game_id", games.REGISTERED)


def declared(game_id: str) -> games.Declaration:
    return games.declaration(game_id)


def quick_options(game_id: str) -> dict[str, str]:
    return dict(declared(game_id).quick)


def needs_chat_table(game_id: str) -> None:
    if not declared(game_id).chat_table:
        pytest.skip(f"{game_id}: its declaration says no chat table yet")


# -- the parts -------------------------------------------------------------------------------------

def test_the_game_has_its_files(game_id: str) -> None:
    """First, so that ``-x`` stops here: each file a game needs, named with what goes in it (the steps of
    docs/adding-a-game.md), before any check imports one and fails with a bare ModuleNotFoundError."""
    folder = ROOT / "games" / game_id
    parts = {
        "__init__.py": "the declaration, DECLARATION = Declaration(id=..., title=..., players=...) (step 2)",
        "rules.py": "the rules: Options, State and register(Game(options=..., state=...)) (step 3)",
        "texts/rules.en.txt": "the rules for /rules in English (step 6)",
        "texts/rules.ru.txt": "the rules for /rules in Russian (step 6)",
        "locale/ru.po": "the Russian of the game's words: run tools/i18n.py, then fill it in (step 6)",
    }
    if (folder / "__init__.py").is_file() and declared(game_id).chat_table:
        parts["present.py"] = f"the bot's words and pictures, PRESENTATION = Presentation({game_id!r}) (step 5)"
    missing = [f"games/{game_id}/{name}: {what}" for name, what in sorted(parts.items(), key=lambda part: part[1][-2])
               if not (folder / name).is_file()]  # by the "(step N)" they end with
    assert not missing, "missing:\n" + "\n".join(missing)


# -- the engine ------------------------------------------------------------------------------------

def card_tokens(value: Any) -> Iterator[str]:
    """Every card code anywhere in plain data (strings split on notation punctuation)."""
    if isinstance(value, str):
        for token in re.split(r"[\s+()|/,=\[\]]+|(?<=\w)-(?=\w)", value):
            try:
                parse_card(token)
            except (ValueError, KeyError):
                continue
            yield token
    elif isinstance(value, dict):
        for item in value.values():
            yield from card_tokens(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from card_tokens(item)


def remember_hands(state: State, held: list[Counter[str]]) -> None:
    """Every card each seat has held so far (a seat knows where the cards it gave away went)."""
    for seat in range(state.n):
        held[seat] |= Counter(card_tokens(state.view(seat).get("hand") or []))


def check_views(state: State, held: list[Counter[str]]) -> None:
    """No seat sees a card of another seat's hand beyond what a spectator sees and what it holds or held
    itself (games with two packs deal the same card twice; a card given away is known); a game with no
    hands in its views shows each seat no card a spectator does not see. Games with ``determinize`` also
    keep every view when every card the seat cannot see is dealt afresh."""
    public = Counter(card_tokens(state.view(None)))
    check_view(state.view(None))
    views = [state.view(seat) for seat in range(state.n)]
    for seat, view in enumerate(views):
        assert view["seat"] == seat and view["game"] == state.GAME_ID
        check_view(view)  # the common view fields (engine/events.py)
        seen = Counter(card_tokens(view))
        own = held[seat] | Counter(card_tokens(view.get("hand") or []))
        for other, other_view in enumerate(views):
            if other == seat:
                continue
            for card in Counter(card_tokens(other_view.get("hand") or [])):
                assert seen[card] <= public[card] + own[card], \
                    f"seat {seat} sees {card} from seat {other}'s hand: {view}"
        if not any("hand" in v for v in views):
            assert not seen - public, f"seat {seat} sees {seen - public} that a spectator does not"
    try:
        copy = state.determinize(0, random.Random(5))
    except NotImplementedError:
        return
    assert copy.view(0) == views[0], "the view of seat 0 depends on cards it cannot see"


def check_illegal(state: State, rng: random.Random) -> None:
    """An illegal action (unknown text, or a legal one from the wrong seat) raises and changes nothing."""
    seat = state.to_act
    assert seat is not None
    before = state.to_json()
    with pytest.raises(IllegalAction):
        state.act(seat, "no such action 0")
    if state.n > 1:
        with pytest.raises(IllegalAction):
            state.act((seat + 1) % state.n, rng.choice(state.legal_actions()))
    assert state.to_json() == before


def play_random(game: Game, players: int, seed: int, options: dict[str, str]) -> tuple[State, list[tuple[int, str]]]:
    """A random game, checked on the way (see the module docstring)."""
    state = game.new(players, seed=seed, options=options)
    fast = state.clone()
    rng = random.Random(seed)
    actions: list[tuple[int, str]] = []
    held: list[Counter[str]] = [Counter() for _ in range(players)]
    for step in range(STEPS):
        remember_hands(state, held)
        if state.over:
            break
        seat = state.to_act
        assert seat is not None and fast.current == seat
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal), "legal actions: none, or repeated"
        assert sorted(map(fast.action_to_text, fast.fast_legal())) == sorted(legal), "fast path legal set differs"
        if step % CHECK_EVERY == 0:
            assert state.clone() == state
            assert State.from_json(state.to_json()) == state
            check_views(state, held)
            check_illegal(state, rng)
        action = rng.choice(legal)
        events = state.act(seat, action)
        assert isinstance(events, list)
        for event in events:
            check_event(event, players)  # the common events' fields (engine/events.py)
        fast.fast_apply(fast.text_to_action(action))
        actions.append((seat, action))
        if step % CHECK_EVERY == 0:
            assert fast.to_json() == state.to_json(), "fast path and public path disagree"
    assert fast.to_json() == state.to_json()
    state.check_invariants()
    remember_hands(state, held)
    check_views(state, held)
    return state, actions


@pytest.mark.parametrize("seed", [SEEDS[0], *(pytest.param(s, marks=pytest.mark.slow) for s in SEEDS[1:])])
def test_engine_random_games(game_id: str, seed: int) -> None:
    """Random games at the fewest and the most players replay from seed + actions. The everyday command plays
    the first seed (a rummy's games take seconds each); the slow tier the others."""
    game = get_game(game_id)
    for players in sorted({game.min_players, game.max_players}):
        state, actions = play_random(game, players, seed, quick_options(game_id))
        again = game.new(players, seed=seed, options=quick_options(game_id))
        for seat, action in actions:
            again.act(seat, action)
        assert again == state, "seed + actions do not replay"
        if state.over:
            assert state.to_act is None and state.legal_actions() == []
            assert set(state.winners()) <= set(range(players))


def test_the_events_and_sheet_the_bot_reads(game_id: str) -> None:
    """What the bot waits for, beyond the shapes ``check_event`` holds: a finished game says ``game_over``
    once, with its last action; a game whose views show a taken trick (``last_trick``) said ``trick``
    when it was taken; a game with a score picture says ``deal_end`` after a deal and keeps each
    finished deal's ``points`` (a number per seat) in ``sheet()["deals"]``, which the picture draws."""
    found = declared(game_id)
    game = get_game(game_id)
    for players in sorted({game.min_players, game.max_players}):
        state = game.new(players, seed=SEEDS[0], options=quick_options(game_id))
        rng = random.Random(SEEDS[0])
        said: Counter[str] = Counter()
        last: list[str] = []
        for step in range(STEPS):
            if state.over:
                break
            seat = state.to_act
            assert seat is not None
            last = [event["type"] for event in state.act(seat, rng.choice(state.legal_actions()))]
            said.update(last)
            looked = step % CHECK_EVERY == 0 or state.over  # a view costs; a taken trick stays in view a while
            if looked and not said["trick"] and state.view(None).get("last_trick"):
                pytest.fail(f"games/{game_id}/rules.py: the view shows a taken trick (last_trick) but no 'trick' "
                            "event was emitted: return {'type': 'trick', 'leader', 'winner', 'plays', 'cards'} "
                            "(engine.tricks.take_trick) when a trick is taken")
        if not state.over:
            continue
        assert said["game_over"] == 1 and "game_over" in last, \
            f"games/{game_id}/rules.py: the action that ends the game returns one 'game_over' event " \
            f"{{'type': 'game_over', 'winners', 'totals', 'scores'}} (emitted {said['game_over']} times)"
        if found.score_sheet == "none":
            continue
        assert said["deal_end"], f"score_sheet={found.score_sheet!r}: games/{game_id}/rules.py returns " \
            "{'type': 'deal_end', 'scores', 'totals'} at the end of each deal (the bot draws the sheet then)"
        sheet = state.sheet()
        deals = sheet.get("deals") if isinstance(sheet, dict) else None
        assert isinstance(deals, list) and deals, \
            f"games/{game_id}/rules.py: sheet() returns {{'deals': [one dict per finished deal], ...}}, not {sheet!r}"
        for deal in deals:
            points = deal.get("points") if isinstance(deal, dict) else None
            assert isinstance(points, list) and len(points) == players \
                and all(isinstance(p, int | float) for p in points), \
                f"games/{game_id}/rules.py: each deal of sheet() has 'points', a number per seat: {deal!r}"


def test_declaration_agrees_with_the_engine(game_id: str) -> None:
    found = declared(game_id)
    game = get_game(game_id)
    assert found.id == game_id == game.id
    assert found.players == (game.min_players, game.max_players)
    assert [o.key for o in found.options] == list(game.options.model_fields), \
        f"games/{game_id}/__init__.py: the declaration's options are {game.options.__name__}'s fields, in order"
    for option in found.options:
        assert option.description.strip(), f"{option.key}: no description"
        for choice in option.choices:
            game.parse_options({option.key: choice})
    game.parse_options(quick_options(game_id))
    if found.teams is not None:
        assert all(0 <= s < found.teams.players for team in found.teams.seats for s in team)
    if found.trick_game or found.score_sheet != "none":
        assert found.chat_table or not found.table_picture


def test_one_identity(game_id: str) -> None:
    """The game's id, name and player range are declared once, in its declaration: the engine's ``Game``
    reads them from there (``Game.identity``) and ``rules.py`` registers only its options and state."""
    found = declared(game_id)
    game = get_game(game_id)
    assert game.identity is found
    assert (game.id, game.name, game.min_players, game.max_players) == (found.id, found.title, *found.players)
    assert game.state.GAME_ID == found.id
    tree = ast.parse((ROOT / "games" / game_id / "rules.py").read_text(encoding="utf-8"))
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == Game.__name__]
    assert len(calls) == 1, "rules.py registers one Game(...)"
    assert {k.arg for k in calls[0].keywords} == {"options", "state"} and not calls[0].args, \
        "Game(options=..., state=...): the id, name and players come from the declaration"


def test_ai_knowledge(game_id: str) -> None:
    """What the AI must know of the game is in games/<id>/ai.py (imports engine only, or the family's
    package): a game search can play (it deals hidden cards afresh) names the state field counting its
    deals; a rummy (whose legal list is a sample of lay-downs) says which moves are forced and plays by
    the rummies' policy."""
    from engine.ai.knowledge import Knowledge, knowledge
    from engine.rummy.base import RummyState

    game = get_game(game_id)
    path = ROOT / "games" / game_id / "ai.py"
    searchable = game.state.determinize is not State.determinize
    rummy = issubclass(game.state, RummyState)
    if searchable or rummy:
        assert path.is_file(), f"games/{game_id}/ai.py is missing: the AI would play this game at random"
    if not path.is_file():
        return
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                assert top in ("engine", "__future__") or name.startswith(("games.rummies", f"games.{game_id}")) \
                    or top in sys.stdlib_module_names, f"games/{game_id}/ai.py imports {name}"
    known = getattr(importlib.import_module(f"games.{game_id}.ai"), "KNOWLEDGE", None)
    assert isinstance(known, Knowledge), f"games/{game_id}/ai.py must define KNOWLEDGE = Knowledge(...)"
    assert knowledge(game_id) is known
    if searchable:
        assert known.deal_field in game.state.FIELDS, "name the field that counts deals (Knowledge.deal_field)"
    if rummy:
        assert known.player is not None and known.forced.__module__ != Knowledge.__module__


# -- words ---------------------------------------------------------------------------------------------

def test_title_and_rules_in_both_languages(game_id: str) -> None:
    from bot.ui.words import title

    problems = []
    english, russian = title(game_id, "en"), title(game_id, "ru")
    if not english.strip():
        problems.append(f"games/{game_id}/__init__.py: the declaration's title is empty")
    elif not russian.strip() or russian == english:
        problems.append(f"games/{game_id}/locale/ru.po: no Russian title (msgid {english!r}); run tools/i18n.py, "
                        "then fill in its msgstr")
    for lang in ("en", "ru"):
        path = f"games/{game_id}/texts/rules.{lang}.txt"
        text = games.rules_text(game_id, lang)
        if not text or len(text.strip()) <= 200:
            problems.append(f"{path}: missing or shorter than 200 characters")
        elif tags := set(re.findall(r"</?(\w+)", text)) - {"b", "i"}:
            problems.append(f"{path}: tags {sorted(tags)}; the rules texts use only <b> and <i>")
    assert not problems, "\n".join(problems)


def i18n_tool() -> Any:
    """tools/i18n.py, the extractor that writes the catalogs (what it finds is what must be translated)."""
    spec = importlib.util.spec_from_file_location("kozyr_i18n_tool", ROOT / "tools" / "i18n.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def test_every_word_has_a_russian_translation(game_id: str) -> None:
    """Every msgid of the game's package (its ``t``/``nt`` calls, its declaration's title and option
    descriptions) has Russian, in the game's catalog or the bot's, with the same placeholders."""
    from bot.ui.i18n import catalog, plural_catalog

    tool = i18n_tool()
    ru = {**catalog("ru"), **catalog("ru", game_id)}
    missing = [m for m in tool.msgids(game_id) if not ru.get(m)]
    assert not missing, f"no Russian for {missing} (run tools/i18n.py, then fill games/{game_id}/locale/ru.po)"
    for msgid in tool.msgids(game_id):
        assert sorted(re.findall(r"\{(\w+)\}", msgid)) == sorted(re.findall(r"\{(\w+)\}", ru[msgid])), msgid
    forms = {**plural_catalog("ru")[0], **plural_catalog("ru", game_id)[0]}
    for singular, _plural in tool.plural_msgids(game_id):
        assert len(forms.get(singular, ())) == 3 and all(forms[singular]), singular


def test_the_game_is_registered(game_id: str) -> None:
    """Every game folder is in games.REGISTERED (a folder left out would be skipped by everything else)."""
    folders = {p.parent.name for p in (ROOT / "games").glob("*/rules.py")}
    registered = set(games.REGISTERED)
    assert folders == registered, \
        f"folders not in games.REGISTERED (add them in games/__init__.py): {sorted(folders - registered)}; " \
        f"registered without a rules.py: {sorted(registered - folders)}"
    assert game_id in folders


# -- the bot's presentation ---------------------------------------------------------------------------

def test_presentation(game_id: str) -> None:
    """The presentation exists for chat games (and is refused by name for the others), and answers for
    every action, event and view of a random game in both languages."""
    from bot.presentation import NoPresentation, Presentation
    from bot.presentation.registry import presentation

    if not declared(game_id).chat_table:
        with pytest.raises(NoPresentation):
            presentation(game_id)
        pytest.skip(f"{game_id}: its declaration says no chat table yet")
    shown = presentation(game_id)
    assert isinstance(shown, Presentation) and shown.game == game_id
    game = get_game(game_id)
    state = game.new(game.min_players, seed=3, options=quick_options(game_id))
    rng = random.Random(3)
    names = [f"P{i}<&>" for i in range(state.n)]
    for _ in range(STEPS):
        if state.over:
            break
        legal = state.legal_actions()
        for lang in ("en", "ru"):
            for action in legal:
                label = shown.action_label(action, lang)
                assert isinstance(label, str) and label.strip(), f"no label for {action!r}"
            for key in {shown.group_key(a) for a in legal}:
                assert isinstance(key, str)
            lines = shown.table_lines(state.view(None), names, lang)
            assert lines and all(isinstance(line, str) for line in lines)
            assert "<&>" not in "".join(lines), "names are escaped"
        seat = state.to_act
        assert seat is not None
        for event in state.act(seat, rng.choice(legal)):
            for lang in ("en", "ru"):
                line = shown.event_line(event, names, lang)
                assert line is None or (isinstance(line, str) and line and "<&>" not in line)


def test_the_declared_hand_is_served(game_id: str) -> None:
    """The declaration's kind of hand (``hand``) is what the presentation and the state serve: a toggle hand's
    verbs, words and rummy state; a capture hand's own builder; move buttons otherwise."""
    from bot.presentation import Presentation
    from bot.presentation.registry import presentation
    from engine.rummy.base import RummyState

    needs_chat_table(game_id)
    kind = declared(game_id).hand
    shown = presentation(game_id)
    game = get_game(game_id)
    state = game.new(game.min_players, seed=5, options=quick_options(game_id))
    builds = type(shown).builder_press is not Presentation.builder_press
    assert builds == (kind == "capture"), f"{game_id}: hand={kind!r}, own builder: {builds}"
    assert bool(shown.toggle_verbs) == (kind == "toggle")
    assert isinstance(state, RummyState) == (kind == "toggle")
    if kind == "toggle":
        assert isinstance(state, RummyState)
        assert all(shown.verb_label(verb, "ru") for verb in shown.toggle_verbs)
        hand = state.hands[state.to_act or 0]
        assert shown.lay_text(hand[:3])


def test_pictures(game_id: str) -> None:
    """Each picture the declaration names draws as a real PNG (table picture at several moments, the
    score picture after the first deal)."""
    from bot.services.pictures import Pictures

    needs_chat_table(game_id)
    found = declared(game_id)
    if not found.table_picture and found.score_sheet == "none":
        pytest.skip(f"{game_id}: its declaration names no picture")
    pictures = Pictures()
    game = get_game(game_id)
    state = game.new(game.min_players, seed=4, options=quick_options(game_id))
    rng = random.Random(4)
    names = [f"P{i}" for i in range(state.n)]
    drawn = {"table": 0, "grid": 0}
    for step in range(STEPS):
        if state.over:
            break
        if found.table_picture and step % 9 == 0:
            for lang in ("en", "ru"):
                png = pictures.render({"kind": "table", "view": state.view(None), "names": names, "lang": lang})
                assert Image.open(io.BytesIO(png)).format == "PNG"
                assert pictures.table_caption(state.view(None), names, lang)
                drawn["table"] += 1
        seat = state.to_act
        assert seat is not None
        events = state.act(seat, rng.choice(state.legal_actions()))
        if found.score_sheet != "none" and any(e["type"] == "deal_end" for e in events) and not drawn["grid"]:
            for lang in ("en", "ru"):
                spec = {"kind": "grid", "game": game_id, "sheet": state.sheet(), "names": names, "lang": lang,
                        "totals": state.scores()}
                assert Image.open(io.BytesIO(pictures.render(spec))).format == "PNG"
                assert pictures.grid_caption(state.sheet(), names, lang, game_id, state.scores())
                drawn["grid"] += 1
    assert drawn["table"] or not found.table_picture
    assert drawn["grid"] or found.score_sheet == "none", \
        f"score_sheet={found.score_sheet!r}, but a whole game emitted no 'deal_end' event to draw it after"


# -- a short game through the bot ----------------------------------------------------------------------

@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_game_through_the_bot(fake, app, open_table, game_id: str) -> None:
    """``/new GAME quick-options``, people and AI seats join, random presses of the buttons the bot sent
    until the final standings; the record replays to the stored state."""
    import json

    from tests.bot.harness import find, play_out, settle

    needs_chat_table(game_id)
    found = declared(game_id)
    humans = min(2, found.players[0])
    ais = found.players[0] - humans
    users = [fake.user(first_name=f"P{i}&<{i}>", language_code=("en", "ru")[i % 2]) for i in range(humans)]
    creator = users[0]
    group = fake.group("Cards", members=users, creator=creator)
    lobby = (await open_table(game_id, users, ais=ais, options=found.quick_command(), group=group,
                              begin=False)).lobby
    await settle(fake, app)
    assert {"✋ Join", "🤖 Add AI"} <= set(lobby.button_texts)
    await creator.press(lobby, "▶️ Start")
    await play_out(fake, app, group, users, random.Random(zlib.crc32(game_id.encode())))
    await settle(fake, app)
    from bot.ui.words import title

    standings = find(group, "🏁")
    assert standings is not None and title(game_id, "en") in standings.content
    assert not fake.unanswered_callbacks()
    await creator.send(group, "/record")
    doc = await fake.wait_for_message(group, lambda m: m.kind == "document", timeout=10)
    state = replay(json.loads(fake.files.by_id[doc.document["file_id"]].data))
    assert state.over
