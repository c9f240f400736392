"""Notebook views over results (ipywidgets): thin widgets over data, with text reprs.

- :class:`AxisExplorer`: where a summary's alignment and coverage disagree, and why;
- :class:`ResultBrowser`: a paged, filterable, sortable table of results, one item's detail
  beside it;
- :class:`PromptTuner`: edit a judge's prompt templates, rescore a sample, read the verdict,
  export;
- :class:`Annotator`: label items one at a time, blind to the judge, each label on disk.

In Jupyter, a view on its own at the end of a cell shows its widget; each fits a 1440 x 900
screen at 10,000 items (tables send one page at a time; the scatter draws in the page).
Importing this package is cheap: ipywidgets and anywidget (both dependencies) are imported
when a view is built.
Every text from a model or from data is HTML-escaped before it is shown.

Example:
    >>> import evaltoolkit as et
    >>> from evaltoolkit.widgets import AxisExplorer
    >>> result = et.run_evals("data/demo_summaries.jsonl", et.create_summarization_scorer(),
    ...                       progress=False)
    >>> explorer = AxisExplorer(result, threshold=0.5)
    >>> len(explorer.items) > 0  # the items whose axes differ by 0.5 or more
    True
"""

from __future__ import annotations

from ._annotator import Annotator
from ._axis_explorer import AxisExplorer
from ._prompt_tuner import PromptTuner
from ._result_browser import ResultBrowser

__all__ = ["Annotator", "AxisExplorer", "PromptTuner", "ResultBrowser"]
