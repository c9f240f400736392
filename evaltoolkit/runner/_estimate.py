"""What a run will cost, before it runs: calls, tokens and dollars per scorer and step.

Each item's judge calls are planned by its scorer (:meth:`JudgedScorer.plan`) without a
request: a step whose prompt is known before the run (the first step's, always) is counted
exactly; a later step, whose prompt quotes earlier replies, is counted between the part of its
prompt known now (low) and that plus the most the replies feeding it can hold, their
``max_tokens`` (high). Output tokens lie between the shortest reply the step's schema accepts
and its ``max_tokens``. Calls the judge cache already answers are counted apart and cost
nothing, so a resumed run's estimate is what is left to pay.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from ..judge import (
    Judge,
    completion_budget,
    count_message_tokens,
    minimal_reply_tokens,
    price_of,
    require_price,
    tokenizer_note,
)
from ..judge import cached_reply_value as _cached_reply_value
from ..records.items import DataItem
from ..scorers import JudgedScorer, PlannedCall, Sample, Scorer

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Budget",
    "CostEstimate",
    "StepEstimate",
    "estimate_items",
    "item_cost_high",
    "usd",
]


@dataclass(frozen=True, slots=True)
class StepEstimate:
    """The calls one step of one scorer will make over the data, and their cost.

    Tokens and cost count the calls left to make: those the judge cache answers are in
    ``cached_calls`` and cost nothing.

    Attributes:
        scorer: The scorer's name in the run.
        step: The judge step.
        model: The judge model.
        calls: Calls the step makes at most (one per item it is not skipped for).
        cached_calls: Of those, the ones the judge cache already answers.
        repeated_calls: Of those, the ones that repeat an earlier call of the run exactly
            (the same request, so the same cache key: the questions of a source with
            ``questions="per_source"``); the cache answers them once the first is made.
            Counted only for a judge whose cache is on.
        exact_calls: Of the calls left, the ones whose prompt was rendered in full.
        input_tokens_low: Input tokens of the calls left, at least.
        input_tokens_high: Input tokens of the calls left, at most.
        output_tokens_low: Output tokens, at least (the shortest reply the schema accepts).
        output_tokens_high: Output tokens, at most (each call's ``max_tokens``).
        cost_low: The least the calls left cost, in USD; None when the price is unknown.
        cost_high: The most they cost, in USD; None when the price is unknown.
    """

    scorer: str
    step: str
    model: str
    calls: int = 0
    cached_calls: int = 0
    repeated_calls: int = 0
    exact_calls: int = 0
    input_tokens_low: int = 0
    input_tokens_high: int = 0
    output_tokens_low: int = 0
    output_tokens_high: int = 0
    cost_low: float | None = 0.0
    cost_high: float | None = 0.0


@dataclass(frozen=True, slots=True)
class CostEstimate:
    """What a run will cost: :class:`StepEstimate` rows per scorer and step, and totals.

    ``str(estimate)`` is the table the CLI prints; :meth:`one_line` is its summary.

    Attributes:
        steps: One row per scorer and step.
        items: The items planned.
        unplanned_items: Items that cannot be scored as they are (a missing output, ...),
            counted in no call.
        notes: What the figures rest on: an approximate tokenizer, an unknown price.
    """

    steps: tuple[StepEstimate, ...]
    items: int
    unplanned_items: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def calls(self) -> int:
        """Judge calls in all, cached ones included."""
        return sum(step.calls for step in self.steps)

    @property
    def cached_calls(self) -> int:
        """Calls the judge cache already answers."""
        return sum(step.cached_calls for step in self.steps)

    @property
    def repeated_calls(self) -> int:
        """Calls that repeat an earlier call of the run, answered by the cache."""
        return sum(step.repeated_calls for step in self.steps)

    @property
    def input_tokens(self) -> tuple[int, int]:
        """Input tokens of the calls left: (low, high)."""
        return (
            sum(step.input_tokens_low for step in self.steps),
            sum(step.input_tokens_high for step in self.steps),
        )

    @property
    def output_tokens(self) -> tuple[int, int]:
        """Output tokens of the calls left: (low, high)."""
        return (
            sum(step.output_tokens_low for step in self.steps),
            sum(step.output_tokens_high for step in self.steps),
        )

    @property
    def cost(self) -> tuple[float, float] | None:
        """Cost of the calls left in USD: (low, high); None when a price is unknown."""
        if any(step.cost_low is None or step.cost_high is None for step in self.steps):
            return None
        return (
            math.fsum(step.cost_low or 0.0 for step in self.steps),
            math.fsum(step.cost_high or 0.0 for step in self.steps),
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per scorer and step, the columns of :class:`StepEstimate`."""
        import dataclasses

        import pandas as pd

        columns = [f.name for f in dataclasses.fields(StepEstimate)]
        return pd.DataFrame([dataclasses.asdict(step) for step in self.steps], columns=columns)

    def one_line(self) -> str:
        """The estimate in one line: calls, cached calls, tokens and cost range."""
        low, high = self.input_tokens
        out_low, out_high = self.output_tokens
        parts = [
            f"{self.calls:,} judge calls for {self.items:,} items",
            f"{self.cached_calls:,} of {self.calls:,} calls already cached",
            *([f"{self.repeated_calls:,} repeat an earlier call"] if self.repeated_calls else []),
            f"input tokens {_range(low, high)}",
            f"output tokens {_range(out_low, out_high)}",
            f"cost {_cost_range(self.cost)}",
        ]
        return "estimate: " + "; ".join(parts)

    def __str__(self) -> str:
        lines = [self.one_line()]
        for step in self.steps:
            cost = (
                None
                if step.cost_low is None or step.cost_high is None
                else (step.cost_low, step.cost_high)
            )
            lines.append(
                f"  {step.scorer} / {step.step} ({step.model}): {step.calls:,} calls "
                f"({step.cached_calls:,} cached"
                f"{f', {step.repeated_calls:,} repeated' if step.repeated_calls else ''}), "
                "input tokens "
                f"{_range(step.input_tokens_low, step.input_tokens_high)}, output tokens "
                f"{_range(step.output_tokens_low, step.output_tokens_high)}, cost "
                f"{_cost_range(cost)}"
            )
        if self.unplanned_items:
            lines.append(
                f"  {self.unplanned_items:,} items cannot be scored as they are and count no call"
            )
        lines.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"CostEstimate({self.one_line()!r})"


def _range(low: float, high: float) -> str:
    return f"{low:,.0f}" if low == high else f"{low:,.0f}-{high:,.0f}"


def _cost_range(cost: tuple[float, float] | None) -> str:
    if cost is None:
        return "price unknown"
    low, high = cost
    return f"${low:.4f}" if low == high else f"${low:.4f}-${high:.4f}"


@dataclass(slots=True)
class _Tally:
    calls: int = 0
    cached: int = 0
    repeated: int = 0
    exact: int = 0
    input_low: int = 0
    input_high: int = 0
    output_low: int = 0
    output_high: int = 0


@dataclass(frozen=True, slots=True)
class CallBounds:
    """Token bounds of one planned call that is still to be made."""

    input_low: int
    input_high: int
    output_low: int
    output_high: int

    def cost(self, model: str) -> tuple[float, float] | None:
        """(low, high) cost in USD, None when the model's price is unknown."""
        price = price_of(model)
        if price is None:
            return None
        return (
            price.cost(self.input_low, self.output_low),
            price.cost(self.input_high, self.output_high),
        )


def _judge_of(scorer: Scorer) -> Judge | None:
    if not isinstance(scorer, JudgedScorer) or scorer.judge.offline:
        return None
    return scorer.judge


def _lookup(judge: Judge) -> Any:
    return lambda request: _cached_reply_value(judge, request)


def _sample(item: DataItem) -> Sample:
    return Sample(item.input, item.output, item.ground_truth, item.item_id, item.fields)


def _bounds(judge: Judge, planned: Sequence[PlannedCall]) -> list[CallBounds | None]:
    """Token bounds of each planned call; None for a call the cache answers."""
    budgets = {call.request.step: completion_budget(judge, call.request) for call in planned}
    bounds: list[CallBounds | None] = []
    for call in planned:
        if call.cached:
            bounds.append(None)
            continue
        known = count_message_tokens(judge.model, call.request.messages)
        quoted = sum(budgets[step] for step in call.fed_by)
        bounds.append(
            CallBounds(
                input_low=known,
                input_high=known + quoted,
                output_low=minimal_reply_tokens(judge.model, call.request.schema),
                output_high=budgets[call.request.step],
            )
        )
    return bounds


def _request_text(call: PlannedCall) -> str:
    request = call.request
    return json.dumps(
        [request.step, request.messages, request.schema, request.max_tokens],
        sort_keys=True,
        default=str,
    )


def item_cost_high(item: DataItem, scorers: Mapping[str, Scorer]) -> float:
    """The most scoring ``item`` can cost (calls the cache answers cost nothing).

    Raises:
        ValueError: A judge model without a known price (check with ``require_price`` first).
    """
    total = 0.0
    if item.problem is not None:
        return total
    sample = _sample(item)
    for scorer in scorers.values():
        judge = _judge_of(scorer)
        if judge is None:
            continue
        assert isinstance(scorer, JudgedScorer)
        try:
            planned = scorer.plan(sample, _lookup(judge))
        except Exception:  # an item the scorer cannot score costs nothing
            continue
        for bounds in _bounds(judge, planned):
            if bounds is None:
                continue
            cost = bounds.cost(judge.model)
            if cost is None:
                raise ValueError(f"no price for {judge.model!r}")
            total += cost[1]
    return total


def estimate_items(items: Sequence[DataItem], scorers: Mapping[str, Scorer]) -> CostEstimate:
    """The estimate over items already loaded (see :func:`evaltoolkit.estimate_cost`)."""
    tallies: dict[tuple[str, str], _Tally] = {}
    models: dict[tuple[str, str], str] = {}
    unplanned = 0
    notes: list[str] = []
    seen: set[tuple[int, str]] = set()
    for name, scorer in scorers.items():
        judge = _judge_of(scorer)
        if isinstance(scorer, JudgedScorer) and judge is None:
            notes.append(f"{name}: the offline judge makes no request and costs nothing")
    for item in items:
        if item.problem is not None:
            unplanned += 1
            continue
        sample = _sample(item)
        failed = False
        for name, scorer in scorers.items():
            judge = _judge_of(scorer)
            if judge is None:
                continue
            assert isinstance(scorer, JudgedScorer)
            try:
                planned = scorer.plan(sample, _lookup(judge))
            except Exception:  # the item fails before any call; the run reports why
                failed = True
                continue
            for call, bounds in zip(planned, _bounds(judge, planned), strict=True):
                key = (name, call.request.step)
                models[key] = judge.model
                tally = tallies.setdefault(key, _Tally())
                tally.calls += 1
                if bounds is None:
                    tally.cached += 1
                    continue
                if call.exact and getattr(judge, "cache", None) is not None:
                    request_key = (id(judge), _request_text(call))
                    if request_key in seen:
                        tally.repeated += 1
                        continue
                    seen.add(request_key)
                tally.exact += call.exact
                tally.input_low += bounds.input_low
                tally.input_high += bounds.input_high
                tally.output_low += bounds.output_low
                tally.output_high += bounds.output_high
        unplanned += failed
    steps = []
    for (name, step), tally in tallies.items():
        model = models[(name, step)]
        price = price_of(model)
        steps.append(
            StepEstimate(
                scorer=name,
                step=step,
                model=model,
                calls=tally.calls,
                cached_calls=tally.cached,
                repeated_calls=tally.repeated,
                exact_calls=tally.exact,
                input_tokens_low=tally.input_low,
                input_tokens_high=tally.input_high,
                output_tokens_low=tally.output_low,
                output_tokens_high=tally.output_high,
                cost_low=None if price is None else price.cost(tally.input_low, tally.output_low),
                cost_high=None
                if price is None
                else price.cost(tally.input_high, tally.output_high),
            )
        )
    for model in dict.fromkeys(models.values()):
        if price_of(model) is None:
            notes.append(f"price unknown: litellm's price table has no price for {model!r}")
        note = tokenizer_note(model)
        if note is not None:
            notes.append(note)
    return CostEstimate(tuple(steps), len(items), unplanned, tuple(notes))


class Budget:
    """Starts items while the spend plus the most the items in flight can cost stays within
    ``max_cost``.

    Before an item starts, its highest estimate (:func:`item_cost_high`; nothing for calls
    the cache answers) is reserved; when it ends, the reservation is replaced by what its
    calls cost. An item whose reservation does not fit beside the items in flight waits for
    them to settle (what they spend is usually far below what they reserved), in the order
    the items came; only an item that does not fit with nothing in flight is not started,
    and neither is any item after it. So the run spends more than ``max_cost`` only when the
    calls in flight cost more than their highest estimate (retries and repairs of a reply,
    which the estimate does not count).

    Raises:
        ConfigurationError: ``max_cost`` is not a positive number, or a judge model has no
            known price.
    """

    def __init__(self, max_cost: float, scorers: Mapping[str, Scorer]) -> None:
        if (
            isinstance(max_cost, bool)
            or not isinstance(max_cost, int | float)
            or not math.isfinite(max_cost)
            or max_cost <= 0
        ):
            raise ConfigurationError(f"max_cost must be a positive number of USD, got {max_cost!r}")
        for scorer in scorers.values():
            judge = _judge_of(scorer)
            if judge is not None:
                require_price(judge)
        self.max_cost = float(max_cost)
        self.scorers = scorers
        self.spent = 0.0
        self.reserved = 0.0
        self.stopped = False
        self._in_flight = 0
        self._turn = asyncio.Lock()
        self._settled = asyncio.Event()

    @property
    def message(self) -> str:
        """What an item not started says: ``not scored: budget of $2.00 reached``, the
        budget as given (``$0.005``, not rounded to cents)."""
        return f"not scored: budget of {usd(self.max_cost)} reached"

    async def reserve(self, item: DataItem) -> float | None:
        """Reserve the item's highest cost, once it fits; None when it must not start."""
        if self.stopped:
            return None
        high = item_cost_high(item, self.scorers)
        async with self._turn:  # one item waits at a time, so items start in their order
            while not self.stopped:
                if self.spent + self.reserved + high <= self.max_cost:
                    self.reserved += high
                    self._in_flight += 1
                    return high
                if self._in_flight == 0 or self.spent + high > self.max_cost:
                    self.stopped = True  # it fits neither now nor after the rest settle
                    break
                self._settled.clear()
                await self._settled.wait()
        return None

    def settle(self, reservation: float, costs: Sequence[float | None]) -> None:
        """Replace an item's reservation by what its calls cost (an unknown cost: the
        reservation); wakes an item waiting for room."""
        self.reserved = max(0.0, self.reserved - reservation)
        self._in_flight -= 1
        if self._in_flight == 0:
            self.reserved = 0.0  # no rounding residue once nothing is in flight
        self.spent += (
            reservation
            if any(cost is None for cost in costs)
            else math.fsum(cost or 0.0 for cost in costs)
        )
        self._settled.set()


def usd(amount: float) -> str:
    """An amount in USD as given: cents when it has no finer part, else every digit.

    Example:
        >>> usd(2.0), usd(0.005), usd(1234.5), usd(0.0012345)
        ('$2.00', '$0.005', '$1,234.50', '$0.0012345')
    """
    cents = f"{amount:,.2f}"
    if float(cents.replace(",", "")) == amount:
        return f"${cents}"
    return f"${amount:,.12g}"
