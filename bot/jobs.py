"""A job's life on the chat side: submit, follow with one progress message, deliver the result.

Order matters for "never lost": the job is written to Redis (``JobQueue.submit``) and a
tracking record is stored before the bot answers anything, and the tracking record is only
dropped once the summary, the XLSX and the chart are all sent. Each delivered part is marked
in the record, so a bot restarted mid-delivery resumes with the parts not yet sent instead
of sending the summary twice.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from redis.exceptions import RedisError
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut

from screening.models import Pool, ResultRow
from screening.output import report
from screening.queue.status import JobStatus

from . import render
from .deps import BotDeps
from .progress import ProgressMessage

log = logging.getLogger("bot.jobs")
T = TypeVar("T")
FAST_LANE_MAX = 300  # bigger pools go to the bulk lane so /screen of a few codes never waits behind them


# ----------------------------------------------------------------------------- sending


async def with_retry(deps: BotDeps, call: Callable[[], Awaitable[T]], what: str = "send") -> T:
    """Retry network errors with backoff; never 400s (the request is wrong) and never timeouts
    (Telegram may have delivered it: retrying could send the message twice).

    RetryAfter is retried by the AIORateLimiter first; one that still comes through is waited out here.
    """
    delay = 0.5
    for attempt in range(1, deps.send_attempts + 1):
        try:
            return await call()
        except (BadRequest, TimedOut, Forbidden):
            raise
        except RetryAfter as exc:
            if attempt == deps.send_attempts:
                raise
            after = exc.retry_after
            wait = after if isinstance(after, int | float) else after.total_seconds()
            log.warning("%s: flood control, waiting %.1f s", what, wait)
            await asyncio.sleep(float(wait) + 0.1)
        except NetworkError as exc:
            if attempt == deps.send_attempts:
                raise
            log.warning("%s: network error (%s), retry %d in %.1f s", what, exc, attempt, delay)
            await asyncio.sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")


async def send_lines(bot: Bot, deps: BotDeps, chat_id: int, lines: Sequence[str], *,
                     reply_to: int | None = None,
                     keyboard: InlineKeyboardMarkup | None = None) -> list[Message]:
    """Send HTML lines as one or more messages (split on line boundaries, <= 4096 each)."""
    chunks = render.split_messages(lines)
    sent: list[Message] = []
    for i, chunk in enumerate(chunks):
        last = i == len(chunks) - 1
        first_reply = reply_to if i == 0 else None
        markup = keyboard if last else None
        def send(chunk: str = chunk, first_reply: int | None = first_reply,
                 markup: InlineKeyboardMarkup | None = markup) -> Awaitable[Message]:
            return bot.send_message(chat_id, chunk, parse_mode=ParseMode.HTML, reply_to_message_id=first_reply,
                                    reply_markup=markup)

        msg = await with_retry(deps, send)
        sent.append(msg)
    return sent


def running_keyboard(job_id: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("🔄 刷新", callback_data=f"ref:{job_id}"),
                                  InlineKeyboardButton("✖️ 取消", callback_data=f"can:{job_id}")]])


def final_keyboard(job_id: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("🔴 高风险列表", callback_data=f"hi:{job_id}"),
                                  InlineKeyboardButton("⚠️ 失败明细", callback_data=f"fail:{job_id}"),
                                  InlineKeyboardButton("🔄 刷新", callback_data=f"ref:{job_id}")]])


def keyboard_for(st: JobStatus) -> InlineKeyboardMarkup:
    return final_keyboard(st.job_id) if st.finished else running_keyboard(st.job_id)


# ----------------------------------------------------------------------------- limits


def check_limits(deps: BotDeps, user_id: int, n_items: int) -> str | None:
    """A refusal text when this job would exceed the user's limits, else None (sync: run in a thread)."""
    tg = deps.settings.telegram
    if n_items > tg.max_rows_per_user:
        return (f"这个任务有 {n_items} 只股票, 超过每个用户 {tg.max_rows_per_user} 只的上限 "
                "(telegram.max_rows_per_user)。请拆分后再发。")
    active = deps.queue.jobs_of(str(user_id))
    if len(active) >= tg.max_jobs_per_user:
        ids = ", ".join(f"<code>{render.esc(j[:12])}</code>" for j in active)
        return (f"你已有 {len(active)} 个任务在运行 (上限 {tg.max_jobs_per_user}): {ids}。"
                "请等待完成或用 /cancel 取消。")
    if active:
        pending = sum(st.total - st.done for st in deps.queue.statuses(active))
        if pending + n_items > tg.max_rows_per_user:
            return (f"你的运行中任务还有 {pending} 只未完成, 再加 {n_items} 只会超过上限 "
                    f"{tg.max_rows_per_user} 只。请稍后再试。")
    return None


