"""The deterministic rules: ST detection, rule risk from the figures and from the text, and the score.

The rules are the floor: the figures' tier, raised by any risk the announcement titles or report
sentences state plainly (``screen/signals.py``), on every engine. The model may raise risk (with a
reason) but never lower it, and its score only stands when it is within ``SCORE_TOLERANCE`` of the
formula. Every place where the two disagree becomes a visible flag on the row, not a silent fix.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from screening.data.names import st_mark
from screening.data.row_checks import read_period
from screening.engines.answer import REASON_MAX_CHARS
from screening.figures import figure
from screening.models import FLAG_DATA_DOUBT, RISK_ORDER, StockInput
from screening.screen.signals import LIVE, SignalHit, read_signals, text_tier

SCORE_TOLERANCE = 3
DATA_DOUBT_TOLERANCE = 0.05  # report figure vs given figure, relative

# flags, in Chinese since they are shown to the users beside Chinese reasons
FLAG_MODEL_RAISED = "模型上调风险"
FLAG_MODEL_LOWER = "模型风险低于规则(已按规则)"
FLAG_SCORE_FIXED = "评分已按公式校正"
FLAG_UNPARSABLE = "模型输出无法解析(仅规则结果)"
FLAG_CUT_OFF = "模型输出被截断"
FLAG_LOSS_PE = "PE-TTM≤0(亏损)"
FLAG_ST = "ST"
FLAG_RETRIED = "模型重试后解析成功"


class MissingData(ValueError):
    """The rules need a figure that neither the file nor the universe provides.

    From ``assess`` it also carries what IS known, so a failed row never hides a risk it already shows: ``known``
    (the 高/中 evidence: a tier the figures decide, ST, each dated text signal), ``risk`` (their highest tier),
    and the ``flags`` and ``signals`` an ok row would carry. ``str()`` is the figure, then "; 已知高风险: ..."
    when anything is known: a failed row's error is the one text every view (table, JSON, chat, digest) shows.
    """

    def __init__(self, what: str, known: Sequence[str] = (), risk: str | None = None,
                 flags: Sequence[str] = (), signals: Sequence[SignalHit] = ()) -> None:
        super().__init__(what)
        self.what, self.known, self.risk = what, list(known), risk
        self.flags, self.signals = list(flags), list(signals)

    @property
    def known_text(self) -> str:
        """E.g. ``已知高风险: ST股票, 立案调查 (2026-11-20)``; empty when nothing is known."""
        if not self.known:
            return ""
        return f"已知{'高' if self.risk == '高' else '至少中'}风险: {', '.join(self.known)}"

    def __str__(self) -> str:
        return f"{self.what}; {self.known_text}" if self.known else self.what


def is_st(name: str | None, flag: bool | None = None) -> bool:
    """ST by explicit flag, or by the name (ST, *ST, S*ST, SST, any width or spacing; 退 names too).

    A flag of False never clears a name's mark: the rules only raise risk.
    """
    if flag:
        return True
    return st_mark(name) is not None


THRESHOLDS = (0.0, 5.0, 15.0, 50.0)  # the figures the reasons compare against


def _num(x: float) -> str:
    """A figure as a reason shows it: written out (never 1e+06), and never rounded onto a threshold it is not
    (14.9999996 read "ROE 15%介于5%-15%", contradicting itself; a trial, 2026-12-07); see screening/figures.py."""
    return figure(x, THRESHOLDS)


def rule_risk(stock: StockInput) -> tuple[str, str]:
    """Risk level from the data alone and a short Chinese reason; the first rule that holds wins.

    Raises MissingData when the figure the decision depends on is missing: a stock is never
    guessed into a tier.
    """
    for label, value in (("ROE", stock.roe), ("PE-TTM", stock.pe_ttm), ("净利润", stock.net_profit_y1),
                         ("净利润", stock.net_profit_y2)):
        if value is not None and not math.isfinite(value):  # NaN compares False both ways: it would read as 低
            raise MissingData(f"{label} (值 {value} 不是有效数字)")
    roe, pe = stock.roe, stock.pe_ttm
    if roe is not None and roe < 5:
        return "高", f"ROE {_num(roe)}%<5%"
    if is_st(stock.name, stock.st):
        return "高", "ST股票"
    y1, y2 = stock.net_profit_y1, stock.net_profit_y2
    if y1 is not None and y2 is not None and y1 < 0 and y2 < 0:
        return "高", "近两年连续亏损"
    if roe is None:  # the score needs PE-TTM as well: name both, so one fix is not followed by another failure
        raise MissingData("ROE" if pe is not None else "ROE, PE-TTM")
    if roe < 15:
        return "中", f"ROE {_num(roe)}%介于5%-15%"
    if pe is None:
        raise MissingData("PE-TTM")
    if pe > 50:
        return "中", f"PE-TTM {_num(pe)}>50"
    if pe <= 0:
        return "中", "PE-TTM≤0(近12月亏损)"
    return "低", f"ROE {_num(roe)}%≥15%且PE {_num(pe)}"


def rule_score(stock: StockInput) -> int:
    """``100 - (PE/100)*20 - (15-ROE)*5``, clamped to 0..100 and rounded half up.

    A PE-TTM <= 0 means a trailing loss; fed into the formula as is it would turn a loss into
    a bonus, so a loss takes the PE term's value at PE 100 (20 points), like an expensive stock.
    Computed in decimal from the figures as given (their shortest repr, "9.5" and "5.88"): in binary
    floats PE 9.5 / ROE 5.88 came to 52.4999... and rounded to 52, where the exact 52.5 rounds half up to 53.
    """
    if stock.roe is None:
        raise MissingData("ROE")
    if stock.pe_ttm is None:
        raise MissingData("PE-TTM")
    pe, roe = Decimal(repr(stock.pe_ttm)), Decimal(repr(stock.roe))
    raw = 100 - (pe * 20 / 100 if pe > 0 else Decimal(20)) - (15 - roe) * 5
    return min(100, max(0, int(raw.to_integral_value(rounding=ROUND_HALF_UP))))


def formula_value(pe_ttm: float, roe: float) -> float:
    """The score formula before rounding and clamping: ranks stocks that both score 100 by merit."""
    pe_term = pe_ttm / 100 * 20 if pe_ttm > 0 else 20.0
    return 100 - pe_term - (15 - roe) * 5


@dataclass
class RuleVerdict:
    """The floor: ``risk`` is the higher of the figures' tier and the text's; the score is the formula's.

    ``figure_risk``/``figure_reason`` are the figures' verdict alone: it is what the model is shown as its
    floor, so whether the model reads the text itself stays measurable (and a miss is a visible flag).
    """

    risk: str
    score: int
    reason: str
    flags: list[str] = field(default_factory=list)
    figure_risk: str = ""
    figure_reason: str = ""
    signals: list[SignalHit] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.figure_risk = self.figure_risk or self.risk
        self.figure_reason = self.figure_reason or self.reason

    @property
    def raised_by_text(self) -> bool:
        return RISK_ORDER[self.risk] > RISK_ORDER[self.figure_risk]

    def signal_dicts(self) -> list[dict[str, str | bool | None]]:
        """The row's ``signals``: each hit, and whether its tier is above the figures' (it raised the row)."""
        return [{**h.to_dict(), "raises": RISK_ORDER[h.tier] > RISK_ORDER[self.figure_risk]} for h in self.signals]


def text_reason(hit: SignalHit, figure_reason: str) -> str:
    """The reason of a row the text raised: the signal first, then what the figures said where it fits the
    reason's 30 characters (the flag carries the full title and date either way)."""
    where = "公告" if hit.is_title else "报告"
    dated = f"{hit.date}{where}" if hit.date else where
    head = f"{dated}: {hit.name}"
    both = f"{head}; {figure_reason}"
    return both if len(both) <= REASON_MAX_CHARS else head[:REASON_MAX_CHARS]


