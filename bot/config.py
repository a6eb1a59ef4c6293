"""Settings from the environment or ``.env`` (see .env.example), checked before anything heavy is imported.

Only pydantic is imported here, so ``python -m bot`` reports a bad setting in a fraction of a second,
one line per problem, and never repeats a secret back (the token, a password in a URL).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

TOKEN = re.compile(r"^\d{1,20}:[A-Za-z0-9_-]{20,}$")
SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
APP_NAME = re.compile(r"^[A-Za-z0-9_]{3,30}$")
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def mask_url(url: str) -> str:
    """``scheme://user:password@host`` with the password replaced by ``***``."""
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)


class Settings(BaseSettings):
    """Everything the bot reads at start; tests build one directly."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore", env_ignore_empty=True,
                                      hide_input_in_errors=True)

    bot_token: str = Field(default="", alias="BOT_TOKEN", description="the token from @BotFather (required)")
    database_url: str = Field(default="sqlite:///data/kozyr.sqlite3", alias="DATABASE_URL",
                              description="SQLite file: sqlite:///relative/path or sqlite:////absolute/path; "
                                          "or PostgreSQL: postgresql://user@host/db (pip install kozyr[postgres])")
    redis_url: str | None = Field(default=None, alias="REDIS_URL",
                                  description="Redis for Telegram's limits shared by several workers "
                                              "(redis://host:6379/0); without it, one worker")
    telegram_api_url: str | None = Field(default=None, alias="TELEGRAM_API_URL",
                                         description="another Bot API server (self-hosted or a test server)")
    webhook_url: str | None = Field(default=None, alias="WEBHOOK_URL",
                                    description="public https URL: webhook mode instead of long polling; "
                                                "Telegram posts to <WEBHOOK_URL>/webhook")
    webhook_host: str = Field(default="127.0.0.1", alias="WEBHOOK_HOST",
                              description="address the webhook server listens on (0.0.0.0: all interfaces)")
    webhook_port: int = Field(default=8080, alias="WEBHOOK_PORT", ge=1, le=65535,
                              description="port the webhook server listens on (also serves /healthz)")
    webhook_secret: str | None = Field(default=None, alias="WEBHOOK_SECRET",
                                       description="secret_token Telegram must send with every update "
                                                   "(A-Z a-z 0-9 _ -, up to 256); a random one per start if unset")
    bot_owner_id: int | None = Field(default=None, alias="BOT_OWNER_ID",
                                     description="Telegram user id allowed to use /status")
    log_level: str = Field(default="INFO", alias="LOG_LEVEL", description="DEBUG, INFO, WARNING or ERROR")
    log_format: Literal["text", "json"] = Field(default="text", alias="LOG_FORMAT",
                                                description="text lines, or json (one JSON object a line)")
    stop_grace: float = Field(default=10.0, alias="KOZYR_STOP_GRACE", ge=0,
                              description="seconds to deliver queued messages after SIGTERM/SIGINT")
    sqlite_driver: str = Field(default="inline", alias="KOZYR_SQLITE_DRIVER",
                               description="inline (sqlite3 on the event loop) or thread (aiosqlite)")
    # Outbox pacing, kept under Telegram's limits; tests shorten them.
    per_chat_interval: float = Field(default=1.05, alias="KOZYR_PER_CHAT_INTERVAL", ge=0,
                                     description="seconds between two messages to one chat")
    group_per_minute: int = Field(default=20, alias="KOZYR_GROUP_PER_MINUTE", ge=1,
                                  description="messages a minute to one group")
    global_per_second: int = Field(default=30, alias="KOZYR_GLOBAL_PER_SECOND", ge=1,
                                   description="messages a second in all")
    paid_broadcast_stars_per_hour: float = Field(
        default=0.0, alias="KOZYR_PAID_BROADCAST_STARS_PER_HOUR", ge=0,
        description="Telegram Stars an hour the bot may spend on paid broadcasts (0.1 Star a new message sent "
                    "past the free 30 a second instead of waiting; edits always wait); 0: off")
    ephemeral_counts: bool = Field(
        default=True, alias="KOZYR_EPHEMERAL_COUNTS",
        description="whether a hand shown in a group (an ephemeral message) counts against the group's 20 messages "
                    "a minute (1/0; Telegram does not say): 1 queues them behind the group's table edits, "
                    "0 paces each player's apart, like a private chat")
    ai_delay: float = Field(default=1.0, alias="KOZYR_AI_DELAY", ge=0,
                            description="seconds an AI seat waits before moving")
    ai_level: str = Field(default="normal", alias="KOZYR_AI_LEVEL",
                          description="the level of an AI seat added with the plain Add AI: easy | normal | strong")
    ai_think_ms: float = Field(default=0.0, alias="KOZYR_AI_THINK_MS", ge=0,
                               description="milliseconds an AI seat thinks (0: the level's own budget)")
    ai_worker: Literal["process", "thread"] = Field(
        default="process", alias="KOZYR_AI_WORKER",
        description="where AI seats think: process (a worker process; the bot's loop never waits for the search) "
                    "or thread (in the bot's own process)")
    autoplay_after: float = Field(default=24 * 3600, alias="KOZYR_AUTOPLAY_AFTER", ge=0,
                                  description="a new table's seconds per move (0: no clock)")
    vacation_days: int = Field(default=14, alias="KOZYR_VACATION_DAYS", ge=0, le=366,
                               description="days a year a player may take off with /vacation (their clocks stop)")
    paused_after: float = Field(default=120.0, alias="KOZYR_PAUSED_AFTER", ge=1,
                                description="seconds a deadline may be handled late before the bot counts as having "
                                            "been paused (down, or its host suspended): such a deadline is no strike")
    pictures: bool = Field(default=True, alias="KOZYR_PICTURES", description="draw the table as pictures (1/0)")
    # A player who acted at the table this recently gets their turn as an edit, not a new (notifying) message.
    ping_after: float = Field(default=20.0, alias="KOZYR_PING_AFTER", ge=0,
                              description="seconds after a player's own press within which their turn is an edit, "
                                          "not a new (notifying) message")
    deal_seed: int | None = Field(default=None, alias="KOZYR_DEAL_SEED",
                                  description="tests and demos only: new tables' deal seeds come from this seed, so "
                                              "a run deals the same cards every time (default: unpredictable)")
    polling_timeout: int = Field(default=30, alias="KOZYR_POLLING_TIMEOUT", ge=0, le=50,
                                 description="long-polling timeout, seconds")
    # The table app (Telegram Mini App, bot/webapp/): off unless KOZYR_APP_URL is set.
    app_url: str | None = Field(default=None, alias="KOZYR_APP_URL",
                                description="public https URL of the table app (the Mini App); off when unset")
    app_name: str | None = Field(default=None, alias="KOZYR_APP_NAME",
                                 description="the app's short name from BotFather's /newapp (group links: "
                                             "t.me/<bot>/<name>); without it groups get no app button")
    app_host: str = Field(default="127.0.0.1", alias="KOZYR_APP_HOST",
                          description="polling mode: address the app's own server listens on")
    app_port: int = Field(default=8081, alias="KOZYR_APP_PORT", ge=0, le=65535,
                          description="polling mode: port of the app's own server (webhook mode: the webhook's)")
    app_max_age: float = Field(default=3600.0, alias="KOZYR_APP_MAX_AGE", gt=0,
                               description="seconds the app's Telegram initData stays valid (its auth_date's age)")

    @field_validator("bot_token")
    @classmethod
    def _token(cls, value: str) -> str:
        value = value.strip()
        if value and not TOKEN.match(value):
            raise ValueError("does not look like a bot token (digits, a colon, then 20+ letters); "
                             "copy it again from @BotFather")
        return value

    @field_validator("database_url")
    @classmethod
    def _database(cls, value: str) -> str:
        if value.startswith(("postgresql://", "postgres://")):
            return value
        if not value.startswith("sqlite:///") or len(value) == len("sqlite:///"):
            raise ValueError("must be sqlite:///path/to/file.sqlite3 or postgresql://user@host/database "
                             f"(got {mask_url(value)!r})")
        return value

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        if value.upper() not in LEVELS:
            raise ValueError(f"must be one of {', '.join(LEVELS)}")
        return value.upper()

    @field_validator("sqlite_driver")
    @classmethod
    def _driver(cls, value: str) -> str:
        if value not in ("inline", "thread"):
            raise ValueError("must be inline or thread")
        return value

    @field_validator("webhook_secret")
    @classmethod
    def _secret(cls, value: str | None) -> str | None:
        if value and not SECRET.match(value):
            raise ValueError("1-256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)")
        return value or None

    @field_validator("app_name")
    @classmethod
    def _app_name(cls, value: str | None) -> str | None:
        if value and not APP_NAME.match(value):
            raise ValueError("3-30 characters of A-Z, a-z, 0-9 and _ (BotFather's short name)")
        return value or None

    @field_validator("app_url")
    @classmethod
    def _app_url(cls, value: str | None) -> str | None:
        if value and not re.match(r"^https://[^\s/]+", value):
            raise ValueError(f"must be an https URL: Telegram opens Mini Apps over https only "
                             f"(got {mask_url(value)!r})")
        return value or None

    @field_validator("webhook_url", "telegram_api_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value and not re.match(r"^https?://[^\s/]+", value):
            raise ValueError(f"must be an http(s) URL (got {mask_url(value)!r})")
        return value or None

    @property
    def is_postgres(self) -> bool:
        return self.database_url.startswith(("postgresql://", "postgres://"))

    @property
    def database_path(self) -> Path:
        """The SQLite file named by DATABASE_URL (``sqlite:///relative`` or ``sqlite:////absolute``).
        On PostgreSQL, ``data/postgres``: only its heartbeat file (``.alive``, for ``health``) lives there."""
        if self.is_postgres:
            return Path("data/postgres")
        return Path(self.database_url[len("sqlite:///"):])


def shared_secret_problem(settings: Settings) -> str | None:
    """PostgreSQL allows several workers; in webhook mode each would call setWebhook with its own random
    secret, and Telegram's posts would reach all but the last as 401s. So they must share one."""
    if settings.is_postgres and settings.webhook_url and not settings.webhook_secret:
        return ("WEBHOOK_SECRET: must be set with WEBHOOK_URL on PostgreSQL (several workers must share one "
                "secret; A-Z a-z 0-9 _ -, up to 256)")
    return None


def problems_of(error: ValidationError) -> list[str]:
    """One line per invalid setting, named by its environment variable, without the value itself."""
    aliases = {name: field.alias or name.upper() for name, field in Settings.model_fields.items()}
    lines = []
    for item in error.errors(include_input=False, include_url=False):
        loc = str(item["loc"][0]) if item["loc"] else "?"
        message = str(item["msg"]).removeprefix("Value error, ")
        lines.append(f"{aliases.get(loc, loc)}: {message}")
    return lines


def describe() -> str:
    """The settings table ``python -m bot --help`` prints."""
    rows = []
    for name, field in Settings.model_fields.items():
        default = field.default
        shown = "" if default in (None, "") else f" (default: {default})"
        rows.append(f"  {field.alias or name.upper():<24} {field.description or ''}{shown}")
    return "\n".join(rows)
