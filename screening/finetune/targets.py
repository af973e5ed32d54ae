"""The answer a stock should get, right by construction, and what a reason must name to count as one.

The risk and score are the rules' (the floor and the formula); a visible planted risk announcement raises
the risk to its signal's tier. The reason is one plain sentence naming the figure that decided the tier,
or the signal when there is one, written without the characters and prompt phrases ``reason_problem``
refuses (no ``<`` or ``>``: "低于5%", not "<5%").
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from screening.engines.answer import REASON_MAX_CHARS
from screening.models import RISK_ORDER, StockInput
from screening.screen.merge import reason_problem
from screening.screen.rules import RuleVerdict, is_st
from screening.screen.signals import SignalHit


@dataclass(frozen=True)
class Target:
    risk_level: str
    reason: str
    score: int
    decisive: tuple[str, ...]  # a model's reason counts as a reason when it names one of these
    escalates: bool  # the signal raises the risk above the rule floor

    def json(self) -> str:
        """The answer exactly as guided decoding writes it: schema order, no whitespace, raw UTF-8."""
        return json.dumps({"risk_level": self.risk_level, "reason": self.reason, "score": self.score},
                          ensure_ascii=False, separators=(",", ":"))


def _g(x: float | None) -> str:
    return f"{x:g}" if x is not None else "未提供"


def rule_reason(stock: StockInput) -> tuple[str, str, tuple[str, ...]]:
    """The reason for the rule tier, a short form of it, and the figures it names, in the rules' own order.

    Mirrors ``rules.rule_risk`` case by case (it raises before we get here when a figure is missing).
    """
    roe, pe = stock.roe, stock.pe_ttm
    if roe is not None and roe < 5:
        return f"ROE仅{_g(roe)}%,低于5%,盈利能力弱", f"ROE仅{_g(roe)}%", (_g(roe),)
    if is_st(stock.name, stock.st):
        return "ST股票,按规则列为高风险", "ST股票", ("ST",)
    y1, y2 = stock.net_profit_y1, stock.net_profit_y2
    if y1 is not None and y2 is not None and y1 < 0 and y2 < 0:
        return f"连续两年亏损,净利润{_g(y1)}和{_g(y2)}", "连续两年亏损", ("亏损", _g(y1), _g(y2))
    assert roe is not None
    if roe < 15:
        return f"ROE {_g(roe)}%,介于5%-15%,盈利能力一般", f"ROE {_g(roe)}%", (_g(roe),)
    assert pe is not None
    if pe > 50:
        return f"PE-TTM {_g(pe)}倍,高于50,估值偏高", f"PE-TTM {_g(pe)}倍偏高", (_g(pe),)
    if pe <= 0:
        return f"PE-TTM为{_g(pe)},近12个月亏损", f"PE-TTM为{_g(pe)}", (_g(pe),)
    return f"ROE {_g(roe)}%且PE {_g(pe)}倍,基本面稳健", f"ROE {_g(roe)}%", (_g(roe), _g(pe))


def target_for(stock: StockInput, verdict: RuleVerdict, signal: SignalHit | None) -> Target:
    """The right answer for one prepared stock; ``signal`` is the risk the model can see, if any.

    The floor is the one the prompt shows: the figures' (``figure_risk``); the text's tier is what the
    model should add to it, naming the signal as the product's reader names it.
    """
    floor = verdict.figure_risk
    base, short, figures = rule_reason(stock)
    if signal is None:
        return _checked(Target(floor, base, verdict.score, figures, False))
    # where the text said it, as the floor's flag does (公告风险 / 报告风险): a loss stated in the report is
    # not an announcement, and a reason that calls it one teaches the model to misquote its source
    where = "公告" if signal.is_title else "报告提及"
    if RISK_ORDER[signal.tier] > RISK_ORDER[floor]:
        reason = f"{where}{signal.name},风险由{floor}上调为{signal.tier}"
        return _checked(Target(signal.tier, reason, verdict.score, (signal.name,), True))
    reason = f"{short},另有{signal.name}公告,维持{floor}风险" if signal.is_title else \
        f"{short},报告另提{signal.name},维持{floor}风险"
    if len(reason) > REASON_MAX_CHARS:
        reason = f"{where}{signal.name},规则已为{floor}风险"
    return _checked(Target(floor, reason, verdict.score, (signal.name,), False))


def _checked(t: Target) -> Target:
    """A target the product would refuse would teach the model to be overruled: fail loudly instead."""
    problem = reason_problem(t.reason)
    if problem or len(t.reason) > REASON_MAX_CHARS:
        raise ValueError(f"training target reason {t.reason!r} is unusable: {problem or 'too long'}")
    return t


def names_decisive(reason: str, decisive: tuple[str, ...]) -> bool:
    """A reason that stands (``reason_problem`` finds nothing) and names the figure or signal that decided."""
    return reason_problem(reason) is None and any(d in reason for d in decisive)