# ----------------------------------------------------------------------------- submit


async def submit_and_follow(bot: Bot, deps: BotDeps, *, chat_id: int, user_id: int, pool: Pool,
                            ack_lines: Callable[[str], list[str]], reply_to: int | None) -> str:
    """Enqueue ``pool`` (Redis first), then acknowledge, open the progress message, follow the job."""
    lane = "fast" if len(pool.items) <= FAST_LANE_MAX else "bulk"
    owner = {"user": user_id, "chat": chat_id}
    job_id = await asyncio.to_thread(deps.queue.submit, pool.items, lane=lane, source=pool.source,
                                     owner=owner)
    record: dict[str, Any] = {"chat": chat_id, "user": user_id, "source": pool.source, "message": None,
                              "sent": [], "created": time.time()}

    def remember() -> JobStatus:
        deps.save_track(job_id, record)
        deps.remember_job(user_id, job_id)
        return deps.queue.status(job_id)

    st = await asyncio.to_thread(remember)
    log.info("job %s: %d items from user %s in chat %s (%s lane)", job_id, len(pool.items), user_id, chat_id,
             lane)
    await send_lines(bot, deps, chat_id, ack_lines(job_id), reply_to=reply_to)
    text = render.progress_text(st, pool.source)
    msg = await with_retry(deps, lambda: bot.send_message(chat_id, text, parse_mode=ParseMode.HTML,
                                                          reply_markup=keyboard_for(st)))
    record["message"] = msg.message_id
    record["text"] = text
    await asyncio.to_thread(deps.save_track, job_id, record)
    start_follower(bot, deps, job_id)
    return job_id


def start_follower(bot: Bot, deps: BotDeps, job_id: str) -> None:
    if job_id in deps.followers and not deps.followers[job_id].done():
        return
    task = asyncio.create_task(follow_job(bot, deps, job_id), name=f"follow-{job_id[:12]}")
    deps.followers[job_id] = task
    task.add_done_callback(lambda t: deps.followers.pop(job_id, None) if deps.followers.get(job_id) is t
                           else None)


async def resume_followers(bot: Bot, deps: BotDeps) -> int:
    """After a restart: follow every job whose results were not fully delivered."""
    tracks = await asyncio.to_thread(deps.all_tracks)
    for job_id in tracks:
        start_follower(bot, deps, job_id)
    if tracks:
        log.info("resumed following %d job(s)", len(tracks))
    return len(tracks)


async def stop_followers(deps: BotDeps) -> None:
    tasks = list(deps.followers.values())
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


# ----------------------------------------------------------------------------- follow


async def follow_job(bot: Bot, deps: BotDeps, job_id: str) -> None:
    try:
        await _follow(bot, deps, job_id)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("following job %s failed", job_id)


