"""What a judge call will cost, before it is made: tokens counted, prices looked up.

Tokens are counted with litellm's ``token_counter``, with the model's own tiktoken encoding
when tiktoken knows the model, else with cl100k_base, which :func:`tokenizer_note` then says
is approximate. Prices come from litellm's price table (``get_model_info``). A model missing
from the table has no :class:`Price`: its cost is unknown, never $0.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..errors import ConfigurationError
from ._litellm_runtime import import_litellm
from ._structured import default_max_tokens
from ._types import Judge, JudgeRequest

__all__ = [
    "Price",
    "cached_reply_value",
    "completion_budget",
    "count_message_tokens",
    "count_text_tokens",
    "minimal_reply_tokens",
    "price_of",
    "require_price",
    "tokenizer_note",
]

# The tokenizer litellm falls back to for a model it has no tokenizer of.
_DEFAULT_ENCODING: Final = "cl100k_base"


@dataclass(frozen=True, slots=True)
class Price:
    """A model's prices in USD per token, from litellm's price table.

    Attributes:
        model: The model string priced.
        input: Per input token.
        output: Per output token.
        cached_input: Per input token read from the provider's prompt cache; None when the
            table gives no separate price (such tokens then cost ``input``).
    """

    model: str
    input: float
    output: float
    cached_input: float | None = None

    def cost(self, input_tokens: float, output_tokens: float) -> float:
        """The cost of a call with these token counts, none of them from a prompt cache.

        Example:
            >>> Price("m", input=1e-6, output=2e-6).cost(1000, 500)
            0.002
        """
        return input_tokens * self.input + output_tokens * self.output


def price_of(model: str) -> Price | None:
    """The model's prices from litellm's price table, None when the table lacks them.

    Read on each call, so that a price registered with ``litellm.register_model`` counts.
    """
    if model == "offline":
        return Price(model, 0.0, 0.0)
    litellm = import_litellm()
    try:
        info = litellm.get_model_info(model)
    except Exception:  # not in the price table: the cost is unknown, never 0
        return None
    input_price, output_price = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if input_price is None or output_price is None:
        return None
    cached = info.get("cache_read_input_token_cost")
    return Price(model, float(input_price), float(output_price), _float_or_none(cached))


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


def require_price(judge: Judge) -> Price:
    """The judge model's prices, for a budget; a clear error when they are unknown.

    Raises:
        ConfigurationError: The model is not in litellm's price table.
    """
    price = price_of(judge.model)
    if price is None:
        problem = (
            f"the judge model's price, and litellm's price table has none for {judge.model!r}; "
            "use a model it prices"
        )
        raise ConfigurationError(
            f"max_cost needs {problem}, register a price with litellm.register_model({{...}}), "
            "or drop max_cost",
            command_line=f"--max-cost needs {problem}, or leave out --max-cost",
        )
    return price


@functools.lru_cache(maxsize=64)
def _tokenizer(model: str) -> tuple[dict[str, Any], str | None]:
    """The tokenizer to count ``model``'s tokens with, and a note when it is not the model's.

    The model's own tiktoken encoding when tiktoken knows the model (OpenAI's), else
    cl100k_base: never a tokenizer download at estimate time (litellm would fetch some
    models' tokenizers from the Hugging Face hub, retrying for half a minute offline).
    """
    import tiktoken

    # Counting once loads litellm's default encoding, which points tiktoken at the encoding
    # files litellm ships, so that no download is needed for them.
    import_litellm().token_counter(model="gpt-3.5-turbo", text="x")
    try:
        own: str | None = tiktoken.encoding_name_for_model(model.split("/", 1)[-1])
    except KeyError:
        own = None
    if own is not None:
        with contextlib.suppress(Exception):  # an encoding neither shipped nor downloadable
            return {"type": "openai_tokenizer", "tokenizer": tiktoken.get_encoding(own)}, None
    fallback = tiktoken.get_encoding(_DEFAULT_ENCODING)
    uses = f"; {model} uses {own}" if own else ""
    note = f"tokens counted approximately with the {_DEFAULT_ENCODING} tokenizer{uses}"
    return {"type": "openai_tokenizer", "tokenizer": fallback}, note


def tokenizer_note(model: str) -> str | None:
    """None when tokens are counted with the model's own tokenizer, else what was used.

    Example:
        >>> tokenizer_note("offline") is None
        True
    """
    if model == "offline":
        return None
    return _tokenizer(model)[1]


def count_message_tokens(model: str, messages: Sequence[Mapping[str, str]]) -> int:
    """The input tokens of a request's messages, by litellm's token counter for ``model``."""
    if model == "offline":
        return 0
    counted = import_litellm().token_counter(
        model=model, custom_tokenizer=_tokenizer(model)[0], messages=[dict(m) for m in messages]
    )
    return int(counted)


def count_text_tokens(model: str, text: str) -> int:
    """The tokens of ``text`` by litellm's token counter for ``model``."""
    if model == "offline" or not text:
        return 0
    counted = import_litellm().token_counter(
        model=model, custom_tokenizer=_tokenizer(model)[0], text=text
    )
    return int(counted)


def completion_budget(judge: Judge, request: JudgeRequest) -> int:
    """The ``max_tokens`` the judge sends with ``request``: the most a reply can cost."""
    config = getattr(judge, "config", None)
    configured = getattr(config, "max_tokens", None)
    return int(configured or request.max_tokens or default_max_tokens(request.schema))


def _minimal(schema: Mapping[str, Any]) -> Any:
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties") or {}
        required = schema.get("required") or list(properties)
        return {name: _minimal(properties.get(name) or {}) for name in required}
    return {"array": [], "string": "", "boolean": False, "integer": 0, "number": 0}.get(str(kind))


def minimal_reply_tokens(model: str, schema: Mapping[str, Any]) -> int:
    """Tokens of the shortest reply the schema accepts (empty lists and texts): a floor."""
    return max(count_text_tokens(model, json.dumps(_minimal(schema))), 1)


def cached_reply_value(judge: Judge, request: JudgeRequest) -> dict[str, Any] | None:
    """The judge cache's reply to ``request``, None when it holds none (or there is no cache).

    Nothing is sent: a judge without a cache lookup answers None.
    """
    lookup = getattr(judge, "cached_value", None)
    if lookup is None:
        return None
    value = lookup(request)
    return None if value is None else dict(value)
