"""Errors of the DingTalk transport, each naming what DingTalk refused and where, never a secret."""

from __future__ import annotations


class DingTalkError(RuntimeError):
    """Base class: the core catches this one to tell the operator that DingTalk failed, not the screen."""


class DingTalkConfigError(DingTalkError):
    """A setting is missing or malformed (the message names the environment variable)."""


class DingTalkAuthError(DingTalkError):
    """DingTalk refused the client id / client secret, so nothing can be sent or received."""


class DingTalkApiError(DingTalkError):
    """An OpenAPI call was refused or failed; the message names the API and DingTalk's own code."""
