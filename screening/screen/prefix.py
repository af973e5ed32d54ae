"""How much of the prompt every stock shares, and how much of it the engine's prefix cache can reuse.

vLLM reuses a cached prefix only in whole KV blocks. For plain attention models a block is 16
tokens and nearly all of a shared system prompt is reused; for the hybrid Qwen3.5 (linear plus
full attention) vLLM 0.26 sizes blocks to the Mamba state (544 tokens for the 35B-A3B shape), and a
shared prefix shorter than one block is never reused (0.0% hits measured with a 394-token prefix).
The block size is read from the started engine, not assumed, and the fit is logged once at start
so an operator sees when a prompt change stops the cache from working.
"""

from __future__ import annotations

from dataclasses import dataclass

from screening.engines.base import CHAT_TEMPLATE_KWARGS, Engine

# two user turns that differ from the first character of the code on: every stock's message starts
# with "代码: " (screen/prompt.py), so what both probes share is exactly what every prompt shares
_PROBES = ("代码: 600000.SH", "代码: 000001.SZ")


@dataclass(frozen=True)
class PrefixFit:
    prefix_tokens: int  # tokens every stock's prompt starts with
    block_size: int  # the engine's KV cache block, in tokens
    full_blocks: int  # blocks the shared prefix fills: reused for every stock after the first
    reused_tokens: int
    spare_tokens: int  # shared tokens past the last full block: recomputed for every stock

    def describe(self) -> str:
        return (f"shared prompt prefix {self.prefix_tokens} tokens = {self.full_blocks} cache block(s) of "
                f"{self.block_size} ({self.reused_tokens} reused per stock, {self.spare_tokens} recomputed)")

    @property
    def wasted(self) -> bool:
        """Nothing shared is reused: the prefix is shorter than one block."""
        return self.full_blocks == 0 and self.prefix_tokens > 0


def fit(prefix_tokens: int, block_size: int) -> PrefixFit:
    if block_size <= 0:
        raise ValueError(f"block size must be positive, got {block_size}")
    blocks = prefix_tokens // block_size
    return PrefixFit(prefix_tokens, block_size, blocks, blocks * block_size, prefix_tokens - blocks * block_size)


def common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):  # the shorter one ends the common part
        if x != y:
            break
        n += 1
    return n


def shared_prefix_tokens(engine: Engine, system: str) -> int:
    """Prompt tokens that every stock shares, in the engine's own tokenizer and chat template."""
    tokenizer = getattr(engine, "tokenizer", None)
    if tokenizer is None:
        return 0
    ids = []
    for probe in _PROBES:
        out = tokenizer.apply_chat_template([{"role": "system", "content": system}, {"role": "user", "content": probe}],
                                            tokenize=True, add_generation_prompt=True, **CHAT_TEMPLATE_KWARGS)
        ids.append(list(out if isinstance(out, list) else out["input_ids"]))  # transformers 5: a BatchEncoding
    return common_prefix(ids[0], ids[1])


def engine_fit(engine: Engine, system: str) -> PrefixFit | None:
    """The fit for a started engine, or None when it has no prompt cache to speak of (rules, a server)."""
    block = engine.cache_block_size()
    if block is None or not engine.uses_prompts:
        return None
    return fit(shared_prefix_tokens(engine, system), block)
