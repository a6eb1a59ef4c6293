"""What the group reads, in order, end to end over the fake Bot API: one message per event (no doubles), the
table's last state before the final standings, one order of bid and took, the league in words players use
(plural forms in English and Russian, a legend for the provisional mark, long names ending in "…"), and a
Svinya log that folds the run of kept cards and never writes "Sons's"."""

from __future__ import annotations

import random

import pytest

from bot.league import clock, pictures, queries
from bot.presentation.registry import presentation
from tests.bot.harness import last_id, live_hand, play_out, settle, telegram_pacing
from tests.bot.helpers import answered, replay_log
from tests.fakebot.ratelimit import RateLimits

NOV_15 = 1794787200.0  # 2026-11-15 00:00 UTC
LONG = "Alexandra Konstantinopolskaya-Vasilievna & <Sons>"  # 50 characters, and HTML that must be escaped


@pytest.fixture
def november():
    clock.set_source(lambda: NOV_15)
    yield
    clock.set_source(None)


def newer(chat, after: int) -> list:
    return [m for m in chat.messages() if m.message_id > after]


async def say(fake, app, user, chat, text: str) -> list:
    before = last_id(chat)
    await user.send(chat, text)
    await fake.wait_for_message(chat, lambda m: m.message_id > before, timeout=30)
    await settle(fake, app)
    return newer(chat, before)


@pytest.mark.fake(limits=RateLimits.loose())
async def test_cancel_is_told_once_before_and_during_a_game(fake, app, open_table):
    ann, bob = fake.user(first_name="Ann"), fake.user(first_name="Bob")
    lobby = await open_table("carnival", [ann, bob], ais=1, options="quarters=1", begin=False)
    await settle(fake, app)
    told = await say(fake, app, ann, lobby.group, "/cancel")
    assert [m.content for m in told] == ["The table was cancelled."]
    assert "cancelled" in lobby.lobby.content and not lobby.lobby.buttons

    table = await open_table("carnival", [ann, bob], ais=1, options="quarters=1", group=lobby.group)
    await settle(fake, app)
    told = await say(fake, app, bob, table.group, "/cancel")  # not his to cancel: one answer, why not
    assert len(told) == 1 and "creator or an admin" in told[0].content
    told = await say(fake, app, ann, table.group, "/cancel")
    assert [m.content for m in told] == ["The table was cancelled."]
    assert all("This table was cancelled." in u.inbox()[-1].content for u in (ann, bob))
    assert not fake.errors


@pytest.mark.fake(limits=RateLimits.loose())
async def test_the_last_table_state_comes_before_the_standings_and_bid_took_is_one_order(fake, app, open_table, db):
    ann = fake.user(first_name="Ann")
    table = await open_table("oh_hell", [ann], ais=2, options="hand_sizes=2,1")
    await play_out(fake, app, table.group, [ann], random.Random(7))
    await settle(fake, app)
    state, _log, _events, names = replay_log(db)
    group_calls = [c for c in fake.calls if c.ok and c.params.get("chat_id") == table.group.id]
    standings = next(i for i, c in enumerate(group_calls) if "🏁" in str(c.params.get("text", "")))
    edits = [i for i, c in enumerate(group_calls) if c.method.startswith("editMessage")]
    assert edits and edits[-1] < standings, "the table's last edit comes before the final standings"
    final_table = group_calls[edits[-1]].params["text"]
    deals = state.sheet()["deals"]
    for deal in deals:  # the deal lines and the sheet: bid first, then took
        line = presentation("oh_hell").event_line({"type": "deal_end", **deal}, names, "en")
        assert "(bid/took)" in line and "tricks/bid" not in line, line
        for seat, name in enumerate(names):
            assert f"{name} {deal['bids'][seat]}/{deal['tricks'][seat]}" in line, line
            assert presentation("oh_hell").sheet_mark(deal, seat) == f"{deal['bids'][seat]}/{deal['tricks'][seat]}"
        ru = presentation("oh_hell").event_line({"type": "deal_end", **deal}, names, "ru")
        assert "(заказ/взял)" in ru, ru
    last = deals[-1]
    assert "(bid/took)" in final_table and f"Ann {last['bids'][0]}/{last['tricks'][0]}" in final_table, final_table
    assert "tricks/bid" not in "\n".join(str(c.params) for c in group_calls)


