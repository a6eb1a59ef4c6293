"""Karusele words: pick a hand card, then one of its captures or builds (``describe`` puts each in
words), or build a capture card by card; the table with its builds, the stock, what everyone has captured.

The capture builder: the second step of a hand card offers its few largest captures
as one-press shortcuts and a button that opens the builder, where the player toggles table cards
(a mark shows which would leave no way to finish the capture) and confirms; the engine checks
the capture and a refusal is shown translated."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.presentation import (
    BuilderPress,
    Cap,
    GameWords,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Menu,
    ModuleWords,
    deal_head,
    fit_caption,
    mark,
    points,
    score_line,
    totals,
    who,
    words,
)
from engine.cards import parse_card, pretty
from engine.core import IllegalAction, State
from games.karusele.moves import (
    Item,
    Refusal,
    capture_parts,
    capture_words,
    completable,
    is_court,
    parse,
    parse_group,
    read_take,
    value,
)
from games.karusele.picture import render_karusele
from games.karusele.rules import KaruseleState, table_item_view

t = GameWords("karusele").t  # the game's own catalog (games/karusele/locale), then the bot's

MAX_BUILDER_ITEMS = 40  # the chosen cards travel as a bit mask in 64 bytes of callback data

PICK_VERBS: frozenset[str] = frozenset()  # card groups, not card sets: never the card-by-card choice


def _pretty_group(text: str) -> str:
    cards, build = parse_group(text)
    inner = "+".join(pretty(parse_card(c)) for c in cards)
    return f"({inner})" if build else inner


def _join(parts: list[str], lang: str) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " " + t(lang, "and") + " " + parts[-1]


def describe(action: str, lang: str = "en") -> str:
    """Human text of an action: ``6♠ takes A♥+5♣ and 6♦`` / ``6♠ берёт A♥+5♣ и 6♦``."""
    verb, card_text, _ = parse(action)
    groups = action.split()[2:]
    card = pretty(parse_card(card_text))
    if verb == "sweep":
        return t(lang, "{card} sweeps the table", card=card)
    if verb == "trail":
        return t(lang, "{card} to the table", card=card)
    if verb == "take":
        return t(lang, "{card} takes {groups}", card=card, groups=_join([_pretty_group(g) for g in groups], lang))
    if verb == "build":
        base, extra = groups[0], groups[1:]
        cards, _ = parse_group(base)
        total = (value(parse_card(card_text)) or 0) + sum(value(parse_card(c)) or 0 for c in cards)
        text = t(lang, "{card} on {base}: build of {total}", card=card, base=_pretty_group(base), total=total)
        if extra:
            text += ", " + t(lang, "also {groups}", groups=_join([_pretty_group(g) for g in extra], lang))
        return text
    raise ValueError(f"not a Karusele action: {action!r}")


def action_label(action: str, lang: str) -> str | None:
    return describe(action, lang)


def group_key(action: str) -> str:
    """One button per hand card; its captures, builds and the trail are the second step."""
    return action.split()[1]


def group_label(action: str, lang: str) -> str:
    return words.cards([action.split()[1]])


def _item(item: dict[str, Any], names: Sequence[str]) -> str:
    if item.get("build"):
        inner = "+".join(words.cards([c]) for c in item["cards"])
        return f"[{inner}={item['value']} {who(names, item.get('owner'))}]"
    return words.cards(item["cards"])


def event_line(event: dict[str, Any], names: Sequence[str], lang: str) -> str | None:
    kind = event.get("type")
    if kind == "deal":
        return t(lang, "Deal {k}: {dealer} deals; on the table: {cards}", k=event["deal_no"],
                 dealer=who(names, event["dealer"]), cards=words.cards(event["table"]) or "—")
    if kind == "redeal":
        return t(lang, "Four more cards each; {n} left in the stock.", n=event["stock_count"])
    if kind in ("trail", "take", "sweep", "build"):
        icon = {"take": "🎣 ", "build": "🏗 "}.get(kind, "")
        return f"{icon}{who(names, event['seat'])}: {describe(event['action'], lang)}"
    if kind == "rest":
        return t(lang, "{who} takes the rest of the table: {cards}", who=who(names, event["seat"]),
                 cards=words.cards(event["cards"]))
    if kind == "deal_end":
        return t(lang, "Deal over: {points}. Totals: {totals}", points=points(names, event["points"]),
                 totals=totals(names, event["totals"]))
    return None


def table_lines(view: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
    head = deal_head(view, lang)
    head += " · " + t(lang, "stock {n}", n=view.get("stock_count", 0))
    head += " · " + t(lang, "game to {n}", n=view.get("target"))
    lines = [head]
    table = view.get("table") or []
    lines.append(t(lang, "On the table: {cards}", cards=" ".join(_item(i, names) for i in table) or "—"))
    teams = view.get("teams")
    for seat in range(view["players"]):
        got = view["captured"][seat]
        bits = [t(lang, "{n} cards in hand", n=view["hand_counts"][seat]),
                t(lang, "captured {n} ({spades}♠)", n=got["cards"], spades=got["spades"])]
        if got.get("specials"):
            bits.append(words.cards(got["specials"]))
        bits.append(t(lang, "{n} points this deal", n=got["side_points"]))
        partner = ""
        if teams:
            partner = " (" + t(lang, "team {k}", k=seat % 2 + 1) + ")"
        dealer = " 🂠" if seat == view.get("dealer") else ""
        lines.append(f"{who(names, seat)}{partner}{dealer}: " + ", ".join(bits) + mark(view, seat))
    score = score_line(view, names, lang)
    if score:
        lines.append(score)
    return lines


def table_chapter(view: dict[str, Any]) -> str:
    """A fresh table message for each round of four cards, so it stays near the log it goes with."""
    return str(view.get("stock_count", 0))


# --- the capture builder -------------------------------------------------------------------------

def menu_buttons(table_id: int, version: int, actions: Sequence[str], lang: str) -> list[list[InlineKeyboardButton]]:
    """Under a hand card's shortcuts: the button that opens the capture builder for that card."""
    card = actions[0].split()[1] if actions else ""
    try:
        code = parse_card(card)
    except ValueError:
        return []
    if value(code) is None and not is_court(code):
        return []  # the broom sweeps: nothing to choose
    data = Cap(t=table_id, v=version, c=card).pack()
    return [[InlineKeyboardButton(text="🧩 " + t(lang, "Choose the cards to take…"), callback_data=data)]]


