"""The OpenAI-compatible engine: for users who already run ``vllm serve`` or a vLLM cluster.

There is no batch chat call in the OpenAI API, so a batch becomes concurrent async requests
behind a semaphore (``engine.concurrency``); the server's own continuous batching does the
rest. Structured output is requested as an OpenAI ``json_schema`` response format, which
``vllm serve`` enforces with the same grammar backend as the in-process engine.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from concurrent.futures import Future
from typing import Any

from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from screening.config import EngineSettings
from screening.engines.answer import ANSWER_SCHEMA
from screening.engines.base import CHAT_TEMPLATE_KWARGS, ChatTokenizerMixin, Engine, EngineOutput, EngineRequest

log = logging.getLogger(__name__)


def _retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, openai.APIStatusError):
        return exc.status_code == 429 or exc.status_code >= 500
    return isinstance(exc, openai.APIConnectionError | openai.APITimeoutError)


class OpenAIEngine(ChatTokenizerMixin, Engine):
    name = "openai"

    def __init__(self, settings: EngineSettings, tokenizer_path: str) -> None:
        super().__init__()
        from transformers import AutoTokenizer

        self.settings = settings
        self.tokenizer = AutoTokenizer.from_pretrained(tokenizer_path)
        self.api_key = os.environ.get(settings.api_key_env, "EMPTY")
        self.model_id = settings.served_model or self._first_served_model()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sems: dict[int, asyncio.Semaphore] = {}
        self._shared: Any = None

    def _client(self) -> Any:
        from openai import AsyncOpenAI

        return AsyncOpenAI(
            base_url=self.settings.base_url,
            api_key=self.api_key,
            timeout=self.settings.request_timeout_s,
            max_retries=0,
        )

    def _first_served_model(self) -> str:
        async def ask() -> str:
            async with self._client() as client:
                models = await client.models.list()
                return models.data[0].id

        return asyncio.run(ask())

    def generate(self, requests: list[EngineRequest]) -> list[EngineOutput]:
        if not requests:
            return []
        out = asyncio.run(self._generate(requests))
        self.stats.calls += 1
        self.stats.requests += len(requests)
        self.stats.prompt_tokens += sum(o.prompt_tokens for o in out)
        self.stats.output_tokens += sum(o.output_tokens for o in out)
        return out

    # -- continuous submission (the worker): one long-lived client and loop, a request per stock ----------
    def submit(self, request: EngineRequest, priority: int = 1, alone: bool = False) -> Future[EngineOutput]:
        """One request as soon as it is ready; the fast lane (priority 0) has its own slots, so a /screen
        never queues behind the bulk lane's ``concurrency`` requests. ``alone`` needs nothing: each HTTP
        request fails on its own."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            threading.Thread(target=self._loop.run_forever, name="openai-engine", daemon=True).start()
            self._sems = {0: asyncio.Semaphore(max(4, self.settings.concurrency // 8)),
                          1: asyncio.Semaphore(self.settings.concurrency)}
            self._shared = asyncio.run_coroutine_threadsafe(self._open(), self._loop).result(30)
        sem = self._sems[0 if priority <= 0 else 1]
        return asyncio.run_coroutine_threadsafe(self._counted(self._shared, sem, request, priority), self._loop)

    async def _open(self) -> Any:
        return self._client()

    async def _counted(self, client: Any, sem: asyncio.Semaphore, req: EngineRequest, priority: int) -> EngineOutput:
        out = await self._one(client, sem, req, priority)
        self.stats.requests += 1
        self.stats.prompt_tokens += out.prompt_tokens
        self.stats.output_tokens += out.output_tokens
        return out

    continuous = True

    def admission_limit(self, wanted: int) -> int:
        return wanted  # continuous: every submitted request is really in flight on the server

    def close(self) -> None:
        if self._loop is not None:
            if self._shared is not None:
                asyncio.run_coroutine_threadsafe(self._shared.close(), self._loop).result(10)
            self._loop.call_soon_threadsafe(self._loop.stop)
        super().close()

    async def _generate(self, requests: list[EngineRequest]) -> list[EngineOutput]:
        sem = asyncio.Semaphore(self.settings.concurrency)
        async with self._client() as client:
            return await asyncio.gather(*(self._one(client, sem, r) for r in requests))

    async def _one(self, client: Any, sem: asyncio.Semaphore, req: EngineRequest, priority: int = 1) -> EngineOutput:
        response_format = {
            "type": "json_schema",
            "json_schema": {"name": "stock_answer", "schema": ANSWER_SCHEMA, "strict": True},
        }
        # vllm serve --scheduling-policy priority reads "priority" from the body (lower first)
        body: dict[str, Any] = {"chat_template_kwargs": CHAT_TEMPLATE_KWARGS}
        if self.settings.server_priority:
            body["priority"] = priority
        extra = {"extra_body": body}
        try:
            async with sem:
                async for attempt in AsyncRetrying(
                    stop=stop_after_attempt(self.settings.retries),
                    wait=wait_exponential_jitter(multiplier=0.5, max=10),
                    retry=retry_if_exception(_retryable),
                    reraise=True,
                ):
                    with attempt:
                        resp = await client.chat.completions.create(
                            model=self.model_id,
                            messages=req.messages,
                            temperature=0.0,
                            max_tokens=self.settings.max_output_tokens,
                            seed=self.settings.seed,
                            response_format=response_format,
                            **extra,
                        )
        except Exception as exc:  # one request's failure must not sink the batch
            log.warning("openai request %s failed: %s", req.key, exc)
            return EngineOutput(req.key, "", None, error=f"{type(exc).__name__}: {exc}")
        choice = resp.choices[0]
        usage = resp.usage
        return EngineOutput(
            req.key,
            choice.message.content or "",
            choice.finish_reason,
            prompt_tokens=usage.prompt_tokens if usage else req.prompt_tokens,
            output_tokens=usage.completion_tokens if usage else 0,
        )
