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

from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from screening.config import EngineSettings
from screening.engines.base import ChatTokenizerMixin, Engine, EngineOutput, EngineRequest
from screening.screen.prompt import ANSWER_SCHEMA

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

    def _client(self):
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

    async def _generate(self, requests: list[EngineRequest]) -> list[EngineOutput]:
        sem = asyncio.Semaphore(self.settings.concurrency)
        async with self._client() as client:
            return await asyncio.gather(*(self._one(client, sem, r) for r in requests))

    async def _one(self, client, sem: asyncio.Semaphore, req: EngineRequest) -> EngineOutput:
        response_format = {
            "type": "json_schema",
            "json_schema": {"name": "stock_answer", "schema": ANSWER_SCHEMA, "strict": True},
        }
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
