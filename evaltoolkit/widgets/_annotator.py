"""Annotator: label items one at a time in the notebook, each label on disk at once."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from .._internal.html import (
    Markup,
    esc,
    format_score,
    heading,
    join,
    note,
    side_by_side,
    text_block,
)
from ..errors import ConfigurationError, InputError
from ..meta import LabelScale, append_label_record, read_labels, text_hash
from ..records import EvalResult
from ..records.items import load_items
from ..records.messages import input_text, output_text
from ..scorers import MetaLayout, find_scorer_spec, scorer_ids
from ._base import View, ipywidgets

__all__ = ["Annotator"]


Show = Literal["never", "after", "always"]
SHOWS: tuple[Show, ...] = ("never", "after", "always")
#: What an item shows: a source and its summary, or a question, an answer and a ground truth.
LAYOUTS: tuple[MetaLayout, ...] = get_args(MetaLayout)

#: Keys typed into the key box that move rather than label.
NEXT_KEYS = ("n", ">")
PREVIOUS_KEYS = ("p", "<")
SKIP_KEYS = ("s",)


@dataclass(slots=True)
class _Entry:
    """One item as the annotator sees it."""

    position: int
    item_id: Any
    texts: list[tuple[str, str]]
    text_hash: str
    judge: list[tuple[str, float, str | None]] = field(default_factory=list)


def _text(value: Any, *, output: bool, item_id: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return output_text(value, item_id=item_id) if output else input_text(value, item_id=item_id)
    except InputError:
        return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def _layout(
    layout: MetaLayout, item_id: Any, inp: Any, out: Any, truth: Any
) -> list[tuple[str, str]]:
    if layout == "source-summary":
        return [
            ("Source", _text(inp, output=False, item_id=item_id)),
            ("Summary", _text(out, output=True, item_id=item_id)),
        ]
    return [
        ("Question", _text(inp, output=False, item_id=item_id)),
        ("Answer", _text(out, output=True, item_id=item_id)),
        ("Ground truth", _text(truth, output=False, item_id=item_id)),
    ]


def _layout_of(task: str) -> MetaLayout:
    """The layout a task names: a registered scorer's id, or a layout by name."""
    for layout in LAYOUTS:
        if task == layout:
            return layout
    spec = find_scorer_spec(task)
    if spec is None:
        raise ConfigurationError(
            f"Annotator: unknown task {task!r}; name a scorer ({', '.join(scorer_ids())}) or "
            f"a layout ({', '.join(LAYOUTS)})"
        )
    return spec.layout


def _entries(data: Any, task: str | None) -> tuple[list[_Entry], MetaLayout]:
    """The items to label, checked: every item must have the texts its task shows."""
    if isinstance(data, EvalResult):
        raw = [
            (
                item.item_id,
                item.input,
                item.output,
                item.ground_truth,
                [
                    (name, result.score, result.reason)
                    for name, result in item.scorer_results.items()
                ],
            )
            for item in data.items
        ]
    else:
        items = load_items(data)
        for item in items:
            if item.problem is not None:
                raise ConfigurationError(
                    f"Annotator: item {item.item_id!r} cannot be read: {item.problem}"
                )
        raw = [(item.item_id, item.input, item.output, item.ground_truth, []) for item in items]
    if not raw:
        raise ConfigurationError("Annotator: the data holds no items; there is nothing to label")
    if task is None:
        layout: MetaLayout = (
            "answer-reference" if any(r[3] is not None for r in raw) else "source-summary"
        )
    else:
        layout = _layout_of(task)
    needed = ["input", "output"] + (["ground_truth"] if layout == "answer-reference" else [])
    entries = []
    for position, (item_id, inp, out, truth, judge) in enumerate(raw):
        values = {"input": inp, "output": out, "ground_truth": truth}
        missing = [name for name in needed if values[name] is None or values[name] == ""]
        if missing:
            raise ConfigurationError(
                f"Annotator: item {item_id!r} has no {' and no '.join(missing)}, which a "
                f"{layout} item needs to be labelled; fill it in or leave the item out"
            )
        texts = _layout(layout, item_id, inp, out, truth)
        entries.append(
            _Entry(position, item_id, texts, text_hash(*(t for _, t in texts)), list(judge))
        )
    return entries, layout


