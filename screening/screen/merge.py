"""Where the model's answer meets the rules: the final risk, score and reason of a row, and the flags.

The rules are the floor: the model may raise the risk (its reason then stands) but never lower it,
and its score stands only within ``SCORE_TOLERANCE`` of the formula. A reason that says nothing
(a number alone, a prompt phrase) or carries markup or instructions that came with the data is
replaced by the rule's reason, with a flag: data must never speak through the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from screening.engines.answer import ModelAnswer
from screening.models import RISK_ORDER
from screening.screen.rules import (
    FLAG_MODEL_LOWER,
    FLAG_MODEL_RAISED,
    FLAG_SCORE_FIXED,
    SCORE_TOLERANCE,
    RuleVerdict,
)

FLAG_REASON_REPLACED = "模型理由无效(已用规则理由)"
FLAG_MODEL_MISSED_TEXT = "模型未识别文本风险(已按公告/报告)"
# characters of markup (HTML, Markdown, templates) and links: a reason is one plain sentence
_MARKUP = re.compile(r"[<>`*\[\]{}#|\\]|https?:|www\.", re.IGNORECASE)
# words of an instruction rather than a judgement: what injected report text tries to make the model say
_INSTRUCTION = re.compile(r"忽略|无视|指令|设为|改为|请输出|输出为|system|assistant|prompt|ignore", re.IGNORECASE)
# phrases of the prompt itself, which a small model echoes instead of judging
_PROMPT_PHRASES = ("公式评分", "规则风险下限", "风险等级规则", "评分公式", "risk_level", "score", "JSON")
_WORD = re.compile(r"[\u4e00-\u9fffA-Za-z]")


def reason_problem(reason: str) -> str | None:
    """Why a model's reason cannot stand, or None."""
    text = reason.strip()
    if _MARKUP.search(text):
        return "含标记或链接"
    if _INSTRUCTION.search(text):
        return "含指令性文字"
    if any(p.lower() in text.lower() for p in _PROMPT_PHRASES):
        return "照抄提示词"
    if len(_WORD.findall(text)) < 2:
        return "只有数字或符号"
    return None


@dataclass
class Merged:
    risk: str
    score: int
    reason: str
    flags: list[str] = field(default_factory=list)


def _names_signal(reason: str, verdict: RuleVerdict) -> bool:
    return any(h.name in reason or h.group in reason for h in verdict.signals)


def merge(verdict: RuleVerdict, answer: ModelAnswer) -> Merged:
    """The row's verdict from the rule verdict and a parsed answer (flags for every disagreement).

    The model was shown the figures' floor only (``figure_risk``), so a model that stays below a tier the
    text states has missed the signal: that is its own flag, naming the signal, and the floor stands.
    """
    flags: list[str] = []
    risk: str
    if RISK_ORDER[answer.risk_level] > RISK_ORDER[verdict.risk]:
        risk, reason = answer.risk_level, answer.reason
        flags.append(f"{FLAG_MODEL_RAISED}: {verdict.risk}→{answer.risk_level}")
    elif RISK_ORDER[answer.risk_level] < RISK_ORDER[verdict.risk]:
        risk, reason = verdict.risk, verdict.reason
        if verdict.raised_by_text and RISK_ORDER[answer.risk_level] >= RISK_ORDER[verdict.figure_risk]:
            missed = verdict.signals[0].name
            flags.append(f"{FLAG_MODEL_MISSED_TEXT}: {missed} (模型{answer.risk_level} 公告{verdict.risk})")
        else:
            flags.append(f"{FLAG_MODEL_LOWER}: 模型{answer.risk_level} 规则{verdict.risk}")
    elif verdict.raised_by_text and not _names_signal(answer.reason, verdict):
        risk, reason = verdict.risk, verdict.reason  # the text decided the tier: the reason must name it
    else:
        risk, reason = verdict.risk, answer.reason
    if reason is answer.reason:
        problem = reason_problem(reason)
        if problem:
            flags.append(f"{FLAG_REASON_REPLACED}: {problem}")
            reason = verdict.reason
    if abs(answer.score - verdict.score) > SCORE_TOLERANCE:
        score = verdict.score
        flags.append(f"{FLAG_SCORE_FIXED}: 模型{answer.score}→{verdict.score}")
    else:
        score = answer.score
    return Merged(risk, score, reason, flags)
