"""From pool items to result rows: prepare prompts, batch, generate, validate, merge with rules.

The same three steps serve the direct CLI path (``Screener.run``) and the queue worker,
which prepares items from many jobs, batches them together and finishes each answer on its
own, so there is one place where an answer becomes a row.
"""

from __future__ import annotations

import hashlib
import logging
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from screening.config import BatcherSettings, EngineSettings
from screening.data.pe_words import pe_word_hint
from screening.engines.answer import parse_answer
from screening.engines.base import Engine, EngineOutput, EngineRequest
from screening.engines.types import FloorAnswer
from screening.models import (
    NOTE_GAP_CAUSE,
    SOURCE_NAMES,
    FailCode,
    PoolItem,
    ResultRow,
    StockInput,
    failed_row,
)
from screening.screen.batcher import BatchPlan, plan_batches
from screening.screen.merge import merge
from screening.screen.prefix import engine_fit
from screening.screen.prompt import (
    PROMPT_VERSION,
    chat_messages,
    cut_to_tokens,
    sanitize_report,
    system_prompt,
)
from screening.screen.readings import worse_reading
from screening.screen.rules import FLAG_CUT_OFF, FLAG_RETRIED, FLAG_UNPARSABLE, MissingData, RuleVerdict, assess
from screening.screen.signals import TABLE_ID
from screening.screen.unread_text import admit as admit_unread

log = logging.getLogger(__name__)
FLAG_REPORT_CUT = "报告原文过长已截断"


@dataclass
class Prepared:
    """An item ready for the engine, with the rule verdict it will be merged with."""

    item: PoolItem
    request: EngineRequest
    verdict: RuleVerdict
    attempts: int = 0

    @property
    def prompt_tokens(self) -> int:
        return self.request.prompt_tokens


def missing_message(stock: StockInput, missing: MissingData) -> str:
    """Why a stock cannot be judged, what is known all the same (first, so a short view keeps it), and what
    would fix it (a quote export's 市盈率-动态 is not PE-TTM; a typed code's comes from the local data, and "文件"
    named a file that was never given)."""
    hint = ""
    if "PE-TTM" in missing.what and stock.pe_dynamic is not None:
        where = "本地数据" if stock.sources.get("pe_dynamic", "file").startswith("universe:") else "文件"
        hint = f"; {where}只有市盈率-动态 {stock.pe_dynamic:g}, 它不是PE-TTM"
    elif "PE-TTM" in missing.what and (fix := pe_word_hint(stock.notes)):  # the file's PE cell: '-', 亏损
        hint = f"; {fix}"
    known = f"; {missing.known_text}" if missing.known else ""
    # the data holds the stock, and its source gave this figure empty (Eastmoney's null ROE): a refresh, the old
    # advice, most likely brings the same empty answer; unless the refresh knew why (a failed call, no quote that
    # day: data/gap_causes.py), which the row then says instead (a trial, 2026-12-07)
    held = sorted({SOURCE_NAMES.get(p, p) for s in stock.sources.values() if s.startswith("universe:")
                   and (p := s.removeprefix("universe:").split("@")[0]) != "composed"})
    causes = [n.split(": ", 1)[1] for n in stock.notes if n.startswith(f"{NOTE_GAP_CAUSE}: ")]
    if held:
        why = "; ".join(causes) or "再次刷新多半仍没有: 请在文件中提供该列"
        return (f"缺少数据: {missing.what}{known} (本地数据有此股, 但数据源 {'/'.join(held)} 没有给出它的"
                f" {missing.what}{hint}; {why})")
    # the data lacks the stock: a refresh brings it, unless the last one saw it leave the list (data/gap_causes.py)
    why = "; ".join(causes) or "运行 `python -m screening universe refresh` 或在文件中提供该列"
    return f"缺少数据: {missing.what}{known} (文件和本地基本面库中均没有{hint}; {why})"


def batch_plan(settings: BatcherSettings) -> BatchPlan:
    return BatchPlan(settings.token_budget, settings.max_batch, settings.bucket_width, settings.enabled)


