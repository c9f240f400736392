"""Everything that depends on litellm's configuration and internals, behind one function.

:func:`litellm_for_running_loop` imports litellm (once, offline-safe and quiet) and makes sure
that the per-loop resources litellm keeps are released when the running event loop shuts
down. Nothing else in evaltoolkit touches litellm's globals, so a litellm upgrade that moves
them is a change to this file alone; :data:`PRIVATE_ATTRIBUTES` lists what it relies on, and
a contract test fails when one of them disappears.

Why the clean-up: the sync API runs each run on a fresh event loop (``asyncio.run``, or a worker
thread when a loop is already running). When such a loop shuts down, litellm still holds a
background logging queue bound to it (it then warns on the next loop) and HTTP clients cached
for it (their sockets stay open until the cache's TTL expires). An async generator registered
with the loop is finalised while the loop still runs, and flushes and closes both.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import logging
import os
import threading
import weakref
from collections.abc import AsyncGenerator
from typing import Any, Final

from ._secrets import install_log_filter

__all__ = [
    "LITELLM_LOGGER_NAMES",
    "PRIVATE_ATTRIBUTES",
    "import_litellm",
    "litellm_for_running_loop",
    "missing_private_attributes",
    "start_litellm_import",
]

logger = logging.getLogger("evaltoolkit.judge")

LITELLM_LOGGER_NAMES: Final = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
_LOOP_SHUTDOWN_TIMEOUT_S: Final = 5.0

#: litellm internals this module uses, as (module, attribute path). Checked by a contract test.
PRIVATE_ATTRIBUTES: Final = (
    ("litellm.litellm_core_utils.logging_worker", "GLOBAL_LOGGING_WORKER"),
    ("litellm.litellm_core_utils.logging_worker", "GLOBAL_LOGGING_WORKER.flush"),
    ("litellm.caching.evicted_client_closer", "running_loop_token"),
    ("litellm", "in_memory_llm_clients_cache"),
    ("litellm", "in_memory_llm_clients_cache.cache_dict"),
    ("litellm", "in_memory_llm_clients_cache.delete_cache"),
)

_litellm_module: Any = None
_import_lock = threading.Lock()
_import_thread: threading.Thread | None = None
_start_lock = threading.Lock()
_cleaned_loops: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
_cleaned_lock = threading.Lock()


def import_litellm() -> Any:
    """Import litellm once, offline-safe and quiet, and return the module.

    Sets ``LITELLM_LOCAL_MODEL_COST_MAP`` (unless the environment already says otherwise) so
    that the import reads the price map shipped in the package instead of downloading it, turns
    off litellm's banners, sets its loggers to WARNING and masks secrets in their records.

    Example:
        >>> import_litellm().suppress_debug_info
        True
    """
    global _litellm_module
    if _litellm_module is not None:
        return _litellm_module
    with _import_lock:
        if _litellm_module is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm

            litellm.suppress_debug_info = True
            for name in LITELLM_LOGGER_NAMES:
                logging.getLogger(name).setLevel(logging.WARNING)
            install_log_filter((*LITELLM_LOGGER_NAMES, "evaltoolkit"))
            _litellm_module = litellm
    return _litellm_module


def start_litellm_import() -> None:
    """Start importing litellm in a background thread, unless it is imported or under way.

    Called when a judge that will need litellm is created, so that its first call does not
    wait the seconds the import takes; importing evaltoolkit itself never imports litellm.
    A failed import is raised again by the first call, which imports it itself.

    Example:
        >>> start_litellm_import()  # returns at once
    """
    global _import_thread
    if _litellm_module is not None or _import_thread is not None:
        return
    with _start_lock:
        if _litellm_module is not None or _import_thread is not None:
            return
        _import_thread = threading.Thread(
            target=_import_quietly, name="evaltoolkit-litellm-import", daemon=True
        )
    _import_thread.start()


def _import_quietly() -> None:
    try:
        import_litellm()
    except Exception as error:  # the first call imports it again and reports the error
        logger.debug("importing litellm in the background failed: %r", error)


async def litellm_for_running_loop() -> Any:
    """litellm, imported and set up for the running event loop; the one way in.

    The first import takes seconds, so it runs in a thread, keeping the loop (and a progress
    bar) alive. The loop's litellm resources are released when it shuts down.
    """
    litellm = _litellm_module
    if litellm is None:
        litellm = await asyncio.to_thread(import_litellm)
    loop = asyncio.get_running_loop()
    if loop not in _cleaned_loops:
        with _cleaned_lock:
            registered = loop in _cleaned_loops
            _cleaned_loops.add(loop)
        if not registered:
            cleanup = _release_at_loop_shutdown()
            await anext(cleanup)  # the first step registers the generator with the loop
            _keep_alive[loop] = cleanup
    return litellm


# The loop holds its async generators weakly: keep each one alive as long as its loop.
_keep_alive: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncGenerator[None, None]] = (
    weakref.WeakKeyDictionary()
)


def missing_private_attributes() -> list[str]:
    """The entries of :data:`PRIVATE_ATTRIBUTES` the installed litellm lacks (empty: all there).

    Example:
        >>> missing_private_attributes()
        []
    """
    import_litellm()
    missing: list[str] = []
    for module_name, path in PRIVATE_ATTRIBUTES:
        try:
            target: Any = importlib.import_module(module_name)
            for part in path.split("."):
                target = getattr(target, part)
        except (ImportError, AttributeError):
            missing.append(f"{module_name}:{path}")
    return missing


async def _release_at_loop_shutdown() -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        try:
            await asyncio.wait_for(_release_loop_resources(), _LOOP_SHUTDOWN_TIMEOUT_S)
        except Exception as error:
            logger.debug("could not release litellm's per-loop resources: %r", error)


async def _release_loop_resources() -> None:
    if _litellm_module is None:
        return
    with contextlib.suppress(ImportError):
        await _flush_logging_worker()
    with contextlib.suppress(ImportError):
        await _close_cached_clients()


async def _flush_logging_worker() -> None:
    from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

    loop = asyncio.get_running_loop()
    # A worker bound to another thread's live loop holds that loop's work: leave it alone.
    if getattr(GLOBAL_LOGGING_WORKER, "_bound_loop", loop) is loop:
        try:
            await asyncio.wait_for(GLOBAL_LOGGING_WORKER.flush(), _LOOP_SHUTDOWN_TIMEOUT_S)
        except Exception as error:
            logger.debug("litellm's logging queue did not flush: %r", error)
    current = asyncio.current_task()
    leftovers = [
        task
        for task in asyncio.all_tasks()
        if task is not current
        and getattr(task.get_coro(), "__qualname__", "").startswith("LoggingWorker.")
    ]
    for task in leftovers:
        task.cancel()
    await asyncio.gather(*leftovers, return_exceptions=True)


async def _close_cached_clients() -> None:
    from litellm.caching.evicted_client_closer import running_loop_token

    cache = _litellm_module.in_memory_llm_clients_cache
    closer = getattr(cache, "evicted_client_closer", None)
    suffix = f"-{running_loop_token()}"
    for key in [key for key in tuple(cache.cache_dict) if str(key).endswith(suffix)]:
        client = cache.cache_dict.get(key)
        cache.delete_cache(key)
        owned = getattr(closer, "_is_owned", None)
        if owned is not None and not owned(client):
            continue  # a client the caller supplied is the caller's to close
        close = getattr(client, "aclose", None) or getattr(client, "close", None)
        if close is not None:
            outcome = close()
            if inspect.isawaitable(outcome):
                await outcome
