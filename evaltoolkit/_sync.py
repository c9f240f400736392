"""Run a coroutine to completion from synchronous code, even inside a running event loop.

A Jupyter cell already runs inside an event loop, where ``asyncio.run`` refuses to start. There
the coroutine runs on a fresh loop in a worker thread instead, so the sync API needs no
nest_asyncio.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` and return its result, whether or not an event loop is running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)

    outcome: dict[str, Any] = {}
    context = contextvars.copy_context()

    def work() -> None:
        try:
            outcome["value"] = context.run(asyncio.run, coroutine)
        except BaseException as error:
            outcome["error"] = error

    worker = threading.Thread(target=work, name="evaltoolkit-run-sync", daemon=True)
    worker.start()
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]
