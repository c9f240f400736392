"""What the model-judged scorers share: a judge, prompt templates, and step requests."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

from rapidfuzz import fuzz
from rapidfuzz.utils import default_process

from ..judge import Judge, JudgeRequest
from ..records import Stage
from ._base import Scorer, StepTrace
from ._prompts import PromptSet, PromptTemplate

__all__ = ["JudgedScorer", "align_entries", "json_text", "numbered", "verdict_lines"]

# How close (rapidfuzz ratio, 0-100) a judge's rewording of a question or unit must be to it.
_REWORDED_SIMILARITY = 70


class JudgedScorer(Scorer):
    """A scorer whose steps are answered by a judge (a model, or the offline judge)."""

    #: The task name the judge sees (the offline judge dispatches on it).
    task: str = ""
    #: The default templates of this scorer, by name.
    default_prompts: Mapping[str, PromptTemplate] = {}

    def __init__(self, *, judge: Judge, prompts: Mapping[str, str] | None) -> None:
        self.judge = judge
        self._prompts = PromptSet(self.default_prompts, prompts, scorer=self.id)

    @property
    def judge_model(self) -> str:
        """The judge model's name (``"offline"`` for the built-in judge)."""
        return self.judge.model

    @property
    def prompts(self) -> PromptSet:
        """The prompt templates in use, by name (``scorer.prompts["coverage"]``)."""
        return self._prompts

    def with_prompts(self, prompts: Mapping[str, str]) -> JudgedScorer:
        """Return a copy of this scorer with some templates replaced (same judge).

        Raises:
            ConfigurationError: An unknown template name, or a missing or unknown placeholder.
        """
        clone = copy.copy(self)
        clone._prompts = PromptSet(
            self.default_prompts, {**self._prompts.changed, **prompts}, scorer=self.id
        )
        return clone

    async def ask(
        self,
        trace: StepTrace,
        *,
        step: str,
        stage: Stage,
        schema: Mapping[str, Any],
        prompt_values: Mapping[str, Any],
        variables: Mapping[str, Any],
    ) -> dict[str, Any]:
        """Render the step's template, send it to the judge and return the reply object."""
        messages = (
            {"role": "system", "content": self._prompts.render("system")},
            {"role": "user", "content": self._prompts.render(step, **prompt_values)},
        )
        request = JudgeRequest(
            task=self.task,
            step=step,
            stage=stage,
            messages=messages,
            schema=schema,
            variables=variables,
        )
        return await trace.ask(self.judge, request)


def numbered(texts: Sequence[str]) -> str:
    """Render texts as a numbered list, one per line."""
    return "\n".join(f"{position}. {text}" for position, text in enumerate(texts, start=1))


def verdict_lines(verdicts: Sequence[Mapping[str, Any]], text_key: str, flag_key: str) -> str:
    """Render verdicts as ``- [yes] text (reason)`` lines for a reason prompt."""
    return (
        "\n".join(
            f"- [{'yes' if verdict.get(flag_key) else 'no'}] {verdict.get(text_key)} "
            f"({verdict.get('reason', '')})"
            for verdict in verdicts
        )
        or "(none)"
    )


def json_text(value: Any) -> str:
    """Compact JSON for embedding structured values in a prompt."""
    return json.dumps(value, ensure_ascii=False)


def _normalised(text: Any) -> str:
    return str(default_process(str(text)))


def align_entries(
    keys: Sequence[str], entries: Sequence[Mapping[str, Any]], key_field: str
) -> list[Mapping[str, Any] | None]:
    """Pair each key (a question, a ground-truth unit) with the judge's entry for it.

    An entry whose ``key_field`` repeats the key (case, spacing and punctuation aside) is its
    match. A key left over takes the entry at its own position if that entry leaves
    ``key_field`` empty or words it closely (a model may reword slightly), else the closest
    close rewording among the entries left. A key without an entry gets None; entries left
    over are dropped.
    """
    entry_texts = [_normalised(entry.get(key_field, "")) for entry in entries]
    key_texts = [_normalised(key) for key in keys]
    found: list[int | None] = [None] * len(keys)
    used: set[int] = set()
    for key_position, key_text in enumerate(key_texts):
        for entry_position, entry_text in enumerate(entry_texts):
            if entry_position not in used and entry_text == key_text:
                found[key_position] = entry_position
                used.add(entry_position)
                break

    def close(entry_position: int, key_text: str) -> float:
        entry_text = entry_texts[entry_position]
        return 100.0 if not entry_text else float(fuzz.ratio(entry_text, key_text))

    for key_position, key_text in enumerate(key_texts):
        if found[key_position] is not None:
            continue
        free = [position for position in range(len(entries)) if position not in used]
        if key_position in free and close(key_position, key_text) >= _REWORDED_SIMILARITY:
            choice: int | None = key_position
        else:
            scored = [(close(position, key_text), -position) for position in free]
            best = max(scored, default=(0.0, 0))
            choice = -best[1] if best[0] >= _REWORDED_SIMILARITY else None
        if choice is not None:
            found[key_position] = choice
            used.add(choice)
    return [None if position is None else entries[position] for position in found]
