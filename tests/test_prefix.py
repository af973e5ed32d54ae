"""The shared-prefix fit: pure arithmetic, plus the real tokenizer's template on the bundled model."""

from __future__ import annotations

import pytest

from screening.screen.prefix import common_prefix, fit, shared_prefix_tokens
from screening.screen.prompt import system_prompt


def test_fit_counts_whole_blocks_only() -> None:
    f = fit(1091, 544)
    assert (f.full_blocks, f.reused_tokens, f.spare_tokens, f.wasted) == (2, 1088, 3, False)
    short = fit(406, 544)
    assert (short.full_blocks, short.reused_tokens, short.wasted) == (0, 0, True)
    assert "406 tokens = 0 cache block(s) of 544" in short.describe()
    with pytest.raises(ValueError):
        fit(10, 0)


def test_common_prefix() -> None:
    assert common_prefix([1, 2, 3], [1, 2, 4, 5]) == 2
    assert common_prefix([], [1]) == 0
    assert common_prefix([7, 8], [7, 8]) == 2


class _Engine:
    """The bundled model's real tokenizer behind the one attribute shared_prefix_tokens reads."""

    def __init__(self, tokenizer: object) -> None:
        self.tokenizer = tokenizer


def test_shared_prefix_is_the_template_plus_system_prompt(model_dir: str) -> None:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    system = system_prompt(True)
    n = shared_prefix_tokens(_Engine(tok), system)  # type: ignore[arg-type]
    alone = len(tok.encode(system, add_special_tokens=False))
    assert alone < n < alone + 20  # the system text plus the template's role markers, nothing of a stock
    assert shared_prefix_tokens(_Engine(tok), system_prompt(False)) < n  # type: ignore[arg-type]
