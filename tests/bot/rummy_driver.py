"""Playing a rummy through the bot as people do: Hint, Lay down, Confirm (a joker question answered),
otherwise a verb. Shared by the rummy end-to-end tests and the bench."""

from __future__ import annotations

import random
from typing import Any

from bot.ui.callbacks import Toggle
from tests.bot.harness import find, settle
from tests.fakebot.models import StoredMessage
from tests.fakebot.server import FakeTelegram
from tests.fakebot.users import FakeChat, FakeUser

VERB_ORDER = (0, 3, 1, 2)  # draw, end, pass, knock (abandon never)


def rum_buttons(message: StoredMessage) -> list[tuple[Toggle, dict[str, Any]]]:
    out = []
    for b in message.buttons:
        data = str(b.get("callback_data", ""))
        if data.startswith("rm:"):
            out.append((Toggle.unpack(data), b))
    return out


def live_rummy(users: list[FakeUser]) -> tuple[FakeUser, StoredMessage] | None:
    """The newest DM message with rummy buttons (a proposal, else a hand), of whoever has one."""
    for user in users:
        for message in reversed(user.inbox(include_deleted=False)):
            if rum_buttons(message):
                return user, message
    return None


async def press(fake: FakeTelegram, user: FakeUser, message: StoredMessage, button: dict[str, Any]) -> Any:
    data = button["callback_data"]

    def same(b: dict[str, Any]) -> bool:
        return bool(b.get("callback_data") == data)

    record = await user.press(message, same)
    await fake.wait_until(lambda: record.answered, timeout=20, what="the callback answer")
    return record


async def play_rummy(fake: FakeTelegram, app: Any, group: FakeChat, users: list[FakeUser], rng: random.Random,
                     max_presses: int = 3000, toggles: float = 0.0) -> dict[str, int]:
    """Play until the group sees 🏁. ``toggles``: the chance of a random card toggle first (a person
    fiddling), which the next Hint replaces. Returns counts of presses by op."""
    counts: dict[str, int] = {}
    tried: set[tuple[int, int, str]] = set()  # (table, version, op) already tried: hint, lay
    presses = 0
    while True:
        await settle(fake, app)
        if find(group, "🏁") is not None:
            return counts
        found = live_rummy(users)
        assert found is not None, "nobody has a rummy keyboard, but the game is not over"
        user, message = found
        buttons = rum_buttons(message)
        ops = {data.op: (data, b) for data, b in buttons}
        data0 = buttons[0][0]
        choice: tuple[Toggle, dict[str, Any]] | None = None
        if "ok" in ops:
            choice = ops["ok"]
        elif "jk" in ops:
            choice = rng.choice([x for x in buttons if x[0].op == "jk"])
        elif toggles and (data0.t, data0.v, "hint") not in tried and rng.random() < toggles \
                and any(d.op in ("on", "off") for d, _ in buttons):
            choice = rng.choice([x for x in buttons if x[0].op in ("on", "off")])
        elif "hint" in ops and (data0.t, data0.v, "hint") not in tried:
            tried.add((data0.t, data0.v, "hint"))
            choice = ops["hint"]
        elif "lay" in ops and (data0.t, data0.v, "lay") not in tried and "(0)" not in ops["lay"][1]["text"]:
            tried.add((data0.t, data0.v, "lay"))
            choice = ops["lay"]
        else:
            verbs = {d.a: (d, b) for d, b in buttons if d.op == "do"}
            for a in VERB_ORDER:
                if a in verbs:
                    choice = verbs[a]
                    break
        if choice is None and "hint" in ops:  # nothing else to do: take the hint again
            tried.discard((data0.t, data0.v, "lay"))
            choice = ops["hint"]
        assert choice is not None, f"no move on {message.content[-300:]!r} {message.button_texts}"
        await press(fake, user, message, choice[1])
        counts[choice[0].op] = counts.get(choice[0].op, 0) + 1
        presses += 1
        assert presses < max_presses, "the game does not end"
