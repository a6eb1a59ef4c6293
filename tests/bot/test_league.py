"""The league end to end over the fake Bot API: finished tables become matches, /top /stats /h2h answer
with pictures, admins (only) exclude players, remove matches and export CSV, and nothing leaks across chats."""

from __future__ import annotations

import csv
import io

import pytest

from bot.league import clock
from bot.league.recompute import check
from tests.bot.harness import last_id, live_hand, messages_after, open_table_in, play_buttons, settle
from tests.bot.helpers import answered, db_rows
from tests.fakebot.ratelimit import RateLimits

NOV_15 = 1794787200.0  # 2026-11-15 00:00 UTC


@pytest.fixture
def now():
    """The league's clock, set by the test."""
    at = [NOV_15]
    clock.set_source(lambda: at[0])
    yield at
    clock.set_source(None)


async def play_table(fake, app, group, creator, others, ais: int = 0, options: str = "max_rounds=6") -> None:
    """A Pyanitsa table (every move is forced, so it plays itself) from /new to the final standings."""
    before = last_id(group)
    await open_table_in(fake, app, "pyanitsa", [creator, *others], ais=ais, options=options, group=group)
    await settle(fake, app)
    await fake.wait_for_message(group, lambda m: "🏁" in m.content and m.message_id > before, timeout=30)
    await settle(fake, app)


