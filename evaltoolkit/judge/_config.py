"""The judge's options: one typed, frozen record, checked when it is made.

Every option is declared once, as a field of :class:`JudgeConfig`; its camelCase spelling is
derived from the field name, and an unknown name is an error suggesting the closest field
(``temprature`` -> ``temperature``). Any other litellm argument goes in ``extra``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from .._internal.options import resolve_names
from ..errors import ConfigurationError
from ._secrets import register_secrets

if TYPE_CHECKING:
    from ._cache import JudgeCache

__all__ = [
    "EXTRA_HINT",
    "OFFLINE_MODEL",
    "STRUCTURED_OUTPUT_MODES",
    "JudgeConfig",
    "StructuredOutput",
    "judge_option_names",
]

OFFLINE_MODEL: Final = "offline"

StructuredOutput = Literal["auto", "json_schema", "json_object", "off"]
#: How a judge asks for JSON: ``auto`` negotiates, the others force one form.
STRUCTURED_OUTPUT_MODES: tuple[StructuredOutput, ...] = (
    "auto",
    "json_schema",
    "json_object",
    "off",
)

# Arguments the judge sets itself; they cannot be passed through ``extra``.
_RESERVED_EXTRA: Final = frozenset(
    {"model", "messages", "response_format", "num_retries", "stream", "n", "max_retries"}
)
EXTRA_HINT: Final = "(other litellm arguments go in extra={...})"
# Options that apply to every judge; the rest only make sense for a model.
_SHARED_OPTIONS: Final = frozenset({"model", "cache", "cache_as", "concurrency"})


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgeConfig:
    """How a judge reaches its model.

    Attributes:
        model: A litellm model string (``"openai/gpt-4o-mini"``, ``"ollama/llama3"``,
            ``"openai/<name>"`` with ``api_base``), or ``"offline"`` for the built-in judge.
        api_base: The server's base URL, for self-hosted or proxied models.
        api_key: The API key; None reads the provider's environment variable. Never stored in
            caches, results or logs, and never shown in the repr.
        temperature: Sampling temperature; None sends none (for models that refuse one).
        max_tokens: Completion tokens per request, for every step; None leaves each step's
            own budget (sized from the reply it expects), else one sized from its reply
            schema.
        seed: Sampling seed, for providers that honour one.
        timeout: Seconds before one request counts as timed out. A timed-out request is
            retried at most once (not counting a timeout while it waited behind requests the
            server could not serve).
        max_retries: Retries of a request after a rate limit, server error or dropped
            connection: 6, so that at one failed request in five a call still fails only
            about once in 80,000 (with 4, one call in 3,000: about one 100-item run of
            three steps in nine lost an item). Authentication errors and refused
            connections are never retried.
        max_repairs: Follow-up requests feeding a reply's validation error back to the model.
        concurrency: Requests this judge keeps in flight at most. None (the default) leaves
            the limit to the run (``run_evals(concurrency=...)``); how the limits combine is
            the table in :func:`evaltoolkit.run_evals`. Below either, the calls in flight to
            one server (model and ``api_base``) adapt to what it sustains: halved when rate
            limits, timeouts or dropped connections dominate its recent calls (or a timeout
            comes while its replies queue), raised again by successes.
        cache: True for the default disk cache, a directory or file path for another one, a
            ``JudgeCache``, or False for none.
        cache_as: The name under which the model's replies are cached, in place of the model
            string and the server's address: the same name reuses a cache across servers and
            hosts (a model moved to another machine), two names keep apart two models behind
            one model string. None (the default) caches under the model string and the
            server's scheme, host and path; the port is left out, so a local server restarted
            on another port keeps its cache.
        structured_output: ``"auto"`` (the default) asks for a JSON-schema
            ``response_format``, then for a JSON object with the schema attached, then for
            plain instructions, moving down when the server rejects a form and remembering what
            worked; ``"json_schema"``, ``"json_object"`` or ``"off"`` force one form.
        backoff_base: Ceiling in seconds of a retry's randomised wait. It doubles with each
            retry while the server is judged overloaded (its failures dominate its recent
            calls); a scattered fault's retry waits within this ceiling.
        backoff_max: Largest ceiling of the randomised wait, in seconds.
        max_retry_after: The longest ``Retry-After`` honoured, in seconds.
        extra: Any other argument for ``litellm.acompletion`` (``drop_params``,
            ``extra_headers``, ``top_p``, ...).

    Example:
        >>> JudgeConfig.from_options("openai/gpt-4o-mini", apiBase="http://127.0.0.1:8000/v1")
        JudgeConfig(model='openai/gpt-4o-mini', api_base='http://127.0.0.1:8000/v1')
        >>> JudgeConfig.from_options("openai/x", temprature=0.2)
        Traceback (most recent call last):
        ...
        evaltoolkit.errors.ConfigurationError: judge: unknown option 'temprature'; did you \
