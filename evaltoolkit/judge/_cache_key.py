"""The key under which a judge call's reply is cached: everything that shapes the request.

sha256 over the model, the server, the step, the sampling parameters, the form in which JSON
was asked for, the schema and the messages. Never over a credential: options whose name says
they carry one (``api_key``, ``extra_headers``, ...) stay out, so changing a key keeps the
cache, and the cache file holds no secret.

What identifies the model (:func:`model_identity`): the model string and the server's scheme,
host and path, without its port; a local server restarts on a new port and serves the same
model. A judge's ``cache_as`` name replaces both. Keys written before (with the port) are
still read (:func:`address_with_port`).
"""

from __future__ import annotations

import hashlib
import json
import urllib.parse
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ._parse import schema_fingerprint
from ._secrets import is_secret_name

__all__ = [
    "CACHE_FORMAT_VERSION",
    "call_key",
    "call_keys",
    "canonical_json",
    "key_parameters",
    "model_identity",
]

# Bump when the cached value's meaning or the key's recipe changes, so old entries stop matching.
CACHE_FORMAT_VERSION: Final = 2


def _json_default(value: object) -> str:
    # Objects without a JSON form (clients, sessions) enter the key by type, never by address.
    return f"<{type(value).__module__}.{type(value).__qualname__}>"


def canonical_json(value: object) -> str:
    """Compact JSON with sorted keys, objects without a JSON form written as their type.

    Example:
        >>> canonical_json({"b": 1, "a": [1, 2]})
        '{"a":[1,2],"b":1}'
    """
    return json.dumps(
        value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=_json_default
    )


def model_identity(
    model: str, api_base: str | None, cache_as: str | None = None
) -> tuple[str, str]:
    """The (model, server) pair a cache key holds: the port left out, or the ``cache_as`` name.

    Example:
        >>> model_identity("openai/local", "http://127.0.0.1:8011/v1/")
        ('openai/local', 'http://127.0.0.1/v1')
        >>> model_identity("openai/local", "http://127.0.0.1:8011/v1", cache_as="smollm2-135m")
        ('cache-as:smollm2-135m', '')
    """
    if cache_as is not None:
        return f"cache-as:{cache_as.strip()}", ""
    if not api_base:
        return model, ""
    try:
        parts = urllib.parse.urlsplit(api_base.strip())
        host = parts.hostname
    except ValueError:
        return model, api_base
    if not parts.scheme or host is None:
        return model, api_base
    host = f"[{host}]" if ":" in host else host
    return model, f"{parts.scheme.lower()}://{host}{parts.path.rstrip('/')}"


def key_parameters(
    *,
    temperature: float | None,
    seed: int | None,
    max_tokens: int | None,
    extra: Mapping[str, Any],
    repeat: int = 0,
) -> str:
    """The request parameters that enter the key, secrets left out, as canonical JSON.

    A repeat other than 0 (a repeatability run asking again) enters the key, so each repeat
    is cached apart; repeat 0 leaves the key as it always was.

    Example:
        >>> key_parameters(temperature=0.0, seed=None, max_tokens=None,
        ...                extra={"top_p": 0.9, "extra_headers": {"X-Key": "secret"}})
        '{"max_tokens":null,"options":{"top_p":0.9},"seed":null,"temperature":0.0}'
    """
    public = {name: value for name, value in extra.items() if not is_secret_name(name)}
    parameters: dict[str, Any] = {
        "temperature": temperature,
        "seed": seed,
        "max_tokens": max_tokens,
        "options": public,
    }
    if repeat:
        parameters["repeat"] = repeat
    return canonical_json(parameters)


def call_key(
    *,
    model: str,
    api_base: str | None,
    step: str,
    parameters: str,
    form: str,
    schema: Mapping[str, Any],
    messages: Sequence[Mapping[str, Any]],
) -> str:
    """The cache key of one call: sha256 over everything that shapes the request.

    Example:
        >>> key = call_key(model="m", api_base=None, step="s", parameters="{}", form="off",
        ...                schema={"type": "object"}, messages=[{"role": "user", "content": "x"}])
        >>> len(key)
        64
    """
    (key,) = call_keys(
        [(model, api_base, form)],
        step=step,
        parameters=parameters,
        schema=schema,
        messages=messages,
    )
    return key


def call_keys(
    variants: Sequence[tuple[str, str | None, str]],
    *,
    step: str,
    parameters: str,
    schema: Mapping[str, Any],
    messages: Sequence[Mapping[str, Any]],
) -> list[str]:
    """The keys of one call under several (model, api_base, form) variants, the messages and
    schema serialised once.

    Example:
        >>> keys = call_keys([("m", None, "json_schema"), ("m", None, "off")], step="s",
        ...                  parameters="{}", schema={}, messages=[])
        >>> len(set(keys))
        2
    """
    schema_part = schema_fingerprint(schema).encode()
    messages_part = canonical_json([dict(message) for message in messages]).encode()
    keys: list[str] = []
    for model, api_base, form in variants:
        digest = hashlib.sha256()
        for part in (
            f"evaltoolkit-judge-cache/{CACHE_FORMAT_VERSION}".encode(),
            model.encode(),
            (api_base or "").encode(),
            step.encode(),
            parameters.encode(),
            form.encode(),
            schema_part,
            messages_part,
        ):
            digest.update(part)
            digest.update(b"\x1f")
        keys.append(digest.hexdigest())
    return keys
