"""bot/render.py: escaping, splitting at 4,096, and every message accepted by the strict HTML parser,
plus the same 300-stock messages sent through a real PTB Bot to the fake Bot API."""

from __future__ import annotations

import time

import pytest
from telegram import Bot
from telegram.error import BadRequest

from bot.telegram import render
from bot.telegram.front import TelegramFront
from screening.models import ResultRow
from screening.queue.status import JobStatus
from tests.fake_bot_api import FakeBotAPI, parse_html, tg_len


def _rows(n: int) -> list[ResultRow]:
    rows = []
    for i in range(n):
        code = f"{600000 + i:06d}.SH"
        if i % 5 == 4:
            rows.append(ResultRow(index=i, code=code, name=f"*ST<b>测试</b>{i}", industry="综合",
                                  status="failed",
                                  error="missing ROE & PE <needed by rules> " + "很长的原因" * 30))
            continue
        risk = "高低中"[i % 3]
        rows.append(ResultRow(index=i, code=code, name=f"*ST<i>名字{i}</i>&amp;", industry="银行",
                              status="ok", risk_level=risk, score=i % 101,
                              reason="ROE<5 & PE>50 " + "理由" * 40,
                              flags=["模型上调: <x>", "数据存疑"]))
    return rows


def _check(messages: list[str]) -> str:
    plain = []
    for m in messages:
        assert tg_len(m) <= render.MAX_MESSAGE
        plain.append(parse_html(m))  # raises on anything Telegram would reject
    return "\n".join(plain)


def test_star_st_name_is_escaped() -> None:
    row = ResultRow(index=0, code="600001.SH", name="*ST<b>测试</b>", industry="综合", status="ok",
                    risk_level="高", score=3, reason="ST & 亏损")
    line = render.row_line(row)
    assert "<b>测试</b>" not in line and "&lt;b&gt;" in line
    assert "*ST<b>测试</b>" in parse_html(line)


def test_300_stock_lists_split_under_4096() -> None:
    rows = _rows(300)
    high = render.high_risk(rows)
    failed = render.failed_rows(rows)
    for lines in (render.summary_lines(rows, job_id="f" * 32, source="<池>.csv"),
                  render.list_lines(high, "高风险列表", "none"),
                  render.list_lines(failed, "失败明细", "none"),
                  render.list_lines(rows, "全部", "none")):
        messages = render.split_messages(lines)
        text = _check(messages)
        assert len(messages) > 1 or tg_len(text) < render.MAX_MESSAGE
    full = render.split_messages(render.list_lines(rows, "全部", "none"))
    assert len(full) > 5
    # numbered as every front's split reply is, the mark within the 4,096 units
    assert "（续" not in full[0] and all(m.startswith(f"（续 {i}/{len(full)}）\n") for i, m in enumerate(full[1:], 2))
    text = _check(full)
    for r in rows:  # every stock is in the list exactly once, none lost at a split
        assert text.count(r.code) == 1


def test_overlong_single_line_is_cut_not_broken() -> None:
    line = "<b>x</b> " + render.esc("<&>" * 3000)
    (msg,) = render.split_messages([line])
    assert tg_len(msg) <= render.MAX_MESSAGE
    parse_html(msg)


def test_progress_text_states() -> None:
    now = time.time()
    base = dict(job_id="a" * 32, lane="fast", total=200, failed=1, created_at=now - 10, source="x<y>.csv")
    queued = render.progress_text(JobStatus(state="queued", done=0, position=2, started_at=None,
                                            finished_at=None, eta_s=None, **base), "x<y>.csv")
    running = render.progress_text(JobStatus(state="running", done=50, position=None, started_at=now - 5,
                                             finished_at=None, eta_s=75.0, **base), "x<y>.csv")
    done = render.progress_text(JobStatus(state="done", done=200, position=None, started_at=now - 5,
                                          finished_at=now, eta_s=0.0, **base), "x<y>.csv")
    assert "前面还有 2 个任务" in parse_html(queued)
    assert "50/200 (25%)" in parse_html(running) and "1 min 15 s" in parse_html(running)
    assert "200/200" in parse_html(done) and "x<y>.csv" in parse_html(done)


