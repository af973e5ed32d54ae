"""Secrets never reach a log: redaction in the formatter of every handler, and at the last traceback.

A filter that rewrites ``record.msg`` misses the formatted traceback (``exc_info``), the stack and
anything a library puts in an exception's text, such as python-telegram-bot's "The token `...` was
rejected". So redaction happens on the final formatted line, whatever formatter (plain or JSON) the
handler has, and ``sys.excepthook`` goes through the same redaction, ending with one line.
"""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Iterable
from types import TracebackType


def redact(text: str, secrets: Iterable[str]) -> str:
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


class RedactingFormatter(logging.Formatter):
    """Wraps a handler's formatter and replaces every secret in its whole output (message, args, traceback)."""

    def __init__(self, inner: logging.Formatter | None, secrets: Iterable[str]) -> None:
        super().__init__()
        self.inner = inner or logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.secrets = [s for s in secrets if s and len(s) >= 4]

    def format(self, record: logging.LogRecord) -> str:
        return redact(self.inner.format(record), self.secrets)


def install(secrets: Iterable[str], *, one_line_exit: bool = True) -> None:
    """Redact ``secrets`` on every root handler (now and after a JSON-formatter switch, call again).

    With ``one_line_exit``, an uncaught exception prints one redacted line to stderr instead of a
    traceback (the traceback itself still goes to the log at DEBUG, redacted).
    """
    wanted = [s for s in secrets if s and len(s) >= 4]
    for handler in logging.getLogger().handlers:
        current = handler.formatter
        if isinstance(current, RedactingFormatter):
            current.secrets = sorted(set(current.secrets) | set(wanted))
        else:
            handler.setFormatter(RedactingFormatter(current, wanted))
    if one_line_exit:
        def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
            if issubclass(kind, KeyboardInterrupt):
                sys.__excepthook__(kind, exc, tb)
                return
            logging.getLogger("screening").debug("uncaught: %s", "".join(traceback.format_exception(kind, exc, tb)))
            print(f"error: {redact(f'{kind.__name__}: {exc}', wanted)}", file=sys.stderr)

        sys.excepthook = hook
