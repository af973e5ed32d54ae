"""The transport-neutral chat core: commands, access control, quotas and the job queue, for every front.

Each front (Telegram, DingTalk, Feishu, WeCom) turns its vendor's events into an ``Inbound`` and
renders the core's neutral replies in its own markup, the shape of freqtrade's rpc/ (one core that
hands data, one small formatter per channel).
"""
