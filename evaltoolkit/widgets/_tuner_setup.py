"""What the PromptTuner builds from its arguments: the axes, the sample, the sliders, notes."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..records.items import DataItem
from ..scorers._internal import find_scorer_spec

__all__ = ["offline_note_text"]


def _axes_of(scorer: Any) -> dict[str, str]:
    """The axes a scorer's verdict can be read on, by name: each ``score`` or a detail key."""
    spec = find_scorer_spec(str(getattr(scorer, "id", "")))
    axes = {"score": "score"}
    if spec is not None and (spec.scorer_type is None or isinstance(scorer, spec.scorer_type)):
        axes.update({column: value for column, value in spec.meta_scores if value != "score"})
    return axes


def _factory_name(scorer: Any) -> str:
    """The factory a message names: the registered scorer's own, else ``create_scorer``."""
    spec = find_scorer_spec(str(getattr(scorer, "id", "")))
    name = getattr(spec.factory, "__name__", "") if spec is not None else ""
    return name if name.isidentifier() and name != "<lambda>" else "create_scorer"


def offline_note_text(scorer: Any) -> str:
    """What the tuner says about a scorer judged by the offline judge."""
    factory = _factory_name(scorer)
    models = (
        f'create the scorer with a model, e.g. {factory}(model="openai/gpt-4o-mini"), or a '
        f'local OpenAI-compatible server, e.g. {factory}(model="openai/<name>", '
        'api_base="http://127.0.0.1:8000/v1").'
    )
    if getattr(scorer, "offline_setting_specs", ()):
        return (
            "This scorer uses the offline judge, which answers from the texts alone and ignores "
            "prompts, but has settings: change them in the 'offline settings' tab and press "
            f"Run to see the scores and the agreement move. To tune prompts, {models}"
        )
    return (
        "This scorer uses the offline judge, which answers from the texts alone and ignores "
        "prompts: editing a template will not change any score, so Run will show the same "
        f"scores before and after. To tune prompts, {models}"
    )


def _slider(widgets: Any, spec: Any, value: float) -> Any:
    """A slider over a setting's range, labelled with its name, its description as tooltip."""
    if spec.type is int:
        slider = widgets.IntSlider(value=int(value), min=int(spec.minimum), max=int(spec.maximum))
    else:
        slider = widgets.FloatSlider(
            value=float(value),
            min=spec.minimum,
            max=spec.maximum,
            step=0.05,
            readout_format=".2f",
        )
    slider.description = spec.name
    slider.description_allow_html = False
    slider.tooltip = spec.description
    slider.style = {"description_width": "150px"}
    slider.layout = {"width": "480px"}
    slider.add_class(f"evaltoolkit-setting-{spec.name}")
    return slider


def _sample(items: Sequence[DataItem], size: int, seed: int | None) -> list[DataItem]:
    """``size`` items in data order: the first ones without a seed, else a seeded draw."""
    if len(items) <= size:
        return list(items)
    if seed is None:
        return list(items[:size])
    positions = sorted(random.Random(seed).sample(range(len(items)), size))
    return [items[position] for position in positions]


def _as_data(item: DataItem) -> dict[str, Any]:
    row: dict[str, Any] = {"id": item.item_id, "input": item.input, "output": item.output}
    if item.ground_truth is not None:
        row["ground_truth"] = item.ground_truth
    row.update(item.fields)
    return row
