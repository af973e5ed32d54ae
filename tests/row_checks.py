"""Invariants every screened row must hold, whichever engine produced it."""

from __future__ import annotations

from screening.models import RISK_ORDER, StockInput
from screening.screen.rules import (
    FLAG_MODEL_LOWER,
    FLAG_MODEL_RAISED,
    FLAG_SCORE_FIXED,
    FLAG_UNPARSABLE,
    SCORE_TOLERANCE,
    assess,
)


def check_row_against_rules(row, stock: StockInput) -> None:
    """The invariants every ok row must hold, whatever the model said."""
    verdict = assess(stock)
    assert row.status == "ok", row
    assert row.code == stock.code and row.name == stock.name  # identity comes from the input
    assert row.rule_risk == verdict.risk and row.rule_score == verdict.score
    assert RISK_ORDER[row.risk_level] >= RISK_ORDER[verdict.risk]  # rules are the floor
    assert abs(row.score - verdict.score) <= SCORE_TOLERANCE
    assert isinstance(row.reason, str) and row.reason
    if row.model_risk is None:
        assert FLAG_UNPARSABLE in row.flags
        return
    raised = any(f.startswith(FLAG_MODEL_RAISED) for f in row.flags)
    lowered = any(f.startswith(FLAG_MODEL_LOWER) for f in row.flags)
    fixed = any(f.startswith(FLAG_SCORE_FIXED) for f in row.flags)
    assert raised == (RISK_ORDER[row.model_risk] > RISK_ORDER[verdict.risk])
    assert lowered == (RISK_ORDER[row.model_risk] < RISK_ORDER[verdict.risk])
    assert fixed == (abs(row.model_score - verdict.score) > SCORE_TOLERANCE)
    if fixed:
        assert row.score == verdict.score
    else:
        assert row.score == row.model_score
