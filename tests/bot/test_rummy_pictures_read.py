"""What the rummy pictures say, read as players read them, over the fake Bot API with pictures on.

A joker's tag names the whole card it stands for (rank and suit) even when the next card of its meld
overlaps it, and a proposal names the choice the DM asks about (``5♥/5♦``); a big lay-down's proposal
frames only the melds it changes, its title stays on the picture, and its caption speaks of the gold
frames the picture draws (not the ✨ of text mode), in the player's language.

The pictures are read twice: the layout the drawing code returns (``games.rummies.picture.table_layout``,
watched while the bot draws: the real function runs) and the PNG the group or DM received.
"""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from PIL import Image

from engine import melds
from engine.cards import sort_key
from engine.core import get_game
from engine.melds.positions import random_position
from engine.rummy.base import RummyState
from games.rummies import picture
from tests.bot.harness import open_table_in, settle
from tests.bot.helpers import answered
from tests.bot.rummy_driver import rum_buttons
from tests.fakebot.models import StoredMessage
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram
from tests.fakebot.users import FakeChat, FakeUser

TAHITI_DEAL = {"dealer": 1, "hands": [["5S", "JK", "5C", "9D", "KC"], ["2S", "3D", "8H", "JC", "QD"]],
               "singles": ["2H", "7D", "QS", "4C"]}
CAROUSEL_DEAL = {"dealer": 1, "hands": [["AS", "2S", "JK", "4S", "9D", "KC", "3C", "8H", "QD", "6D"],
                                        ["AD", "3H", "10C", "JD", "5C", "7D", "9S", "QH", "2C", "8C"]]}


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[tuple[dict[str, Any], Any]]:
    """Every rummy table picture the bot draws: (view, layout), in order."""
    seen: list[tuple[dict[str, Any], Any]] = []
    real = picture.table_layout

    def watched(view: dict[str, Any], names: Any, lang: str = "en") -> Any:
        layout = real(view, names, lang)
        seen.append((view, layout))
        return layout

    monkeypatch.setattr(picture, "table_layout", watched)
    return seen


async def _table(fake: FakeTelegram, app: Any, users: list[FakeUser], game: str, deal: dict[str, Any] | None = None,
                 state: RummyState | None = None) -> tuple[FakeChat, int]:
    """A running table of ``users`` whose state is replaced by the designed deal (or ``state``)."""
    group = fake.group("Rummy", members=users, creator=users[0])
    await open_table_in(fake, app, game, users, group=group)
    await settle(fake, app)
    async with app.store.transaction() as tx:
        row = await tx.last_table(group.id, 0)
        if state is None:
            assert deal is not None
            made = get_game(game).new(len(users), seed=row.seed, options=row.options, deals=[deal])
            assert isinstance(made, RummyState)
            state = made
        row.state = state.to_json()
        row.version += 1
        await tx.save_table(row)
    app.services.core.forget(row.id)
    for user in users:
        await app.services.people.resend_hands(user.id)
    app.services.play.schedule_ai(row.id)  # a forced move (Carousel's first draw) plays itself
    await settle(fake, app)
    return group, row.id


def _newest(user: FakeUser, op: str) -> StoredMessage:
    return next(m for m in reversed(user.inbox(include_deleted=False)) if any(d.op == op for d, _ in rum_buttons(m)))


async def _tap(fake: FakeTelegram, app: Any, user: FakeUser, op: str, text: str) -> None:
    await answered(fake, await user.press(_newest(user, op), text))
    await settle(fake, app)


def _png(fake: FakeTelegram, message: StoredMessage) -> Image.Image:
    assert message.photo_file_id is not None
    return Image.open(io.BytesIO(fake.files.by_id[message.photo_file_id].data)).convert("RGB")


def _tags(layout: Any) -> list[Any]:
    return [d for d in layout.texts if d.kind == "joker"]


def _tag_in_sight(image: Image.Image, box: tuple[int, int, int, int]) -> None:
    """The tag's gold outline is whole on its right side: nothing was drawn over the tag."""
    x0, y0, x1, y1 = box
    gold = 0
    for y in range(y0 + 6, y1 - 6):
        pixel = image.getpixel((x1 - 1, y))
        assert isinstance(pixel, tuple)
        r, g, b = pixel[:3]
        gold += r > 200 and 150 < g < 240 and b < 140
    assert gold >= (y1 - y0 - 12) * 0.8, f"the tag's right edge is covered ({gold} of {y1 - y0 - 12} gold pixels)"