mean 'temperature'? (other litellm arguments go in extra={...})
    """

    model: str = OFFLINE_MODEL
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    temperature: float | None = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    timeout: float = 60.0
    max_retries: int = 6
    max_repairs: int = 2
    concurrency: int | None = None
    cache: bool | str | Path | JudgeCache = True
    cache_as: str | None = None
    structured_output: StructuredOutput = "auto"
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    max_retry_after: float = 60.0
    extra: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        _check_model(self.model)
        _check_api_base(self.api_base)
        _check_number("timeout", self.timeout, minimum=0.0, exclusive=True)
        for name in ("max_retries", "max_repairs"):
            _check_integer(name, getattr(self, name), minimum=0)
        for name in ("backoff_base", "backoff_max", "max_retry_after"):
            _check_number(name, getattr(self, name), minimum=0.0)
        if self.concurrency is not None:
            _check_integer("concurrency", self.concurrency, minimum=1)
        if self.max_tokens is not None:
            _check_integer("max_tokens", self.max_tokens, minimum=1)
        if self.temperature is not None:
            _check_number("temperature", self.temperature, minimum=0.0)
        if self.structured_output not in STRUCTURED_OUTPUT_MODES:
            raise ConfigurationError(
                f"judge: structured_output must be one of {', '.join(STRUCTURED_OUTPUT_MODES)}, "
                f"got {self.structured_output!r}"
            )
        _check_cache(self.cache)
        if self.cache_as is not None and (
            not isinstance(self.cache_as, str) or not self.cache_as.strip()
        ):
            raise ConfigurationError(
                f"judge: cache_as must be a non-empty name, got {self.cache_as!r}"
            )
        _check_extra(self.extra)
        object.__setattr__(self, "model", self.model.strip())
        object.__setattr__(self, "extra", dict(self.extra))

    def __repr__(self) -> str:
        changed = [
            f"{option.name}={getattr(self, option.name)!r}"
            for option in dataclasses.fields(self)
            if option.repr and getattr(self, option.name) != _default_of(option)
        ]
        if self.api_key is not None:
            changed.append("api_key='***'")
        if self.extra:
            changed.append(f"extra=<{', '.join(sorted(self.extra))}>")
        return f"JudgeConfig(model={self.model!r}{''.join(', ' + part for part in changed[1:])})"

    @property
    def offline(self) -> bool:
        """Whether this is the built-in offline judge."""
        return self.model == OFFLINE_MODEL

    @classmethod
    def from_options(cls, model: str | JudgeConfig | None = None, **options: Any) -> JudgeConfig:
        """Build a config from keyword options, in snake_case or camelCase: the one place
        where judge options become a config (``create_judge``, ``LiteLLMJudge``,
        ``ServicedJudge`` and every scorer factory come here).

        Args:
            model: A model string, None for the offline judge, or a config that ``options``
                change (as :meth:`replace` does).
            **options: The fields of :class:`JudgeConfig`.

        Raises:
            ConfigurationError: An unknown option (with the closest valid name), a value out of
                range, or a model-only option given to the offline judge.
        """
        if isinstance(model, JudgeConfig):
            return model.replace(**options) if options else model
        resolved = resolve_names(options, judge_option_names(), where="judge", hint=EXTRA_HINT)
        name: Any = model
        if "model" in resolved:
            if name is not None and resolved["model"] != name:
                raise ConfigurationError("judge: the model is given twice")
            name = resolved.pop("model")
        name = OFFLINE_MODEL if name is None else name
        _check_model(name)
        if name.strip() == OFFLINE_MODEL:
            defaults = {option.name: _default_of(option) for option in dataclasses.fields(cls)}
            model_only = sorted(
                name
                for name, value in resolved.items()
                if name not in _SHARED_OPTIONS and value != defaults[name]
            )
            if model_only:
                raise ConfigurationError(
                    f"the offline judge takes no {', '.join(model_only)}: these options are for "
                    "a model judge; pass a model (model='provider/name', or --model on the "
                    "command line) to use one, or drop them"
                )
        return cls(model=name, **resolved)

    def replace(self, **changes: Any) -> JudgeConfig:
        """A copy with some options changed (checked like :meth:`from_options`)."""
        resolved = resolve_names(changes, judge_option_names(), where="judge", hint=EXTRA_HINT)
        return dataclasses.replace(self, **resolved)


def judge_option_names() -> tuple[str, ...]:
    """Every judge option name, in declaration order.

    Example:
        >>> judge_option_names()[:3]
        ('model', 'api_base', 'api_key')
    """
    return tuple(option.name for option in dataclasses.fields(JudgeConfig))


def _default_of(option: dataclasses.Field[Any]) -> Any:
    if option.default is not dataclasses.MISSING:
        return option.default
    if option.default_factory is not dataclasses.MISSING:
        return option.default_factory()
    return dataclasses.MISSING


def _check_model(model: object) -> None:
    if not isinstance(model, str) or not model.strip():
        raise ConfigurationError(
            "judge: model must be a litellm model string such as 'openai/gpt-4o-mini', or "
            f"'offline', got {model!r}"
        )


def _shown_url(url: str) -> str:
    """A URL as it may be shown: its password, and its query's values, masked."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return re.sub(r"(?<=://)[^@/]*@", "***@", url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rpartition("@")[2]
    query = re.sub(r"=[^&]*", "=***", parts.query)
    fragment = "***" if parts.fragment else ""
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def _api_base_extras(api_base: str, parts: urllib.parse.SplitResult) -> tuple[str, str] | None:
    """Why a base URL with a user name, a password, a query or a fragment is refused: the
    message for Python, then for the command line; None for a plain URL."""
    bare = urllib.parse.urlunsplit(
        (parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", "")
    )
    if parts.username is not None or parts.password is not None:
        register_secrets({"password": parts.password or parts.username})
        problem = (
            f"holds a user name or password ({_shown_url(api_base)!r}), which litellm does not "
            "send as a server expects (every request fails, retried); give the URL without "
            f"them ({bare!r})"
        )
        return (
            f"{problem} and the key as api_key=, or in the provider's variable",
            f"{problem} and the key in the provider's environment variable (OPENAI_API_KEY "
            "for openai/... models)",
        )
    if parts.query or parts.fragment:
        problem = (
            f"has a query or a fragment ({_shown_url(api_base)!r}): litellm adds the path "
            "after it, so requests would be sent to "
            f"{_shown_url(api_base) + 'chat/completions'!r}; give the base URL alone "
            f"({bare!r})"
        )
        return (
            f"{problem}, and a key as api_key= or in the provider's variable",
            f"{problem}, and a key in the provider's environment variable (OPENAI_API_KEY "
            "for openai/... models)",
        )
    return None


def _check_api_base(api_base: object) -> None:
    """A base URL needs a scheme and a host, and nothing litellm would mangle (a password, a
    query): without them every request fails, slowly."""
    if api_base is None:
        return
    if not isinstance(api_base, str):
        problem = f"must be a URL string, got {type(api_base).__name__}"
    else:
        try:
            parts = urllib.parse.urlsplit(api_base)
            valid = parts.scheme in ("http", "https") and bool(parts.hostname)
            _ = parts.port  # a port that is not a number raises
        except ValueError:
            valid = False
        if valid:
            extras = _api_base_extras(api_base, parts)
            if extras is None:
                return
            python, command_line = extras
            raise ConfigurationError(
                f"judge: api_base {python}", command_line=f"--api-base {command_line}"
            )
        problem = (
            "must be an http:// or https:// URL with a host, such as "
            f"'http://127.0.0.1:8000/v1', got {_shown_url(api_base)!r}"
        )
        guess = f"http://{api_base.strip()}"
        with contextlib.suppress(ValueError):
            host = urllib.parse.urlsplit(guess)
            if (
                "://" not in api_base
                and host.hostname
                and (host.port or host.hostname == "localhost" or "." in host.hostname)
            ):
                problem += f"; did you mean {_shown_url(guess)!r}?"
    raise ConfigurationError(f"judge: api_base {problem}", command_line=f"--api-base {problem}")


def _check_number(name: str, value: object, *, minimum: float, exclusive: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigurationError(f"judge: {name} must be a number, got {value!r}")
    if value < minimum or (exclusive and value == minimum):
        bound = f"> {minimum:g}" if exclusive else f">= {minimum:g}"
        raise ConfigurationError(f"judge: {name} must be {bound}, got {value!r}")


def _check_integer(name: str, value: object, *, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigurationError(f"judge: {name} must be an integer >= {minimum}, got {value!r}")


def _check_cache(cache: object) -> None:
    if isinstance(cache, bool | str | Path) or type(cache).__name__ == "JudgeCache":
        return
    raise ConfigurationError(
        f"judge: cache must be True, False, a directory path or a JudgeCache, got {cache!r}"
    )


def _check_extra(extra: object) -> None:
    if not isinstance(extra, Mapping):
        raise ConfigurationError(f"judge: extra must be a dict of litellm arguments, got {extra!r}")
    reserved = sorted(_RESERVED_EXTRA & {str(name) for name in extra})
    if reserved:
        raise ConfigurationError(
            f"judge: the judge sets {', '.join(reserved)} itself; remove them from extra "
            "(retries are set with max_retries)"
        )
    options = set(judge_option_names()) & {str(name) for name in extra}
    if options:
        raise ConfigurationError(
            f"judge: {', '.join(sorted(options))} is a judge option; pass it as such, not in extra"
        )
