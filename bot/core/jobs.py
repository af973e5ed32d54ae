"""A job's life on the chat side, for every front: submit, follow with one progress message, deliver.

Order matters for "never lost": a tracking record is stored (under the job id the bot chose, marked not yet
submitted) and then the job is written to Redis (``JobQueue.submit``), both before the bot answers anything;
a bot stopped between the two leaves a record whose job never came, and the user is told to send again. The
tracking record is only dropped once the
summary, the XLSX and the chart are all sent. Each delivered part is marked in the record, so a bot
restarted mid-delivery resumes with the parts not yet sent instead of sending the summary twice.

A part (the summary, the XLSX, the chart) that the vendor still refuses after ``FILE_ATTEMPTS`` tries is
said in the chat (``XLSX 未能发送: <reason>; 用 /status <job> 重试``) and kept in the record under ``missing``;
the record stays, so ``/status <job>`` (``retry_missing``) or a restart sends it again. (The summary was sent
once, unguarded: one refused send ended the follower, and the chat saw "done" and never got its table.) The
chat hears of a missing part once: a restart retries it quietly (a bot restarted daily must not repeat the
notice every morning), and only a ``/status`` the user asked for answers again when the part still fails.

Every message about a job is for its owner (``owner_of``: the record's ``user``, so also after a restart):
in a DingTalk group the results @-mention the user who asked, not whoever spoke to the bot last.

One process delivers a job (follow_lease.py: a lease in Redis, renewed while it follows), and every
``ChatCore.sweep_s`` each process picks up the tracked jobs nobody follows: a follower that died on an error,
or another process that died mid-job.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from redis.exceptions import RedisError

from bot.core import follow_lease, replies
from bot.core.access import access_for
from bot.core.front import Button, Front, Sent
from bot.core.inbound import ChatRef
from bot.core.service import ChatCore, scoped
from bot.core.text import STYLES, Line, Run, code, line, t
from screening.models import Pool, ResultRow
from screening.output.chart import draw_chart
from screening.output.xlsx import write_workbook
from screening.queue.status import JobStatus

log = logging.getLogger("bot.jobs")
FAST_LANE_MAX = 300  # bigger pools go to the bulk lane so /screen of a few codes never waits behind them
FILE_ATTEMPTS = 3  # tries of one file upload before the user is told it is missing
FILE_RETRY_S = 1.0  # pause before the second try, doubled before each later one
PART_NAMES = {"summary": "结果摘要", "xlsx": "XLSX", "chart": "图表"}  # how a missing part is named in the chat


def running_buttons(job_id: str) -> list[Button]:
    return [Button("🔄 刷新", f"ref:{job_id}"), Button("✖️ 取消", f"can:{job_id}")]


def final_buttons(job_id: str) -> list[Button]:
    return [Button("🔴 高风险列表", f"hi:{job_id}"), Button("⚠️ 失败明细", f"fail:{job_id}"),
            Button("🔄 刷新", f"ref:{job_id}")]


def buttons_for(st: JobStatus) -> list[Button]:
    return final_buttons(st.job_id) if st.finished else running_buttons(st.job_id)


# ----------------------------------------------------------------------------- limits


def check_limits(core: ChatCore, platform: str, user_id: str, n_items: int) -> list[Line] | None:
    """A refusal when this job would exceed the user's limits, else None (sync: run in a thread)."""
    acc = access_for(core.settings, platform)
    if n_items > acc.max_rows_per_user:
        return [line(f"这个任务有 {n_items} 只股票, 超过每个用户 {acc.max_rows_per_user} 只的上限 "
                     f"({platform}.max_rows_per_user)。请拆分后再发。")]
    active = core.queue.jobs_of(scoped(platform, user_id))
    if len(active) >= acc.max_jobs_per_user:
        ids: list[Any] = []
        for n, j in enumerate(active):
            ids += ([", "] if n else []) + [code(j[:12])]
        return [line(f"你已有 {len(active)} 个任务在运行 (上限 {acc.max_jobs_per_user}): ", *ids,
                     "。请等待完成或用 /cancel 取消。")]
    if active:
        pending = sum(st.total - st.done for st in core.queue.statuses(active))
        if pending + n_items > acc.max_rows_per_user:
            return [line(f"你的运行中任务还有 {pending} 只未完成, 再加 {n_items} 只会超过上限 "
                         f"{acc.max_rows_per_user} 只。请稍后再试。")]
    return None


# ----------------------------------------------------------------------------- submit


