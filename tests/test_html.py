"""The one HTML helper module (evaltoolkit._internal.html): markupsafe, escaping exactly once."""

from __future__ import annotations

import math
import subprocess
import sys

from markupsafe import Markup as MarkupsafeMarkup

from evaltoolkit import EvalResult, ItemResult, ScoreResult, StepError
from evaltoolkit._internal.html import (
    Markup,
    badge,
    details_block,
    esc,
    heading,
    join,
    key_value_table,
    note,
    table,
    text_block,
)

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
SCRIPT_ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
IMG_ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"


def test_markup_is_markupsafe_and_adding_text_escapes_it_once() -> None:
    assert Markup is MarkupsafeMarkup
    combined = Markup("<b>bold</b>") + "<i>&amp;</i>"
    assert isinstance(combined, Markup)
    # The text is escaped once: its "&amp;" becomes "&amp;amp;", and nothing more.
    assert str(combined) == "<b>bold</b>&lt;i&gt;&amp;amp;&lt;/i&gt;"
    assert str(Markup("<p>") + combined) == "<p><b>bold</b>&lt;i&gt;&amp;amp;&lt;/i&gt;"


def test_esc_is_idempotent_and_none_is_empty() -> None:
    once = esc(SCRIPT)
    assert str(once) == SCRIPT_ESCAPED
    assert esc(once) == once
    assert esc(esc(esc("a & b"))) == "a &amp; b"
    assert str(esc(None)) == ""
    assert str(esc(0.5)) == "0.5"


def test_join_escapes_text_parts_and_keeps_markup() -> None:
    joined = join([Markup("<br>"), "<x>", Markup("<hr>")], separator="&")
    assert str(joined) == "<br>&amp;&lt;x&gt;&amp;<hr>"


def test_every_helper_escapes_text_it_is_given() -> None:
    fragments = [
        heading(SCRIPT),
        note(IMG, kind="error"),
        badge(True, SCRIPT, "no"),
        text_block(SCRIPT, IMG),
        details_block(SCRIPT, IMG),
        table([SCRIPT], [[IMG], [None]]),
        key_value_table([(SCRIPT, IMG)]),
    ]
    for fragment in fragments:
        text = str(fragment)
        assert "<script" not in text.lower() and "<img" not in text.lower(), text
        assert SCRIPT_ESCAPED in text or IMG_ESCAPED in text, text
    # A missing cell is empty, not the word None.
    assert "None" not in str(table(["h"], [[None]]))


def test_a_helper_fed_its_own_output_does_not_escape_it_again() -> None:
    inner = table(["a"], [[SCRIPT]])
    outer = text_block("label", inner)
    assert str(outer).count(SCRIPT_ESCAPED) == 1
    assert "&amp;lt;" not in str(outer)


def test_record_reprs_escape_model_and_data_text() -> None:
    result = ScoreResult(
        scorer=SCRIPT,
        score=math.nan,
        reason=IMG,
        details={"claim": SCRIPT},
        error=StepError("coverage", IMG),
    )
    rendered = result._repr_html_()
    assert "<script" not in rendered and "<img" not in rendered
    assert SCRIPT_ESCAPED in rendered and IMG_ESCAPED in rendered
    run = EvalResult(
        items=[
            ItemResult(item_id=1, index=0, input="i", output="o", scorer_results={SCRIPT: result})
        ],
        scorer_ids=[SCRIPT],
    )
    summary = run._repr_html_()
    assert "<script" not in summary and SCRIPT_ESCAPED in summary
    assert "EvalResult: 1 items" in summary


def test_the_module_imports_without_pandas_or_ipywidgets() -> None:
    code = (
        "import sys, evaltoolkit._internal.html; "
        "print(','.join(m for m in ('pandas', 'ipywidgets', 'matplotlib') if m in sys.modules))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == ""