def chosen_items(optional: Sequence[int], mask: int) -> list[int]:
    """The table indices a builder mask selects (bit j: the j-th optional item)."""
    return [i for j, i in enumerate(optional) if mask >> j & 1]


def builder_keyboard(table_id: int, version: int, card: str, table: list[Item], mask: int,
                     lang: str) -> InlineKeyboardMarkup:
    """Toggle the table cards the capture may add (✅ chosen, 🚫 no longer completable), then confirm."""
    code = parse_card(card)
    equal, optional = capture_parts(code, table)
    chosen = chosen_items(optional, mask)
    buttons = []
    for j, i in enumerate(optional):
        on = bool(mask >> j & 1)
        label = pretty(table[i]["cards"][0])
        if on:
            label = "✅ " + label
        elif not completable(code, table, [*chosen, i]):
            label = "🚫 " + label
        buttons.append(InlineKeyboardButton(
            text=label, callback_data=Cap(t=table_id, v=version, c=card, m=mask ^ (1 << j)).pack()))
    rows = [buttons[k:k + 4] for k in range(0, len(buttons), 4)]
    count = len(equal) + len(chosen)
    last = [InlineKeyboardButton(text="« " + t(lang, "Back"), callback_data=Menu(t=table_id, v=version, g=-1).pack())]
    if count:  # nothing chosen and nothing taken in any case: nothing to take yet
        submit = t(lang, "Take ({n})", n=count)
        try:
            read_take(code, capture_words(code, table, chosen).split()[2:], table)
            submit = "✔️ " + submit  # a legal capture as it stands
        except Refusal:
            pass
        last.insert(0, InlineKeyboardButton(text=submit,
                                            callback_data=Cap(t=table_id, v=version, c=card, m=mask, go=1).pack()))
    rows.append(last)
    return InlineKeyboardMarkup(inline_keyboard=rows)


def builder_line(card: str, table: list[Item], lang: str) -> str:
    """The text above the builder: which card captures, and what it takes in any case."""
    equal, _ = capture_parts(parse_card(card), table)
    line = t(lang, "Capture with {card}: tap the table cards to take, then confirm.", card=words.cards([card]))
    if equal:
        always = " ".join(_pretty_item(table[i]) for i in equal)
        line += "\n" + t(lang, "Taken in any case (same value): {cards}", cards=always)
    return line


def _pretty_item(item: Item) -> str:
    """``7♦``, or a build as ``(5♣+A♥)=6``."""
    shown = table_item_view(item)
    inner = "+".join(words.cards([c]) for c in shown["cards"])
    return f"({inner})={shown['value']}" if shown.get("build") else inner


