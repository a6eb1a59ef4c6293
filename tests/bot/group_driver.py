"""Playing as people do, from the group (each player's hand shown to them alone there: "🂠 My hand") or from
the DMs, measuring what a press costs: the presser's hand redrawn, the next player's live hand, the table
message. Shared by tests/bot/test_group_hands.py and bench/group_hands.py."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.bot.harness import play_buttons, settle
from tests.bot.helpers import answered
from tests.fakebot.models import CallbackRecord, StoredMessage
from tests.fakebot.server import FakeTelegram
from tests.fakebot.users import FakeChat, FakeUser

MESSAGE_CALLS = {"sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto", "editMessageMedia",
                 "editMessageCaption", "sendDocument", "editEphemeralMessageText", "deleteEphemeralMessage"}
VERB_ORDER = (0, 3, 1, 2)  # a rummy's draw, end, pass, knock


def my_hand(button: dict[str, Any]) -> bool:
    return str(button.get("callback_data", "")).startswith("mh:")


def version_of(message: StoredMessage) -> int:
    buttons = play_buttons(message)
    return int(str(buttons[0]["callback_data"]).split(":")[2]) if buttons else -1


def table_message(group: FakeChat) -> StoredMessage:
    """The group's newest normal message with "🂠 My hand"."""
    found = [m for m in group.visible() if any(map(my_hand, m.buttons))]
    assert found, f"no My hand button in the group: {[m.button_texts for m in group.visible()]}"
    return found[-1]


def live_in_group(users: list[FakeUser], group: FakeChat) -> tuple[FakeUser, StoredMessage] | None:
    """The ephemeral hand on screen with the newest keyboard (the player to act), if any."""
    return _newest((user, user.last_ephemeral(group)) for user in users)


def live_in_dm(users: list[FakeUser]) -> tuple[FakeUser, StoredMessage] | None:
    """The DM hand with the newest keyboard (the player to act), if any."""
    return _newest((user, message) for user in users for message in user.inbox(include_deleted=False))


def _newest(found: Any) -> tuple[FakeUser, StoredMessage] | None:
    best: tuple[int, FakeUser, StoredMessage] | None = None
    for user, message in found:
        if message is not None and play_buttons(message) and (best is None or version_of(message) > best[0]):
            best = (version_of(message), user, message)
    return None if best is None else (best[1], best[2])


async def show_hands(fake: FakeTelegram, group: FakeChat, users: list[FakeUser]) -> list[CallbackRecord]:
    """Each user presses "🂠 My hand" under the table; their answers."""
    records = []
    for user in users:
        records.append(await answered(fake, await user.press(table_message(group), my_hand), timeout=20))
    return records


async def hands_up(fake: FakeTelegram, app: Any, open_table: Any, game: str, title: str, options: str = ""
                   ) -> tuple[list[FakeUser], FakeChat, FakeUser, StoredMessage]:
    """Ann, Bob and Cat at a ``game`` table in a new group, each with their hand shown to them there ("My hand"),
    everything delivered: the players, the group, the player to act and their hand in the group."""
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group(title, members=users, creator=users[0])
    await open_table(game, users, options=options, group=group)
    await settle(fake, app)
    await show_hands(fake, group, users)
    await settle(fake, app)
    found = live_in_group(users, group)
    assert found is not None, "no player to act has a hand in the group"
    return users, group, *found


def pick(message: StoredMessage, rng: random.Random, tried: set[tuple[int, str]]) -> dict[str, Any]:
    """A button a player would press: a trick game's move (or a second step); a rummy's Confirm, joker, Hint,
    Lay down, else its first verb (draw, end, pass)."""
    buttons = play_buttons(message)
    moves = [b for b in buttons if str(b["callback_data"]).startswith(("mv:", "mn:"))]
    if moves:
        return rng.choice(moves)
    ops: dict[str, dict[str, Any]] = {}
    for b in buttons:
        _, _, _, op, *arg = str(b["callback_data"]).split(":")
        ops.setdefault(op, b)
        if op == "do":
            ops.setdefault(f"do{arg[0] if arg else 0}", b)
    version = version_of(message)
    for op in ("ok", "jk"):
        if op in ops:
            return ops[op]
    for op in ("hint", "lay"):
        if op in ops and (version, op) not in tried and not (op == "lay" and "(0)" in ops[op]["text"]):
            tried.add((version, op))
            return ops[op]
    for a in VERB_ORDER:
        if f"do{a}" in ops:
            return ops[f"do{a}"]
    raise AssertionError(f"no button to press on {message.content[-200:]!r} {message.button_texts}")


def is_move(data: str) -> bool:
    """A press that makes a move (not a second step, a toggle, a hint or a proposal)."""
    parts = data.split(":")
    if parts[0] == "rm":
        return parts[3] in ("ok", "do")
    return parts[0] == "mv" or (parts[0] == "pk" and data.endswith(":1"))


@dataclass
class Run:
    moves: int = 0
    presses: int = 0
    own: list[float] = field(default_factory=list)  # press -> the presser's hand redrawn (ms)
    next: list[float] = field(default_factory=list)  # a move's press -> the next player's live hand (ms)
    table: list[float] = field(default_factory=list)  # a move's press -> the group's table message updated (ms)
    chats: list[str] = field(default_factory=list)  # the chat type of each press
    move_chats: list[str] = field(default_factory=list)  # the chat type each move was made in


