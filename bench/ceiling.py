"""What one bot token can carry at Telegram's limits: moves a second for the Bot API calls a move makes.

Why: Telegram serves a bot about 30 messages a second in all (Bots FAQ), however fast the machine; at ~3
calls a move that is ~10 moves a second for the whole bot. Paid broadcasts (Bot API 7.11,
``allow_paid_broadcast``) lift sends to 1000 a second for 0.1 Star each, but only sends have the parameter:
edits, deletions and callback answers keep the free rate. So the ceiling is set by the calls of each kind.

Which calls count against the 30 a second follows the fake Bot API (tests/fakebot/ratelimit.py): sends and,
with ``count_edits`` (its default, and the bot's own pacing assumes it), edits; answerCallbackQuery, deletions
and getChatMember do not; an edit answered "message is not modified" is not counted (but is a round trip).
"""

from __future__ import annotations

FREE_PER_SECOND = 30  # Telegram's global rate for a bot (the bot paces at 30 per 1.1 s: bot/services/outbox.py)
PAID_PER_SECOND = 1000  # with allow_paid_broadcast
STARS_PER_PAID = 0.1
SENDS = frozenset({"sendMessage", "sendPhoto", "sendDocument", "sendMediaGroup", "copyMessage"})  # payable
EDITS = frozenset({"editMessageText", "editMessageReplyMarkup", "editMessageMedia", "editMessageCaption"})


def kind(method: str) -> str:
    if method in SENDS:
        return "send"
    if method in EDITS:
        return "edit"
    return "answerCallbackQuery" if method == "answerCallbackQuery" else "other"


def per_kind(served: dict[str, int], moves: int) -> dict[str, float]:
    """Calls a move of each kind, from the calls Telegram served (ok) by method."""
    out = dict.fromkeys(("send", "edit", "answerCallbackQuery", "other"), 0.0)
    for method, n in served.items():
        out[kind(method)] += n / max(1, moves)
    return out


def ceilings(kinds: dict[str, float], count_edits: bool = True) -> tuple[float, float]:
    """Moves a second one token carries: (free, with every send paid). A kind that is not counted costs nothing."""
    edits = kinds["edit"] if count_edits else 0.0
    counted = kinds["send"] + edits
    free = FREE_PER_SECOND / counted if counted else float("inf")
    paid_sends = PAID_PER_SECOND / kinds["send"] if kinds["send"] else float("inf")
    free_edits = FREE_PER_SECOND / edits if edits else float("inf")
    return free, min(paid_sends, free_edits)


def report(served: dict[str, int], moves: int, count_edits: bool = True) -> list[str]:
    kinds = per_kind(served, moves)
    free, paid = ceilings(kinds, count_edits)
    stars_h = kinds["send"] * paid * STARS_PER_PAID * 3600 if paid != float("inf") else float("inf")
    counted = "sends and edits" if count_edits else "sends"
    return [
        "Telegram's ceiling for one bot token (calls Telegram served during play, per move):",
        "    " + ", ".join(f"{k} {v:.3f}" for k, v in kinds.items()),
        f"    counted against the {FREE_PER_SECOND}/s (as the fake counts, count_edits={count_edits}): {counted}"
        f" = {kinds['send'] + (kinds['edit'] if count_edits else 0):.3f} a move",
        f"    free: {free:.1f} moves/s for the whole bot; with paid broadcasts (sends only, up to "
        f"{PAID_PER_SECOND}/s; edits still {FREE_PER_SECOND}/s): {paid:.1f} moves/s, paying every send: "
        f"{stars_h:,.0f} Stars an hour at that rate",
    ]
