"""Run a coroutine to completion from synchronous code, even inside a running event loop.

A Jupyter cell already runs inside an event loop, where ``asyncio.run`` refuses to start. There
the coroutine runs on a fresh loop in a worker thread instead, so the sync API needs no
nest_asyncio.

Ctrl-C stops a run promptly, whichever thread runs it:

- In the main thread (a script, the command line), the first Ctrl-C cancels the run. If the
  loop does not come back within :data:`GRACE_S` (a step busy in synchronous code), a
  second interrupt is raised in the main thread for it. Either way :func:`run_sync` raises
  ``KeyboardInterrupt``, carrying the run's notes (the runner says how many items were done).
  A second Ctrl-C raises at once.
- In a worker thread (a Jupyter cell), a ``KeyboardInterrupt`` in the caller cancels the run
  on the worker's loop, waits up to :data:`GRACE_S` for it to unwind, and is raised again.

Threads that a cancelled run leaves behind (a synchronous step running in the loop's thread
pool) are not waited for; they end when their step does.
"""

from __future__ import annotations

import _thread
import asyncio
import contextvars
import functools
import signal
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Generic, ParamSpec, TypeVar

from .caller import CALLER_THREAD

__all__ = ["GRACE_S", "blocking", "run_sync", "twin_doc"]

T = TypeVar("T")
P = ParamSpec("P")

# How long a cancelled run may take to unwind before it is interrupted (or, in a worker
# thread, left to finish on its own).
GRACE_S = 1.0
# How long the tasks still pending after a run get to react to their cancellation.
_CLEANUP_S = 0.5


def _quiet_about_interrupts(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's exception handler: a task that Ctrl-C stopped is not worth a traceback."""
    if isinstance(context.get("exception"), KeyboardInterrupt):
        return
    loop.default_exception_handler(context)


class _Run(Generic[T]):
    """One coroutine on a private event loop with its own thread pool."""

    def __init__(self, coroutine: Coroutine[Any, Any, T], context: contextvars.Context) -> None:
        self.loop = asyncio.new_event_loop()
        self.executor = ThreadPoolExecutor(thread_name_prefix="evaltoolkit")
        self.loop.set_default_executor(self.executor)
        self.loop.set_exception_handler(_quiet_about_interrupts)
        self.task: asyncio.Task[T] = self.loop.create_task(coroutine, context=context)
        self.cancelled = False

    def run(self) -> T:
        asyncio.set_event_loop(self.loop)
        try:
            return self.loop.run_until_complete(self.task)
        finally:
            try:
                self._shutdown()
            finally:
                asyncio.set_event_loop(None)

    def cancel(self) -> None:
        """Cancel the run; safe from any thread and from a signal handler."""
        self.cancelled = True
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.task.cancel)

    def notes(self, raised: BaseException | None = None) -> list[str]:
        """The notes of the run's cancellation ("interrupted after 3 of 10 items; ...").

        Read from ``raised`` (what the run raised) when given, else from the task.
        """
        if raised is None and self.task.done() and self.task.cancelled():
            try:
                self.task.result()
            except asyncio.CancelledError as cancelled:
                raised = cancelled
        return _notes_of(raised)

    def _shutdown(self) -> None:
        loop = self.loop
        try:
            pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.wait(pending, timeout=_CLEANUP_S))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            # After a cancellation, do not wait for a synchronous step still running in the pool.
            stopped = self.cancelled or not self.task.done() or self.task.cancelled()
            self.executor.shutdown(wait=not stopped, cancel_futures=True)
            loop.close()


def _notes_of(error: BaseException | None) -> list[str]:
    """Notes on an exception and on those it was raised from (asyncio re-raises a task's
    CancelledError as a new one whose context is the original)."""
    notes: list[str] = []
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        notes.extend(note for note in getattr(error, "__notes__", []) if note not in notes)
        error = error.__cause__ or error.__context__
    return notes


def _interrupt(notes: list[str]) -> KeyboardInterrupt:
    interrupt = KeyboardInterrupt()
    for note in notes:
        interrupt.add_note(note)
    return interrupt


class _CtrlC:
    """The SIGINT handler of a run in the main thread: cancel first, then insist."""

    def __init__(self, run: _Run[Any]) -> None:
        self.run = run
        self.count = 0
        self.finished = False
        self.lock = threading.Lock()
        self.timer: threading.Timer | None = None
        self.main_thread = threading.get_ident()

    def __call__(self, signum: int, frame: object) -> None:
        if self.finished:
            return
        self.count += 1
        if self.count == 1 and not self.run.task.done():
            self.run.cancel()
            self.timer = threading.Timer(GRACE_S, self._insist)
            self.timer.daemon = True
            self.timer.start()
            return
        raise KeyboardInterrupt

    def _insist(self) -> None:
        # Under the lock, so that finish() cannot restore the previous handler between the
        # check and the signal: a late signal always finds this handler, which ignores it.
        with self.lock:
            if self.finished:
                return
            if hasattr(signal, "pthread_kill"):
                signal.pthread_kill(self.main_thread, signal.SIGINT)
            else:  # Windows: no thread-directed signals
                _thread.interrupt_main()

    def finish(self) -> None:
        self.finished = True
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()


