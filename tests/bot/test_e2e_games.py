"""Every game but Carnival, end to end over the fake Bot API server: a table in a group, simulated
users pressing only the buttons the bot sent them (AI seats where the game allows), until the final
standings; then the game record must replay to the same result. Also: every game's rules in both
languages, ``/rules <id>`` sending them, and no msgid without a Russian translation."""

from __future__ import annotations

import html
import importlib.util
import json
import random
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.ui.i18n import catalog, plural_catalog
from engine.core import all_games
from engine.record import replay
from tests.bot.harness import find, play_out, settle
from tests.fakebot.ratelimit import RateLimits

ROOT = Path(__file__).resolve().parents[2]
BUTTONS = {"en": ("✋ Join", "🤖 Add AI", "▶️ Start"), "ru": ("✋ Сесть", "🤖 Добавить бота", "▶️ Начать")}
TITLES = {"oh_hell": ("Oh Hell", "Черт побери"), "klaberjass": ("Klaberjass", "Клаберас"),
          "calabrasella": ("Calabrasella", "Калабраселла"), "variety": ("Variety", "Варьете"),
          "karusele": ("Karusele", "Карусель"), "svinya": ("Svinya", "Свинья"), "pyanitsa": ("Pyanitsa", "Пьяница")}


@dataclass(frozen=True)
class Table:
    game: str
    options: str
    humans: int
    ais: int
    lang: str  # the language of the group's creator, hence of the group
    pictures: bool = False
    # The group log must show one of these: proof that the game's own event lines are used.
    log_words: tuple[str, ...] = ()


TABLES = [
    Table("oh_hell", "hand_sizes=2,1", 2, 1, "ru", log_words=("Сумма заказов",)),
    Table("klaberjass", "target=150", 1, 1, "en", pictures=True, log_words=("is the maker",)),
    Table("calabrasella", "deals=1", 2, 1, "en", log_words=("plays solo", "passe")),
    Table("variety", "deals=1", 1, 3, "ru", log_words=("называет",)),
    Table("karusele", "target=10", 2, 0, "en", log_words=("to the table",)),
    Table("svinya", "", 2, 1, "ru", log_words=("лавк",)),
    Table("pyanitsa", "max_rounds=25", 2, 1, "en", log_words=("Round 1:",)),
    Table("pyanitsa", "max_rounds=8 flip=button", 2, 0, "en", log_words=("Round 1:",)),
]


def _plain(text: str) -> str:
    """Telegram HTML as the user sees it (the fake stores messages with entities parsed out)."""
    return html.unescape(re.sub(r"</?[bi]>", "", text))


def _seed(table: Table) -> int:
    """Everything random comes from a seed: the deal (else each run plays other cards, and a rare deal
    fails once in CI and never again) and the simulated players' presses."""
    return zlib.crc32(table.game.encode())


# Each table's bot settings ride on its parameter: its pictures and its deal seed.
TABLE_PARAMS = [pytest.param(t, marks=pytest.mark.bot(KOZYR_PICTURES=t.pictures, KOZYR_DEAL_SEED=_seed(t)),
                             id=t.game + ("-buttons" if "flip=button" in t.options else "")) for t in TABLES]


