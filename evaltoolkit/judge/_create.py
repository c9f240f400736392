"""create_judge: the one way to get a judge from a model string, a config, a backend or a judge."""

from __future__ import annotations

from typing import Any

from ..errors import ConfigurationError
from ._backend import JudgeBackend, ServicedJudge
from ._config import JudgeConfig
from ._offline_judge import OfflineJudge
from ._types import Judge

__all__ = ["create_judge"]


def create_judge(
    model: str | Judge | JudgeBackend | JudgeConfig | None = None, **options: Any
) -> Judge:
    """Return a judge for ``model``.

    Args:
        model: A litellm model string (``"openai/gpt-4o-mini"``, ``"ollama/llama3"``,
            ``"openai/<name>"`` with ``api_base``), ``"offline"`` or None for the built-in
            judge, a :class:`JudgeConfig`, a :class:`JudgeBackend` (wrapped in the judge
            services, :class:`ServicedJudge`), or a judge object, returned as it is unless
            service options are given (then wrapped like a backend; a ``LiteLLMJudge`` or
            ``ServicedJudge`` has its services already and takes none).
        **options: The options of :class:`JudgeConfig` (``api_base``, ``api_key``,
            ``temperature``, ``max_tokens``, ``timeout``, ``max_retries``, ``concurrency``,
            ``cache``, ``structured_output``, ``extra``, ...); for a backend or judge object,
            only the service options (``cache``, ``concurrency``, ``max_retries``,
            ``timeout``, ``backoff_base``, ``backoff_max``, ``max_retry_after``).

    Raises:
        ConfigurationError: An unknown option (the message names the closest valid one), a
            value out of range, a model-only option for the offline judge, or an object that
            is neither a judge nor a backend.

    Example:
        >>> create_judge().model
        'offline'
        >>> create_judge("offline", temperature=0.5)
        Traceback (most recent call last):
        ...
        evaltoolkit.errors.ConfigurationError: the offline judge takes no temperature: these \
options are for a model judge; pass a model (model='provider/name', or --model on the command \
line) to use one, or drop them
    """
    if model is None or isinstance(model, str | JudgeConfig):
        config = JudgeConfig.from_options(model, **options)
    elif isinstance(model, Judge):
        if not options:
            return model
        if isinstance(model, ServicedJudge):  # LiteLLMJudge is one
            raise ConfigurationError(
                f"judge options ({', '.join(sorted(options))}) cannot be applied to a judge "
                "that has its judge services already; set them when creating it"
            )
        return ServicedJudge(model, **options)
    elif isinstance(model, JudgeBackend):
        return ServicedJudge(model, **options)
    else:
        raise ConfigurationError(
            f"model must be a litellm model string, 'offline', a JudgeConfig, a judge "
            f"(model, offline and an async complete(request)) or a judge backend (model and "
            f"an async send(request)), got {model!r}"
        )
    if config.offline:
        return OfflineJudge()
    from ._litellm import LiteLLMJudge

    return LiteLLMJudge.from_config(config)