def assess(stock: StockInput) -> RuleVerdict:
    """The complete rule verdict; raises MissingData for a stock the rules cannot judge.

    The flags and the text are read before the figures are required: a stock without ROE still fails (no
    score is ever guessed), but its MissingData names the ST mark and the 立案调查 it already shows.
    """
    flags: list[str] = list(stock.notes)  # the data layer's flags first: demo, stale, cached formula ...
    st = is_st(stock.name, stock.st)
    if st:
        flags.append(FLAG_ST)
    if stock.pe_ttm is not None and stock.pe_ttm <= 0:
        flags.append(FLAG_LOSS_PE)
    flags.extend(data_doubts(stock))
    hits = read_signals(stock.report_text)
    flags.extend(h.flag() for h in hits)
    figure: tuple[str, str] | None = None
    try:
        figure = rule_risk(stock)
        score = rule_score(stock)
    except MissingData as exc:
        raise _known_when_missing(exc.what, figure, st, flags, hits) from None
    figure_risk, figure_reason = figure
    risk, reason = figure_risk, figure_reason
    tier = text_tier(hits)
    if tier is not None and RISK_ORDER[tier] > RISK_ORDER[figure_risk]:
        risk, reason = tier, text_reason(hits[0], figure_reason)
    return RuleVerdict(risk=risk, score=score, reason=reason, flags=flags, figure_risk=figure_risk,
                       figure_reason=figure_reason, signals=hits)