def _run_here(coroutine: Coroutine[Any, Any, T]) -> T:
    run = _Run(coroutine, contextvars.copy_context())
    in_main_thread = threading.current_thread() is threading.main_thread()
    if not in_main_thread or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return run.run()
    handler = _CtrlC(run)
    previous = signal.signal(signal.SIGINT, handler)
    try:
        return run.run()
    except (asyncio.CancelledError, KeyboardInterrupt) as stopped:
        if isinstance(stopped, asyncio.CancelledError) and handler.count == 0:
            raise  # cancelled from inside, not by Ctrl-C
        raise _interrupt(run.notes(stopped)) from None
    finally:
        try:
            handler.finish()
        finally:
            signal.signal(signal.SIGINT, previous)


def _run_in_worker(coroutine: Coroutine[Any, Any, T]) -> T:
    run = _Run(coroutine, contextvars.copy_context())
    outcome: dict[str, Any] = {}
    # An event rather than Thread.join: in Python 3.11 a join interrupted by Ctrl-C can mark a
    # thread that is still running as stopped (bpo-45274), after which joins return at once.
    finished = threading.Event()

    def work() -> None:
        try:
            outcome["value"] = run.run()
        except BaseException as error:
            outcome["error"] = error
        finally:
            finished.set()

    worker = threading.Thread(target=work, name="evaltoolkit-run-sync", daemon=True)
    setattr(worker, CALLER_THREAD, threading.get_ident())  # warnings name this thread's line
    worker.start()
    try:
        finished.wait()
    except KeyboardInterrupt:
        run.cancel()
        finished.wait(GRACE_S)
        raise _interrupt(run.notes(outcome.get("error"))) from None
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` and return its result, whether or not an event loop is running.

    Without a running loop the coroutine runs here; inside one (a Jupyter cell) it runs on a
    fresh loop in a worker thread. Ctrl-C cancels it promptly either way (see the module
    notes) and raises ``KeyboardInterrupt``.

    Example:
        >>> async def answer() -> int:
        ...     return 42
        >>> run_sync(answer())
        42
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_here(coroutine)
    return _run_in_worker(coroutine)


def blocking(
    async_fn: Callable[P, Coroutine[Any, Any, T]], *, name: str | None = None
) -> Callable[P, T]:
    """The blocking twin of an async function: same parameters, runs it with :func:`run_sync`.

    The twin works inside a running event loop (a Jupyter cell) as :func:`run_sync` does.
    It is named ``name``, by default the async function's name without its leading ``a``
    (``arun_evals`` gives ``run_evals``); ``inspect.signature`` reads the async function's
    signature through ``__wrapped__``. Its docstring is the async function's, its first line
    followed by a line saying it is the blocking twin.

    Example:
        >>> async def atotal(values: list[int], *, start: int = 0) -> int:
        ...     \"\"\"Add the values.\"\"\"
        ...     return start + sum(values)
        >>> total = blocking(atotal)
        >>> total([1, 2], start=3), total.__name__
        (6, 'total')
    """
    twin_name = name or async_fn.__name__.removeprefix("a")

    @functools.wraps(async_fn)
    def twin(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_sync(async_fn(*args, **kwargs))

    twin.__name__ = twin_name
    owner, dot, _ = async_fn.__qualname__.rpartition(".")
    twin.__qualname__ = owner + dot + twin_name
    twin.__doc__ = twin_doc(async_fn.__doc__ or "", async_fn.__name__)
    return twin


def twin_doc(doc: str, async_name: str, *, indent: str = "    ") -> str:
    r"""The docstring of the blocking twin of ``async_name``, whose docstring is ``doc``: its
    first line, then a line saying it is the blocking twin, then the rest.

    ``indent`` is that of ``doc``'s later lines (none for a docstring already dedented, as
    the API reference's generator reads them).

    Example:
        >>> print(twin_doc("Add the values.\n\nArgs: ...", "atotal", indent=""))
        Add the values.
        <BLANKLINE>
        The blocking twin of :func:`atotal` (generated from it): it runs the
        coroutine to completion, inside a running event loop (a Jupyter cell) too.
        <BLANKLINE>
        Args: ...
    """
    summary, _, rest = doc.partition("\n")
    note = (
        f"{indent}The blocking twin of :func:`{async_name}` (generated from it): it runs the\n"
        f"{indent}coroutine to completion, inside a running event loop (a Jupyter cell) too."
    )
    if not rest.strip():
        return f"{summary}\n\n{note}"
    return f"{summary}\n\n{note}\n{rest}"