def refusal_text(template: str, params: dict[str, Any], lang: str) -> str:
    """An engine refusal (``IllegalAction.template``/``params``) in the player's language."""
    known = {
        "{group} adds up to {total}, not {value}": t(lang, "{group} adds up to {total}, not {value}"),
        "{cards} add up to {total}, which is not whole groups of {value}":
            t(lang, "{cards} add up to {total}, which is not whole groups of {value}"),
        "{cards} cannot be split into groups of {value} each": t(lang, "{cards} cannot be split into groups of "
                                                                     "{value} each"),
        "{item} is worth {value} too: a capture takes every card and build of its value":
            t(lang, "{item} is worth {value} too: a capture takes every card and build of its value"),
        "name the table cards that {card} takes": t(lang, "name the table cards that {card} takes"),
        "{card} is not on the table": t(lang, "{card} is not on the table"),
        "{card} is not in your hand": t(lang, "{card} is not in your hand"),
        "a court card takes one court of its rank, or all three when three lie on the table":
            t(lang, "a court card takes one court of its rank, or all three when three lie on the table"),
        "the build {build} is taken whole and on its own": t(lang, "the build {build} is taken whole and on its own"),
        "the build {build} is worth {total}, not {value}": t(lang, "the build {build} is worth {total}, not {value}"),
    }
    text = known.get(template)
    if text is None:
        return t(lang, "That move is not available.")
    return _sentence(text.format(**{k: _pretty_param(v) for k, v in params.items()}))


def _sentence(text: str) -> str:
    """An alert reads as a sentence: the engine's reasons start in lower case (they go after a colon in logs)."""
    return text[:1].upper() + text[1:]


def _pretty_param(value: Any) -> str:
    """Card codes in a refusal's values with suit symbols (``5C+4D`` -> ``5♣+4♦``)."""
    text = str(value)
    out = []
    for part in text.replace("(", " ( ").replace(")", " ) ").replace("+", " + ").split():
        try:
            out.append(pretty(parse_card(part)))
        except ValueError:
            out.append(part)
    return "".join(out)


class Karusele(ModuleWords):
    """Karusele: buttons grouped by hand card, the capture builder, its own table picture."""

    pick_verbs = PICK_VERBS

    def action_label(self, action: str, lang: str) -> str:
        return describe(action, lang)

    def group_key(self, action: str) -> str:
        return group_key(action)

    def group_label(self, first_action: str, lang: str) -> str:
        return group_label(first_action, lang)

    def menu_buttons(self, table_id: int, version: int, actions: Sequence[str],
                     lang: str) -> list[list[InlineKeyboardButton]]:
        return menu_buttons(table_id, version, actions, lang)

    def table_chapter(self, view: dict[str, Any]) -> str | None:
        return table_chapter(view)

    def builder_press(self, state: State, seat: int, card: str, mask: int, submit: bool, lang: str) -> BuilderPress:
        refused = BuilderPress(refusal=t(lang, "That move is not available."))
        if not isinstance(state, KaruseleState):
            return refused
        try:
            code = parse_card(card)
        except ValueError:
            return refused
        _, optional = capture_parts(code, state.table)
        if code not in state.hands[seat] or not 0 <= mask < 1 << len(optional) or len(optional) > MAX_BUILDER_ITEMS:
            return refused
        if not submit:
            # Only a card that leaves a way to finish the capture may be chosen (the others are marked 🚫);
            # taking one off always leaves one, since the cards it could have finished with are there again.
            if not completable(code, state.table, chosen_items(optional, mask)):
                dead_end = t(lang, "That card leaves no way to finish this capture (it is marked 🚫).")
                return BuilderPress(refusal=dead_end)
            return BuilderPress()
        try:
            return BuilderPress(action=state.canonical(capture_words(code, state.table, chosen_items(optional, mask))))
        except IllegalAction as exc:
            return BuilderPress(refusal=refusal_text(getattr(exc, "template", ""), getattr(exc, "params", {}), lang))

    def builder_keyboard(self, state: State, table_id: int, version: int, card: str, mask: int,
                         lang: str) -> tuple[str, InlineKeyboardMarkup]:
        assert isinstance(state, KaruseleState)
        return (builder_line(card, state.table, lang),
                builder_keyboard(table_id, version, card, state.table, mask, lang))

    def draw_table(self, view: dict[str, Any], names: list[str], lang: str) -> bytes:
        return render_karusele(view, names, lang)

    def table_caption(self, view: dict[str, Any], names: list[str], lang: str) -> str:
        """The table's own words, as the text table has them."""
        return fit_caption(table_lines(view, names, lang))


PRESENTATION = Karusele("karusele", lines=table_lines, line=event_line)
