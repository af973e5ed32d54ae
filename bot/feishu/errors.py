"""Errors of the Feishu transport; each names what is wrong and never carries a secret."""

from __future__ import annotations


class FeishuError(Exception):
    """Anything the Feishu transport refuses or Feishu answers with an error."""


class FeishuConfigError(FeishuError):
    """A credential or setting is missing or malformed (raised before anything connects)."""


class FeishuTooLarge(FeishuError):
    """A message or file is over Feishu's documented limit; refused here so no half-sent reply exists."""

    def __init__(self, what: str, size: int, limit: int) -> None:
        super().__init__(f"{what} is {size} bytes, Feishu accepts at most {limit}")
        self.what = what
        self.size = size
        self.limit = limit


class FeishuApiError(FeishuError):
    """Feishu's OpenAPI answered a non-zero code; ``log_id`` (X-Tt-Logid) is what Feishu support asks for."""

    def __init__(self, operation: str, code: int | None, msg: str | None, log_id: str | None = None) -> None:
        where = f" (log id {log_id})" if log_id else ""
        super().__init__(f"Feishu {operation} failed: code {code}: {msg or 'no message'}{where}")
        self.operation = operation
        self.code = code
        self.msg = msg
        self.log_id = log_id
