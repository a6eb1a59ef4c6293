"""A strict fake Telegram Bot API server for end-to-end tests of the Kozyr bot (see README.md)."""

from .errors import ApiError, FakeUsageError
from .models import CallbackRecord, StoredMessage
from .ratelimit import RateLimits
from .server import ApiCall, FakeTelegram
from .users import FakeChat, FakeUser

__all__ = ["ApiCall", "ApiError", "CallbackRecord", "FakeChat", "FakeTelegram", "FakeUsageError", "FakeUser",
           "RateLimits", "StoredMessage"]
