"""The group sees what a deal is about, over the fake Bot API with pictures on: Variety's contract (its
numeral, trump and what a side scores) and who attacks, Calabrasella's soloist, on the table picture and in
its caption, in the group's language; and the result pinned at the head of a new deal names the deal it
closes.

The pictures are read twice: the layout the kit's table drawing returns (``bot.render.table.layout_table``,
watched while the bot draws: the real function runs) and the PNG the group received, which must be that
layout's picture.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bot.render import table as table_picture
from games.variety.present import contract_name
from tests.bot.harness import play_out, settle
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram

WORDS = {
    "en": {"variety": "Variety", "calabrasella": "Calabrasella", "attack": "{a} and {b} attack",
           "attacker": "★ attacker", "soloist": "★ soloist", "solo": "★ {who} plays solo against the other two",
           "over": "Deal 1 over:", "thrown": "Deal 1: everyone passed", "trump": "trump"},
    "ru": {"variety": "Варьете", "calabrasella": "Калабраселла", "attack": "играют {a} и {b}",
           "attacker": "★ играет", "soloist": "★ солист", "solo": "★ {who} играет один против двоих",
           "over": "Сдача 1 сыграна:", "thrown": "Сдача 1: все спасовали", "trump": "козырь"},
}


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[tuple[dict[str, Any], Any]]:
    """Every trick-table picture the bot draws: (view, layout), in order."""
    seen: list[tuple[dict[str, Any], Any]] = []
    real = table_picture.layout_table

    def watched(view: dict[str, Any], names: Any, lang: str = "en", pair_kind: Any = None) -> Any:
        layout = real(view, names, lang, pair_kind)
        seen.append((view, layout))
        return layout

    monkeypatch.setattr(table_picture, "layout_table", watched)
    return seen


def _texts(layout: Any, kind: str) -> list[str]:
    return [d.text for d in layout.texts if d.kind == kind]


def _deal_tables(fake: FakeTelegram, group: Any, title: str) -> list[Any]:
    """The group's table pictures (one per deal, edited in place), oldest first (captions as people read them)."""
    return [m for m in group.messages() if m.kind == "photo" and m.content.startswith(title)
            and re.match(r"(deal|сдача) \d", m.content[len(title):])]


def _received_is_drawn(fake: FakeTelegram, message: Any, drawn: list[tuple[dict[str, Any], Any]]) -> Any:
    """The layout whose picture the group holds in ``message`` (its PNG, byte for byte)."""
    data = fake.files.by_id[message.photo_file_id].data
    found = [layout for _, layout in reversed(drawn) if layout.png() == data]
    assert found, "the group holds a picture the bot drew"
    return found[0]


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PICTURES=True)
async def test_variety_shows_the_contract_and_who_attacks(fake, app, open_table, drawn, lang):
    w = WORDS[lang]
    ann = fake.user(first_name="Ann", language_code=lang)
    group = fake.group("Cards", members=[ann], creator=ann)
    await open_table("variety", [ann], ais=3, options="deals=2", group=group)
    await play_out(fake, app, group, [ann], random.Random(3))
    await settle(fake, app)

    contracts = [(v, lay) for v, lay in drawn if v.get("game") == "variety" and v.get("contract")]
    auction = [(v, lay) for v, lay in drawn if v.get("game") == "variety" and not v.get("contract")
               and v.get("phase") not in ("play", "over")]  # the view as drawn
    assert contracts and auction
    for view, layout in contracts:
        names = [d.text for d in sorted((d for d in layout.texts if d.kind == "name"), key=lambda d: d.seat)]
        a, b = (names[s] for s in view["attackers"])
        banner = contract_name(view["contract"], lang) + " · " + w["attack"].format(a=a, b=b)
        assert _texts(layout, "banner") == [banner], "the picture says the contract, its scoring and who attacks"
        roles = [d for d in layout.texts if d.kind == "bid_tricks"]
        assert sorted(d.seat for d in roles if d.text.startswith(w["attacker"])) == sorted(view["attackers"])
    for _view, layout in auction:
        assert not _texts(layout, "trump"), "no trump is chosen before the contract"
        assert _texts(layout, "phase") == [{"en": "Auction", "ru": "Торговля"}[lang]], _texts(layout, "phase")

    tables = _deal_tables(fake, group, w["variety"] + " · ")
    assert len(tables) == 2
    first = _received_is_drawn(fake, tables[0], drawn)
    assert _texts(first, "banner"), "the group's picture of deal 1 shows the contract"
    head = tables[0].content.split("\n")
    assert re.search(rf"{w['trump']} [♠♥♦♣]|без козыря|no trump", head[0]) and not re.search(r"\b[SHDC]\b", head[0])
    assert head[1] == _texts(first, "banner")[0], "the caption says what the picture says"
    assert w["over"] in tables[1].content, "the pinned result names the deal it closes"


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PICTURES=True)
async def test_calabrasella_marks_the_soloist(fake, app, open_table, drawn, lang):
    w = WORDS[lang]
    ann = fake.user(first_name="Ann", language_code=lang)
    group = fake.group("Cards", members=[ann], creator=ann)
    await open_table("calabrasella", [ann], ais=2, options="deals=2", group=group)
    await play_out(fake, app, group, [ann], random.Random(5))
    await settle(fake, app)

    solo = [(v, lay) for v, lay in drawn if v.get("game") == "calabrasella" and v.get("soloist") is not None]
    assert solo, "someone played solo"
    for view, layout in solo:
        names = {d.seat: d.text for d in layout.texts if d.kind == "name"}
        assert _texts(layout, "banner") == [w["solo"].format(who=names[view["soloist"]])]
        marked = [d.seat for d in layout.texts if d.kind == "bid_tricks" and d.text.startswith(w["soloist"])]
        assert marked == [view["soloist"]], "★ on the soloist's plate, and only there"

    tables = _deal_tables(fake, group, w["calabrasella"] + " · ")
    assert len(tables) == 2
    first = _received_is_drawn(fake, tables[0], drawn)
    if _texts(first, "banner"):  # deal 1 had a soloist (not thrown in)
        assert tables[0].content.split("\n")[1] == _texts(first, "banner")[0], "the caption says it too"
    assert w["over"] in tables[1].content or w["thrown"] in tables[1].content, "the pinned result names its deal"