async def _follow(bot: Bot, deps: BotDeps, job_id: str) -> None:
    record = await asyncio.to_thread(deps.load_track, job_id)
    if record is None:
        return
    chat_id = int(record["chat"])
    progress = None
    if record.get("message"):
        progress = ProgressMessage(bot, chat_id, int(record["message"]), deps.progress_interval_s,
                                   text=record.get("text", ""))
    source = record.get("source", "")
    while True:
        try:
            st = await asyncio.to_thread(deps.queue.status, job_id)
        except KeyError:
            log.warning("job %s expired before its results were delivered", job_id)
            await asyncio.to_thread(deps.drop_track, job_id)
            await send_lines(bot, deps, chat_id, [f"任务 <code>{render.esc(job_id[:12])}</code> 已过期, "
                                                  "结果不可用。"])
            return
        except RedisError as exc:
            log.warning("job %s: Redis unavailable (%s); retrying", job_id, exc)
            await asyncio.sleep(max(1.0, deps.poll_s))
            continue
        if progress is not None and not st.finished:
            try:
                await progress.show(render.progress_text(st, source), keyboard=keyboard_for(st))
            except (NetworkError, RetryAfter) as exc:  # progress is best effort; results are not
                log.warning("job %s: progress edit failed: %s", job_id, exc)
        if st.finished:
            break
        await asyncio.sleep(deps.poll_s)
    if progress is not None:
        await with_retry(deps, lambda: progress.show(render.progress_text(st, source),
                                                     keyboard=final_keyboard(job_id), force=True),
                         what="final progress edit")
    await deliver(bot, deps, job_id, record, st)


async def _mark_sent(deps: BotDeps, job_id: str, record: dict[str, Any], part: str) -> None:
    record["sent"].append(part)
    await asyncio.to_thread(deps.save_track, job_id, record)


async def deliver(bot: Bot, deps: BotDeps, job_id: str, record: dict[str, Any], st: JobStatus) -> None:
    """Summary message(s), the XLSX and the chart PNG; each part at most once."""
    chat_id = int(record["chat"])
    source = record.get("source", "") or "stocks"
    rows, items = await asyncio.gather(asyncio.to_thread(deps.queue.results, job_id),
                                       asyncio.to_thread(deps.queue.items, job_id))
    seconds = (st.finished_at - st.created_at) if st.finished_at else None
    if "summary" not in record["sent"]:
        await send_lines(bot, deps, chat_id, render.summary_lines(rows, job_id=job_id, source=source,
                                                                  seconds=seconds))
        await _mark_sent(deps, job_id, record, "summary")
    stem = f"screen-{job_id[:8]}"
    with tempfile.TemporaryDirectory(prefix="screener-bot-") as tmp:
        if "xlsx" not in record["sent"]:
            pool = Pool(source=source, items=items)
            meta = {"source": source, "job": job_id, "state": st.state,
                    "generated_at": time.strftime("%Y-%m-%d %H:%M:%S")}
            path = await asyncio.to_thread(report.write_xlsx, rows, Path(tmp) / f"{stem}.xlsx", pool, meta)
            caption = f"完整结果 · {render.esc(source, 60)} · {len(rows)} 只"
            await with_retry(deps, lambda: bot.send_document(chat_id, path.read_bytes(), filename=path.name,
                                                             caption=caption, parse_mode=ParseMode.HTML),
                             what="send xlsx")
            await _mark_sent(deps, job_id, record, "xlsx")
        if "chart" not in record["sent"] and rows:
            path = await asyncio.to_thread(_chart, deps, rows, Path(tmp) / f"{stem}.png", source)
            await with_retry(deps, lambda: bot.send_photo(chat_id, path.read_bytes(), filename=path.name,
                                                          caption=render.counts_line(rows),
                                                          parse_mode=ParseMode.HTML),
                             what="send chart")
            await _mark_sent(deps, job_id, record, "chart")
    await asyncio.to_thread(deps.drop_track, job_id)
    log.info("job %s delivered to chat %s (%d rows, %s)", job_id, chat_id, len(rows), st.state)


def _chart(deps: BotDeps, rows: list[ResultRow], path: Path, title: str) -> Path:
    with deps.chart_lock:
        # the title is drawn by matplotlib, not Telegram: keep it short and free of mathtext '$'
        return report.write_chart(rows, path, title=title[:60].replace("$", ""))