async def submit_and_follow(core: ChatCore, front: Front, *, chat: ChatRef, user_id: str, pool: Pool,
                            ack_lines: Callable[[str], list[Line]], reply_to: str | None,
                            data_label: str = "") -> str:
    """Enqueue ``pool`` (Redis first), then acknowledge, open the progress message, follow the job."""
    lane = "fast" if len(pool.items) <= FAST_LANE_MAX else "bulk"
    user_key = scoped(chat.platform, user_id)
    owner = {"user": int(user_id) if chat.platform == "telegram" else user_key,
             "chat": int(chat.chat_id) if chat.platform == "telegram" else scoped(chat.platform, chat.chat_id)}
    job_id = uuid.uuid4().hex
    record: dict[str, Any] = {"platform": chat.platform, "chat": _chat_field(chat), "chat_type": chat.chat_type,
                              "user": owner["user"], "source": pool.source, "message": None, "sent": [],
                              "created": time.time(), "data": data_label, "submitted": False}
    # the record first, under the lease (no other process's sweep reads it before the job exists): the vendor has
    # its ACK already, so a crash between submit and record left a job screened for nobody; now it leaves a record
    # whose job never came, and the user is told to send again (_status)
    lease = core.follow_lease(job_id)

    def track() -> None:
        lease.take()
        core.save_track(job_id, record)

    def untrack() -> None:
        core.drop_track(job_id)
        lease.release()

    await asyncio.to_thread(track)
    try:
        await asyncio.to_thread(core.queue.submit, pool.items, lane=lane, source=pool.source, owner=owner,
                                job_id=job_id)
    except BaseException:  # the user hears of the failure from the handler; no record of a job that is not
        with contextlib.suppress(RedisError):
            await asyncio.to_thread(untrack)
        raise
    record["submitted"] = True

    def remember() -> JobStatus:
        core.save_track(job_id, record)
        core.remember_job(user_key, job_id)
        return core.queue.status(job_id)

    st = await asyncio.to_thread(remember)
    log.info("job %s: %d items from user %s in %s chat %s (%s lane)", job_id, len(pool.items), user_id,
             chat.platform, chat.chat_id, lane)
    await front.send(chat, ack_lines(job_id), reply_to=reply_to, for_user=user_id)
    lines = replies.progress_lines(st, pool.source)
    sent = await front.open_card(chat, lines, buttons_for(st), title="筛选进度")
    record["message"], record["shown"] = sent.handle, dump_lines(lines)
    await asyncio.to_thread(core.save_track, job_id, record)
    start_follower(core, front, job_id)
    return job_id


def dump_lines(lines: list[Line]) -> list[list[list[str]]]:
    """Lines as JSON (the progress message's text survives a restart in the tracking record)."""
    return [[[r.text, r.style] for r in ln] for ln in lines]


def load_lines(data: list[list[list[str]]]) -> list[Line]:
    return [tuple(Run(text, style if style in STYLES else "") for text, style in ln)  # type: ignore[arg-type]
            for ln in data]


def _chat_field(chat: ChatRef) -> int | str:
    return int(chat.chat_id) if chat.platform == "telegram" else chat.chat_id


def chat_of(record: dict[str, Any]) -> ChatRef:
    return ChatRef(record.get("platform", "telegram"), str(record["chat"]), record.get("chat_type", "private"))


def owner_of(record: dict[str, Any]) -> str | None:
    """The id of the user who asked for the job (its messages are for them), as the front named them."""
    user, platform = record.get("user"), record.get("platform", "telegram")
    if user is None:
        return None
    return str(user) if platform == "telegram" else str(user).removeprefix(f"{platform}:")


def start_follower(core: ChatCore, front: Front, job_id: str) -> None:
    if job_id in core.followers and not core.followers[job_id].done():
        return
    task = asyncio.create_task(follow_job(core, front, job_id), name=f"follow-{job_id[:12]}")
    core.followers[job_id] = task
    task.add_done_callback(lambda done: core.followers.pop(job_id, None) if core.followers.get(job_id) is done
                           else None)


async def resume_followers(core: ChatCore, front: Front, *, missing: bool = True) -> int:
    """After a restart: follow every job of this front's platform whose results were not fully delivered (a job
    another live process follows stays its: ``follow_job`` takes the lease first). ``missing=False`` leaves the
    jobs that wait only on a part the vendor refused (for ``/status`` or the next restart, as before)."""
    tracks = await asyncio.to_thread(core.all_tracks, front.platform)
    todo = [job_id for job_id, record in tracks.items() if missing or not record.get("missing")]
    for job_id in todo:
        start_follower(core, front, job_id)
    if todo and missing:
        log.info("resumed following %d %s job(s)", len(todo), front.platform)
    return len(todo)


def start_sweeper(core: ChatCore, front: Front) -> None:
    """Pick up, every ``core.sweep_s``, the jobs of ``front``'s platform that nobody follows any more."""
    core.sweepers.append(asyncio.create_task(_sweep(core, front), name=f"sweep-{front.platform}"))


