"""PromptTuner: edit a judged scorer's prompt templates and see what changes on a sample."""

from __future__ import annotations

import asyncio
import math
import os
import pprint
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._internal.html import Markup, esc, join, note
from .._internal.sync import run_sync
from ..errors import ConfigurationError
from ..meta import (
    LEVELS,
    SYSTEM_COLUMN,
    tune_test_split,
)
from ..meta._internal import attach_human_labels, check_label_name, is_labels_source
from ..records import EvalResult, ItemResult
from ..records.items import DataItem, load_items
from ..runner import arun_evals
from ..runner._internal import DEFAULT_CONCURRENCY
from ..scorers import JudgedScorer, Scorer, create_scorer
from ..scorers._internal import find_scorer_spec
from ._base import View, ipywidgets
from ._tuner_analysis import _PART_COLUMN, TunerAnalysis
from ._tuner_setup import _as_data, _axes_of, _factory_name, _sample, _slider, offline_note_text
from ._tuner_text import LEVEL_NAMES

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PromptTuner"]

_CHANGE_TOLERANCE = 1e-12
_DEFAULT_GROUP = "doc_id"


class PromptTuner(TunerAnalysis, View):
    """Edit a scorer's prompt templates, rescore a sample, compare, and export the prompts.

    The view reads from the top down: what is tuned and on which items; the axis and level
    the verdict is read on (two dropdowns); the verdict, then the agreement on each part and
    the baseline; below them, side by side, the edits (one text area per template, the
    offline settings tab, Run, Export, the progress bar and what the last run did) and the
    items, in a paged table (each item's score before and after, the change, the label, the
    document and the part). It fits a 1440 x 900 screen whatever the sample size.

    :meth:`run` rescores the sample with the edited templates (through
    ``scorer.with_prompts``) and returns once it is done, in a script and in a notebook cell
    alike. The Run button calls :meth:`start` instead, which does not block the kernel: in
    Jupyter the run is a task on the kernel's event loop, with a progress bar. The first run
    also scores the sample with the unedited scorer (the "before" scores, computed once).
    With a model judge, calls whose prompt did not change come from the judge cache, so they
    cost nothing.

    Given ``labels``, the sampled items are split once into a **tune** part and a **test**
    part by :func:`evaltoolkit.meta.tune_test_split`, whole groups at a time (``doc_id`` when
    the items have it), so that one document never sits on both sides. Every run scores both
    parts; the agreement table (from :func:`evaltoolkit.meta.agreement_change`) shows the
    agreement with the labels before and after on each part (Spearman, Kendall and Pearson,
    plus AUROC for pooled boolean labels) and each change with its paired bootstrap interval,
    and one plain verdict on the test part's Spearman (AUROC for pooled boolean labels):
    ``better on test``, ``worse on test``, ``cannot tell`` or ``lost all discrimination on
    test`` (see :data:`evaltoolkit.meta.VERDICTS`). Only ``better on test`` is a reason to
    keep an edit. The verdict line names what it reads: the ``axis`` (the final score, or a
    summarization axis) and the ``level`` (per document, pooled or system level; per
    document by default where the items have documents and the scorer is summarization's).
    Without labels the tuner compares scores only; with too few groups for two parts it says
    how many it needs and measures agreement on the whole sample, without a verdict.

    "Export" returns (and shows) the templates that differ from the scorer's defaults, ready
    for ``create_*_scorer(prompts=...)``; ``exported_record`` holds them with the offline
    settings and the evidence they were chosen on (the tune and test agreement and the
    verdict), ready for ``json.dump``.

    The built-in offline judge ignores prompts; the tuner then says so, and how to switch to
    a model, instead of pretending that edits matter. Where the offline judge has settings
    (the summarization and answer-similarity scorers'), an "offline settings" tab shows one
    slider per setting over
    its range: Run rescores with the changed settings and compares, exactly as for prompts,
    and Export writes them as ``offline_settings={...}``.

    Attributes:
        widget: The root container.
        textareas: One Textarea per template name.
        run_button: Starts a run.
        export_button: Exports the edited templates.
        progress: Items scored in the current run.
        status: What the last run did.
        offline_note: The offline-judge notice (empty for a model judge).
        sliders: One slider per offline setting, by name (empty for a model judge).
        results: The verdict, the agreement table and the baseline line.
        items_table: The items of the last run, a page at a time (a paged table).
        axis_picker, level_picker: The axis and the level the verdict is read on.
        choice_note: Says what the verdict reads.
        export_view: The exported prompts.
        comparison: The last run's per-item comparison (DataFrame), None before a run.
        agreement: The last run's agreement before and after, one row per part and metric
            (DataFrame, see :func:`evaltoolkit.meta.agreement_change`), None without labels.
        verdict: The last run's verdict on the test part, None without a split or a run.
        split: ``"tune"`` or ``"test"`` by item id (a Series), None without labels or when
            the sample holds too few groups for two parts.
        split_note: Why there is no split (no labels, too few groups), else "".
        exported: The last exported prompts, None before an export.
        exported_settings: The last exported offline settings, None before an export.
        exported_record: The last export with its evidence: ``scorer``, ``prompts``,
            ``offline_settings``, ``label``, ``split`` and ``agreement`` (the tune and test
            rows of the last run, before the export), ``verdict``; None before an export.
        task: The task of the last run started inside an event loop.

    Example:
        >>> import evaltoolkit as et
        >>> from evaltoolkit.widgets import PromptTuner
        >>> tuner = PromptTuner(et.create_summarization_scorer(), "data/demo_summaries.jsonl",
        ...                     labels="human_score", sample=6)
        >>> tuner.textareas["coverage"].value += "\\nBe strict."
        >>> frame = tuner.run()
        >>> list(frame.columns)
        ['item_id', 'before', 'after', 'change', 'human_score', 'doc_id', 'part']
        >>> sorted(tuner.agreement["part"].unique())
        ['test', 'tune']
        >>> tuner.verdict in et.meta.VERDICTS
        True
        >>> list(tuner.export())
        ['coverage']
    """

    def __init__(
        self,
        scorer: Scorer,
        data: Any,
        *,
        labels: str | os.PathLike[str] | pd.DataFrame | None = None,
        sample: int = 20,
        seed: int | None = 0,
        concurrency: int = DEFAULT_CONCURRENCY,
        n_bootstrap: int = 200,
        test_share: float = 0.5,
        group: str | None = None,
        axis: str = "score",
        level: str | None = None,
        baseline: Scorer | str | None = "auto",
    ) -> None:
        """Build the view (nothing is scored until Run).

        Args:
            scorer: A model-judged scorer (summarization or answer similarity).
            data: The items: a list of dicts, a DataFrame or a file path, as for ``run_evals``.
            labels: A field of the items holding human labels (numbers or booleans), or a
                labels file made with the Annotator (a ``.jsonl`` path, or the frame of
                :func:`~evaltoolkit.meta.read_labels`) holding one label, resolved per item
                (the mean of its annotators, or the majority).
            sample: How many items to rescore.
            seed: Seed of the sample drawn from the data (in data order) and of the tune/test
                split; None takes the first ``sample`` items (and splits with seed 0).
            concurrency: Items and judge calls in flight during a run.
            n_bootstrap: Bootstrap resamples for the agreement intervals (0: none).
            test_share: The share of the sample's groups in the test part.
            group: The item field kept on one side of the split (default ``doc_id`` when
                every sampled item has one, else each item is its own group).
            axis: What the agreement is measured on: ``"score"`` (the final score), or an
                axis of the scorer (summarization: ``"alignment"``, ``"coverage"``).
            level: ``"per_group"`` (per document: the correlation within each document,
                averaged), ``"pooled"`` (all items ranked together) or ``"system"`` (each
                system's mean, over systems; needs a ``system_id`` field). Default: per
                document for the summarization scorer when the items have a group, else
                pooled.
            baseline: A scorer with no judgement (or a registered id) whose agreement on
                each part is shown beside the edited judge's, with their paired difference:
                ``"auto"`` takes the baseline registered for the scorer's task
                (summarization: ``naive-overlap``; answer similarity: ``token-f1``), None
                none. It must have the chosen axis (naive-overlap has alignment and
                coverage).

        Raises:
            ConfigurationError: A scorer without templates, a bad ``sample`` or
                ``test_share``, a ``labels`` field that the items lack or that holds neither
                numbers nor booleans, a ``group`` field that a sampled item lacks, an axis
                the scorer does not have, or a level the items cannot support.
        """
        if not isinstance(scorer, JudgedScorer) or not scorer.prompts:
            raise ConfigurationError(
                f"PromptTuner: scorer {getattr(scorer, 'id', scorer)!r} has no prompt templates "
                "to tune; use a model-judged scorer (summarization, answer similarity)"
            )
        prompts = scorer.prompts
        if isinstance(sample, bool) or not isinstance(sample, int) or sample < 1:
            raise ConfigurationError(f"PromptTuner: sample must be an integer >= 1, got {sample!r}")
        widgets = ipywidgets()
        items = load_items(data)
        label_field: str | None
        if labels is not None and is_labels_source(labels):  # tune on the labelled items
            label_field = attach_human_labels(items, labels)
            items = [item for item in items if item.fields.get(label_field) is not None]
        else:
            label_field = None if labels is None else str(labels)
        readable = [item for item in items if item.problem is None]
        chosen = _sample(readable, sample, seed)
        if label_field is not None:
            self._check_labels(label_field, chosen)
        if not (
            isinstance(test_share, int | float)
            and not isinstance(test_share, bool)
            and 0.0 < test_share < 1.0
        ):
            raise ConfigurationError(
                f"PromptTuner: test_share must lie strictly between 0 and 1 (e.g. 0.5), got "
                f"{test_share!r}"
            )
        for name, noun in ((label_field, "labels field"), (group, "group field")):
            if name == _PART_COLUMN:
                raise ConfigurationError(
                    f"PromptTuner: the {noun} {name!r} has the name of the column that holds "
                    "each item's part of the tune/test split; rename the field"
                )
        if group is not None and group == label_field:
            raise ConfigurationError(
                f"PromptTuner: group={group!r} is the labels field; group by a field that "
                "names the document (e.g. doc_id)"
            )
        if group is not None:
            check_label_name(group, who="PromptTuner", noun="group field")
            lacking = [item.item_id for item in chosen if item.fields.get(group) is None]
            if lacking:
                raise ConfigurationError(
                    f"PromptTuner: {len(lacking)} sampled item(s) have no {group!r} field "
                    f"(e.g. {lacking[0]!r}); give every item one, or leave group=None"
                )
        elif chosen and all(item.fields.get(_DEFAULT_GROUP) is not None for item in chosen):
            group = _DEFAULT_GROUP
        axes = _axes_of(scorer)
        if axis not in axes:
            raise ConfigurationError(
                f"PromptTuner: the {scorer.id} scorer has no axis {axis!r}; choose one of "
                f"{', '.join(axes)}"
            )
        self.axis = axis
        self.baseline = self._baseline_for(scorer, baseline)
        self.level = self._level_for(scorer, level, group, chosen)
        self.system = SYSTEM_COLUMN if self.level == "system" else None
        self.scorer: JudgedScorer = scorer
        self.label_column = label_field
        self.concurrency = concurrency
        self.n_bootstrap = n_bootstrap
        self.offline = bool(scorer.judge.offline)
        self._data = [_as_data(item) for item in chosen]
        self._total_items = len(items)
        self._unreadable = len(items) - len(readable)
        self._seed = seed
        self.test_share = float(test_share)
        self.group = group
        self.split: pd.Series | None = None
        self.split_note = ""
        if labels is None:
            self.split_note = (
                "No labels: the tuner compares the scores before and after, but cannot "
                "measure agreement with human labels; pass labels=<field> to see it on a "
                "tune part and a held-out test part."
            )
        else:
            try:
                self.split = tune_test_split(
                    self._data,
                    test_share=test_share,
                    seed=0 if seed is None else seed,
                    group=group,
                )
            except ConfigurationError as error:
                self.split_note = (
                    f"No tune/test split: {str(error).removeprefix('tune_test_split: ')}. The "
                    "agreement below is measured on the items it was tuned on, with no verdict."
                )
        self._before: EvalResult | None = None
        self._baseline_run: EvalResult | None = None
        self.baseline_agreement: pd.DataFrame | None = None
        self.comparison: pd.DataFrame | None = None
        self.agreement: pd.DataFrame | None = None
        self.verdict: str | None = None
        self.exported: dict[str, str] | None = None
        self.exported_settings: dict[str, Any] | None = None
        self.exported_record: dict[str, Any] | None = None
        self._last_run_edits: tuple[dict[str, str], dict[str, float]] | None = None
        self.task: asyncio.Task[pd.DataFrame] | None = None
        self._after: EvalResult | None = None
        self._scored = 0
        self._choosing = False

        self.setting_specs = tuple(scorer.offline_setting_specs) if self.offline else ()
        self.sliders: dict[str, Any] = {}
        pages = []
        titles: list[str] = []
        if self.setting_specs:
            pages.append(self._settings_page(widgets))
            titles.append("offline settings")
        self.textareas: dict[str, Any] = {}
        descriptions = self._descriptions()
        for name, text in prompts.items():
            area = widgets.Textarea(value=text, rows=7, layout={"width": "98%"})
            area.add_class(f"evaltoolkit-prompt-{name}")
            self.textareas[name] = area
            hint = widgets.HTML(value=str(esc(descriptions.get(name, ""))))
            pages.append(widgets.VBox([hint, area]))
            titles.append(name)
        self.tabs = widgets.Tab(children=pages, titles=titles)
        self.run_button = widgets.Button(description="Run", button_style="primary", icon="play")
        self.export_button = widgets.Button(description="Export", icon="download")
        self.progress = widgets.IntProgress(
            value=0, min=0, max=max(1, len(self._data)), description="0 scored"
        )
        self.intro = widgets.HTML(value=str(self._intro_html()))
        self.split_view = widgets.HTML(
            value=str(note(self.split_note, kind="warning")) if self.split_note else ""
        )
        self.offline_note = widgets.HTML(
            value=str(note(offline_note_text(scorer), kind="warning")) if self.offline else ""
        )
        first_step = "Change a setting" if self.setting_specs else "Edit a template"
        self.status = widgets.HTML(
            value=str(esc(f"{first_step}, then press Run to compare the scores."))
        )
        self.results = widgets.HTML()
        self.results.add_class("evaltoolkit-tuner-results")
        self.export_view = widgets.HTML()
        self.run_button.on_click(self._on_run_click)
        self.export_button.on_click(self._on_export_click)
        self.axis_picker = widgets.Dropdown(
            options=list(axes),
            value=self.axis,
            description="axis",
            layout={"width": "200px"},
        )
        self.level_picker = widgets.Dropdown(
            options=[
                (LEVEL_NAMES[name], name)
                for name in LEVELS
                if self._level_available(scorer, name, group, chosen)
            ],
            value=self.level,
            description="level",
            layout={"width": "220px"},
        )
        self.choice_note = widgets.HTML(
            value=str(esc(f"The verdict reads {self._what_is_read()}."))
        )
        self.axis_picker.observe(self._on_choice, names="value")
        self.level_picker.observe(self._on_choice, names="value")
        from ._paged_table import PagedTable

        self.items_table: PagedTable = PagedTable(self._item_columns(()), page_size=8)
        self.items_table.add_class("evaltoolkit-score-change")
        self.tabs.layout = {"max_height": "260px", "overflow": "auto"}
        editor = widgets.VBox(
            [
                self.tabs,
                widgets.HBox([self.run_button, self.export_button, self.progress]),
                self.status,
                self.export_view,
            ],
            layout={"width": "50%", "min_width": "0"},
        )
        items = widgets.VBox(
            [widgets.HTML(value="<b>Score change per item</b>"), self.items_table],
            layout={"width": "50%", "min_width": "0", "padding": "0 0 0 10px"},
        )
        self.widget = widgets.VBox(
            [
                self.intro,
                self.split_view,
                self.offline_note,
                widgets.HBox([self.axis_picker, self.level_picker, self.choice_note]),
                self.results,
                widgets.HBox([editor, items]),
            ],
            layout={"width": "100%"},
        )
        self.widget.add_class("evaltoolkit-prompt-tuner")

    @staticmethod
    def _check_labels(labels: str, chosen: Sequence[DataItem]) -> None:
        check_label_name(labels, who="PromptTuner", noun="labels field")
        present = [item.fields[labels] for item in chosen if item.fields.get(labels) is not None]
        if not present:
            fields = sorted({key for item in chosen for key in item.fields})
            raise ConfigurationError(
                f"PromptTuner: no item has the labels field {labels!r}; the items have {fields}"
            )
        odd = next((value for value in present if not isinstance(value, int | float)), None)
        if odd is not None:
            raise ConfigurationError(
                f"PromptTuner: the labels field {labels!r} must hold numbers or booleans, "
                f"but it holds {odd!r}"
            )

    @staticmethod
    def _baseline_for(scorer: Any, baseline: Scorer | str | None) -> Scorer | None:
        """The baseline scorer shown beside the judge, if any."""
        if baseline is None or isinstance(baseline, Scorer):
            return baseline
        if baseline == "auto":
            spec = find_scorer_spec(str(getattr(scorer, "id", "")))
            if spec is None or spec.baseline is None:
                return None
            baseline = spec.baseline
        return create_scorer(str(baseline))

    @staticmethod
    def _level_available(
        scorer: Any, level: str, group: str | None, chosen: Sequence[DataItem]
    ) -> bool:
        """Whether the items support reading the verdict at ``level``."""
        try:
            PromptTuner._level_for(scorer, level, group, chosen)
        except ConfigurationError:
            return False
        return True

    @staticmethod
    def _level_for(
        scorer: Any, level: str | None, group: str | None, chosen: Sequence[DataItem]
    ) -> str:
        """The level the verdict is read at: the one asked for, if the items support it."""
        spec = find_scorer_spec(str(getattr(scorer, "id", "")))
        documents = spec is not None and spec.group is not None
        if level is None:
            return "per_group" if documents and group is not None else "pooled"
        if level not in LEVELS:
            raise ConfigurationError(
                f"PromptTuner: unknown level {level!r}; choose one of {', '.join(LEVELS)}"
            )
        if level == "per_group" and group is None:
            raise ConfigurationError(
                "PromptTuner: level='per_group' needs documents: give the items a doc_id "
                "field, or name one with group="
            )
        if level == "system" and not all(
            item.fields.get(SYSTEM_COLUMN) is not None for item in chosen
        ):
            raise ConfigurationError(
                f"PromptTuner: level='system' needs a {SYSTEM_COLUMN!r} field on every sampled "
                "item (the system that wrote it)"
            )
        return level

    def _settings_page(self, widgets: Any) -> Any:
        current = self.scorer.offline_settings
        rows: list[Any] = [
            widgets.HTML(
                value=str(
                    esc(
                        "The offline judge's settings, each within its range; hover a name "
                        "for what it does."
                    )
                )
            )
        ]
        for spec in self.setting_specs:
            slider = _slider(widgets, spec, getattr(current, spec.name))
            self.sliders[spec.name] = slider
            rows.append(slider)
            rows.append(widgets.HTML(value=str(Markup(f"<small>{esc(spec.description)}</small>"))))
        page = widgets.VBox(rows)
        page.add_class("evaltoolkit-offline-settings")
        return page

    def _descriptions(self) -> dict[str, str]:
        prompts = self.scorer.prompts
        described = prompts.describe()
        for name in prompts:
            placeholders = sorted(prompts.template(name).placeholders)
            needed = ", ".join(f"{{{{{placeholder}}}}}" for placeholder in placeholders)
            text = described.get(name, "").strip()
            if text and not text.endswith((".", "!", "?")):
                text += "."
            described[name] = f"{text} Placeholders it must keep: {needed or 'none'}.".strip()
        return described

    @property
    def items(self) -> list[Any]:
        """The ids of the sampled items, in data order."""
        return [row["id"] for row in self._data]

    def edited_prompts(self) -> dict[str, str]:
        """The templates whose text area differs from the scorer's template, by name."""
        current = self.scorer.prompts
        return {
            name: area.value for name, area in self.textareas.items() if area.value != current[name]
        }

    def edited_settings(self) -> dict[str, float]:
        """The offline settings whose slider differs from the scorer's, by name."""
        current = getattr(self.scorer, "offline_settings", None)
        return {
            name: slider.value
            for name, slider in self.sliders.items()
            if current is None or slider.value != getattr(current, name)
        }

    def tuned_scorer(self) -> JudgedScorer:
        """The scorer with the edited templates and, offline, the changed settings.

        Raises:
            ConfigurationError: An edited template lost a placeholder or uses an unknown one.
        """
        tuned = self.scorer.with_prompts(self.edited_prompts())
        settings = self.edited_settings()
        return tuned.with_offline_settings(settings) if settings else tuned

    def export(self) -> dict[str, str]:
        """Return (and show) the templates that differ from the scorer's defaults.

        Returns:
            ``{name: text}``, ready for ``create_*_scorer(prompts=...)``; empty when nothing
            differs from the defaults.

        Raises:
            ConfigurationError: An edited template lost a placeholder or uses an unknown one.
        """
        try:
            tuned = self.tuned_scorer()
        except ConfigurationError as error:
            self.export_view.value = str(note(f"Cannot export: {error}", kind="error"))
            raise
        exported = tuned.prompts.changed
        self.exported = exported
        self.exported_settings = self._changed_settings(tuned)
        self.exported_record = self._record(exported, self.exported_settings)
        factory = _factory_name(self.scorer)
        if self.exported_settings:
            code = (
                "offline_settings = "
                f"{pprint.pformat(self.exported_settings, width=96, sort_dicts=False)}\n"
                f"scorer = {factory}(offline_settings=offline_settings)"
            )
            shown = join(
                [
                    Markup(
                        "<div><b>Exported offline settings</b> (those that differ from the "
                        "defaults):</div>"
                    ),
                    Markup(
                        "<pre class='evaltoolkit-export' style='white-space:pre-wrap'>"
                        f"{esc(code)}</pre>"
                    ),
                ]
            )
            self.export_view.value = str(shown)
            return exported
        if exported:
            code = f"prompts = {pprint.pformat(exported, width=96, sort_dicts=False)}\n"
            code += f"scorer = {factory}(model=..., prompts=prompts)"
            shown = join(
                [
                    Markup(
                        "<div><b>Exported prompts</b> (templates that differ from the "
                        "defaults):</div>"
                    ),
                    Markup(
                        "<pre class='evaltoolkit-export' style='white-space:pre-wrap'>"
                        f"{esc(code)}</pre>"
                    ),
                ]
            )
        else:
            shown = note("Nothing to export: every template is the default one.")
        self.export_view.value = str(shown)
        return exported

    def _record(self, prompts: dict[str, str], settings: dict[str, Any]) -> dict[str, Any]:
        """The export with the evidence it was chosen on, as plain values (JSON-ready)."""
        # The evidence is that of the last run only if it ran with what is exported now.
        ran_on_these = self._last_run_edits == (self.edited_prompts(), self.edited_settings())
        record: dict[str, Any] = {
            "scorer": self.scorer.id,
            "judge": self.scorer.judge_model,
            "prompts": dict(prompts),
            "offline_settings": dict(settings),
            "label": self.label_column,
            "axis": self.axis,
            "level": self.level,
            "split": None,
            "agreement": self._evidence() if ran_on_these else {},
            "verdict": self.verdict if ran_on_these else None,
        }
        if self.split is not None:
            counts = self.split.value_counts()
            record["split"] = {
                "group": self.group,
                "test_share": self.test_share,
                "seed": 0 if self._seed is None else self._seed,
                "tune_items": int(counts.get("tune", 0)),
                "test_items": int(counts.get("test", 0)),
            }
        return record

    @staticmethod
    def _changed_settings(scorer: JudgedScorer) -> dict[str, Any]:
        settings = getattr(scorer, "offline_settings", None)
        if settings is None:
            return {}
        defaults = type(settings)()
        changed: dict[str, Any] = {
            spec.name: getattr(settings, spec.name)
            for spec in scorer.offline_setting_specs
            if getattr(settings, spec.name) != getattr(defaults, spec.name)
        }
        if getattr(settings, "disabled_rules", None):  # rules switched off go with the export
            changed["disabled_rules"] = sorted(settings.disabled_rules)
        return changed

    def run(self) -> pd.DataFrame:
        """Rescore the sample and return the per-item comparison, once the run is done.

        Blocks like every other ``run`` in the toolkit, in a script and in a Jupyter cell
        alike (inside a running event loop the run goes on a worker thread's loop). The Run
        button does not block: it calls :meth:`start`.

        Returns:
            The comparison (also in ``.comparison``); see :meth:`arun`.

        Raises:
            ConfigurationError: An edited template lost a placeholder or uses an unknown one.
        """
        return run_sync(self.arun())

    def start(self) -> asyncio.Task[pd.DataFrame] | None:
        """Start a run without waiting for it, as the Run button does.

        Inside a running event loop (a Jupyter kernel) the run is scheduled as a task on it
        and the task is returned at once (also in ``.task``); a run already in progress is
        returned instead of starting another. With no loop running, the run completes before
        this returns None; the result is then in ``.comparison``.
        """
        if self.task is not None and not self.task.done():
            return self.task
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(self.arun())
            return None
        self.task = loop.create_task(self.arun())
        self.task.add_done_callback(_consume_outcome)
        return self.task

    def run_sync(self) -> pd.DataFrame:
        """Deprecated: the same as :meth:`run`, which blocks now."""
        warnings.warn(
            "PromptTuner.run_sync() is deprecated: run() blocks now and returns the same "
            "comparison (start() returns the asyncio Task for the Run button's behaviour)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.run()

    async def arun(self) -> pd.DataFrame:
        """Rescore the sample with the edited templates; return the per-item comparison.

        Returns:
            One row per sampled item: ``item_id``, ``before``, ``after``, ``change`` and,
            with labels, the label column.

        Raises:
            ConfigurationError: An edited template lost a placeholder or uses an unknown one.
        """
        try:
            tuned = self.tuned_scorer()
        except ConfigurationError as error:
            self.status.value = str(note(f"Not run: {error}", kind="error"))
            raise
        edited_texts = self.edited_prompts()
        edited = list(edited_texts)
        settings = self.edited_settings()
        self._last_run_edits = None
        self.run_button.disabled = True
        self.results.value = ""
        runs = 1 if self._before is not None else 2
        self.progress.max = max(1, runs * len(self._data))
        self.progress.value = 0
        self._scored = 0
        self.progress.description = "0 scored"
        self.progress.bar_style = ""
        self.status.value = str(esc(f"Scoring {len(self._data)} items…"))
        try:
            if self._before is None:
                self._before = await self._score(self.scorer)
            after = await self._score(tuned)
            self._after = after
            comparison = await self._analyse(after)
            self._last_run_edits = (edited_texts, settings)
            self.status.value = str(self._status_html(comparison, after, edited, settings))
            self.progress.bar_style = "success"
            return comparison
        except Exception as error:
            self.progress.bar_style = "danger"
            self.status.value = str(
                note(f"The run failed: {type(error).__name__}: {error}", kind="error")
            )
            raise
        finally:
            self.run_button.disabled = False

    async def _analyse(self, after: EvalResult) -> pd.DataFrame:
        """The comparison, agreement, baseline and verdict of a run, on the chosen axis and
        level; shown in the page."""
        comparison = self._compare(after)
        self.comparison = comparison
        self.agreement = self._agreement(comparison)
        self.baseline_agreement = await self._against_baseline(after)
        self.verdict = self._verdict()
        self.results.value = str(self._results_html(comparison))
        self.items_table.set_columns(self._item_columns(list(comparison.columns)))
        self.items_table.set_frame(comparison.reset_index(drop=True))
        return comparison

    def _item_columns(self, present: Sequence[str]) -> list[Any]:
        """The paged table's columns: the item, its scores and change, then the label, the
        group and the part where the comparison has them."""
        from ._paged_table import Column

        columns = [
            Column("item_id", "item"),
            Column("before", "before", numeric=True, width="60px"),
            Column("after", "after", numeric=True, width="60px"),
            Column("change", "change", numeric=True, width="64px"),
        ]
        for key in (self.label_column, self.group, self.system, _PART_COLUMN):
            if key and key in present and key not in {column.key for column in columns}:
                numeric = key == self.label_column
                columns.append(Column(key, key, numeric=numeric))
        return columns

    def choose(self, *, axis: str | None = None, level: str | None = None) -> None:
        """Read the verdict on another axis or level, as the two dropdowns do.

        After a run, the comparison, agreement and verdict are recomputed from the scores
        already there (nothing is rescored).

        Raises:
            ConfigurationError: An axis the scorer does not have, or a level the items
                cannot support.
        """
        axes = _axes_of(self.scorer)
        if axis is not None and axis not in axes:
            raise ConfigurationError(
                f"PromptTuner: the {self.scorer.id} scorer has no axis {axis!r}; choose one "
                f"of {', '.join(axes)}"
            )
        new_level = self.level if level is None else level
        if new_level not in {value for _, value in self.level_picker.options}:
            raise ConfigurationError(
                f"PromptTuner: level {new_level!r} is not available for these items; choose "
                f"one of {', '.join(value for _, value in self.level_picker.options)}"
            )
        self.axis = self.axis if axis is None else axis
        self.level = new_level
        self.system = SYSTEM_COLUMN if self.level == "system" else None
        self._choosing = True
        try:
            self.axis_picker.value = self.axis
            self.level_picker.value = self.level
        finally:
            self._choosing = False
        self.choice_note.value = str(esc(f"The verdict reads {self._what_is_read()}."))
        self.intro.value = str(self._intro_html())
        if self._before is not None and self._after is not None:
            run_sync(self._analyse(self._after))

    def _on_choice(self, change: dict[str, Any]) -> None:
        if self._choosing:
            return
        self.choose(axis=str(self.axis_picker.value), level=str(self.level_picker.value))

    async def run_async(self) -> pd.DataFrame:
        """Deprecated name of :meth:`arun`, the coroutine twin of :meth:`run`."""
        warnings.warn(
            "PromptTuner.run_async is deprecated; await PromptTuner.arun() instead",
            DeprecationWarning,
            stacklevel=2,
        )
        return await self.arun()

    async def _score(self, scorer: Scorer) -> EvalResult:
        return await arun_evals(
            self._data,
            scorer,
            concurrency=self.concurrency,
            on_item_complete=self._on_item_complete,
            progress=False,
        )

    def _on_item_complete(self, item: ItemResult) -> None:
        self._scored = min(self._scored + 1, self.progress.max)
        # Every widget update is a message to the page: at most about 100 a run, so that
        # 10,000 items do not send 20,000 of them.
        step = max(1, self.progress.max // 100)
        if self._scored % step == 0 or self._scored == self.progress.max:
            with self.progress.hold_sync():
                self.progress.value = self._scored
                self.progress.description = f"{self._scored}/{self.progress.max}"

    def _on_run_click(self, button: Any) -> None:
        try:
            self.start()
        except Exception:  # shown in the status line; a button callback has no caller to tell
            return

    def _on_export_click(self, button: Any) -> None:
        try:
            self.export()
        except ConfigurationError:  # shown in the export pane
            return

    def __repr__(self) -> str:
        judge = self.scorer.judge_model
        last = ""
        if self.comparison is not None:
            changes = [value for value in self.comparison["change"] if not math.isnan(value)]
            changed = sum(1 for value in changes if abs(value) > _CHANGE_TOLERANCE)
            last = f", last run: {changed} of {len(self.comparison)} changed"
        return (
            f"PromptTuner({self.scorer.id}, judge={judge!r}, "
            f"{len(self._data)} sampled items, {len(self.edited_prompts())} edited "
            f"template(s){last})"
        )


def _consume_outcome(task: asyncio.Task[Any]) -> None:
    """Mark a run task's exception as seen: the status line already shows it."""
    if not task.cancelled():
        task.exception()