@pytest.mark.parametrize("table", TABLE_PARAMS)
@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_whole_table(fake, app, open_table, table: Table):
    langs = [table.lang, "ru" if table.lang == "en" else "en"]
    users = [fake.user(first_name=f"P{i}&<{i}>", language_code=langs[i % 2]) for i in range(table.humans)]
    creator = users[0]
    group = fake.group("Cards", members=users, creator=creator)
    join, add_ai, start = BUTTONS[table.lang]
    seed = _seed(table)
    assert (app.settings.deal_seed, app.settings.pictures) == (seed, table.pictures), "the parameter's bot settings"
    lobby = (await open_table(table.game, users, ais=table.ais, options=table.options, group=group,
                              begin=False)).lobby
    await settle(fake, app)
    assert {join, add_ai, start} <= set(lobby.button_texts), "the lobby speaks the group's language"
    await creator.press(lobby, start)
    presses = await play_out(fake, app, group, users, random.Random(seed))
    await settle(fake, app)

    standings = find(group, "🏁")
    assert standings is not None
    assert TITLES[table.game][table.lang == "ru"] in standings.content
    for user in users:
        assert user.first_name in standings.content  # names escaped on the way, intact on arrival
    assert all(u.inbox() for u in users), "every player got a hand message"
    # Svinya's moves may all be forced, and Pyanitsa's are, unless the table wants Flip buttons.
    if table.game != "svinya" and (table.game != "pyanitsa" or "flip=button" in table.options):
        assert presses > 0
    assert not fake.unanswered_callbacks()
    bad = [c for c in fake.errors if c.error_code != 400 or "not modified" not in (c.description or "")]
    assert not bad, bad
    # Event lines live in the captions of the live table message, edited in place: the group saw
    # them over time, so look through everything the bot sent or edited there.
    log = "\n".join(str(c.params) for c in fake.calls if c.ok and c.params.get("chat_id") == group.id)
    assert any(word in log for word in table.log_words), f"none of {table.log_words} in the group log"

    if table.pictures:
        photos = [m for m in group.messages() if m.kind == "photo"]
        title = TITLES[table.game][table.lang == "ru"]
        tables = [m for m in photos if title in m.content and m is not standings]
        assert len(tables) >= 1, "one live table picture per deal"
        assert sum(m.edit_count for m in tables) > 0, "table pictures are edited in place"

    await creator.send(group, "/record")
    doc = await fake.wait_for_message(group, lambda m: m.kind == "document", timeout=10)
    record = json.loads(fake.files.by_id[doc.document["file_id"]].data)
    state = replay(record)
    assert state.over
    async with app.store.read() as tx:
        row = await tx.last_table(group.id, 0)
    assert row is not None and row.status == "finished"
    assert row.seed == random.Random(seed).randrange(2**53), "the deal came from KOZYR_DEAL_SEED"
    stored = json.loads(row.state) if isinstance(row.state, str) else row.state
    assert json.loads(json.dumps(state.to_json())) == stored, "the record replays to the stored state"
    assert record["players"][:table.humans] == [u.first_name for u in users]
    assert len(record["players"]) == table.humans + table.ais
    for name, total in zip(record["players"], state.scores(), strict=True):
        assert f"{name}: {total}" in standings.content


def test_every_game_has_rules_in_both_languages():
    for game in all_games():
        for lang in ("en", "ru"):
            path = ROOT / "games" / game.id / "texts" / f"rules.{lang}.txt"
            assert path.exists(), f"no rules text {path}"
            text = path.read_text(encoding="utf-8").strip()
            assert 200 < len(_plain(text)) < 4096, f"{path.name}: {len(text)} characters"
            assert not set(re.findall(r"</?(\w+)", text)) - {"b", "i"}, f"{path.name}: only <b> and <i> tags"


@pytest.mark.fake(limits=RateLimits.loose())
async def test_rules_command_sends_each_text(fake, app, db):
    ann = fake.user(first_name="Ann", language_code="en")
    ivan = fake.user(first_name="Иван", language_code="ru")
    for user in (ann, ivan):
        await user.start_bot()
    await settle(fake, app)
    for game in all_games():
        for user, lang in ((ann, "en"), (ivan, "ru")):
            path = ROOT / "games" / game.id / "texts" / f"rules.{lang}.txt"
            if not path.exists():
                continue  # the test above reports it
            await user.send(f"/rules {game.id}")
            await settle(fake, app)
            reply = user.inbox()[-1].content
            expected = _plain(path.read_text(encoding="utf-8").strip())
            assert reply.split() == expected.split(), f"/rules {game.id} in {lang}"
    bad = [c for c in fake.errors if "not modified" not in (c.description or "")]
    assert not bad, bad


def test_every_msgid_has_a_russian_translation():
    spec = importlib.util.spec_from_file_location("kozyr_i18n_tool", ROOT / "tools" / "i18n.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    msgids = tool.msgids
    ru = catalog("ru")
    missing = [m for m in msgids() if not ru.get(m)]
    assert not missing, missing
    forms, rule = plural_catalog("ru")
    for singular, _plural in tool.plural_msgids():  # ngettext entries: all three Russian forms
        assert len(forms.get(singular, ())) == 3 and all(forms[singular]), singular
        assert {rule(n) for n in (1, 2, 5)} == {0, 1, 2}
    for msgid in msgids():  # the placeholders survive translation
        assert sorted(re.findall(r"\{(\w+)\}", msgid)) == sorted(re.findall(r"\{(\w+)\}", ru[msgid])), msgid