async def test_300_stock_messages_accepted_by_fake_api(tmp_path) -> None:
    fake = await FakeBotAPI().start()
    try:
        bot = Bot(fake.token, base_url=fake.base_url, base_file_url=fake.base_file_url)
        async with bot:
            rows = _rows(300)
            sent = await TelegramFront(bot).send_html(77, render.list_lines(rows, "全部", "none"))
        assert len(sent) == len(fake.ok_calls("sendMessage", 77)) > 5
        assert not [c for c in fake.calls if not c.ok]
        text = "\n".join(fake.texts(77))
        assert all(text.count(r.code) == 1 for r in rows)
        assert "*ST<b>测试</b>4" in text
    finally:
        await fake.stop()


async def test_fake_api_rejects_bad_html_and_long_text() -> None:
    fake = await FakeBotAPI().start()
    try:
        bot = Bot(fake.token, base_url=fake.base_url, base_file_url=fake.base_file_url)
        async with bot:
            with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
                await bot.send_message(1, "*ST<b>测试", parse_mode="HTML")
            with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
                await bot.send_message(1, "<script>x</script>", parse_mode="HTML")
            with pytest.raises(BadRequest, match=r"(?i)too long"):
                await bot.send_message(1, "x" * 4097, parse_mode="HTML")
            await bot.send_message(1, "x" * 4096, parse_mode="HTML")
    finally:
        await fake.stop()


def test_a_long_flag_never_hides_a_later_one() -> None:
    # a long 名称与代码不符 used to push the 数据存疑 detail past the 80-character cut: every kind stays visible
    flags = ["名称与代码不符: 文件写 五粮液股份有限公司(某某长名称用于测试截断效果的文字内容), "
             "代码 600519.SH 为 贵州茅台",
             "数据存疑: PE-TTM 单元格 0.25 未标 %", "数据过期: 行情 2026-09-01"]
    row = ResultRow(index=0, code="600519.SH", name="贵州茅台", industry="白酒", status="ok", risk_level="低",
                    score=100, reason="ROE 高", flags=flags)
    text = parse_html(render.row_line(row))
    for kind in ("名称与代码不符", "数据存疑", "数据过期"):
        assert kind in text


def test_a_third_signal_is_counted_not_dropped() -> None:
    signals = [{"signal": s, "tier": "高", "date": "2026-11-20", "text": f"关于{s}的公告"}
               for s in ("立案调查", "退市风险警示", "违规担保")]
    row = ResultRow(index=0, code="600001.SH", name="某某", industry="综合", status="ok", risk_level="高",
                    score=40, reason="公告风险", signals=signals)
    text = parse_html(render.row_line(row))
    assert "立案调查" in text and "退市风险警示" in text and "另 1 条" in text


def test_the_ack_does_not_call_a_valid_uncovered_code_unrecognised() -> None:
    from screening.models import InputProblem, Pool, PoolItem, StockInput

    why = "代码 688999.SH 不在本地数据中: 请先运行 universe refresh"
    pool = Pool("输入的代码", [PoolItem(0, "600519", stock=StockInput("600519.SH", "贵州茅台", pe_ttm=20, roe=30)),
                             PoolItem(1, "688999", error=InputProblem("输入的代码", why), code="688999.SH")])
    text = "\n".join(parse_html(x) for x in render.codes_ack_lines(pool, "a" * 32))
    assert "1 个无法筛选" in text and "无法识别" not in text and why in text


def test_the_ack_says_how_many_failed_tokens_it_did_not_list() -> None:
    """The /screen acknowledgement listed 30 failed tokens and stopped with no word (a trial, 2026-12-07)."""
    from screening.models import InputProblem, Pool, PoolItem

    pool = Pool("/screen", [PoolItem(i, f"X{i}", error=InputProblem("/screen", "不是A股代码")) for i in range(35)])
    text = "\n".join(parse_html(x) for x in render.codes_ack_lines(pool, "a" * 32))
    assert text.count("✗ ") == 30 and "…另有 5 个无法筛选" in text and "/failed" in text