async def _sweep(core: ChatCore, front: Front) -> None:
    while True:
        await asyncio.sleep(core.sweep_s)
        try:
            await resume_followers(core, front, missing=False)
        except RedisError as exc:
            log.warning("sweeping %s jobs: Redis unavailable (%s)", front.platform, exc)


async def stop_followers(core: ChatCore) -> None:
    tasks = list(core.followers.values()) + core.sweepers
    core.sweepers.clear()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


# ----------------------------------------------------------------------------- follow


class Progress:
    """One progress message, edited in place, throttled (Telegram rate-limits edits too); unchanged = no edit."""

    def __init__(self, front: Front, sent: Sent, min_interval_s: float) -> None:
        self.front, self.sent = front, sent
        self.min_interval_s = max(min_interval_s, front.edit_interval_s)
        self._last = 0.0

    async def show(self, lines: list[Line], buttons: list[Button], *, force: bool = False) -> bool:
        if lines == self.sent.lines and not force:
            return False
        if not force and time.monotonic() - self._last < self.min_interval_s:
            return False
        self._last = time.monotonic()
        await self.front.edit_card(self.sent, lines, buttons, title="筛选进度")
        self.sent.lines = lines
        return True


async def follow_job(core: ChatCore, front: Front, job_id: str) -> None:
    """Follow and deliver ``job_id`` while holding its lease; return at once when another process holds it."""
    lease = core.follow_lease(job_id)
    try:
        if not await asyncio.to_thread(lease.take):
            log.debug("job %s is followed by another bot process", job_id)
            return
    except RedisError as exc:
        log.warning("job %s: Redis unavailable (%s); the sweep follows it later", job_id, exc)
        return
    me = asyncio.current_task()
    assert me is not None  # follow_job runs as its own task (start_follower)
    keeper = asyncio.create_task(follow_lease.keep(lease, me, job_id))
    try:
        await _follow(core, front, job_id)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("following job %s failed", job_id)
    finally:
        keeper.cancel()
        with contextlib.suppress(RedisError):
            await asyncio.to_thread(lease.release)  # a restart's process takes over at once, not after the TTL


async def _status(core: ChatCore, front: Front, job_id: str, record: dict[str, Any]) -> JobStatus | None:
    """The job's status; None once it expired, or never came (the bot stopped between recording and submitting
    it): the user is told, the record dropped. Waits out Redis outages."""
    chat = chat_of(record)
    while True:
        try:
            return await asyncio.to_thread(core.queue.status, job_id)
        except KeyError:
            came = record.get("submitted", True)  # records older than the field were written after the submit
            log.warning("job %s %s before its results were delivered", job_id, "expired" if came else "never came")
            await asyncio.to_thread(core.drop_track, job_id)
            await front.send(chat, [line("任务 ", code(job_id[:12]), " 已过期, 结果不可用。") if came else
                                    line("任务 ", code(job_id[:12]), " 未能提交 (机器人在提交时中断), 请重新发送。")],
                             for_user=owner_of(record))
            return None
        except RedisError as exc:
            log.warning("job %s: Redis unavailable (%s); retrying", job_id, exc)
            await asyncio.sleep(max(1.0, core.poll_s))


async def _follow(core: ChatCore, front: Front, job_id: str) -> None:
    record = await asyncio.to_thread(core.load_track, job_id)
    if record is None:
        return
    chat, source = chat_of(record), record.get("source", "")
    progress = None
    if record.get("message") is not None:
        shown = load_lines(record.get("shown", []))
        progress = Progress(front, Sent(chat, record["message"], shown), core.progress_interval_s)
    while True:
        st = await _status(core, front, job_id, record)
        if st is None:
            return
        if progress is not None and not st.finished:
            try:
                await progress.show(replies.progress_lines(st, source), buttons_for(st))
            except Exception as exc:  # progress is best effort; results are not
                log.warning("job %s: progress edit failed: %s", job_id, exc)
        if st.finished:
            break
        await asyncio.sleep(core.poll_s)
    if progress is not None and not record.get("missing"):  # a retry of missing files leaves the card be
        await progress.show(replies.progress_lines(st, source), final_buttons(job_id), force=True)
    await deliver(core, front, job_id, record, st)


async def _mark_sent(core: ChatCore, job_id: str, record: dict[str, Any], part: str) -> None:
    record["sent"].append(part)
    await asyncio.to_thread(core.save_track, job_id, record)


