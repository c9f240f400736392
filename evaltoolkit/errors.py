"""The exceptions evaltoolkit raises.

One small tree, so that ``except EvalToolkitError`` catches everything the toolkit raises on
purpose::

    EvalToolkitError
    ├── ConfigurationError        a scorer, judge or run was set up wrongly (raised at once)
    ├── InputError                a data item has a missing or ill-typed field
    │   └── DataLoadError         a data file could not be read
    ├── JudgeError                a judge step failed (step, raw reply and attempts attached)
    │   ├── JudgeCallError        the model call itself failed after every retry
    │   └── JudgeReplyError       the model answered, but never with a valid reply
    └── MissingDependencyError    an optional extra is not installed (also an ImportError)

Item-level failures (``InputError``, ``JudgeError``) never stop a run: the runner records them
on the item, whose score is then NaN.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ConfigurationError",
    "DataLoadError",
    "EvalToolkitError",
    "InputError",
    "JudgeCallError",
    "JudgeError",
    "JudgeReplyError",
    "MissingDependencyError",
]


class EvalToolkitError(Exception):
    """Base class of every error evaltoolkit raises on purpose."""


class ConfigurationError(EvalToolkitError, ValueError):
    """A scorer, judge or run was configured with an invalid option.

    Attributes:
        command_line: The same message worded for the ``evaltoolkit`` command, naming its
            flags (``--cache-dir``) where the message names Python options (``cache=``);
            None when the message names no option.
    """

    def __init__(self, message: str, *, command_line: str | None = None) -> None:
        super().__init__(message)
        self.command_line = command_line


class InputError(EvalToolkitError, ValueError):
    """A data item has a missing or ill-typed field.

    Attributes:
        field: The field at fault (``"output"``, ``"ground_truth"``, ...).
        item_id: The item's id when known.
    """

    def __init__(self, message: str, *, field: str | None = None, item_id: object = None) -> None:
        self.field = field
        self.item_id = item_id
        if item_id is not None:
            message = f"item {item_id!r}: {message}"
        super().__init__(message)


class DataLoadError(InputError):
    """A data file is missing, unreadable or of an unknown format."""


class JudgeError(EvalToolkitError):
    """A judge step failed.

    Attributes:
        step: The judge step that failed (``"source_judgement"``, ``"coverage"``, ...).
        raw_reply: The last raw text the model returned, if any.
        attempts: How many requests were made before giving up.
        usage: Tokens the failed attempts used (a :class:`~evaltoolkit.Usage`), where the
            provider reported them.
        cost: Cost of the failed attempts, None when unknown.
    """

    def __init__(
        self,
        message: str,
        *,
        step: str,
        raw_reply: str | None = None,
        attempts: int = 0,
        usage: Any = None,
        cost: float | None = None,
    ) -> None:
        super().__init__(message)
        self.step = step
        self.raw_reply = raw_reply
        self.attempts = attempts
        self.usage = usage
        self.cost = cost


class JudgeCallError(JudgeError):
    """The model call failed (HTTP error, timeout, dropped connection) after every retry."""


class JudgeReplyError(JudgeError):
    """The model replied, but no reply parsed and validated against the step's schema."""


class MissingDependencyError(EvalToolkitError, ImportError):
    """An optional dependency is not installed; the message says what to install."""
