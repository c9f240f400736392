"""Replies that always finish on a llama.cpp server: a bounded schema, and a budget to hold it.

llama.cpp's ``llama-server`` turns the JSON schema of a request into a grammar that every token
must follow. The grammar keeps a reply valid JSON, but not finite: a small model (SmolLM2-135M
at the server's defaults) repeats an array's entry, or a few characters inside a string, until
the token budget cuts it, and a cut reply is no JSON at all. Asked again, it loops again.

A grammar can end the loop where the budget cannot: with ``maxItems`` on each array and
``maxLength`` on each free-text string, every path through the grammar closes the JSON within a
known length. So, for a server that answers ``GET /props`` as llama.cpp's does (its context
``n_ctx`` under ``default_generation_settings``, and ``total_slots``), a step whose budget is the
toolkit's own (no ``max_tokens`` given) is sent

- its schema with each list bounded to :data:`MAX_ITEMS` entries and each free-text string to
  :data:`MAX_CHARS` characters (enumerations, numbers and booleans are bounded already), and
- a reply budget sized for that bounded reply, at most what the server's context leaves after
  the prompt, instead of the step's own (which a loop within the bounds would still overrun).

The reply is validated against the step's own schema, as every reply is. A reply that needs
more (a summary of more than eight claims) is cut by the grammar, so ``max_tokens=`` (which is
sent as given, with the step's own schema) turns the bounds off. The server is asked once per
address and process, in a thread, with a short timeout, and only when it is on this machine or
a private network: hosted providers are never asked. A server that does not answer is left as
it was.
"""

from __future__ import annotations

import asyncio
import copy
import ipaddress
import json
import math
import threading
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ._structured import CHARS_PER_TOKEN, default_max_tokens, positive_int

__all__ = [
    "MAX_CHARS",
    "MAX_ITEMS",
    "GrammarServer",
    "bounded_schema",
    "grammar_server",
    "parse_props",
    "props_url",
    "reply_budget",
]

#: Entries a list may hold in a reply to a grammar server.
MAX_ITEMS: Final = 8
#: Characters a free-text string may hold in a reply to a grammar server.
MAX_CHARS: Final = 120
_PROPS_TIMEOUT_S: Final = 2.0
_TEMPLATE_TOKENS: Final = 64
_MIN_REPLY_TOKENS: Final = 128

_known: dict[str, GrammarServer | None] = {}
_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class GrammarServer:
    """A llama.cpp server's context, as its ``GET /props`` reports it.

    Attributes:
        n_ctx: The context of one request (tokens), prompt and reply together.
        total_slots: Requests it decodes at once.
    """

    n_ctx: int
    total_slots: int


def props_url(api_base: str) -> str:
    """The ``/props`` address of a server from its OpenAI-compatible ``api_base``.

    Example:
        >>> props_url("http://127.0.0.1:8080/v1/")
        'http://127.0.0.1:8080/props'
    """
    base = api_base.rstrip("/")
    return f"{base.removesuffix('/v1')}/props"


def parse_props(payload: object) -> GrammarServer | None:
    """The context and slots in a ``/props`` answer; None when it is not llama.cpp's.

    Example:
        >>> parse_props({"default_generation_settings": {"n_ctx": 4096}, "total_slots": 4})
        GrammarServer(n_ctx=4096, total_slots=4)
        >>> parse_props({"detail": "Not Found"}) is None
        True
    """
    if not isinstance(payload, Mapping):
        return None
    settings = payload.get("default_generation_settings")
    n_ctx = settings.get("n_ctx") if isinstance(settings, Mapping) else None
    slots = payload.get("total_slots", 1)
    if positive_int(n_ctx) and positive_int(slots):
        return GrammarServer(n_ctx=n_ctx, total_slots=slots)
    return None


def _nearby(api_base: str) -> bool:
    """Whether ``api_base`` is on this machine or a private network (never a hosted API)."""
    host = urllib.parse.urlsplit(api_base).hostname or ""
    if host == "localhost" or host.endswith(".local"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private


def _ask(api_base: str) -> GrammarServer | None:
    request = urllib.request.Request(props_url(api_base), headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=_PROPS_TIMEOUT_S) as response:
            return parse_props(json.loads(response.read(1_000_000)))
    except Exception:  # no such route, not JSON, no server: nothing is known
        return None


def _ask_once(api_base: str) -> GrammarServer | None:
    with _lock:  # held while asking: the calls of a run arriving together ask once
        if api_base not in _known:
            _known[api_base] = _ask(api_base)
        return _known[api_base]


async def grammar_server(api_base: str | None) -> GrammarServer | None:
    """The llama.cpp server at ``api_base``, or None (not llama.cpp's, not nearby, no answer).

    Asked once per address in this process, in a thread so that the event loop runs on; the
    answer (None for an address that is not asked) is kept for every later call.
    """
    if not api_base:
        return None
    with _lock:
        if api_base in _known:
            return _known[api_base]
        if not _nearby(api_base):
            _known[api_base] = None
            return None
    return await asyncio.to_thread(_ask_once, api_base)


def bounded_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` with every list at most :data:`MAX_ITEMS` entries and every free-text
    string at most :data:`MAX_CHARS` characters (tighter bounds it has are kept).

    Example:
        >>> bounded_schema({"type": "array", "items": {"type": "string"}})
        {'type': 'array', 'items': {'type': 'string', 'maxLength': 120}, 'maxItems': 8}
    """
    bounded: dict[str, Any] = copy.deepcopy(dict(schema))
    _bound(bounded)
    return bounded


def _bound(node: object) -> None:
    if isinstance(node, list):
        for child in node:
            _bound(child)
        return
    if not isinstance(node, dict):
        return
    for child in node.values():
        _bound(child)
    kinds = node.get("type")
    kinds = set(kinds) if isinstance(kinds, list) else {kinds}
    if "array" in kinds or "items" in node:
        node["maxItems"] = min(_int_or(node.get("maxItems"), MAX_ITEMS), MAX_ITEMS)
    if "string" in kinds and "enum" not in node and "const" not in node:
        node["maxLength"] = min(_int_or(node.get("maxLength"), MAX_CHARS), MAX_CHARS)


def _int_or(value: object, default: int) -> int:
    return value if positive_int(value) else default


def reply_budget(
    server: GrammarServer, bounded: Mapping[str, Any], messages: Iterable[Mapping[str, Any]]
) -> int:
    """Tokens for a reply to ``bounded`` (a schema from :func:`bounded_schema`): room for the
    bounded reply in full (a string's characters at three a token), at most what the server's
    context leaves after the prompt, and never under 128.

    Example:
        >>> server = GrammarServer(n_ctx=4096, total_slots=4)
        >>> schema = bounded_schema({"type": "object", "properties": {"why": {"type": "string"}}})
        >>> reply_budget(server, schema, [{"role": "user", "content": "Why?"}])
        256
    """
    characters = sum(len(json.dumps(message.get("content"))) for message in messages)
    prompt = math.ceil(characters / CHARS_PER_TOKEN) + _TEMPLATE_TOKENS
    room = server.n_ctx - prompt
    return max(_MIN_REPLY_TOKENS, min(default_max_tokens(bounded), room))
