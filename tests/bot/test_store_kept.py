"""What the SQLite store keeps in memory to spare queries, and when it lets go: users' and chats' rows
(``Known``), the updates it took in (``Store.admitted``), and bookkeeping that rides along in another
transaction (bot/store/batch.py). Through the real bot against the fake Bot API where people see it,
on the real store where the edge is a rollback."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.app import App
from bot.store import batch as bookkeeping
from bot.store.batch import Batch
from bot.store.sqlite import Store
from tests.bot.harness import live_hand, opened_store, play_first_move, settle, start_carnival
from tests.bot.helpers import answered
from tests.fakebot.models import StoredMessage
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram
from tests.fakebot.users import FakeChat, FakeUser

CYRILLIC = re.compile("[а-яА-Я]")


def traced(store: Store) -> list[str]:
    """The statements the store runs from now on (the inline driver's sqlite3 connection)."""
    statements: list[str] = []
    store._db._db.set_trace_callback(statements.append)
    return statements


def hands(user: FakeUser) -> dict[int, str]:
    """The user's hand messages as they read now, by message id."""
    return {m.message_id: m.content for m in user.inbox() if "Your hand" in m.content or "Ваши карты" in m.content}


async def choose_russian(fake: FakeTelegram, app: App, user: FakeUser, chat: FakeChat | None = None) -> None:
    await user.send(chat, "/settings")
    where = chat if chat is not None else user.dm
    choice: StoredMessage = await fake.wait_for_message(where, lambda m: "Русский" in m.button_texts, timeout=10)
    await answered(fake, await user.press(choice, "Русский"))
    await settle(fake, app)


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_player_who_changes_language_gets_the_very_next_hand_message_in_it(fake, app) -> None:
    """The players' languages are kept in memory once read; choosing another in /settings mid-game drops
    the kept one, so the first hand message that changes afterwards is in the new language (and the others'
    stay in theirs)."""
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("People", members=users[1:], creator=users[0])
    await start_carnival(fake, app, users, group)
    for _ in range(2):  # every player's hand was written with their language read (and kept)
        await play_first_move(fake, app, users)
    live = live_hand(users)
    assert live is not None
    switcher = next(u for u in users if u is not live[0])
    assert switcher.id in app.store.known.users, "the language was kept: this is what the test is about"
    before = hands(switcher)
    assert before and not any(CYRILLIC.search(text) for text in before.values())
    await choose_russian(fake, app, switcher)
    assert switcher.id not in app.store.known.users
    for _ in range(12):
        await play_first_move(fake, app, users)
        changed = {i: text for i, text in hands(switcher).items() if before.get(i) != text}
        if changed:
            break
    assert changed, "the switcher's hand changed within a dozen moves"
    assert all("Ваши карты" in text for text in changed.values()), changed
    others = [text for u in users if u is not switcher for text in hands(u).values()]
    assert others and not any(CYRILLIC.search(text) for text in others)


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_group_language_and_title_changed_reach_the_next_messages(fake, app) -> None:
    """The group's language and title are kept once read; an admin's /settings choice drops the kept
    language (the next table message is in it), and the title a newcomer's message brings drops the kept
    title (the next hand messages name the group by it)."""
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("People", members=users[1:], creator=users[0])
    await start_carnival(fake, app, users, group)
    await play_first_move(fake, app, users)
    assert group.id in app.store.known.chats
    table = [m for m in group.messages() if "Ann" in m.content and "Bob" in m.content][-1]
    assert not CYRILLIC.search(table.content)
    await choose_russian(fake, app, users[0], group)
    await play_first_move(fake, app, users)
    table = [m for m in group.messages() if "Ann" in m.content and "Bob" in m.content][-1]
    assert CYRILLIC.search(table.content), table.content

    group.title = "Renamed"
    dan = fake.user(first_name="Dan")
    group.add_member(dan)
    await dan.send(group, "/help")  # a newcomer: the bot records the group (and its title) again
    await settle(fake, app)
    mover = await play_first_move(fake, app, users)
    latest = hands(mover)[max(hands(mover))]
    assert "Renamed" in latest and "People" not in latest, latest


async def test_a_change_rolled_back_is_never_kept(tmp_path: Path) -> None:
    """A transaction that changes a user's or a chat's row reads its own change from the database and keeps
    nothing: rolled back, the committed row is what everyone reads next. Rows kept are answered without a
    query."""
    async with opened_store(tmp_path / "k.sqlite3") as store:
        async with store.transaction() as tx:
            await tx.upsert_user(1, "Ann", None, "en")
            await tx.ensure_chat(-5, "Cards", "en")
        async with store.read() as tx:
            assert await tx.user_lang(1) == "en" and await tx.chat_title(-5) == "Cards"
        statements = traced(store)
        async with store.read() as tx:
            assert (await tx.user(1)) is not None and await tx.chat_lang(-5) == "en"
            assert await tx.user_lang(1) == "en" and await tx.chat_title(-5) == "Cards"
        assert statements == [], "kept rows are answered from memory"

        with pytest.raises(RuntimeError):
            async with store.transaction() as tx:
                await tx.set_user_lang(1, "ru")
                await tx.set_chat_lang(-5, "ru")
                await tx.ensure_chat(-5, "Other", "en")
                assert await tx.user_lang(1) == "ru", "its own change, from the database"
                assert await tx.chat_lang(-5) == "ru" and await tx.chat_title(-5) == "Other"
                raise RuntimeError("rolled back")
        async with store.read() as tx:
            assert await tx.user_lang(1) == "en"
            assert await tx.chat_lang(-5) == "en" and await tx.chat_title(-5) == "Cards"

        async with store.transaction() as tx:
            await tx.set_user_lang(1, "ru")
            await tx.set_user_started(1)
        async with store.read() as tx:
            user = await tx.user(1)
            assert user is not None and user.lang == "ru" and user.started
            user.lang = "xx"  # a caller's copy: changing it changes nothing kept
            assert await tx.user_lang(1) == "ru"
        async with store.transaction() as tx:
            await tx.set_user_blocked(1)
            await tx.upsert_user(1, "Annie", "ann", "en")  # the chosen language stays chosen
            await tx.migrate_chat(-5, -1005)
        async with store.read() as tx:
            user = await tx.user(1)
            assert user is not None and user.blocked and user.first_name == "Annie" and user.lang == "ru"
            assert await tx.chat_title(-1005) == "Cards" and await tx.chat_lang(-1005) == "en"
        async with store.read() as tx:  # a user or chat with no row: kept as none, until one is written
            assert await tx.user(2) is None and await tx.chat_title(-7) == ""
        async with store.transaction() as tx:
            await tx.upsert_user(2, "Bob", None, "ru")
            await tx.set_chat_lang(-7, "ru")
        async with store.read() as tx:
            assert await tx.user_lang(2) == "ru" and await tx.chat_lang(-7) == "ru"


async def test_seats_kept_follow_every_change(tmp_path: Path) -> None:
    """A table's seats are kept once read; a change (a join, a leave, a rolled-back one) is what is read next,
    and a caller changing the list it got changes nothing kept."""
    from bot.store.rows import SeatRow

    async with opened_store(tmp_path / "s.sqlite3") as store:
        async with store.transaction() as tx:
            table = await tx.create_table(-5, 0, "carnival", 1, {}, 7)
            await tx.set_seats(table, [SeatRow(0, 1, "Ann")])
        async with store.read() as tx:
            seats = await tx.seats(table)
            assert [s.name for s in seats] == ["Ann"]
            seats[0].name = "Mallory"
            seats.append(SeatRow(1, 666, "Mallory"))
        statements = traced(store)
        async with store.read() as tx:
            assert [(s.seat, s.user_id, s.name) for s in await tx.seats(table)] == [(0, 1, "Ann")]
        assert statements == []
        with pytest.raises(RuntimeError):
            async with store.transaction() as tx:
                await tx.set_seats(table, [SeatRow(0, 1, "Ann"), SeatRow(1, 2, "Bob")])
                assert len(await tx.seats(table)) == 2, "its own change, from the database"
                raise RuntimeError("rolled back")
        async with store.read() as tx:
            assert [s.name for s in await tx.seats(table)] == ["Ann"]
        async with store.transaction() as tx:
            await tx.set_seats(table, [SeatRow(0, 1, "Ann"), SeatRow(1, None, "AI")])
        async with store.read() as tx:
            assert [(s.name, s.is_ai) for s in await tx.seats(table)] == [("Ann", False), ("AI", True)]


async def test_updates_taken_in_are_not_asked_about_again_unless_the_taking_rolled_back(tmp_path: Path) -> None:
    """An update the inbox took (checked against the handled ids in the same statement) needs no second
    look from the Dedup middleware; one whose transaction rolled back was not taken, and one handled or
    waiting already is refused."""
    async with opened_store(tmp_path / "u.sqlite3") as store:
        async with store.transaction() as tx:
            assert await tx.inbox_put(1, "{}")
        assert store.admitted == {1}
        with pytest.raises(RuntimeError):
            async with store.transaction() as tx:
                assert await tx.inbox_put(2, "{}")
                raise RuntimeError("rolled back")
        assert store.admitted == {1}
        async with store.transaction() as tx:
            await tx.inbox_done(1)
            assert not await tx.inbox_put(1, "{}"), "handled already"
            assert await tx.inbox_put(3, "{}")
            assert not await tx.inbox_put(3, "{}"), "waiting already"
        assert store.admitted == {1, 3}


@pytest.mark.fake(limits=RateLimits.loose())
async def test_an_update_delivered_twice_is_handled_once(fake, app) -> None:
    """Through the bot: an update taken in is checked by the Dedup middleware without a second query (the id
    leaves ``admitted``); the same update fed again after it was handled is dropped, Dedup asking the database."""
    from aiogram.types import Update

    ann = fake.user(first_name="Ann")
    await ann.start_bot()
    await settle(fake, app)
    assert app.store.admitted == set()
    replies = len(ann.inbox())
    person = {"id": ann.id, "is_bot": False, "first_name": "Ann"}
    again = Update.model_validate({"update_id": fake.updates.next_id - 1, "message": {
        "message_id": 999, "date": 0, "chat": {**person, "type": "private"}, "from": person,
        "text": "/start"}}, context={"bot": app.bot})
    await app.dispatcher.feed_update(app.bot, again)
    await settle(fake, app)
    assert len(ann.inbox()) == replies


async def test_bookkeeping_rides_along_in_a_transaction_that_happens_anyway(tmp_path: Path) -> None:
    """Writes queued in the shared batch are committed by the next write transaction, under a savepoint,
    with no BEGIN and COMMIT of their own; one that fails is rolled back alone and reported to its own caller
    only (the host commits, the others are written); a host that rolls back hands them back to the batch."""
    async with opened_store(tmp_path / "r.sqlite3") as store:
        shared = bookkeeping.shared(store)
        assert shared.ride_wait > 0 and store.rider is not None

        def done(update_id: int) -> Any:
            async def work(tx: Any) -> None:
                if update_id == 3:
                    raise ValueError("this one is broken")
                await tx.inbox_done(update_id)
            return work

        async with store.read():  # busy: the writes queue
            calls = [asyncio.create_task(shared.run(done(i))) for i in (1, 2)]
            await asyncio.sleep(0)
            assert len(shared.waiting) == 2
        commits = store.wal.committed
        async with store.transaction() as tx:  # a move, say
            await tx.ensure_chat(-5, "Cards", "en")
        await asyncio.gather(*calls)
        assert store.wal.committed == commits + 1 and shared.transactions == 0 and shared.rode == 2

        async with store.read():
            calls = [asyncio.create_task(shared.run(done(i))) for i in (3, 4)]
            await asyncio.sleep(0)
        async with store.transaction() as tx:
            await tx.ensure_chat(-6, "Dice", "en")
        results = await asyncio.gather(*calls, return_exceptions=True)
        assert [type(r).__name__ for r in results] == ["ValueError", "NoneType"]

        async with store.read():
            calls = [asyncio.create_task(shared.run(done(5)))]
            await asyncio.sleep(0)
        with pytest.raises(RuntimeError):
            async with store.transaction() as tx:
                await tx.ensure_chat(-7, "Gone", "en")
                raise RuntimeError("the host rolls back before the riders board")
        await asyncio.gather(*calls)

        with sqlite3.connect(tmp_path / "r.sqlite3") as conn:
            assert [r[0] for r in conn.execute("SELECT update_id FROM updates ORDER BY 1")] == [1, 2, 4, 5]
            assert [r[0] for r in conn.execute("SELECT chat_id FROM chats ORDER BY 1")] == [-6, -5]


async def test_a_batch_of_its_own_rides_nowhere(tmp_path: Path) -> None:
    """Only the store's shared batch rides (and waits for a ride); a Batch made apart writes at once."""
    async with opened_store(tmp_path / "o.sqlite3") as store:
        alone = Batch(store)
        await alone.run(lambda tx: tx.inbox_done(1))
        assert alone.transactions == 1 and store.rider is None


def test_only_the_sqlite_store_s_own_methods_write_the_rows_it_keeps() -> None:
    """``Known`` is right only while every write to ``users``, ``chats`` and ``seats`` goes through the SQLite
    Tx's methods that drop what they change: a shared query (bot/store/queries.py) or a service writing them
    would leave a kept row stale. A new writer belongs in bot/store/sqlite.py, with its ``_..._changed`` call."""
    root = Path(__file__).resolve().parents[2] / "bot"
    writes = re.compile(r"(?:INSERT(?: OR \w+)? INTO|UPDATE|DELETE FROM|REPLACE INTO)\s+(users|chats|seats)\b", re.I)
    found = {str(p.relative_to(root)) for p in root.rglob("*.py") if writes.search(p.read_text(encoding="utf-8"))}
    assert found <= {"store/sqlite.py", "store/postgres.py"}, found
    source = (root / "store" / "sqlite.py").read_text(encoding="utf-8")
    for method in ("upsert_user", "set_user_started", "set_user_blocked", "set_user_lang", "ensure_chat",
                   "set_chat_lang", "migrate_chat", "set_seats"):
        body = source.split(f"async def {method}(", 1)[1].split("async def ", 1)[0]
        assert "_changed(" in body or "_changed_seats" in body, method
