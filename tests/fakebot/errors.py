"""Error types: ApiError becomes a Telegram error envelope; FakeUsageError means the *test* misused the fake."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An error answered to the bot as ``{"ok": false, "error_code": ..., "description": ...}``."""

    def __init__(self, code: int, description: str, parameters: dict[str, Any] | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def envelope(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            out["parameters"] = self.parameters
        return out


class FakeUsageError(AssertionError):
    """The test asked a simulated user to do something a real user could not (e.g. press a missing button)."""


def bad(description: str, **parameters: Any) -> ApiError:
    return ApiError(400, f"Bad Request: {description}", parameters or None)


def forbidden(description: str) -> ApiError:
    return ApiError(403, f"Forbidden: {description}")