_WORD = re.compile(r"\w+", re.UNICODE)
# Words too common to mean that a summary took them from its source.
_COMMON_WORDS = frozenset(
    (
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "by",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "he",
        "she",
        "they",
        "them",
        "his",
        "her",
        "their",
        "we",
        "you",
        "i",
        "not",
        "no",
        "so",
        "than",
        "then",
        "there",
        "which",
        "who",
        "whom",
        "what",
        "when",
        "where",
        "how",
        "all",
        "any",
        "some",
        "more",
        "most",
        "into",
        "out",
        "over",
        "after",
        "before",
        "about",
        "also",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "will",
        "would",
        "can",
        "could",
        "may",
        "might",
        "must",
        "shall",
        "should",
    )
)


def shared_words(first: str, second: str) -> frozenset[str]:
    """The words (lower-cased, 3 letters or more, not among the most common) in both texts.

    Example:
        >>> sorted(shared_words("The council voted on Monday.", "Council voted no."))
        ['council', 'voted']
    """

    def words(text: str) -> set[str]:
        return {
            word.lower()
            for word in _WORD.findall(text)
            if len(word) >= 3 and word.lower() not in _COMMON_WORDS
        }

    return frozenset(words(first) & words(second))


def highlighted(text: str, words: frozenset[str]) -> Markup:
    """The text, escaped, with each word of ``words`` in a ``<mark>``."""
    parts: list[Markup] = []
    last = 0
    for match in _WORD.finditer(text):
        if match.group(0).lower() in words:
            parts.append(esc(text[last : match.start()]))
            parts.append(
                Markup("<mark class='evaltoolkit-shared'>{}</mark>").format(match.group(0))
            )
            last = match.end()
    parts.append(esc(text[last:]))
    return Markup("").join(parts)


def _rubrics(rubric: Any, scales: Mapping[str, Any]) -> dict[str, dict[Any, str]]:
    """``{label: {value: meaning}}`` from ``rubric=``: one label's ``{value: meaning}``, or
    ``{label: {value: meaning}}`` for several; every value must be on its label's scale."""
    if rubric is None:
        return {}
    if not isinstance(rubric, Mapping):
        raise ConfigurationError(
            "Annotator: rubric= maps each value of the scale to its meaning, e.g. "
            "{1: 'contradicts the source', 5: 'fully supported'}"
        )
    if set(rubric) <= set(scales) and all(isinstance(v, Mapping) for v in rubric.values()):
        by_label = {str(name): dict(meanings) for name, meanings in rubric.items()}
    elif len(scales) == 1:
        by_label = {next(iter(scales)): dict(rubric)}
    else:
        raise ConfigurationError(
            f"Annotator: with several labels, rubric= maps each label ({', '.join(scales)}) to "
            "{value: meaning}"
        )
    for name, meanings in by_label.items():
        values = scales[name].values
        for value, meaning in meanings.items():
            if value not in values:
                raise ConfigurationError(
                    f"Annotator: rubric for {name!r} gives a meaning to {value!r}, which is not "
                    f"on its scale {list(values)}"
                )
            if not isinstance(meaning, str):
                raise ConfigurationError(
                    f"Annotator: rubric for {name!r}, value {value!r}: the meaning must be "
                    f"text, got {meaning!r}"
                )
    return by_label


def _writable(path: Path) -> Path:
    if path.is_dir():
        raise ConfigurationError(f"Annotator: path {str(path)!r} is a folder; name a file in it")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as error:
        raise ConfigurationError(
            f"Annotator: cannot write labels to {str(path)!r} ({error.strerror or error}); "
            "choose a path in a folder you can write to"
        ) from error
    return path