async def deliver(core: ChatCore, front: Front, job_id: str, record: dict[str, Any], st: JobStatus) -> None:
    """Summary message(s), the XLSX and the chart PNG; each part at most once. A file that cannot be sent
    is said in the chat and left in ``record["missing"]`` (the record is kept for ``/status`` to retry)."""
    chat = chat_of(record)
    source = record.get("source", "") or "stocks"
    rows, items = await asyncio.gather(asyncio.to_thread(core.queue.results, job_id),
                                       asyncio.to_thread(core.queue.items, job_id))
    seconds = (st.finished_at - st.created_at) if st.finished_at else None

    async def summary() -> None:
        await front.send(chat, replies.summary_lines(rows, job_id=job_id, source=source, seconds=seconds,
                                                     data=record.get("data", "")), title="筛选结果",
                         for_user=owner_of(record))

    if "summary" not in record["sent"]:
        await _send_part(core, front, job_id, record, "summary", summary)
    stem = f"screen-{job_id[:8]}"
    with tempfile.TemporaryDirectory(prefix="screener-bot-") as tmp:
        async def xlsx() -> None:
            meta = {"source": source, "data": record.get("data", ""), "job": job_id, "state": st.state,
                    "generated_at": time.strftime("%Y-%m-%d %H:%M:%S")}
            path = await asyncio.to_thread(write_workbook, rows, Path(tmp) / f"{stem}.xlsx",
                                           Pool(source=source, items=items), meta)
            await front.send_file(chat, path, path.name, line("完整结果 · ", t(source, 60), f" · {len(rows)} 只"))

        async def chart() -> None:
            path = await asyncio.to_thread(_chart, core, rows, Path(tmp) / f"{stem}.png", source)
            await front.send_file(chat, path, path.name, replies.counts_line(rows), kind="image")

        if "xlsx" not in record["sent"]:
            await _send_part(core, front, job_id, record, "xlsx", xlsx)
        if "chart" not in record["sent"] and rows:
            await _send_part(core, front, job_id, record, "chart", chart)
    if record.pop("asked", None):  # the user's /status retry is answered; a later restart retries quietly
        await asyncio.to_thread(core.save_track, job_id, record)
    if record.get("missing"):
        log.warning("job %s: %s not delivered to %s chat %s; kept for /status", job_id,
                    ", ".join(record["missing"]), chat.platform, chat.chat_id)
        return
    await asyncio.to_thread(core.drop_track, job_id)
    log.info("job %s delivered to %s chat %s (%d rows, %s)", job_id, chat.platform, chat.chat_id, len(rows), st.state)


async def _send_part(core: ChatCore, front: Front, job_id: str, record: dict[str, Any], part: str,
                     send: Callable[[], Awaitable[None]]) -> None:
    """One part, tried FILE_ATTEMPTS times; then the user is told what is missing and how to get it."""
    reason = ""
    for attempt in range(FILE_ATTEMPTS):
        if attempt:
            await asyncio.sleep(FILE_RETRY_S * 2 ** (attempt - 1))
        try:
            await send()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the vendor's refusal or the network: retried, then said in the chat
            reason = (str(exc) or type(exc).__name__)[:200]
            log.warning("job %s: sending the %s failed (try %d of %d): %s", job_id, part, attempt + 1,
                        FILE_ATTEMPTS, reason)
            continue
        record.setdefault("missing", {}).pop(part, None)
        await _mark_sent(core, job_id, record, part)
        return
    told = part in record.get("missing", {}) and not record.get("asked")
    record.setdefault("missing", {})[part] = reason
    await asyncio.to_thread(core.save_track, job_id, record)
    if told:  # said before, and nobody asked again (a restart's retry): the log is enough
        log.warning("job %s: the %s is still missing (%s); the chat was told before", job_id, part, reason)
        return
    try:
        await front.send(chat_of(record), [line(f"{PART_NAMES[part]} 未能发送: ", t(reason, 200), "; 用 ",
                                                code(f"/status {job_id[:12]}"), " 重试")], for_user=owner_of(record))
    except Exception as exc:  # the vendor refuses everything now: /status or a restart still finds the record
        log.warning("job %s: could not say that the %s is missing: %s", job_id, part, exc)


async def retry_missing(core: ChatCore, front: Front, job_id: str) -> bool:
    """Send again the parts of ``job_id`` that could not be sent (``/status <job>``); False when none are
    missing here (the record is gone, belongs to another front, or misses nothing)."""
    record = await asyncio.to_thread(core.load_track, job_id)
    if not record or not record.get("missing") or record.get("platform", "telegram") != front.platform:
        return False
    log.info("job %s: retrying %s on request", job_id, ", ".join(record["missing"]))
    record["asked"] = True  # a failure now is said again: the user asked
    await asyncio.to_thread(core.save_track, job_id, record)
    start_follower(core, front, job_id)
    return True


def _chart(core: ChatCore, rows: list[ResultRow], path: Path, title: str) -> Path:
    with core.chart_lock:  # matplotlib is not thread-safe: one chart at a time in this process
        return draw_chart(rows, path, title=title)
