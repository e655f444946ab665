"""Placeholder: the auth-queue service (being written)."""

from __future__ import annotations

from typing import Any


class AuthService:
    def __init__(self, settings: Any, call: Any) -> None:
        self.settings = settings
        self.call = call
