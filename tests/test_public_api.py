"""The public surface: __all__ matches the exports, and importing stays light."""

from __future__ import annotations

import inspect
import subprocess
import sys

import evaltoolkit


def test_all_lists_exactly_the_public_names() -> None:
    public = {
        name
        for name, value in vars(evaltoolkit).items()
        if not name.startswith("_") and not inspect.ismodule(value)
    } - {"annotations"}
    assert set(evaltoolkit.__all__) - {"__version__"} == public
    for name in evaltoolkit.__all__:
        assert hasattr(evaltoolkit, name), name


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
