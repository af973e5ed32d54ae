"""A logging filter that keeps DingTalk secrets out of the SDK's log lines.

Why: dingtalk-stream logs the connection it opened (with its one-time ticket) and, when an upload fails,
requests' error text with the URL, which carries ``access_token=`` in the query. We cannot change the
SDK's messages, but a filter on its loggers rewrites them before any handler sees them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable

# the SDK's loggers, plus the libraries under it that log request lines at DEBUG (the websocket handshake
# carries the ticket, urllib3 logs oapi URLs with access_token=)
SDK_LOGGERS = ("dingtalk_stream.client", "dingtalk_stream.handler", "dingtalk_stream.card_replier",
               "websockets.client", "urllib3.connectionpool")
_PATTERNS = (
    re.compile(r"(access_token=)[^&\s'\"]+"),
    re.compile(r"(session=)[^&\s'\"]+"),
    re.compile(r"(ticket=)[^&\s'\"]+"),
    re.compile(r"(Signature=)[^&\s'\"]+"),
    re.compile(r"""(['"]ticket['"]\s*:\s*['"])[^'"]+"""),
    re.compile(r"""(['"](?:accessToken|clientSecret|appSecret)['"]\s*:\s*['"])[^'"]+"""),
)
MASK = "***"


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + MASK, text)
    for secret in secrets:
        if secret and len(secret) >= 6:
            text = text.replace(secret, MASK)
    return text


class SecretRedactor(logging.Filter):
    """Rewrites a record's message; ``secrets`` returns the current secret values (token changes over time)."""

    def __init__(self, secrets: Callable[[], Iterable[str]]) -> None:
        super().__init__("dingtalk-redactor")
        self._secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message, self._secrets())
        if cleaned != message:
            record.msg = cleaned
            record.args = None
        if record.exc_info and record.exc_info[1] is not None:
            text = redact(str(record.exc_info[1]), self._secrets())
            if text != str(record.exc_info[1]):
                record.msg = f"{record.msg} ({type(record.exc_info[1]).__name__}: {text})"
                record.exc_info = None
                record.exc_text = None
        return True


def install(filter_: SecretRedactor, names: Iterable[str] = SDK_LOGGERS) -> None:
    for name in names:
        logging.getLogger(name).addFilter(filter_)


def uninstall(filter_: SecretRedactor, names: Iterable[str] = SDK_LOGGERS) -> None:
    for name in names:
        logging.getLogger(name).removeFilter(filter_)