def _known_when_missing(what: str, figure: tuple[str, str] | None, st: bool, flags: list[str],
                        hits: list[SignalHit]) -> MissingData:
    """MissingData for ``what`` with the evidence the rest of the row gives: a 高 the figures decide without
    it (ROE<5%, ST, two years of losses), the ST mark, and each text signal with its date, highest first."""
    known: list[tuple[str, str]] = []  # (tier, what shows it)
    if figure is not None and figure[0] == "高":
        known.append(("高", figure[1]))
    if st and ("高", "ST股票") not in known:
        known.append(("高", "ST股票"))
    # live hits only: a resolved, clarified, cleared or excluded one is a flag of the row, not a known risk
    known += [(h.tier, f"{h.name} ({h.date})" if h.date else h.name) for h in hits if h.state == LIVE]
    risk = max((tier for tier, _ in known), key=RISK_ORDER.__getitem__, default=None)
    return MissingData(what, [text for _, text in known], risk, flags, hits)


def higher_risk(a: str, b: str) -> str:
    return a if RISK_ORDER[a] >= RISK_ORDER[b] else b


# Figures quoted in report text. Number then optional %; a few phrasings per metric. A ROE may state its
# period, right before it (2025年净资产收益率) or in brackets after it (ROE（2026年三季报累计）, the way the
# composed text writes it); (TTM) or (加权) state none.
_NUM = r"(-?\d+(?:\.\d+)?)"
_ROE_RX = re.compile(
    r"(?:(?P<pre>\d{4}\s*年\s*(?:一季度?|第一季度|半年度?|中期|前三季度|三季度?|年度|全年|年)?报?)\s*)?"
    r"(?:ROE|净资产收益率)\s*(?:[(（](?P<qual>[^()（）]{1,24})[)）])?\s*(?:为|达|达到|是|:|：|约)?\s*"
    + _NUM + r"\s*%"
)
_PE_RX = re.compile(
    r"(?:PE-TTM|PE\(TTM\)|PE|市盈率(?:\(TTM\)|（TTM）|TTM)?)\s*(?:为|达|是|:|：|约)?\s*" + _NUM + r"\s*倍?"
)
# Which period end a stated period names; the first word found wins (半年报 contains 年报: it comes first).
_PERIOD_WORDS: tuple[tuple[tuple[str, ...], tuple[int, int]], ...] = (
    (("一季", "Q1"), (3, 31)),
    (("半年", "中期", "中报", "H1"), (6, 30)),
    (("三季", "Q3"), (9, 30)),
    (("年报", "年度", "全年", "FY"), (12, 31)),
)
_DATE_RX = re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})")
_YEAR_RX = re.compile(r"(\d{4})\s*年?")

StatedPeriod = tuple[int | None, tuple[int, int] | None]  # (year, (month, day) of the period end)


