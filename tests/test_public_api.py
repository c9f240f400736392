"""The public surface: each package's __all__ is what it exports, 120 names at most in all, the
names that left it still work for one release with a warning, and importing stays light."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
import warnings
from types import ModuleType

import pytest

import evaltoolkit

# The packages, with their __init__ holding only re-exports.
PACKAGES = (
    "evaltoolkit",
    "evaltoolkit.judge",
    "evaltoolkit.scorers",
    "evaltoolkit.meta",
    "evaltoolkit.records",
    "evaltoolkit.runner",
    "evaltoolkit.widgets",
    "evaltoolkit.report",
    "evaltoolkit.cli",
)
# The public modules, which hold code beside their exports.
MODULES = ("evaltoolkit.plots", "evaltoolkit.errors", "evaltoolkit.records.messages")
# Modules with public names that are not the public surface: the statistics behind meta's
# functions and the data items the runner reads (other layers import them; users import meta's
# and evaltoolkit's names). A new public-named module must be counted above or listed here.
OUTSIDE_THE_COUNT = (
    "evaltoolkit.messages",  # deprecated: hands records.messages on for one release
    "evaltoolkit.meta.stats",
    "evaltoolkit.records.items",
    # A built-in scorer's folder: what evaltoolkit.scorers and scorers._internal gather.
    "evaltoolkit.scorers.answer_similarity",
    "evaltoolkit.scorers.summarization",
    "evaltoolkit.scorers.textual_difference",
)
PUBLIC_NAMES = 110  # distinct names over every __all__ above; the wish: 120 at most

# Names each package listed in 0.1 and lists no more: where each lives now.
DELISTED = {
    "evaltoolkit.judge": (
        "evaltoolkit.judge._internal",
        "EXTRA_HINT OFFLINE_MODEL SERVICE_OPTIONS STRUCTURED_OUTPUT_MODES LiteLLMJudge "
        "OfflineAnswer OfflineJudge Price cache_file_path cache_shard cached_reply_value "
        "call_slot completion_budget count_message_tokens current_repeat default_cache_dir "
        "default_max_tokens format_bytes judge_option_names max_bytes_from_environment "
        "minimal_reply_tokens parse_duration parse_size price_of render_messages require_price "
        "scoring_repeat shared_call_limit tokenizer_note",
    ),
    "evaltoolkit.scorers": (
        "evaltoolkit.scorers._internal",
        "ANSWER_SIMILARITY_ID BASELINE_IDS DEFAULT_SYSTEM_PROMPT SUMMARIZATION_ID "
        "TEXTUAL_DIFFERENCE_ID AnswerSimilarityScorer NaiveOverlapScorer PlannedCall PromptSet "
        "PromptTemplate RougeScorer SimilarityWeights SummarizationScorer SummaryLengthScorer "
        "TextDifference TextualDifferenceScorer TokenF1Scorer compare_texts deciding_axis "
        "find_scorer_spec format_value scorer_spec scorer_spec_of scorer_specs",
    ),
    "evaltoolkit.meta": (
        "evaltoolkit.meta._internal",
        "AGREEMENT_METRICS LabelScale append_label_record attach_human_labels check_label_name "
        "human_labels is_labels_source judge_on_scale labels_by_item text_hash with_human_labels",
    ),
    "evaltoolkit.records": ("evaltoolkit.records._internal", "as_eval_result frame_layout"),
}
# De-listed names whose replacement is not an import from a private module.
REPLACED = {
    ("evaltoolkit.scorers", "ANSWER_THRESHOLD"): ("evaltoolkit.meta", "from evaltoolkit.meta"),
    ("evaltoolkit.meta", "judge_comparison"): (
        "evaltoolkit.meta._compare",
        "compare_judges(..., keep_runs=True)",
    ),
    ("evaltoolkit.meta", "ajudge_comparison"): (
        "evaltoolkit.meta._compare",
        "compare_judges(..., keep_runs=True)",
    ),
}
CASES = [
    (package, name, home, f"from {home}")
    for package, (home, names) in DELISTED.items()
    for name in names.split()
] + [(package, name, home, says) for (package, name), (home, says) in REPLACED.items()]


def _exported(module: ModuleType) -> set[str]:
    return {
        name
        for name in dir(module)
        if not name.startswith("_")
        and name != "annotations"  # from __future__ import annotations
        and not inspect.ismodule(getattr(module, name))
    }


@pytest.mark.parametrize("name", PACKAGES)
def test_a_package_exports_exactly_its_all(name: str) -> None:
    package = importlib.import_module(name)
    assert set(package.__all__) - {"__version__"} == _exported(package)
    assert len(package.__all__) == len(set(package.__all__))


@pytest.mark.parametrize("name", MODULES)
def test_a_public_module_lists_every_function_and_class_it_defines(name: str) -> None:
    module = importlib.import_module(name)
    defined = {
        key
        for key in _exported(module)
        if (inspect.isfunction(value := getattr(module, key)) or inspect.isclass(value))
        and value.__module__ == name
    }
    assert defined <= set(module.__all__)
    assert all(hasattr(module, key) for key in module.__all__)


def test_the_public_surface_is_120_names_at_most() -> None:
    names = {
        name for module in PACKAGES + MODULES for name in importlib.import_module(module).__all__
    }
    assert len(names) == PUBLIC_NAMES
    assert len(names) <= 120


def test_every_public_named_module_is_counted_or_listed_outside() -> None:
    found = {
        module.name
        for module in pkgutil.walk_packages(evaltoolkit.__path__, "evaltoolkit.")
        if not any(part.startswith("_") for part in module.name.split("."))
    }
    known = set(PACKAGES + MODULES)
    unknown = {
        name
        for name in found
        if name not in known
        and not any(name.startswith(f"{o}.") or name == o for o in OUTSIDE_THE_COUNT)
    }
    assert not unknown, f"count these in PACKAGES or MODULES, or make them private: {unknown}"
    assert known <= found | {"evaltoolkit"}


def test_a_delisted_name_is_no_longer_listed_or_exported() -> None:
    for package, name, _, _ in CASES:
        module = importlib.import_module(package)
        assert name not in module.__all__, (package, name)
        assert name not in _exported(module), (package, name)


@pytest.mark.parametrize(("package", "name", "home", "says"), CASES)
def test_a_delisted_name_warns_once_and_is_the_same_object(
    package: str, name: str, home: str, says: str
) -> None:
    module = importlib.import_module(package)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = getattr(module, name)
    assert [warning.category for warning in caught] == [DeprecationWarning]
    message = str(caught[0].message)
    assert f"{package}.{name}" in message and says in message, message
    assert caught[0].filename == __file__  # the warning points at the code that asked
    assert value is getattr(importlib.import_module(home), name)


def test_an_unknown_name_is_an_attribute_error_not_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
            _ = evaltoolkit.judge.no_such_name  # type: ignore[attr-defined]


def test_from_import_of_a_delisted_name_warns() -> None:
    with pytest.warns(DeprecationWarning, match=r"evaltoolkit\.judge\._internal"):
        from evaltoolkit.judge import OfflineJudge  # noqa: F401


def test_no_module_of_the_package_imports_a_deprecated_path() -> None:
    code = (
        "import pkgutil, importlib, warnings, evaltoolkit; "
        "warnings.filterwarnings('error', category=DeprecationWarning, module='evaltoolkit'); "
        "names = [m.name for m in pkgutil.walk_packages(evaltoolkit.__path__, 'evaltoolkit.')]; "
        "skip = ('evaltoolkit.messages', 'evaltoolkit.__main__', 'evaltoolkit.cli.__main__'); "
        "[importlib.import_module(n) for n in names if n not in skip]; "
        "print(len(names))"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
    assert int(completed.stdout) > 100  # every module was imported


def test_every_error_derives_from_the_base() -> None:
    for name in evaltoolkit.__all__:
        value = getattr(evaltoolkit, name)
        if isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, evaltoolkit.EvalToolkitError), name


def test_import_loads_no_heavy_dependency() -> None:
    code = (
        "import sys, evaltoolkit; "
        "print(','.join(m for m in ('litellm', 'matplotlib', 'ipywidgets', 'pandas', "
        "'jsonschema', 'scipy', 'sklearn') if m in sys.modules))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == ""