@pytest.mark.fake(limits=RateLimits.loose())
async def test_league_words_plural_forms_legend_and_long_names(fake, app, open_table, november):
    ann = fake.user(first_name=LONG)
    ivan = fake.user(first_name="Иван", language_code="ru")
    for player, rounds in ((ann, 6), (ivan, 6)):
        table = await open_table("pyanitsa", [player], ais=1, options=f"max_rounds={rounds}")
        await fake.wait_for_message(table.group, lambda m: "🏁" in m.content, timeout=60)
        await settle(fake, app)
        top = (await say(fake, app, player, table.group, "/top"))[-1].content
        stats = (await say(fake, app, player, table.group, "/stats"))[-1].content
        for text in (top, stats):
            assert "mu" not in text and "sigma" not in text, text
        if player is ann:
            assert "1 games" not in top and "1 wins" not in top, top
            mine = next(x for x in top.splitlines() if "Alexandra" in x)
            assert "(1 game, 1 win)" in mine or "(1 game, 0 wins)" in mine, mine
            assert f"{LONG[:31]}…" in top and LONG not in top, top  # cut with an ellipsis, escaped whole
            legend = [x for x in top.splitlines() if x.startswith("?")]
            assert legend and "provisional" in legend[0] and "5" in legend[0], top
            assert "1 game," in stats and "1 games" not in stats, stats
        else:
            mine = next(x for x in top.splitlines() if "Иван" in x)
            assert "(1 игра, 1 победа)" in mine or "(1 игра, 0 побед)" in mine, mine
            legend = [x for x in top.splitlines() if x.startswith("?")]
            assert legend and "предварительн" in legend[0], top
            assert "1 игра," in stats, stats
    # The three Russian forms (1, 2-4, 5+) and the two English ones, as /top writes them.
    rows = [queries.Row(i + 1, i + 1, f"P{i}", 10.0 - i, games, wins, games < 5, 0)
            for i, (games, wins) in enumerate([(2, 2), (5, 5), (21, 11), (22, 14)])]
    ru = pictures.top_picture("ru", None, "2026-11", rows)[1]
    for phrase in ("2 игры, 2 победы", "5 игр, 5 побед", "21 игра, 11 побед", "22 игры, 14 побед"):
        assert phrase in ru, ru
    en = pictures.top_picture("en", None, "2026-11", rows)[1]
    assert "2 games, 2 wins" in en and "21 games, 11 wins" in en, en


@pytest.mark.fake(time_scale=20)  # Telegram's pacing, 20 times faster: the log's lines merge as they would
@pytest.mark.bot(**telegram_pacing(20))
async def test_svinya_log_folds_kept_cards_and_names_shops_without_a_possessive(fake, app, open_table):
    alice, chris = fake.user(first_name="Alice O'Neil & Sons"), fake.user(first_name="Chris")
    table = await open_table("svinya", [alice, chris], ais=1)
    rng = random.Random(5)
    for _ in range(1000):
        await settle(fake, app, timeout=60)
        if any("🏁" in m.content for m in table.group.messages()):
            break
        found = live_hand([alice, chris])
        assert found is not None, "somebody has a live hand while the game is on"
        user, message = found
        await answered(fake, await user.press(message, rng.choice([b["text"] for b in message.buttons])))
    else:
        raise AssertionError("the game does not end")
    await settle(fake, app, timeout=60)
    log = [m.content for m in table.group.messages()]
    text = "\n".join(log)
    assert "Sons's" not in text and "'s shop" not in text
    assert "shop of" in text, text[-2000:]
    # A line folded while its message was on the way goes on in the next message, with its head again.
    assert not any(line.startswith(",") for line in text.splitlines()), text
    kept = [line for line in text.splitlines() if "kept" in line.lower() or "keeps" in line.lower()]
    assert kept, "the kept cards are still told"
    for message in log:
        lines = message.splitlines()
        for a, b in zip(lines, lines[1:], strict=False):
            assert not ("keep" in a.lower() and "keep" in b.lower() or "kept" in a.lower() and "kept" in b.lower()), \
                f"two lines of kept cards in a row:\n{message}"
    # The same in Russian, without a possessive either.
    names = ["Alice O'Neil & Sons", "Chris"]
    ru = presentation("svinya").event_line({"type": "shop", "seat": 1, "target": 0, "card": "7S", "source": "stock"},
                                           names, "ru")
    assert ru is not None and "Alice O'Neil &amp; Sons" in ru and "'s" not in ru.replace("O'Neil", ""), ru
    assert not fake.errors


def test_a_folded_line_continued_while_on_the_way_starts_again_with_its_head():
    from bot.store.rows import unsent_log

    sent = {"text": "Ann: 7♠ on the pig.\n🂠 Kept a card: Ann", "fold": "🂠 Kept a card:"}
    current = {"text": sent["text"] + ", Bob\nBob: 8♠ on the pig.", "fold": "🂠 Kept a card:"}
    assert unsent_log(sent, current)["text"] == "🂠 Kept a card: Bob\nBob: 8♠ on the pig."
    assert unsent_log({"text": "a"}, {"text": "a\nb"})["text"] == "b"  # lines added: only they go