class Annotator(View):
    """Label items one at a time: blind to the judge, keyboard-driven, every label on disk.

    Each label is appended to ``path`` as a JSON line (item id, label, value, annotator,
    time, note, a hash of the texts shown) and flushed to disk before the view moves on, so
    stopping the kernel loses at most the label being typed. Reopening with the same
    ``path`` and ``annotator`` resumes at the first item that person has not labelled.
    Relabelling appends; the last value wins and the history stays in the file. An item whose
    texts changed since it was labelled shows "text changed since labelled" and counts as not
    labelled. Read the file with :func:`evaltoolkit.meta.read_labels`.

    Keyboard: click the key box, then type a digit to pick a value (the value itself on a
    0-9 scale, ``1``/``0`` for pass/fail, the category's number otherwise), ``n`` or ``>``
    for the next item, ``p`` or ``<`` for the previous one, ``s`` to skip. The buttons do
    the same. ipywidgets has no key events on a plain widget, so keys go through a text box;
    arrow keys move its cursor and cannot be read.

    Attributes:
        widget: The root container.
        keys: The key box (a Text widget).
        note: The free-text note saved with the next label.
        value_buttons: One button per value of the active label.
        previous_button, next_button, skip_button: Moving without labelling.
        tag_box, tag_button: A tag for the current item (open coding), saved to ``path``.
        label_picker: Which label the digits set, when there are several.
        progress: The progress line's HTML widget.
        item_view: The current item's HTML widget.
        verdicts: The judge's scores and reasons (hidden until labelled, unless
            ``show="always"``).

    Example:
        >>> import tempfile, pathlib
        >>> from evaltoolkit.widgets import Annotator
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "labels.jsonl"
        >>> view = Annotator("data/demo_summaries.jsonl", label="consistency", scale=(1, 5),
        ...                  path=path, annotator="alice")
        >>> view.label(4, note="one unsupported number")
        >>> view.position, view.labelled
        (1, 1)
    """

    def __init__(
        self,
        data: Any,
        *,
        label: str | None = None,
        scale: Any = None,
        labels: dict[str, Any] | None = None,
        path: str | os.PathLike[str],
        annotator: str,
        show: Show = "never",
        task: str | None = None,
        rubric: Mapping[Any, Any] | None = None,
        highlight_shared: bool = False,
    ) -> None:
        """Build the view; every input is checked here, not at the first click.

        Args:
            data: The items: an EvalResult (its judge verdicts can be shown), a list of
                dicts, a DataFrame or an items file, as for ``run_evals``.
            label: The label's name (``"consistency"``).
            scale: Its values: an integer range ``(1, 5)``, ``bool`` for pass/fail, or a
                list of categories.
            labels: Several labels at once, by name: ``{"consistency": (1, 5), ...}``
                (instead of ``label`` and ``scale``).
            path: The labels file (JSON Lines), created if absent, appended to.
            annotator: Who labels (required: every label records who made it).
            show: The judge's scores and reasons: ``"never"`` (blind, the default),
                ``"after"`` (once the item is labelled) or ``"always"``.
            task: A registered scorer's id, or its layout: ``"source-summary"`` (source and
                summary side by side) or ``"answer-reference"`` (question, answer, ground
                truth); by default the latter when items have a ground truth.
            rubric: What each value of the scale means, shown beside the value buttons and
                as each button's tooltip: ``{1: "contradicts the source", ...,
                5: "every claim supported"}``; with several labels,
                ``{label: {value: meaning}}``.
            highlight_shared: Mark the words the source and the summary (or the answer and
                the ground truth) share, to see at a glance what the summary took from its
                source.

        Raises:
            ConfigurationError: An unwritable path, an unknown scale or show, no annotator,
                data without the texts its task needs, no items, or a rubric giving a
                meaning to a value that is not on the scale.
        """
        if not isinstance(annotator, str) or not annotator.strip():
            raise ConfigurationError(
                "Annotator: annotator= must name the person labelling (e.g. annotator='alice')"
            )
        if show not in SHOWS:
            raise ConfigurationError(
                f"Annotator: unknown show={show!r}; choose {', '.join(map(repr, SHOWS))}"
            )
        if labels is not None and (label is not None or scale is not None):
            raise ConfigurationError("Annotator: pass either label= and scale=, or labels=")
        if labels is None:
            if not isinstance(label, str) or not label.strip():
                raise ConfigurationError(
                    "Annotator: name the label (label='consistency') and its scale=, or pass "
                    "labels={'consistency': (1, 5)}"
                )
            labels = {label: scale}
        if not labels:
            raise ConfigurationError("Annotator: labels= names no label")
        self.scales = {name: LabelScale.parse(value, label=name) for name, value in labels.items()}
        self.rubric = _rubrics(rubric, self.scales)
        self.highlight_shared = bool(highlight_shared)
        self.annotator = annotator.strip()
        self.show = show
        self.path = _writable(Path(path))
        self._entries, self.layout = _entries(data, task)
        self._mine: dict[tuple[str, str], dict[str, Any]] = {}
        previous = read_labels(self.path)
        for record in previous[previous["annotator"] == self.annotator].to_dict("records"):
            self._mine[(str(record["item_id"]), str(record["label"]))] = {
                str(key): value for key, value in record.items()
            }
        self._tag_texts: dict[str, list[str]] = {}
        for item_id, tags in zip(previous["item_id"], previous["tags"], strict=True):
            known = self._tag_texts.setdefault(str(item_id), [])
            known.extend(tag for tag in tags if tag not in known)
        self.active = next(iter(self.scales))
        self.position = self._first_unlabelled()
        self._consumed = ""
        self._build()
        self._render()

    # State --------------------------------------------------------------------------------

    @property
    def items(self) -> int:
        """How many items there are to label."""
        return len(self._entries)

    @property
    def item_id(self) -> Any:
        """The current item's id."""
        return self._entries[self.position].item_id

    def value_of(self, label: str | None = None, position: int | None = None) -> Any:
        """This annotator's current value for an item (None: not labelled, or text changed)."""
        record = self._record(position, label)
        if record is None or self._changed(record, position):
            return None
        return record["value"]

    def _record(self, position: int | None, label: str | None) -> dict[str, Any] | None:
        entry = self._entries[self.position if position is None else position]
        return self._mine.get((str(entry.item_id), label or self.active))

    def _changed(self, record: dict[str, Any], position: int | None) -> bool:
        entry = self._entries[self.position if position is None else position]
        return record.get("text_hash") not in (None, entry.text_hash)

    def is_labelled(self, position: int | None = None) -> bool:
        """Whether this annotator gave every label of an item (for its current text)."""
        return all(self.value_of(name, position) is not None for name in self.scales)

    def text_changed(self, position: int | None = None) -> bool:
        """Whether an item's text changed since this annotator labelled it."""
        records = [self._record(position, name) for name in self.scales]
        return any(record is not None and self._changed(record, position) for record in records)

    @property
    def labelled(self) -> int:
        """How many items this annotator has labelled."""
        return sum(self.is_labelled(position) for position in range(self.items))

    def _first_unlabelled(self) -> int:
        return next((p for p in range(self.items) if not self.is_labelled(p)), 0)

    # Actions ------------------------------------------------------------------------------

    def label(self, value: Any, *, label: str | None = None, note: str | None = None) -> None:
        """Record a value for the current item, on disk, then move on.

        With several labels, the view moves to the next item once each has a value.

        Args:
            value: A value of the label's scale.
            label: Which label (default: the active one).
            note: A note saved with the label (default: the note box's text).

        Raises:
            ConfigurationError: An unknown label or a value not on its scale.
        """
        name = label or self.active
        if name not in self.scales:
            raise ConfigurationError(
                f"Annotator: no label {name!r}; the labels are {', '.join(self.scales)}"
            )
        checked = self.scales[name].check(value, label=name)
        entry = self._entries[self.position]
        text = self.note.value if note is None else note
        record = {
            "kind": "label",
            "item_id": entry.item_id,
            "label": name,
            "value": checked,
            "annotator": self.annotator,
            "note": text.strip() or None,
            "text_hash": entry.text_hash,
            "level": self.scales[name].level,
            "scale": list(self.scales[name].values),
        }
        append_label_record(self.path, record)  # on disk before the view moves on
        self._mine[(str(entry.item_id), name)] = record
        missing = [other for other in self.scales if self.value_of(other) is None]
        if missing:
            self.active = missing[0]
            self._render()
        else:
            self._move(1)

    def tag(self, text: str) -> None:
        """Tag the current item (a failure mode, "label noise"); saved to the labels file."""
        if not isinstance(text, str) or not text.strip():
            raise ConfigurationError("Annotator: a tag needs some text")
        entry = self._entries[self.position]
        append_label_record(
            self.path,
            {
                "kind": "tag",
                "item_id": entry.item_id,
                "annotator": self.annotator,
                "tag": text.strip(),
            },
        )
        known = self._tag_texts.setdefault(str(entry.item_id), [])
        if text.strip() not in known:
            known.append(text.strip())
        self.tag_box.value = ""
        self._render()

    def next(self) -> None:
        """Move to the next item without labelling."""
        self._move(1)

    def previous(self) -> None:
        """Move to the previous item."""
        self._move(-1)

    def skip(self) -> None:
        """Leave the current item unlabelled for now and move on."""
        self._move(1)

    def go(self, item_id: Any) -> None:
        """Move to the item with this id.

        Raises:
            KeyError: No such item.
        """
        for entry in self._entries:
            if str(entry.item_id) == str(item_id):
                self.position = entry.position
                self._reset_item()
                return
        raise KeyError(f"no item {item_id!r}")

    def press(self, key: str) -> None:
        """Act on one key, as typed into the key box (digits, ``n``, ``p``, ``s``)."""
        if key in NEXT_KEYS:
            self.next()
        elif key in PREVIOUS_KEYS:
            self.previous()
        elif key in SKIP_KEYS:
            self.skip()
        elif key.isdigit():
            value = self._value_for_digit(int(key))
            if value is not None:
                self.label(value)

    def _value_for_digit(self, digit: int) -> Any:
        values = self.scales[self.active].values
        if set(values) == {True, False}:
            return {1: True, 0: False}.get(digit)
        if all(isinstance(v, int) and 0 <= v <= 9 for v in values):
            return digit if digit in values else None
        return values[digit - 1] if 1 <= digit <= len(values) else None

    def _move(self, step: int) -> None:
        self.position = min(max(self.position + step, 0), self.items - 1)
        self._reset_item()

    def _reset_item(self) -> None:
        self.note.value = ""
        missing = [name for name in self.scales if self.value_of(name) is None]
        self.active = missing[0] if missing else next(iter(self.scales))
        self._render()

    # Widgets ------------------------------------------------------------------------------

    def _build(self) -> None:
        widgets = ipywidgets()
        self.progress = widgets.HTML()
        self.item_view = widgets.HTML()
        self.verdicts = widgets.HTML()
        self.verdicts.add_class("evaltoolkit-verdicts")
        self.rubric_view = widgets.HTML()
        self.rubric_view.add_class("evaltoolkit-rubric")
        self.keys = widgets.Text(
            value="",
            placeholder="click here, then type: a digit labels, n next, p previous, s skip",
            continuous_update=True,
            description="keys",
            layout={"width": "60%"},
        )
        self.keys.add_class("evaltoolkit-keys")
        self.keys.observe(self._on_keys, names="value")
        self.label_picker = widgets.ToggleButtons(
            options=list(self.scales), value=self.active, description="label"
        )
        self.label_picker.layout.display = "" if len(self.scales) > 1 else "none"
        self.label_picker.observe(self._on_pick_label, names="value")
        self.value_box = widgets.HBox()
        self.value_buttons: list[Any] = []
        self.previous_button = widgets.Button(description="previous (p)")
        self.next_button = widgets.Button(description="next (n)")
        self.skip_button = widgets.Button(description="skip (s)")
        self.previous_button.on_click(lambda _: self.previous())
        self.next_button.on_click(lambda _: self.next())
        self.skip_button.on_click(lambda _: self.skip())
        self.note = widgets.Textarea(
            placeholder="note (saved with the label)", layout={"width": "60%"}
        )
        self.tag_box = widgets.Text(placeholder="tag this item (e.g. label noise)")
        self.tag_button = widgets.Button(description="add tag")
        self.tag_button.on_click(self._on_tag)
        self.widget = widgets.VBox(
            [
                self.progress,
                self.item_view,
                self.verdicts,
                self.label_picker,
                widgets.HBox([self.value_box, self.rubric_view]),
                self.keys,
                widgets.HBox([self.previous_button, self.next_button, self.skip_button]),
                self.note,
                widgets.HBox([self.tag_box, self.tag_button]),
            ],
            layout={"width": "100%"},
        )
        self.widget.add_class("evaltoolkit-annotator")

    def _value_buttons(self) -> list[Any]:
        widgets = ipywidgets()
        scale = self.scales[self.active]
        current = self.value_of()
        buttons = []
        for value in scale.values:
            if set(scale.values) == {True, False}:
                text = "pass (1)" if value else "fail (0)"
            else:
                text = str(value)
            meaning = self.rubric.get(self.active, {}).get(value)
            button = widgets.Button(
                description=text,
                button_style="info" if current is not None and current == value else "",
                tooltip=meaning or "",
            )
            button.on_click(lambda _, chosen=value: self.label(chosen))
            buttons.append(button)
        return buttons

    def _on_keys(self, change: dict[str, Any]) -> None:
        typed = str(change["new"])
        if not typed:
            self._consumed = ""
            return
        fresh = typed[len(self._consumed) :] if typed.startswith(self._consumed) else typed
        self._consumed = typed
        for key in fresh:
            self.press(key.lower())
        self._consumed = ""
        self.keys.value = ""

    def _on_tag(self, _: Any) -> None:
        if self.tag_box.value.strip():
            self.tag(self.tag_box.value)

    def _on_pick_label(self, change: dict[str, Any]) -> None:
        if change["new"] in self.scales and change["new"] != self.active:
            self.active = change["new"]
            self._render()

    def _render(self) -> None:
        entry = self._entries[self.position]
        status = "labelled" if self.is_labelled() else "not labelled yet"
        parts: list[object] = []
        if self.text_changed():
            status = "text changed since labelled"
            parts.append(
                note(
                    "The text of this item changed since you labelled it; label it again.",
                    kind="warning",
                )
            )
        self.progress.value = str(
            Markup(
                "<div class='evaltoolkit-progress'>{done} of {total} labelled by {who} · item "
                "{number} of {total} ({item_id}): <span class='evaltoolkit-status'>{status}"
                "</span></div>"
            ).format(
                done=self.labelled,
                total=self.items,
                who=self.annotator,
                number=self.position + 1,
                item_id=str(entry.item_id),
                status=status,
            )
        )
        mine = [
            f"{name}: {self.value_of(name)}"
            for name in self.scales
            if self.value_of(name) is not None
        ]
        if mine:
            parts.append(Markup("<p><b>Your label.</b> {}</p>").format("; ".join(mine)))
        parts.append(
            side_by_side(*(text_block(title, text) for title, text in self._shown_texts(entry)))
        )
        tags = self._tag_texts.get(str(entry.item_id), [])
        if tags:
            parts.append(Markup("<p><b>Tags.</b> {}</p>").format(", ".join(tags)))
        self.item_view.value = str(
            Markup("<div class='evaltoolkit-item'>{}</div>").format(join(parts))
        )
        self.verdicts.value = str(self._verdicts_html(entry))
        self.rubric_view.value = str(self._rubric_html())
        self.label_picker.value = self.active
        self.value_buttons = self._value_buttons()
        self.value_box.children = tuple(self.value_buttons)

    def _shown_texts(self, entry: _Entry) -> list[tuple[str, str | Markup]]:
        """The item's texts; with ``highlight_shared``, the words the first two share marked."""
        if not self.highlight_shared or len(entry.texts) < 2:
            return list(entry.texts)
        (first_title, first), (second_title, second) = entry.texts[:2]
        words = shared_words(first, second)
        return [
            (first_title, highlighted(first, words)),
            (second_title, highlighted(second, words)),
            *entry.texts[2:],
        ]

    def _rubric_html(self) -> Markup:
        """The active label's rubric: each value and what it means."""
        meanings = self.rubric.get(self.active)
        if not meanings:
            return Markup("")
        rows = join(
            Markup("<tr><th style='text-align:right;padding:0 6px'>{}</th><td>{}</td></tr>").format(
                value, meanings[value]
            )
            for value in self.scales[self.active].values
            if value in meanings
        )
        return Markup(
            "<div class='evaltoolkit-rubric-table' style='font-size:12px;margin-left:12px'>"
            "<b>{}</b>: what each value means<table>{}</table></div>"
        ).format(self.active, rows)

    def verdicts_shown(self) -> bool:
        """Whether the judge's verdicts are visible for the current item."""
        return bool(self._entries[self.position].judge) and (
            self.show == "always" or (self.show == "after" and self.is_labelled())
        )

    def _verdicts_html(self, entry: _Entry) -> Markup:
        if not entry.judge:
            return Markup("")
        if not self.verdicts_shown():
            reason = (
                "hidden until you label this item"
                if self.show == "after"
                else "hidden (show='never'): labels made blind to the judge"
            )
            return Markup(
                "<div class='evaltoolkit-judge-hidden'>The judge's verdict is {}.</div>"
            ).format(reason)
        rows = [
            Markup("<li><b>{}</b>: {} · {}</li>").format(scorer, format_score(score), reason or "")
            for scorer, score, reason in entry.judge
        ]
        return Markup("<div class='evaltoolkit-judge'>{}<ul>{}</ul></div>").format(
            heading("The judge"), join(rows)
        )

    def __repr__(self) -> str:
        return (
            f"Annotator({', '.join(self.scales)!s}: {self.labelled} of {self.items} labelled "
            f"by {self.annotator}; at item {self.position + 1} ({self.item_id!r}), "
            f"labels in {str(self.path)!r})"
        )
