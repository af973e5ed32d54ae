"""Errors of the WeCom transport, naming the API and WeCom's errcode, never the secret or token."""

from __future__ import annotations


class WeComError(RuntimeError):
    """Base class for everything the WeCom side raises."""


class WeComConfigError(WeComError):
    """A setting is missing or malformed (the message names the environment variable)."""


class WeComAuthError(WeComError):
    """gettoken refused the corp id / app secret."""


class WeComApiError(WeComError):
    """An API call was refused; ``errcode`` is WeCom's code (0 when the failure was not WeCom's answer)."""

    def __init__(self, message: str, errcode: int = 0) -> None:
        super().__init__(message)
        self.errcode = errcode