async def ask(fake, app, user, chat, text: str):
    """Send a command; the bot's new messages in ``chat``."""
    before = last_id(chat)
    await user.send(chat, text)
    # Wait for the answer itself: a settle alone can slip in before the update reaches a handler.
    await fake.wait_for_message(chat, lambda m: m.message_id > before, timeout=30)
    await settle(fake, app)
    return messages_after(chat, before)


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PICTURES=True)
async def test_league_commands_pictures_admin_tools_and_isolation(fake, now, run_bot, db):
    ann = fake.user(first_name="Ann", username="ann_k")
    bob = fake.user(first_name="\u202eBob<b>", username="bob_k")  # a bidi override and HTML in the name
    cid = fake.user(first_name="Сидор 🃏", username="cid_k")
    group = fake.group("Cards", members=[bob, cid], creator=ann)
    other = fake.group("Elsewhere", members=[bob], creator=cid)
    async with run_bot() as app:  # the fake's errors are read once the bot stopped
        for user in (ann, bob, cid):
            await user.start_bot()
        await settle(fake, app)
        await play_table(fake, app, group, ann, [bob], ais=1)
        now[0] += 3600
        await play_table(fake, app, group, ann, [bob, cid])
        matches = db_rows(db, "SELECT id, chat_id, season, game FROM league_matches ORDER BY id")
        assert [(m[1], m[2], m[3]) for m in matches] == [(group.id, "2026-11", "pyanitsa")] * 2
        seats = db_rows(db, "SELECT match_id, player, mu FROM league_seats ORDER BY match_id, seat")
        assert len(seats) == 6 and all(mu is not None for _, _, mu in seats)
        ai = [p for _, p, _ in seats if p < 0]
        assert len(ai) == 1  # the AI seat is a player of its own, not a human's

        top = await ask(fake, app, bob, group, "/top")
        assert len(top) == 1 and top[0].kind == "photo"
        caption = top[0].content
        assert "League table" in caption and "Ann" in caption and "Сидор 🃏" in caption and "🤖" in caption
        assert "Bob&lt;b&gt;" not in caption and "Bob<b>" in caption  # escaped on the way, intact on arrival
        assert "\u202e" not in caption  # the override is gone: it cannot flip the rest of the line
        assert "(2 games" in caption  # Ann and Bob played both tables

        stats = await ask(fake, app, cid, group, "/stats @ann_k")
        assert stats[0].kind == "photo" and "Ann" in stats[0].content and "Pyanitsa: 2 games" in stats[0].content
        mine = await ask(fake, app, cid, group, "/stats")
        assert "Сидор" in mine[0].content and "1 game," in mine[0].content
        by_name = await ask(fake, app, ann, group, "/stats сидор 🃏")  # no @username: the name played under
        assert by_name[0].content == mine[0].content

        h2h = await ask(fake, app, ann, group, "/h2h @bob_k")
        assert h2h[0].kind == "photo" and "in 2 matches" in h2h[0].content
        nobody = await ask(fake, app, ann, group, "/h2h @nobody_here")
        assert "I don't know @nobody_here" in nobody[0].content

        # Bad input: one clear line each, nothing changes.
        bad = await ask(fake, app, ann, group, "/top chess")
        assert "Use /top [game] [season]" in bad[0].content
        bad = await ask(fake, app, ann, group, "/top 2025-01")
        assert "No season 2025-01 here" in bad[0].content

        # Not an admin: refused, nothing logged.
        refused = await ask(fake, app, bob, group, "/league exclude @ann_k because")
        assert "Only a chat admin" in refused[0].content
        assert db_rows(db, "SELECT COUNT(*) FROM league_log")[0][0] == 0
        no_reason = await ask(fake, app, ann, group, "/league exclude @bob_k")
        assert "Give a reason" in no_reason[0].content
        usage = await ask(fake, app, ann, group, "/league remove latest")
        assert usage[0].content == "Use: /league remove MATCH REASON"

        done = await ask(fake, app, ann, group, "/league exclude @bob_k left mid-season twice")
        assert "excluded from the league" in done[0].content
        assert db_rows(db, "SELECT action, target, reason FROM league_log") == [
            ("exclude", str(bob.id), "left mid-season twice")]
        assert db_rows(db, "SELECT COUNT(*) FROM league_ratings WHERE player = ?", bob.id)[0][0] == 0
        top = await ask(fake, app, cid, group, "/top")
        assert "Bob" not in top[0].content and "Ann" in top[0].content

        # Removing a match of another chat is impossible from here.
        foreign = await ask(fake, app, cid, other, f"/league remove {matches[0][0]} test")
        assert f"There is no match {matches[0][0]}" in foreign[0].content
        assert "No rated matches" in (await ask(fake, app, bob, other, "/top"))[0].content
        removed = await ask(fake, app, ann, group, f"/league remove {matches[1][0]} wrong players")
        assert "is removed" in removed[0].content
        assert db_rows(db, "SELECT COUNT(*) FROM league_ratings WHERE player = ?", cid.id)[0][0] == 0

        redo = await ask(fake, app, ann, group, "/league recompute")
        assert redo[0].content == "Ratings recomputed from 1 matches."  # the removed one is not rated

        # The export goes to the admin's DM, one line per seat, names as typed (formulas neutralised).
        before = len(ann.inbox())
        answer = await ask(fake, app, ann, group, "/league export")
        assert "in your DM" in answer[0].content
        doc = next(m for m in ann.inbox()[before:] if m.kind == "document")
        data = fake.files.by_id[doc.document["file_id"]].data.decode("utf-8-sig")
        lines = list(csv.DictReader(io.StringIO(data)))
        assert len(lines) == 6 and {r["match"] for r in lines} == {str(m[0]) for m in matches}
        assert {r["name"] for r in lines} >= {"Ann", "Bob<b>", "Сидор 🃏"}
        assert [r["removed"] for r in lines if r["match"] == str(matches[1][0])] == ["1"] * 3
        refused = await ask(fake, app, bob, group, "/league export")
        assert "Only a chat admin" in refused[0].content

        # What counts and how ratings work: /help points to /rules league, in both languages.
        assert "More: /rules league" in (await ask(fake, app, ann, group, "/help"))[0].content
        rules = await ask(fake, app, ann, group, "/rules league")
        assert "never counts" in rules[0].content and "Thurstone-Mosteller" in rules[0].content
        ivan = fake.user(first_name="Иван", language_code="ru")
        await ivan.start_bot()
        await settle(fake, app)
        await ivan.send("/rules league")
        await settle(fake, app)
        assert "не засчитывается никогда" in ivan.last_dm().content

        async with app.store.read() as tx:
            assert await check(tx) == []
    assert not fake.unanswered_callbacks()
    bad = [c for c in fake.errors if c.error_code != 400 or "not modified" not in (c.description or "")]
    assert not bad, bad


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PICTURES=True)
async def test_a_table_across_the_season_boundary_counts_where_it_ended_and_the_season_closes(fake, now, app, db,
                                                                                             open_table):
    ann = fake.user(first_name="Ann", username="ann_k")
    bob = fake.user(first_name="Bob", username="bob_k")
    group = fake.group("Cards", members=[bob], creator=ann)
    for user in (ann, bob):
        await user.start_bot()
    await settle(fake, app)
    now[0] = NOV_15
    await play_table(fake, app, group, ann, [bob])
    # A table with Flip buttons starts on 30 November just before midnight...
    now[0] = 1796083140.0  # 2026-11-30 23:59 UTC
    before = last_id(group)
    await open_table("pyanitsa", [ann, bob], options="max_rounds=4 flip=button", group=group)
    await settle(fake, app)
    # ...and ends in December.
    now[0] = 1796083260.0  # 2026-12-01 00:01 UTC
    assert db_rows(db, "SELECT status FROM tables ORDER BY id DESC LIMIT 1") == [("playing",)]
    for _ in range(200):  # press Flip until the game ends
        if any("🏁" in m.content for m in messages_after(group, before)):
            break
        found = live_hand([ann, bob])
        assert found is not None, "nobody can move but the game is not over"
        user, hand = found
        flip = play_buttons(hand)[0]["callback_data"]
        await answered(fake, await user.press(hand, lambda b, d=flip: b.get("callback_data") == d))
        await settle(fake, app)
    assert db_rows(db, "SELECT season FROM league_matches ORDER BY id") == [("2026-11",), ("2026-12",)]
    top = await ask(fake, app, ann, group, "/top")
    assert "Ann — " in top[0].content and "(1 game," in top[0].content  # December starts from scratch
    dec = db_rows(db, "SELECT season, games FROM league_ratings WHERE game = '*' AND player = ?", ann.id)
    assert sorted(dec) == [("2026-11", 1), ("2026-12", 1)]  # each season starts fresh

    # The clock passed the end of November: the season is archived and its final table posted, once.
    # (The season clock runs in the bot too, every minute; on a slow machine it may come first.)
    assert app.services.league._job.running
    assert await app.services.league.rollover() in (0, 1)
    await settle(fake, app)
    final = [m for m in group.messages() if "Season 2026-11 is over" in m.content]
    assert len(final) == 1 and final[0].kind == "photo" and "Ann" in final[0].content
    assert db_rows(db, "SELECT season FROM league_seasons") == [("2026-11",)]
    assert await app.services.league.rollover() == 0
    old = await ask(fake, app, bob, group, "/top pyanitsa 2026-11")
    assert old[0].kind == "photo" and "Bob" in old[0].content

    shown = await ask(fake, app, bob, group, "/league")
    assert "League: seasons monthly; current season 2026-12; a league per topic: no" in shown[0].content
    topics = await ask(fake, app, ann, group, "/league topics on")
    assert "Each forum topic keeps its own league" in topics[0].content
    # A chat with seasons of 10 days: the next match counts in a season named by its first day.
    answer = await ask(fake, app, ann, group, "/league season 10")
    assert "the current season is 2026-12-01+10d" in answer[0].content
    wrong = await ask(fake, app, ann, group, "/league season fortnight")
    assert "Seasons can be" in wrong[0].content
