"""Settings from the environment or ``.env`` (see .env.example)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything the bot reads at start; tests build one directly."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    bot_token: str = Field(default="", alias="BOT_TOKEN")
    database_url: str = Field(default="sqlite:///data/kozyr.sqlite3", alias="DATABASE_URL")
    telegram_api_url: str | None = Field(default=None, alias="TELEGRAM_API_URL")
    webhook_url: str | None = Field(default=None, alias="WEBHOOK_URL")
    sqlite_driver: str = Field(default="inline", alias="KOZYR_SQLITE_DRIVER")
    webhook_port: int = Field(default=8080, alias="WEBHOOK_PORT")
    log_level: str = Field(default="INFO", alias="LOG_LEVEL")
    # Outbox pacing, kept under Telegram's limits; tests shorten them.
    per_chat_interval: float = Field(default=1.05, alias="KOZYR_PER_CHAT_INTERVAL")
    group_per_minute: int = Field(default=20, alias="KOZYR_GROUP_PER_MINUTE")
    global_per_second: int = Field(default=30, alias="KOZYR_GLOBAL_PER_SECOND")
    ai_delay: float = Field(default=1.0, alias="KOZYR_AI_DELAY")
    ai_level: str = Field(default="normal", alias="KOZYR_AI_LEVEL")  # AI seats: easy | normal | strong
    ai_think_ms: float = Field(default=0.0, alias="KOZYR_AI_THINK_MS")  # 0: the level's own budget
    remind_after: float = Field(default=4 * 3600, alias="KOZYR_REMIND_AFTER")
    autoplay_after: float = Field(default=24 * 3600, alias="KOZYR_AUTOPLAY_AFTER")
    pictures: bool = Field(default=True, alias="KOZYR_PICTURES")
    polling_timeout: int = Field(default=30, alias="KOZYR_POLLING_TIMEOUT")

    @property
    def database_path(self) -> Path:
        """The SQLite file named by DATABASE_URL (``sqlite:///relative`` or ``sqlite:////absolute``)."""
        url = self.database_url
        if not url.startswith("sqlite:///"):
            raise ValueError(f"only sqlite:/// URLs are supported for now, got {url!r}")
        return Path(url[len("sqlite:///"):])
