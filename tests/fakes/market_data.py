"""A deterministic fake A-share market, used only by the fake remote ends in tests/fakes/.

Why it looks real: the providers' parsing (akshare's and tushare's own code, then ours) must meet the shapes,
boards, volumes and awkward cases of the real market: codes on the real boards (SSE main/STAR, SZSE main/ChiNext,
BSE), ST names, suspended stocks quoted as "-", loss-makers, new listings without older reports, reports that
come out over a disclosure window, weekends without announcements.

Why it cannot pass for real: every name carries one of the markers 仿/拟/模/虚 ("imitation", "simulated") as its
second character (e.g. 东仿科技), the generator is seeded, and nothing outside tests/ imports this module.

All figures are internally consistent (cumulative quarterly figures add up, YoY is computed from the previous
year's fake figures, PE-TTM from the published fake reports), so tests can check derivations exactly.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import random
from dataclasses import dataclass

YEARS = range(2022, 2029)
QUARTERS: tuple[tuple[int, int], ...] = ((3, 31), (6, 30), (9, 30), (12, 31))
_CUM_SHARE = (0.23, 0.48, 0.73, 1.0)  # share of the year's revenue booked by each quarter end

# (exchange, board, Eastmoney fs clause, code ranges, share of the market)
_BOARDS: tuple[tuple[str, str, str, tuple[tuple[int, int], ...], float], ...] = (
    ("SH", "沪市主板", "m:1 t:2", ((600000, 601999), (603000, 603999), (605000, 605599)), 0.31),
    ("SH", "科创板", "m:1 t:23", ((688000, 688999), (689000, 689009)), 0.11),
    ("SZ", "深市主板", "m:0 t:6", ((1, 1999), (2001, 2999), (3001, 3040)), 0.27),
    ("SZ", "创业板", "m:0 t:80", ((300001, 301599),), 0.26),
    ("BJ", "北交所", "m:0 t:81 s:2048", ((920000, 920999), (430000, 430999), (830000, 839999), (870000, 873999)), 0.05),
)

INDUSTRIES: tuple[str, ...] = (
    "银行", "证券", "保险", "酿酒行业", "食品饮料", "医疗器械", "化学制药", "中药", "生物制品", "半导体",
    "消费电子", "光学光电子", "通信设备", "软件开发", "计算机设备", "互联网服务", "电力行业", "光伏设备",
    "电池", "风电设备", "汽车整车", "汽车零部件", "家电行业", "工程机械", "通用设备", "专用设备", "电网设备",
    "化学制品", "化学原料", "钢铁行业", "有色金属", "煤炭行业", "石油行业", "房地产开发", "工程建设",
    "水泥建材", "航运港口", "物流行业", "商业百货", "旅游酒店", "文化传媒", "游戏", "纺织服装", "农牧饲养",
    "环保行业", "贵金属", "航天航空", "船舶制造",
)
_PREFIXES = tuple("东南西北中华金银天海江山长远新宏恒泰信达安嘉瑞盛鼎鸿凯德丰隆福裕昌永兴力通博宇辰星润晨云峰"
                  "川湘粤浙蜀晋鲁豫皖闽桂滇黔辽吉")
_MARKERS = ("仿", "拟", "模", "虚")
_SUFFIXES = (
    "科技", "股份", "实业", "电子", "智能", "精密", "材料", "医药", "能源", "环境", "重工", "机电", "生物", "传媒",
    "信息", "控股", "集团", "新材", "电气", "光电", "制药", "食品", "酒业", "汽车", "化工", "矿业", "物流", "建设",
    "装备", "软件",
)

_ROUTINE_TITLES = (
    "关于召开{year}年第{n}次临时股东大会的通知", "第{n}届董事会第{m}次会议决议公告", "关于回购股份的进展公告",
    "关于为子公司提供担保的进展公告", "关于使用闲置募集资金进行现金管理的公告", "关于获得政府补助的公告",
    "关于签订日常经营重大合同的公告", "关于股东股份质押的公告", "关于完成工商变更登记的公告",
    "关于投资者关系活动记录表的公告", "关于控股股东增持股份计划的公告", "关于部分限制性股票回购注销的公告",
)
# the signals the model is there to read (the rules cannot see them)
_RISK_TITLES = (
    "关于收到中国证券监督管理委员会立案告知书的公告", "关于涉及重大诉讼的公告",
    "关于持股5%以上股东减持股份的预披露公告",
    "关于计提商誉减值准备的公告", "关于公司股票交易被实施退市风险警示的公告", "关于违规担保的风险提示公告",
    "关于会计师事务所出具保留意见审计报告的专项说明",
)
_REASONS_UP = ("主营产品销量增长，规模效应显现", "新产能投产，订单饱满", "原材料价格回落，毛利率提升")
_REASONS_DOWN = ("下游需求疲软，产品价格下降", "计提资产减值准备", "研发投入及财务费用增加")


def quarter_ends(year: int) -> list[dt.date]:
    return [dt.date(year, m, d) for m, d in QUARTERS]


def quarter_index(period: dt.date) -> int:
    return QUARTERS.index((period.month, period.day))


def disclosure_window(period: dt.date) -> tuple[dt.date, dt.date]:
    """The legal window in which a period's reports come out (Q1 in April, H1 by end of August, ...)."""
    q = quarter_index(period)
    y = period.year
    if q == 0:
        return dt.date(y, 4, 8), dt.date(y, 4, 30)
    if q == 1:
        return dt.date(y, 7, 12), dt.date(y, 8, 31)
    if q == 2:
        return dt.date(y, 10, 10), dt.date(y, 10, 31)
    return dt.date(y + 1, 1, 15), dt.date(y + 1, 4, 30)


