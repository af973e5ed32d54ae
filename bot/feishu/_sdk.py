"""Import the lark-oapi SDK on a thread of its own, so its long-connection loop is its own.

``lark_oapi.ws.client`` takes ``asyncio.get_event_loop()`` when it is first imported and later runs
that loop with ``run_until_complete``. Imported from inside the bot's running loop (a front built
lazily in an async function), it would adopt the bot's loop and the long connection could never
run; imported on the main thread before the loop starts, it would install its loop as the main
thread's current loop for anyone who calls ``get_event_loop()``. A short-lived thread has no loop,
so the SDK makes a fresh one for itself there, and nothing else ever sees it.
"""

from __future__ import annotations

import importlib
import sys
import threading


def import_sdk_off_loop() -> None:
    if "lark_oapi" in sys.modules:
        return  # imported before us: longconn.run() checks the loop it took
    failure: list[BaseException] = []

    def target() -> None:
        try:
            importlib.import_module("lark_oapi")
        except BaseException as e:
            failure.append(e)

    thread = threading.Thread(target=target, name="import-lark-oapi")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


import_sdk_off_loop()