class Screener:
    """Turns pool items into rows with one engine; stateless apart from the engine."""

    def __init__(self, engine: Engine, engine_settings: EngineSettings, batcher: BatcherSettings) -> None:
        self.engine = engine
        self.settings = engine_settings
        self.plan = batch_plan(batcher)
        self.system = system_prompt(engine_settings.risk_signals)
        # what a cached row must have been made with: the prompt version and this exact system prompt
        self.prompt_id = f"{PROMPT_VERSION}:{hashlib.sha256(self.system.encode()).hexdigest()[:12]}"
        # the same-day cache's key: the prompt and the text-signal table the floor read (screen/signals.py)
        self.cache_id = f"{self.prompt_id}:signals-{TABLE_ID}"
        self.prefix = engine_fit(engine, self.system)
        if self.prefix is not None:
            (log.warning if self.prefix.wasted else log.info)(
                "%s%s", self.prefix.describe(),
                ": shorter than one block, never reused (engine.risk_signals = true makes it longer)"
                if self.prefix.wasted else "")

    # -- step 1 ------------------------------------------------------------
    def prepare(self, item: PoolItem, key: str | None = None) -> Prepared | ResultRow:
        """A Prepared request, or the final failed row when the item cannot be screened."""
        return self.prepare_many([(item, key)])[0]

    def prepare_many(self, entries: Sequence[tuple[PoolItem, str | None]]) -> list[Prepared | ResultRow]:
        """``prepare`` for a whole job at once, in the same order.

        Rules and prompt text are per stock; the tokenizer work (cutting long reports, the exact
        prompt ids) goes through the engine's batch calls, which a fast tokenizer spreads over
        every core: on the H200 machine that was most of the time before the first engine call.
        """
        out: list[Prepared | ResultRow | None] = [None] * len(entries)
        todo: list[tuple[int, PoolItem, StockInput, str, RuleVerdict]] = []
        for pos, (item, key) in enumerate(entries):
            stock = item.stock
            if stock is None:
                out[pos] = failed_row(item, str(item.error) if item.error else "无法使用的输入", FailCode.INPUT,
                                      self.engine.name)
                continue
            admit_unread(stock)  # unknown columns' risk text, before both the floor and the prompt read it
            try:
                verdict = assess(stock)
            except MissingData as exc:
                row = failed_row(item, missing_message(stock, exc), FailCode.MISSING_DATA, self.engine.name)
                row.flags += [f for f in exc.flags if f not in row.flags]  # ST, dated signals: still shown
                row.signals = [h.to_dict() for h in exc.signals]
                out[pos] = row
                continue
            stock, verdict = worse_reading(item, stock, verdict)  # a code listed twice with other figures
            key = key or str(item.index)
            if not self.engine.uses_prompts:
                rules_answer = FloorAnswer(verdict.risk, verdict.reason, verdict.score)
                out[pos] = Prepared(item, EngineRequest(key, [], 0, stock, floor=rules_answer), verdict)
            else:
                todo.append((pos, item, stock, key, verdict))
        if todo:
            reports = [sanitize_report(stock.report_text or "") for _, _, stock, _, _ in todo]
            conversations, cuts = [], []
            for (_, _, stock, _, verdict), report, ids in zip(todo, reports, self.engine.encode_many(reports),
                                                              strict=True):
                text, cut = cut_to_tokens(report, ids, self.settings.max_report_tokens, self.engine.decode)
                # the figures' floor: whether the model reads the text itself stays visible (screen/merge.py)
                floor = (verdict.figure_risk, verdict.score, verdict.figure_reason)
                conversations.append(chat_messages(stock, text, floor, self.system))
                cuts.append(cut)
            budget = self.settings.max_model_len - self.settings.max_output_tokens
            all_ids = self.engine.prompt_ids_many(conversations)
            for (pos, item, stock, key, verdict), messages, cut, ids in zip(todo, conversations, cuts, all_ids,
                                                                             strict=True):
                if len(ids) > budget:  # the report is already capped; only absurd names/fields get here
                    out[pos] = failed_row(item, f"prompt too long: {len(ids)} tokens > {budget}",
                                          FailCode.PROMPT_TOO_LONG, self.engine.name)
                    continue
                request = EngineRequest(key, messages, len(ids), stock, cut, array("i", ids))
                out[pos] = Prepared(item, request, verdict)
        return out  # type: ignore[return-value]

    # -- step 3 ------------------------------------------------------------
    def finish(self, prep: Prepared, out: EngineOutput, final: bool) -> ResultRow | None:
        """Merge one answer with the rules; None asks the caller to retry an unparsable answer."""
        item, stock, verdict = prep.item, prep.item.stock, prep.verdict
        assert stock is not None
        prep.attempts += 1
        flags = list(verdict.flags)
        if prep.request.report_cut:
            flags.append(FLAG_REPORT_CUT)
        if out.error:
            if not final:
                return None
            return failed_row(item, f"engine error: {out.error}", FailCode.ENGINE_ERROR, self.engine.name)
        row = ResultRow(index=item.index, code=stock.code, name=stock.name, industry=stock.industry, status="ok",
                        rule_risk=verdict.risk, rule_score=verdict.score, pe_ttm=stock.pe_ttm, roe=stock.roe,
                        row=item.row, engine=self.engine.name, sources=dict(stock.sources), data_date=stock.data_date,
                        input=item.raw_code,
                        risk_level=verdict.risk, score=verdict.score, reason=verdict.reason, flags=flags,
                        signals=verdict.signal_dicts())
        if not self.engine.is_model:  # no model: the rule verdict, and no model verdict that never existed
            return row
        try:
            answer = parse_answer(out.text)
        except (ValueError, ValidationError) as exc:
            if not final:
                return None
            if out.finish_reason == "length":
                flags.append(FLAG_CUT_OFF)
            flags.append(FLAG_UNPARSABLE)
            log.info("unparsable answer for %s: %s", stock.code, str(exc)[:200])
            return row
        if prep.attempts > 1:
            flags.append(FLAG_RETRIED)
        if out.finish_reason == "length":
            flags.append(FLAG_CUT_OFF)
        merged = merge(verdict, answer)
        row.model_risk, row.model_score = answer.risk_level, answer.score
        row.risk_level, row.score, row.reason = merged.risk, merged.score, merged.reason
        row.flags = flags + merged.flags
        return row

    # -- the direct path ---------------------------------------------------
    def run(self, items: Iterable[PoolItem], progress: Callable[[int], None] | None = None) -> list[ResultRow]:
        """Screen ``items`` in-process; one row per item, in input order."""
        rows: dict[int, ResultRow] = {}
        pending: list[Prepared] = []
        items = list(items)
        for item, prepared in zip(items, self.prepare_many([(i, None) for i in items]), strict=True):
            if isinstance(prepared, ResultRow):
                rows[item.index] = prepared
                if progress:
                    progress(1)
            else:
                pending.append(prepared)
        retry: list[Prepared] = []
        for final, todo in ((False, pending), (True, retry)):
            for batch in plan_batches(todo, self.plan):
                outputs = self.engine.generate([p.request for p in batch])
                for prep, out in zip(batch, outputs, strict=True):
                    row = self.finish(prep, out, final)
                    if row is None:
                        retry.append(prep)
                        continue
                    rows[prep.item.index] = row
                    if progress:
                        progress(1)
        return [rows[i] for i in sorted(rows)]