@dataclass(frozen=True)
class FakeStock:
    code: str  # six digits
    exchange: str  # SH | SZ | BJ
    board: str
    fs_clause: str  # the Eastmoney market filter that selects its board
    name: str
    industry: str
    list_date: dt.date
    shares: float  # total shares
    float_shares: float
    price: float
    change_pct: float
    suspended: bool
    st: bool
    pb: float
    seed: int


@dataclass(frozen=True)
class FakeReport:
    code: str
    period: dt.date
    notice_date: dt.date  # first publication
    update_date: dt.date  # latest update (>= notice_date)
    revenue: float  # cumulative, yuan
    revenue_yoy: float | None  # percent
    revenue_qoq: float | None
    net_profit: float  # cumulative, attributable to the parent, yuan
    net_profit_yoy: float | None
    profit_qoq: float | None
    eps: float
    deduct_eps: float
    bps: float
    ocf_ps: float
    roe: float  # weighted, percent
    gross_margin: float  # percent


@dataclass(frozen=True)
class FakeForecast:
    code: str
    period: dt.date
    notice_date: dt.date
    predict_type: str
    content: str
    reason: str
    amount_lower: float
    amount_upper: float
    change_lower: float | None
    change_upper: float | None
    last_year: float | None


@dataclass(frozen=True)
class FakeAnnouncement:
    code: str
    name: str
    day: dt.date
    title: str
    column_code: str
    column_name: str
    art_code: str
    display_time: str