def _last_group_table(group: FakeChat, word: str) -> StoredMessage:
    return [m for m in group.messages() if m.kind == "photo" and word in m.content][-1]


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PICTURES=True)
async def test_a_set_joker_names_its_choice_then_its_whole_card(fake, app, drawn):
    """Tahiti's set 5♠ 🃏 5♣: the DM asks 5♥ or 5♦, and the proposal picture names both; once chosen, the
    group's table names 5♥ in full although 5♣ lies over the joker."""
    ann = fake.user(first_name="Ann", language_code="en")
    boris = fake.user(first_name="Boris", language_code="ru")
    group, _ = await _table(fake, app, [ann, boris], "tahiti", TAHITI_DEAL)
    for card in ("5♠", "🃏", "5♣"):
        await _tap(fake, app, ann, "lay", card)
    await _tap(fake, app, ann, "lay", "🃏 Lay down (3)")
    question = _newest(ann, "jk")
    assert {"🃏 = 5♥", "🃏 = 5♦"} <= set(question.button_texts)
    assert question.kind == "photo" and "Gold frames mark the melds that change." in question.content
    assert "✨" not in question.content, "pictures draw gold frames, not ✨"
    view, layout = next((v, lay) for v, lay in reversed(drawn) if v.get("proposal"))
    (tag,) = _tags(layout)
    assert tag.text == "5♥/5♦", "the proposal names the choice the DM asks about"
    _tag_in_sight(_png(fake, question), tag.box)

    await _tap(fake, app, ann, "jk", "🃏 = 5♥")
    await _tap(fake, app, ann, "ok", "✅ Confirm")
    table = _last_group_table(group, "Tahiti")
    view, layout = next((v, lay) for v, lay in reversed(drawn) if not v.get("proposal"))
    assert "5S-JK=5H-5C" in view["table"]
    (tag,) = _tags(layout)
    assert tag.text == "5♥"
    _tag_in_sight(_png(fake, table), tag.box)


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PICTURES=True)
async def test_a_run_joker_names_its_whole_card_in_russian_too(fake, app, drawn):
    """Carousel's run A♠ 2♠ 🃏 4♠: the tag under the joker reads 3♠ (the 4♠ lies over it), in a Russian
    group; the Russian proposal speaks of gold frames."""
    ann = fake.user(first_name="Аня", language_code="ru")
    boris = fake.user(first_name="Борис", language_code="ru")
    group, _ = await _table(fake, app, [ann, boris], "carousel", CAROUSEL_DEAL)
    for card in ("A♠", "2♠", "🃏", "4♠"):
        await _tap(fake, app, ann, "lay", card)
    await _tap(fake, app, ann, "lay", "🃏 Выложить (4)")
    proposal = _newest(ann, "ok")
    assert proposal.kind == "photo" and "Золотые рамки отмечают изменённые комбинации." in proposal.content
    assert "✨" not in proposal.content
    await _tap(fake, app, ann, "ok", "✅ Подтвердить")
    table = _last_group_table(group, "Карусель")
    view, layout = next((v, lay) for v, lay in reversed(drawn) if not v.get("proposal"))
    assert "AS-2S-JK=3S-4S" in view["table"]
    (tag,) = _tags(layout)
    assert tag.text == "3♠"
    _tag_in_sight(_png(fake, table), tag.box)


def _big_lay_down(seed: int) -> tuple[RummyState, list[int], list[list[int]]]:
    """Machiavelli for two: the 29-card lay-down on a table of 6 sets and 14 runs (the position
    bench/lay_changes.py measures), the 29 cards Ann's whole hand."""
    variant = melds.registered_variants()["machiavelli"]
    rng = random.Random(93)
    table, added = random_position(variant, rng, rng.randint(55, 75), 29, "feasible")
    state = get_game("machiavelli").new(2, seed=seed)
    assert isinstance(state, RummyState)
    rest = state.pack()
    for c in [x for m in table for x in m] + added:
        rest.remove(c)
    state.table = [melds.normalise(variant, m) for m in table]
    state.hands = [sorted(added, key=sort_key), sorted(rest[:13], key=sort_key)]
    state.stock = rest[13:]
    state.turn = 0
    state._legal_cache = None
    return state, added, table


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PICTURES=True)
async def test_a_big_lay_down_frames_only_what_it_changes_and_its_title_stays_on_the_picture(fake, app, drawn, lang):
    ann = fake.user(first_name="Ann", language_code=lang)
    boris = fake.user(first_name="Boris", language_code=lang)
    state, added, old = _big_lay_down(7)
    assert len(added) == 29 and len(old) == 20
    await _table(fake, app, [ann, boris], "machiavelli", state=state)
    await _tap(fake, app, ann, "lay", "💡 " + ("Hint" if lang == "en" else "Подсказка"))
    await _tap(fake, app, ann, "lay", "🃏 " + ("Lay down" if lang == "en" else "Выложить") + " (29)")
    proposal = _newest(ann, "ok")
    frames = {"en": "Gold frames mark the melds that change.", "ru": "Золотые рамки отмечают изменённые комбинации."}
    assert proposal.kind == "photo" and frames[lang] in proposal.content and "✨" not in proposal.content
    view, layout = next((v, lay) for v, lay in reversed(drawn) if v.get("proposal"))
    old_text = [melds.meld_str(m) for m in state.table]
    kept = [m for m in view["table"] if m in old_text]
    assert len(kept) >= 19, f"{len(kept)} of the 20 old melds kept whole"
    assert len(view["changed"]) == len(view["table"]) - len(kept), "only new or changed melds are framed"
    assert len(view["changed"]) <= 7
    titles = [d for d in layout.texts if d.kind == "title"]
    assert len(titles) > 1, "29 cards do not fit one title line"
    image = _png(fake, proposal)
    assert all(d.box[2] <= image.width - 16 for d in titles), "the title stays on the picture"
    shown = " ".join(d.text for d in titles)
    assert shown.count("♠") + shown.count("♥") + shown.count("♦") + shown.count("♣") == 29, "every card named"