async def drive(fake: FakeTelegram, group: FakeChat, users: list[FakeUser], until: Callable[[], bool],
                rng: random.Random, where: str = "group", max_presses: int = 600, timeout: float = 120,
                think: tuple[float, float] | None = None) -> Run:
    """Press the live hands (``where``: "group", the ephemeral ones; "dm", the DM ones) until ``until()``,
    timing what each press brings (every condition polled together, each timed when it first holds).
    ``think``: seconds (least, most) a player looks at a new live hand before its first press, as people do;
    None: at once (the closed loop, the worst case for the limits)."""
    loop = asyncio.get_running_loop()
    run = Run()
    tried: set[tuple[int, str]] = set()
    floor = -1  # a move was made at this version: the next live hand is newer
    thought = -1  # the version last thought over
    watchers: list[asyncio.Task[None]] = []  # timing each mover's own hand redrawn, while play goes on
    while not until():
        found = live_in_group(users, group) if where == "group" else live_in_dm(users)
        if found is None or version_of(found[1]) <= floor:
            await asyncio.sleep(0.005)
            continue
        user, message = found
        version = version_of(message)
        if think is not None and version != thought:
            thought = version
            await asyncio.sleep(rng.uniform(*think))
            continue  # the hand on screen may have changed meanwhile
        button = pick(message, rng, tried)
        data = str(button["callback_data"])
        edits = message.edit_count
        table = table_message(group) if any(any(map(my_hand, m.buttons)) for m in group.visible()) else None
        table_edits = table.edit_count if table is not None else 0
        pressed = loop.time()
        record = await user.press(message, lambda b, d=data: b.get("callback_data") == d)
        run.presses += 1
        run.chats.append(message.chat.type)
        assert run.presses < max_presses, "the game does not go on"
        move = is_move(data)

        def nxt(v: int = version) -> bool:
            live = live_in_group(users, group) if where == "group" else live_in_dm(users)
            return live is not None and version_of(live[1]) > v

        sent = len(user.inbox())  # a DM press may answer with a new message (a rummy's proposal)
        own = lambda m=message, e=edits, u=user, n=sent: m.edit_count > e or len(u.inbox()) > n  # noqa: E731
        waits: dict[str, Callable[[], bool]] = {}
        if move:  # the next player plays on at once; the mover's own hand redrawn is timed meanwhile
            waits["next"] = nxt
            if table is not None:
                waits["table"] = lambda m=table, e=table_edits: m.edit_count > e or table_message(group) is not m
            watchers.append(asyncio.create_task(_time_it(run.own, own, until, pressed, timeout)))
        else:  # a toggle, a hint, a second step: the player waits for its answer
            waits["own"] = own
        deadline = pressed + timeout
        while waits:
            for name, holds in list(waits.items()):
                if holds() or until():
                    getattr(run, name).append((loop.time() - pressed) * 1000)
                    del waits[name]
            assert loop.time() < deadline, f"no {list(waits)} within {timeout} s after pressing {data}"
            if waits:
                await asyncio.sleep(0.003)
        await answered(fake, record, timeout=30)
        if move:
            run.moves += 1
            run.move_chats.append(message.chat.type)
            floor = version
    await asyncio.gather(*watchers)
    return run


async def _time_it(into: list[float], holds: Callable[[], bool], until: Callable[[], bool], since: float,
                   timeout: float) -> None:
    """Record the milliseconds from ``since`` until ``holds()`` (or the run's end) in ``into``."""
    loop = asyncio.get_running_loop()
    while not (holds() or until()):
        assert loop.time() < since + timeout, f"nothing within {timeout} s"
        await asyncio.sleep(0.003)
    into.append((loop.time() - since) * 1000)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def numbers(fake: FakeTelegram, app: Any, group: FakeChat, started: int, run: Run) -> dict[str, float]:
    """What the run cost and how fast it answered, as printed by the test and the bench."""
    calls = [c for c in fake.calls[started:] if c.ok and c.method in MESSAGE_CALLS]
    in_group = [c for c in calls if c.params.get("chat_id") == group.id]
    moves = max(run.moves, 1)
    lags = sorted(app.outbox.group_lags)
    hand_lags = sorted(app.outbox.hand_lags)
    dm_presses = sum(1 for chat in run.chats if chat == "private")
    return {"moves": run.moves, "presses": run.presses, "dm_presses": dm_presses,
            "switches": sum(1 for chat in run.move_chats if chat == "private") / moves,
            "calls_per_move": len(calls) / moves, "group_calls_per_move": len(in_group) / moves,
            "own_p50": pct(run.own, 0.5), "own_p99": pct(run.own, 0.99),
            "next_p50": pct(run.next, 0.5), "next_p99": pct(run.next, 0.99),
            "table_p50": pct(run.table, 0.5), "table_p99": pct(run.table, 0.99),
            "lag_p50": lags[len(lags) // 2] if lags else 0.0, "lag_max": lags[-1] if lags else 0.0,
            "hand_p50": pct(hand_lags, 0.5), "hand_max": hand_lags[-1] if hand_lags else 0.0,
            "hands_aged": app.outbox.hands_aged, "429s": fake.limiter.served_429}


def line(name: str, n: dict[str, float]) -> str:
    return (f"{name}: {n['moves']:.0f} moves, {n['presses']:.0f} presses ({n['dm_presses']:.0f} in a DM); "
            f"chat switches per move {n['switches']:.2f}; message calls per move {n['calls_per_move']:.2f} "
            f"({n['group_calls_per_move']:.2f} in the group); press -> own hand p50 {n['own_p50']:.0f} ms "
            f"p99 {n['own_p99']:.0f} ms; -> next hand p50 {n['next_p50']:.0f} ms p99 {n['next_p99']:.0f} ms; "
            f"-> table p50 {n['table_p50']:.0f} ms p99 {n['table_p99']:.0f} ms; group lag p50 {n['lag_p50']:.2f} s "
            f"max {n['lag_max']:.2f} s; 429s {n['429s']:.0f}")
