"""The league's application layer: /top, /stats, /h2h, admin actions, export, and closing seasons.

Reads and writes go through the store's transactions like every other service; what the chat sees
goes through the outbox (pictures are described as specs and drawn at delivery). Every command acts
on the league of the chat (and topic) it came from only; admin rights are checked by the handler.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bot.league import clock, names, pictures, queries
from bot.league import store as db
from bot.league.matches import record_finished
from bot.league.recompute import recompute
from bot.league.seasons import ALL, KINDS, SeasonRule, is_key, midnight, season_end
from bot.services import outbox as out
from bot.services.outbox import Outbox
from bot.services.periodic import Periodic
from bot.services.types import Where
from bot.store.contract import Store
from bot.store.contract import StoreTx as Tx
from bot.store.rows import SeatRow, TableRow
from bot.ui import words
from bot.ui.i18n import t
from engine.core import State

log = logging.getLogger(__name__)

TICK = 60.0  # seconds between looks for a season that has ended


@dataclass
class PlayerRef:
    """Who a command names: a user id (a text mention, a reply, the sender) or an @username / name."""

    user_id: int | None = None
    text: str = ""
    name: str = ""
    end: int = 0  # where the mention ends in the command's text (what follows is e.g. the reason)


def fit_lines(text: str, limit: int) -> str:
    """Whole lines of ``text`` up to ``limit`` characters: cutting inside a line could split an HTML entity
    or tag of an escaped name, which Telegram refuses."""
    kept: list[str] = []
    size = 0
    for line in text.split("\n"):
        if size + len(line) + 1 > limit:
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join(kept) or "…"


def league_note(lang: str) -> str:
    """What counts as a match (for /help and /rules)."""
    return t(lang, "League: every table played to the end of the game is a match and is rated (OpenSkill). "
                   "A cancelled or abandoned table never counts, however far it got. More: /rules league")


def league_rules(lang: str) -> str:
    """``/rules league``: what a match is, how ratings and seasons work."""
    return "\n\n".join([
        "🏆 <b>" + t(lang, "The league") + "</b>",
        league_note(lang),
        t(lang, "Ratings: OpenSkill's Thurstone-Mosteller model with full pairing, per game and for all games "
                "together. Every side is compared with every other; shared places are ties. Fixed partnerships "
                "(Karusele 2 v 2) are rated as teams; games whose partners change every deal are rated by each "
                "seat's final total. AI seats are rated as players of their own."),
        t(lang, "The rating is a cautious measure of skill: what a player's results so far prove with high "
                "confidence. It starts at 0 and grows as good results add up; a rating from fewer than 5 games is "
                "still unsure and is marked ? (provisional)."),
        t(lang, "Seasons are monthly unless the chat's admins choose quarterly, none or a number of days "
              "(/league season). A match counts in the season in which it ended. When a season ends, its final "
              "table is posted here and kept: /top GAME SEASON."),
    ])


class League:
    """One per bot: answers league commands and, while the bot polls, closes seasons as they end."""

    def __init__(self, store: Store, outbox: Outbox, pictures: bool) -> None:
        self.store = store
        self.outbox = outbox
        self.pictures = pictures
        self._job = Periodic("league-seasons", lambda: TICK, self.rollover)  # a bug must not stop seasons closing

    # -- helpers ---------------------------------------------------------------------------------
    async def _scope(self, tx: Tx, where: Where) -> tuple[int, SeasonRule]:
        rule, per_topic = await db.config(tx, where.chat_id)
        return (where.thread_id if per_topic else 0), rule

    async def say(self, where: Where, text: str) -> None:
        async with self.store.transaction() as tx:
            await out.send_text(tx, where.chat_id, text, thread_id=where.thread_id)
        self.outbox.wake()

    async def _show(self, tx: Tx, chat_id: int, thread_id: int, spec: dict[str, Any], caption: str) -> None:
        """A picture when the bot draws pictures, else the caption as a message."""
        if self.pictures:
            await out.send_picture(tx, chat_id, spec, fit_lines(caption, 1024), thread_id=thread_id)
        else:
            await out.send_text(tx, chat_id, fit_lines(caption, 4000), thread_id=thread_id)

    async def _resolve(self, tx: Tx, where: Where, topic: int, ref: PlayerRef) -> tuple[int, str] | None:
        if ref.user_id is not None:
            row = await tx.user(ref.user_id)
            return ref.user_id, ref.name or (row.first_name if row else str(ref.user_id))
        return await queries.find_player(tx, where.chat_id, topic, ref.text.lstrip("@"))

    # -- /top ----------------------------------------------------------------------------------------
    async def top(self, where: Where, game: str | None, season: str | None) -> None:
        """``/top [game] [season]``: the current season unless one is named (an archived one, say)."""
        lang = where.lang
        now = clock.now()
        async with self.store.read() as tx:
            topic, rule = await self._scope(tx, where)
            current = rule.key(now)
            known = await queries.seasons(tx, where.chat_id, topic)
            chosen = season or current
            rows = await queries.top(tx, where.chat_id, topic, chosen, game, now) if chosen in known else []
        if chosen not in known and chosen != current:
            await self.say(where, t(lang, "No season {season} here. Seasons: {known}", season=words.typed(chosen),
                                    known=", ".join(known[:8]) or current))
            return
        if not rows:
            await self.say(where, t(lang, "No rated matches in this league for {what} in season {season} yet.",
                                    what=pictures.game_title(lang, game), season=chosen))
            return
        spec, caption = pictures.top_picture(lang, game, chosen, rows)
        async with self.store.transaction() as tx:
            await self._show(tx, where.chat_id, where.thread_id, spec, caption)
        self.outbox.wake()

    # -- /stats --------------------------------------------------------------------------------------
    async def stats(self, where: Where, ref: PlayerRef) -> None:
        lang = where.lang
        async with self.store.read() as tx:
            topic, rule = await self._scope(tx, where)
            found = await self._resolve(tx, where, topic, ref)
            games = await queries.stats(tx, where.chat_id, topic, rule.key(clock.now()), found[0]) if found else []
        if found is None:
            await self.say(where, t(lang, "I don't know {who} in this chat's league.", who=words.typed(ref.text)))
            return
        name = names.clean(found[1])
        if not games:
            await self.say(where, t(lang, "{who} has no matches in this league yet.", who=words.name(name)))
            return
        spec, caption = pictures.stats_picture(lang, name, rule.key(clock.now()), games)
        async with self.store.transaction() as tx:
            await self._show(tx, where.chat_id, where.thread_id, spec, caption)
        self.outbox.wake()

    # -- /h2h ----------------------------------------------------------------------------------------
    async def h2h(self, where: Where, a_ref: PlayerRef, b_ref: PlayerRef) -> None:
        lang = where.lang
        async with self.store.read() as tx:
            topic, _ = await self._scope(tx, where)
            a = await self._resolve(tx, where, topic, a_ref)
            b = await self._resolve(tx, where, topic, b_ref)
            result = await queries.head_to_head(tx, where.chat_id, topic, a[0], b[0]) if a and b else None
        for ref, found in ((a_ref, a), (b_ref, b)):
            if found is None:
                await self.say(where, t(lang, "I don't know {who} in this chat's league.", who=words.typed(ref.text)))
                return
        assert a is not None and b is not None and result is not None
        if a[0] == b[0]:
            await self.say(where, t(lang, "Name two different players: /h2h @a @b"))
            return
        a_name, b_name = names.clean(a[1]), names.clean(b[1])
        if not result.meetings:
            await self.say(where, t(lang, "{a} and {b} have not met in this league yet.", a=words.name(a_name),
                                    b=words.name(b_name)))
            return
        spec, caption = pictures.h2h_picture(lang, a_name, b_name, result)
        async with self.store.transaction() as tx:
            await self._show(tx, where.chat_id, where.thread_id, spec, caption)
        self.outbox.wake()

    # -- admin ---------------------------------------------------------------------------------------
    async def settings_text(self, where: Where) -> str:
        lang = where.lang
        async with self.store.read() as tx:
            rule, per_topic = await db.config(tx, where.chat_id)
            topic = where.thread_id if per_topic else 0
            excluded = len(await db.excluded(tx, where.chat_id, topic))
        kind = {"month": t(lang, "monthly"), "quarter": t(lang, "quarterly"), "none": t(lang, "no seasons"),
                "days": t(lang, "every {days} days", days=rule.days)}[rule.kind]
        return "\n".join([
            "🏆 " + t(lang, "League: seasons {kind}; current season {season}; a league per topic: {topics}; "
                            "excluded players: {excluded}.", kind=kind, season=rule.key(clock.now()),
                      topics=t(lang, "yes") if per_topic else t(lang, "no"), excluded=excluded),
            league_note(lang),
            t(lang, "Admins: /league season month|quarter|none|DAYS · /league topics on|off · "
                    "/league exclude @user REASON · /league include @user · /league matches · "
                    "/league remove MATCH REASON · /league export · /league recompute"),
        ])

    async def set_season(self, where: Where, admin_id: int, value: str) -> str:
        lang = where.lang
        value = value.lower()
        if value.isdigit() and 1 <= int(value) <= 366:
            rule = SeasonRule("days", int(value), midnight(clock.now()))
        elif value in KINDS and value != "days":
            rule = SeasonRule(value)
        else:
            return t(lang, "Seasons can be: month, quarter, none, or a number of days (1-366).")
        async with self.store.transaction() as tx:
            _, per_topic = await db.config(tx, where.chat_id)
            await db.set_config(tx, where.chat_id, rule, per_topic)
            await db.log(tx, where.chat_id, 0, clock.now(), admin_id, "season", value)
        log.info("league %s: seasons set to %s by %s", where.chat_id, value, admin_id)
        return t(lang, "Seasons set; the current season is {season}.", season=rule.key(clock.now()))

    async def set_topics(self, where: Where, admin_id: int, on: bool) -> str:
        async with self.store.transaction() as tx:
            rule, _ = await db.config(tx, where.chat_id)
            await db.set_config(tx, where.chat_id, rule, on)
            await db.log(tx, where.chat_id, 0, clock.now(), admin_id, "topics", "on" if on else "off")
        return t(where.lang, "Each forum topic keeps its own league from now on.") if on else \
            t(where.lang, "The whole chat keeps one league from now on.")

    async def exclude(self, where: Where, admin_id: int, ref: PlayerRef, reason: str, on: bool) -> str:
        """Exclude a player (their seats are left out of every rating, past and future) or include them again."""
        lang = where.lang
        if on and not reason:
            return t(lang, "Give a reason: /league exclude @user REASON")
        async with self.store.transaction() as tx:
            topic, _ = await self._scope(tx, where)
            found = await self._resolve(tx, where, topic, ref)
            if found is None:
                return t(lang, "I don't know {who} in this chat's league.", who=words.typed(ref.text))
            player, name = found
            changed = await db.set_excluded(tx, where.chat_id, topic, player, on)
            if changed:
                await db.log(tx, where.chat_id, topic, clock.now(), admin_id, "exclude" if on else "include",
                             str(player), reason)
                await recompute(tx, where.chat_id)
        log.info("league %s/%s: %s %s by %s: %s", where.chat_id, topic, "exclude" if on else "include", player,
                 admin_id, reason)
        who = words.name(names.clean(name))
        if not changed:
            return t(lang, "Nothing to change for {who}.", who=who)
        return (t(lang, "{who} is excluded from the league; ratings were recomputed.", who=who) if on
                else t(lang, "{who} is in the league again; ratings were recomputed.", who=who))

    async def remove(self, where: Where, admin_id: int, match_id: int, reason: str) -> str:
        lang = where.lang
        if not reason:
            return t(lang, "Give a reason: /league remove MATCH REASON")
        async with self.store.transaction() as tx:
            topic, _ = await self._scope(tx, where)
            if not await db.remove_match(tx, where.chat_id, topic, match_id, reason):
                return t(lang, "There is no match {id} in this league.", id=match_id)
            await db.log(tx, where.chat_id, topic, clock.now(), admin_id, "remove", str(match_id), reason)
            await recompute(tx, where.chat_id)
        log.info("league %s/%s: match %s removed by %s: %s", where.chat_id, topic, match_id, admin_id, reason)
        return t(lang, "Match {id} is removed from the league; ratings were recomputed.", id=match_id)

    async def matches_text(self, where: Where) -> str:
        lang = where.lang
        async with self.store.read() as tx:
            topic, _ = await self._scope(tx, where)
            rows = await queries.recent_matches(tx, where.chat_id, topic)
            cups = await tx.league_tournaments(where.chat_id, topic)
        if not rows:
            return t(lang, "No matches in this league yet.")
        lines = [t(lang, "Recent matches (the number is for /league remove):")]
        for r in rows:
            when = datetime.fromtimestamp(r["finished_at"], UTC).strftime("%Y-%m-%d")
            mark = " ✖" if r["removed"] else ""
            lines.append(f"#{r['id']} {when} {words.title(r['game'], lang)}: "
                         f"{words.name(names.clean(r['who'])[:120])}{mark}")
        if cups:
            lines += ["", t(lang, "Tournaments:")]
        for at, target in cups:
            game, _, ranking = target.partition(": ")
            when = datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d")
            lines.append(f"🏆 {when} {words.title(game, lang)}: {words.name(names.clean(ranking)[:300])}")
        return "\n".join(lines)

    async def export(self, where: Where, admin_id: int, dm_open: bool) -> str:
        """The league as CSV, sent to the admin's DM (not the group)."""
        lang = where.lang
        if not dm_open:
            return t(lang, "Open a chat with me first (press Start in my DM), then ask again: the file goes there.")
        async with self.store.transaction() as tx:
            topic, _ = await self._scope(tx, where)
            data = await queries.export_csv(tx, where.chat_id, topic)
            stamp = datetime.fromtimestamp(clock.now(), UTC).strftime("%Y%m%d")
            await out.send_document(tx, admin_id, data, f"kozyr-league-{abs(where.chat_id)}-{stamp}.csv",
                                    t(await tx.user_lang(admin_id), "League matches of {chat}",
                                      chat=words.name(where.title or "?")))
        self.outbox.wake()
        return t(lang, "The league's CSV is in your DM.")

    async def recompute(self, where: Where, admin_id: int) -> str:
        async with self.store.transaction() as tx:
            count = await recompute(tx, where.chat_id)
            await db.log(tx, where.chat_id, 0, clock.now(), admin_id, "recompute", str(count))
        return t(where.lang, "Ratings recomputed from {count} matches.", count=count)

    # -- seasons -------------------------------------------------------------------------------------
    async def rollover(self) -> int:
        """Archive every season that has ended and post its final table; returns how many were closed."""
        now = clock.now()
        closed = 0
        async with self.store.read() as tx:
            candidates = [c for c in await queries.open_seasons(tx)
                          if c[2] != ALL and is_key(c[2]) and (season_end(c[2]) or now + 1) <= now]
        for chat_id, topic, season in candidates:
            async with self.store.transaction() as tx:
                if not await db.archive_season(tx, chat_id, topic, season, now):
                    continue  # closed meanwhile
                lang = await tx.chat_lang(chat_id)
                rows = await queries.top(tx, chat_id, topic, season, None, now)
                if rows:
                    spec, caption = pictures.top_picture(lang, None, season, rows, final=True)
                    await self._show(tx, chat_id, topic, spec, caption)
            closed += 1
        if closed:
            self.outbox.wake()
        return closed

    async def table_finished(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: State) -> None:
        """The play service's "table finished" event (bot/app.py subscribes this): every table played to
        its end is a match, recorded and rated in the final move's transaction (in its own savepoint)."""
        await record_finished(tx, row, seats, state)

    async def tournament_result(self, tx: Tx, chat_id: int, thread_id: int, game: str,
                                ranking: list[tuple[int, str, float]]) -> None:
        """A tournament's final ranking (bot/tournaments/, through the root's ``TournamentResult`` port): kept in
        the league's log of this chat (and topic, when the chat keeps a league per topic); its tables were
        rated one by one as they finished."""
        _, per_topic = await db.config(tx, chat_id)
        summary = "; ".join(f"{i + 1}. {name} ({points:g})" for i, (_, name, points) in enumerate(ranking[:8]))
        await db.log(tx, chat_id, thread_id if per_topic else 0, clock.now(), 0, "tournament", f"{game}: {summary}")

    async def start(self) -> None:
        self._job.start()

    async def stop(self) -> None:
        await self._job.stop()