class FakeMarket:
    """The whole fake market as of ``as_of`` (what has been published), with quotes for ``trade_date``."""

    def __init__(
        self,
        n_stocks: int = 5000,
        *,
        seed: int = 20261203,
        trade_date: dt.date = dt.date(2026, 12, 3),
        as_of: dt.date | None = None,
        announcements_per_day: int = 240,
    ) -> None:
        self.seed = seed
        self.trade_date = trade_date
        self.as_of = as_of or trade_date + dt.timedelta(days=1)
        self.announcements_per_day = announcements_per_day
        self.stocks = self._make_stocks(n_stocks)
        self.by_code = {s.code: s for s in self.stocks}

    # ---- the stocks ---------------------------------------------------------------------------------------
    def _make_stocks(self, n: int) -> list[FakeStock]:
        rng = random.Random(self.seed)
        names = [p + m + s for p in _PREFIXES for m in _MARKERS for s in _SUFFIXES]
        rng.shuffle(names)
        if n > len(names):
            raise ValueError(f"at most {len(names)} fake stocks")
        stocks: list[FakeStock] = []
        counts = [round(n * b[4]) for b in _BOARDS]
        counts[0] += n - sum(counts)
        for (exchange, board, clause, ranges, _share), count in zip(_BOARDS, counts, strict=True):
            pool = [c for lo, hi in ranges for c in range(lo, hi + 1)]
            for number in sorted(rng.sample(pool, count)):
                code = f"{number:06d}"
                srng = random.Random(f"{self.seed}:{code}")
                name = names[len(stocks)]
                st = srng.random() < 0.04
                if st:
                    name = ("*ST" if srng.random() < 0.6 else "ST") + name[:2]
                new_listing = srng.random() < 0.03
                list_date = (
                    dt.date(2025, 1, 1) + dt.timedelta(days=srng.randrange(0, 600))
                    if new_listing
                    else dt.date(1995, 1, 1) + dt.timedelta(days=srng.randrange(0, 9000))
                )
                shares = math.exp(srng.gauss(20.5 if exchange != "BJ" else 18.8, 1.0))
                limit = 30.0 if exchange == "BJ" else 20.0 if board in ("科创板", "创业板") else 10.0
                limit = 5.0 if st else limit
                stocks.append(
                    FakeStock(
                        code=code, exchange=exchange, board=board, fs_clause=clause, name=name,
                        industry=INDUSTRIES[srng.randrange(len(INDUSTRIES))], list_date=list_date,
                        shares=round(shares, -2), float_shares=round(shares * srng.uniform(0.4, 1.0), -2),
                        price=round(math.exp(srng.gauss(2.6, 0.7)), 2),
                        change_pct=round(max(-limit, min(limit, srng.gauss(0.2, 2.5))), 2),
                        suspended=srng.random() < 0.005, st=st, pb=round(math.exp(srng.gauss(0.9, 0.6)), 2),
                        seed=srng.randrange(1 << 30),
                    )
                )
        return [s for s in stocks if s.list_date <= self.trade_date]

    def listed(self) -> list[FakeStock]:
        return self.stocks

    def market_cap(self, stock: FakeStock) -> float:
        return stock.price * stock.shares

    # ---- reports ------------------------------------------------------------------------------------------
    @functools.cache  # noqa: B019 - the market lives for a test session; caching is the point
    def _annual_model(self, code: str) -> tuple[dict[int, float], dict[int, float], float]:
        s = self.by_code[code]
        rng = random.Random(s.seed)
        revenue = self.market_cap(s) * math.exp(rng.gauss(-0.6, 0.8))
        margin = rng.gauss(0.085, 0.06) - (0.12 if s.st else 0.0)
        revenues: dict[int, float] = {}
        margins: dict[int, float] = {}
        for year in YEARS:
            revenue *= math.exp(rng.gauss(0.05, 0.18))
            margin += rng.gauss(0.0, 0.03)
            revenues[year] = revenue
            margins[year] = margin
        return revenues, margins, rng.uniform(8, 65)

    @functools.cache  # noqa: B019
    def report(self, code: str, period: dt.date) -> FakeReport | None:
        """The report of one period regardless of publication (None before the first report after listing)."""
        s = self.by_code[code]
        start, end = disclosure_window(period)
        if s.list_date > period + dt.timedelta(days=45) or period.year not in YEARS:
            return None
        revenues, margins, gross = self._annual_model(code)
        q = quarter_index(period)
        prng = random.Random(f"{s.seed}:{period}")
        cum = _CUM_SHARE[q] * (1 + (prng.gauss(0, 0.02) if q < 3 else 0.0))
        revenue = revenues[period.year] * cum
        net = revenue * margins[period.year] * (1 + (prng.gauss(0, 0.05) if q < 3 else 0.0))
        notice = start + dt.timedelta(days=prng.randrange(0, (end - start).days + 1))
        notice = max(notice, s.list_date)
        update = notice + dt.timedelta(days=prng.choice((0, 0, 0, 1, 2)))
        equity = s.price * s.shares / s.pb
        prev = self.report(code, dt.date(period.year - 1, period.month, period.day))
        prev_q = self.report(code, quarter_ends(period.year)[q - 1]) if q > 0 else None

        def yoy(now: float, before: float | None) -> float | None:
            return None if not before else round((now - before) / abs(before) * 100, 4)

        quarter_rev = revenue - (prev_q.revenue if prev_q else 0.0)
        quarter_np = net - (prev_q.net_profit if prev_q else 0.0)
        return FakeReport(
            code=code, period=period, notice_date=notice, update_date=update,
            revenue=round(revenue, 2), revenue_yoy=yoy(revenue, prev.revenue if prev else None),
            revenue_qoq=yoy(quarter_rev, (prev_q.revenue if prev_q else None)) if q > 0 else None,
            net_profit=round(net, 2), net_profit_yoy=yoy(net, prev.net_profit if prev else None),
            profit_qoq=yoy(quarter_np, (prev_q.net_profit if prev_q else None)) if q > 0 else None,
            eps=round(net / s.shares, 4), deduct_eps=round(net * 0.93 / s.shares, 4),
            bps=round(equity / s.shares, 4), ocf_ps=round(net * prng.uniform(0.3, 1.6) / s.shares, 4),
            roe=round(net / equity * 100, 4), gross_margin=round(gross + prng.gauss(0, 1.5), 4),
        )

    def published(self, code: str, period: dt.date, *, as_of: dt.date | None = None) -> FakeReport | None:
        r = self.report(code, period)
        return r if r is not None and r.notice_date <= (as_of or self.as_of) else None

    @functools.cache  # noqa: B019
    def reports(self, period: dt.date) -> list[FakeReport]:
        """What a whole-market call for ``period`` returns as of ``as_of``."""
        out = [r for s in self.stocks if (r := self.published(s.code, period)) is not None]
        out.sort(key=lambda r: (r.update_date, r.code), reverse=True)  # UPDATE_DATE,SECURITY_CODE descending
        return out

    def ttm_net_profit(self, code: str, *, as_of: dt.date | None = None) -> float | None:
        """Trailing twelve months from the newest published report: the ground truth the tests compare with."""
        latest = self.latest_report(code, as_of=as_of)
        if latest is None:
            return None
        if latest.period.month == 12:
            return latest.net_profit
        annual = self.published(code, dt.date(latest.period.year - 1, 12, 31), as_of=as_of)
        before = self.published(
            code, dt.date(latest.period.year - 1, latest.period.month, latest.period.day), as_of=as_of
        )
        if annual is None or before is None:
            return None
        return latest.net_profit + annual.net_profit - before.net_profit

    def latest_report(self, code: str, *, as_of: dt.date | None = None) -> FakeReport | None:
        day = as_of or self.as_of
        for year in range(day.year, day.year - 3, -1):
            for period in reversed(quarter_ends(year)):
                if period < day and (r := self.published(code, period, as_of=day)) is not None:
                    return r
        return None

    # ---- forecasts ----------------------------------------------------------------------------------------
    @functools.cache  # noqa: B019
    def forecast(self, code: str, period: dt.date) -> FakeForecast | None:
        s = self.by_code[code]
        report = self.report(code, period)
        if report is None:
            return None
        rng = random.Random(f"{s.seed}:forecast:{period}")
        annual = period.month == 12
        if rng.random() > (0.45 if annual else 0.12):
            return None
        start, _end = disclosure_window(period)
        if annual and rng.random() < 0.2:  # some give the year's forecast with the Q3 report
            notice = dt.date(period.year, 10, 12) + dt.timedelta(days=rng.randrange(0, 18))
        else:
            notice = start - dt.timedelta(days=rng.randrange(1, 20))
        last = self.report(code, dt.date(period.year - 1, period.month, period.day))
        net = report.net_profit
        lower, upper = net * 0.9, net * 1.1
        if lower > upper:
            lower, upper = upper, lower
        change_l = change_u = None
        if last and last.net_profit:
            change_l = round((lower - last.net_profit) / abs(last.net_profit) * 100, 2)
            change_u = round((upper - last.net_profit) / abs(last.net_profit) * 100, 2)
        if last is None:
            kind = "不确定"
        elif last.net_profit < 0 <= net:
            kind = "扭亏"
        elif net < 0 <= last.net_profit:
            kind = "首亏"
        elif net < 0 and last.net_profit < 0:
            kind = "续亏" if net < last.net_profit else "减亏"
        else:
            mid = ((change_l or 0) + (change_u or 0)) / 2
            kind = "预增" if mid >= 50 else "略增" if mid >= 0 else "略减" if mid > -50 else "预减"
        reasons = _REASONS_UP if kind in ("预增", "略增", "扭亏", "减亏") else _REASONS_DOWN
        span = f"{period.year}年1-{period.month}月"
        content = f"预计{span}归属于上市公司股东的净利润{lower / 1e4:.2f}万元至{upper / 1e4:.2f}万元。"
        return FakeForecast(
            code=code, period=period, notice_date=notice, predict_type=kind, content=content,
            reason=f"报告期内，{reasons[rng.randrange(len(reasons))]}。", amount_lower=round(lower, 2),
            amount_upper=round(upper, 2), change_lower=change_l, change_upper=change_u,
            last_year=last.net_profit if last else None,
        )

    @functools.cache  # noqa: B019
    def forecasts(self, period: dt.date) -> list[FakeForecast]:
        out = [f for s in self.stocks if (f := self.forecast(s.code, period)) and f.notice_date <= self.as_of]
        out.sort(key=lambda f: (f.notice_date, f.code), reverse=True)  # NOTICE_DATE,SECURITY_CODE descending
        return out

    # ---- announcements ------------------------------------------------------------------------------------
    @functools.cache  # noqa: B019
    def _notices_by_day(self) -> dict[dt.date, list[tuple[str, str]]]:
        """Periodic reports and forecasts are also announcements, on their own dates."""
        by_day: dict[dt.date, list[tuple[str, str]]] = {}
        names = ("第一季度报告", "半年度报告", "第三季度报告", "年度报告")
        for year in (self.as_of.year - 1, self.as_of.year):
            for period in quarter_ends(year):
                label = f"{period.year}年{names[quarter_index(period)]}"
                for s in self.stocks:
                    r = self.report(s.code, period)
                    if r is not None:
                        by_day.setdefault(r.notice_date, []).append((s.code, label))
                    f = self.forecast(s.code, period)
                    if f is not None:
                        kind = "年度" if period.month == 12 else "前三季度" if period.month == 9 else "半年度"
                        by_day.setdefault(f.notice_date, []).append((s.code, f"{period.year}年{kind}业绩预告"))
        return by_day

    @functools.cache  # noqa: B019
    def announcements(self, day: dt.date) -> list[FakeAnnouncement]:
        """One day's announcements of the whole market, newest first; none on weekends or after ``as_of``."""
        if day.weekday() >= 5 or day > self.as_of:
            return []
        rng = random.Random(f"{self.seed}:ann:{day}")
        picked = rng.sample(self.stocks, min(len(self.stocks), self.announcements_per_day))
        items: list[tuple[str, str, str, str]] = []
        for s in picked:
            if rng.random() < 0.08:
                title, col = _RISK_TITLES[rng.randrange(len(_RISK_TITLES))], ("001002006", "风险提示")
            else:
                title = _ROUTINE_TITLES[rng.randrange(len(_ROUTINE_TITLES))]
                col = ("001002004001", "重大事项")
            title = title.format(year=day.year, n=rng.randrange(1, 6), m=rng.randrange(1, 30))
            items.append((s.code, title, *col))
        for code, label in self._notices_by_day().get(day, []):
            items.append((code, label, "001001001003", "财务报告"))
        out = []
        for i, (code, title, col_code, col_name) in enumerate(items):
            s = self.by_code[code]
            minute = (i * 7) % (5 * 60)
            shown = dt.datetime.combine(day, dt.time(16, 0)) + dt.timedelta(minutes=minute) - dt.timedelta(days=1)
            out.append(
                FakeAnnouncement(
                    code=code, name=s.name, day=day, title=f"{s.name}:{title}", column_code=col_code,
                    column_name=col_name, art_code=f"AN{day:%Y%m%d}{(s.seed + i) % 10**10:010d}",
                    display_time=shown.strftime("%Y-%m-%d %H:%M:%S:000"),
                )
            )
        out.sort(key=lambda a: (a.display_time, a.art_code), reverse=True)
        return out
