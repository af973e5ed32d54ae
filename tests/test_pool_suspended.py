"""A quote cell that says 停牌 (trading software writes it in 现价 / 涨幅% of a suspended stock; a trial, 2026-12-07).

Read as a number, it failed the whole row on a column no rule reads (``涨幅% 列的值不是数字``), and the row's risk
text (违规担保) went unread with it. The cell now reads as missing, the row is screened on its PE-TTM and ROE (a
PE-TTM cell saying 停牌 takes the local data's, as an empty cell does) and carries the flag ``停牌``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from screening.cli import main
from screening.models import NOTE_SUSPENDED

STORED = "code,name,pe_ttm,roe,report_date\n000002.SZ,万科A,-4.2,-15.3,2025-12-31\n"
POOL = ("代码\t名称\t涨幅%\t现价\t市盈率(TTM)\t净资产收益率\t备注\n"
        "600519\t贵州茅台\t停牌\t停牌\t22.5\t34.2\t公司存在违规担保\n"
        "000002\t万科A\t停牌\t--\t停牌\t-15.3\t\n")


def test_a_suspended_stocks_row_is_screened_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.environ["SCREENER_UNIVERSE__PATH"] = str(tmp_path / "u.sqlite")
    try:
        (tmp_path / "stored.csv").write_text(STORED, encoding="utf-8")
        assert main(["universe", "import", str(tmp_path / "stored.csv"), "--as-of", "2026-11-20"]) == 0
        (tmp_path / "pool.txt").write_text(POOL, encoding="gbk")
        capsys.readouterr()
        assert main(["screen", str(tmp_path / "pool.txt"), "--engine", "rules", "--format", "json"]) == 0
    finally:
        del os.environ["SCREENER_UNIVERSE__PATH"]
    moutai, vanke = json.loads(capsys.readouterr().out)
    assert (moutai["status"], moutai["risk_level"], moutai["pe_ttm"]) == ("ok", "高", 22.5)  # its 违规担保 read
    assert (vanke["status"], vanke["pe_ttm"], vanke["sources"]["pe_ttm"]) == ("ok", -4.2, "universe:import@2026-11-20")
    for row in (moutai, vanke):
        (flag,) = [f for f in row["flags"] if f.startswith(f"{NOTE_SUSPENDED}: ")]
        assert "文件的 涨幅% 为 '停牌'" in flag
