"""House rules typed wrong, said in the reader's language: which option, what it takes, what was typed.

The engine reports the problems as data (``OptionsError.problems``); what an option takes is read from
the game's options model (a whole number from 1 to 4, one of a few words, true or false), or, for the
few a type cannot say (a list of hand sizes), from the declaration's description of the option. What
a person typed is cut short and escaped: it is user input.
"""

from __future__ import annotations

from typing import Any, Literal, get_args, get_origin

import games
from bot.ui.i18n import GameWords, t
from bot.ui.words import TYPED, typed
from engine.core import OptionProblem, get_game

SHOWN = 3  # problems told; a longer list ends with how many more


def _code(value: Any, limit: int = TYPED) -> str:
    """A name or value as code: cut (it may be user input) and escaped."""
    return f"<code>{typed(value, limit)}</code>"


def accepts(game: str, key: str, lang: str) -> str:
    """What the option takes, in words ("a whole number from 1 to 4")."""
    field = get_game(game).options.model_fields.get(key)
    kind = field.annotation if field is not None else None
    if kind is bool:
        return t(lang, "{yes} or {no}", yes=_code("true"), no=_code("false"))
    if kind is int and field is not None:
        low = next((m.ge for m in field.metadata if hasattr(m, "ge")), None)
        high = next((m.le for m in field.metadata if hasattr(m, "le")), None)
        if low is not None and high is not None:
            return t(lang, "a whole number from {low} to {high}", low=low, high=high)
        return t(lang, "a whole number")
    if get_origin(kind) is Literal:
        return t(lang, "one of: {values}", values=", ".join(_code(v) for v in get_args(kind)))
    declared = {option.key: option for option in games.declaration(game).options}
    if key in declared:
        return GameWords(game).t(lang, declared[key].description)
    return t(lang, "see /rules {game}", game=game)


def problem_line(game: str, problem: OptionProblem, lang: str) -> str:
    """One problem, in a sentence that names the option."""
    if problem.kind == "unknown":
        known = ", ".join(_code(k) for k in get_game(game).options.model_fields) or "—"
        return t(lang, "there is no house rule {key}; this game's are: {known}.", key=_code(problem.key), known=known)
    if problem.kind == "form":
        return t(lang, "{word}: write a house rule as name=value, for example {example}.",
                 word=_code(problem.key), example=_code(_example(game)))
    if problem.kind == "together":
        return t(lang, "these values do not work together: {values} (/rules {game} explains the rules).",
                 values=typed(problem.given, 120) if problem.given else "—", game=game)
    return t(lang, "{key} takes {accepts}, not “{given}”.", key=_code(problem.key),
             accepts=accepts(game, problem.key, lang), given=typed(problem.given))


def options_error(game: str, problems: tuple[OptionProblem, ...], lang: str) -> str:
    """The reply to house rules that do not work: a line per problem (the first few), the rest counted."""
    lines = [t(lang, "Those house rules don't work:")]
    lines += ["• " + problem_line(game, problem, lang) for problem in problems[:SHOWN]]
    if len(problems) > SHOWN:
        lines.append(t(lang, "…and {n} more.", n=len(problems) - SHOWN))
    return "\n".join(lines)


def _example(game: str) -> str:
    """``key=value`` of the game's first option, at its default."""
    for key, field in get_game(game).options.model_fields.items():
        value = field.default
        return f"{key}={str(value).lower() if isinstance(value, bool) else value}"
    return "name=value"
