"""The meta layer's helpers for the other layers: not public, and free to change.

The label file's records and scale (the Annotator writes them), the labels joined to results
(the PromptTuner and the labelled views read them) and the names of the agreement metrics.
Any module of evaltoolkit may import ``evaltoolkit.meta._internal`` (the layering test allows
it); users import from :mod:`evaltoolkit.meta`.
"""

from __future__ import annotations

from ._change import AGREEMENT_METRICS, check_label_name
from ._human_labels import (
    attach_human_labels,
    human_labels,
    is_labels_source,
    judge_on_scale,
    labels_by_item,
    with_human_labels,
)
from ._labels import LabelScale, append_label_record, text_hash

__all__ = [
    "AGREEMENT_METRICS",
    "LabelScale",
    "append_label_record",
    "attach_human_labels",
    "check_label_name",
    "human_labels",
    "is_labels_source",
    "judge_on_scale",
    "labels_by_item",
    "text_hash",
    "with_human_labels",
]