def _stated_period(text: str) -> StatedPeriod:
    """The (year, period end) a ROE's own words state, each None where they do not say."""
    text = text.upper()
    if m := _DATE_RX.search(text):
        return int(m.group(1)), (int(m.group(2)), int(m.group(3)))
    year = int(y.group(1)) if (y := _YEAR_RX.search(text)) else None
    end = next((e for words, e in _PERIOD_WORDS if any(w in text for w in words)), None)
    if end is None and year is not None and text.strip().endswith("年"):
        end = (12, 31)  # "2025年净资产收益率": the year's
    return year, end


def _roe_period(stock: StockInput) -> StatedPeriod:
    """The period of the row's ROE: a universe figure's date (its report period), or, for a file's ROE, the
    file's own report period; (None, None) where neither says (then every stated ROE is compared)."""
    src = stock.sources.get("roe", "")
    if "@" in src:
        when: str | None = src.rsplit("@", 1)[1]
    elif src in ("", "file") and stock.sources.get("report_date", "") == src:
        when = stock.report_date
    else:
        when = None
    # read as the 报告期 column is read (2026三季报, 2025年报, 20251231 as well as 2025-12-31): an ROE left undated
    # here is compared with any quarter's ROE a text names no more (_other_period)
    period = read_period(when)
    if period is None or period.kind is None or period.end is None:
        return None, None
    return period.end.year, (period.end.month, period.end.day)


def _other_period(stated: StatedPeriod, data: StatedPeriod) -> bool:
    """Whether the text's ROE is plainly of another period than the data's (a Q3 cumulative ROE beside the
    annual one is no contradiction); a period either side leaves unsaid never excuses a figure, but for one case.

    A ROE of no known period is screened as the annual one the thresholds are for, so a quarter's cumulative ROE
    the text names is another figure: the two differ exactly when the row's ROE is NOT that quarter's. Compared, every
    file row with an undated ROE and the local data's composed text (``ROE（2026年三季报累计）``) read 数据存疑, its
    ROE equal to the stored annual one (a trial, 2026-12-07); ``source_checks.roe_disagrees`` compares such an ROE
    with the stored annual ROE, like with like."""
    if data == (None, None) and stated[1] is not None and stated[1] != (12, 31):
        return True
    return any(s is not None and d is not None and s != d for s, d in zip(stated, data, strict=True))


def _differs(quoted: str, given: float) -> bool:
    """More than 5% apart, and more than the quoted figure's own rounding (-0.04% is -0.0358% to 2 places)."""
    value = float(quoted)
    rounding = 0.5 * 10 ** -len(quoted.partition(".")[2]) + 1e-9
    if abs(value - given) <= rounding:
        return False
    return given == 0 or abs(value - given) / abs(given) > DATA_DOUBT_TOLERANCE


def data_doubts(stock: StockInput) -> list[str]:
    """Flags for figures in the report text that contradict the given PE/ROE by more than 5%.

    Like with like: a text ROE that states another period than the data's ROE (the composed text's
    ``ROE（2026年三季报累计）`` beside the annual ROE) is not compared; one stating the same period, or none, is.
    """
    # NFKC first, as the signal reader does (signal_text.py): a full-width ８．５％ or ＲＯＥ, the way a Chinese IME
    # types it, is the same figure; unfolded, the ％ hid the contradiction (the eighteenth session)
    text = unicodedata.normalize("NFKC", stock.report_text or "")
    found: list[str] = []
    data_period = _roe_period(stock)
    checks = ((_ROE_RX, stock.roe, "ROE", "%"), (_PE_RX, stock.pe_ttm, "PE", ""))
    for rx, given, label, unit in checks:
        if given is None:
            continue
        for m in rx.finditer(text):
            if rx is _ROE_RX:
                stated = _stated_period(" ".join(g for g in (m.group("pre"), m.group("qual")) if g))
                if _other_period(stated, data_period):
                    continue
            quoted = m.groups()[-1]
            if _differs(quoted, given):
                found.append(f"{FLAG_DATA_DOUBT}: 文本{label} {figure(float(quoted))}{unit} "
                             f"vs 数据 {figure(given)}{unit}")
                break
    return found
