"""A command's failure as one line on stderr, in Chinese, saying what to do; the traceback only with --debug.

A user who runs ``screen 600519 --engine openai`` without a server got 115 lines ending in
``APIConnectionError``. Expected failures (a server or Redis not running, a file that is not a pool,
a model folder that is not there, a config that does not fit) are looked up here by exception class,
from the most specific class up, and said in one line with the fix; anything else is still one line
(exit 1) naming the exception and its message (a config mistake such as an adapter for another model
says what to change), with ``--debug`` for the whole traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Known:
    """An expected failure: the exit code and the line (``{detail}`` is filled from the exception)."""

    code: int
    line: str


# (module prefix of the class, class name) -> what the user reads. Looked up along the exception's MRO.
KNOWN: dict[tuple[str, str], Known] = {
    ("openai", "APIConnectionError"): Known(2, "连不上 OpenAI 兼容服务 {detail}: 先启动它 (vllm serve ...), 或改 "
                                              "engine.base_url, 或换 --engine vllm / --engine rules"),
    ("openai", "APITimeoutError"): Known(2, "OpenAI 兼容服务 {detail} 没有按时回答: 看服务是否过载, 或加大 "
                                           "engine.request_timeout_s"),
    ("openai", "AuthenticationError"): Known(2, "OpenAI 兼容服务拒绝了密钥: 检查 engine.api_key_env 指向的环境变量"),
    ("openai", "NotFoundError"): Known(2, "OpenAI 兼容服务上没有这个模型 ({detail}): 改 engine.served_model"),
    ("redis", "RedisError"): Known(2, "Redis 不可用 ({detail}): 启动 redis-server (见 README), 或改 redis.url / "
                                      "SCREENER_REDIS__URL"),
    ("screening", "PoolRejected"): Known(2, "输入无法使用: {detail}"),
    ("screening", "ModelMissing"): Known(2, "{detail}"),
    ("screening", "EngineDead"): Known(3, "模型引擎中途退出 ({detail}), 本次没有输出结果: 看 -v 日志中 vLLM 的报错 "
                                          "(常见为显存不足: 调低 engine.gpu_memory_utilization 或 "
                                          "engine.max_num_batched_tokens), 然后重跑"),
    ("builtins", "FileNotFoundError"): Known(2, "找不到文件: {detail}"),
    ("builtins", "PermissionError"): Known(2, "没有权限: {detail}"),
    ("builtins", "KeyboardInterrupt"): Known(130, "已中断"),
}


class ModelMissing(RuntimeError):
    """engine.model names a folder that is not there: said before vLLM tries the hub and fails in a subprocess."""


def _detail(exc: BaseException) -> str:
    request = getattr(exc, "request", None)
    url = getattr(request, "url", None)
    if url is not None:  # openai: the server it tried
        return str(url).split("/v1", 1)[0] + "/v1" if "/v1" in str(url) else str(url)
    filename = getattr(exc, "filename", None)
    if filename:
        return str(filename)
    return " ".join(str(exc).split()) or type(exc).__name__


def explain(exc: BaseException) -> tuple[int, str]:
    """(exit code, one line) for a failure that reached the top of a command."""
    for cls in type(exc).__mro__:
        root = cls.__module__.split(".", 1)[0]
        known = KNOWN.get((root, cls.__name__))
        if known is not None:
            return known.code, "错误: " + known.line.format(detail=_detail(exc))
    text = " ".join(str(exc).split())
    return 1, f"错误: {type(exc).__name__}: {text} (加 --debug 看完整 traceback)"


def check_model_folder(model: str) -> None:
    """A configured local model must exist: no hub downloads at run time (README), so a typo is a named error."""
    from pathlib import Path

    if model and not Path(model).expanduser().exists():
        raise ModelMissing(f"模型目录不存在: {model} (config 的 engine.model 或 SCREENER_ENGINE__MODEL); "
                           "留空用内置的 SmolLM2-135M, 或指向本地模型目录")
