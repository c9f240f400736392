"""Every example in the package's docstrings runs and shows what it says."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest
from _support import REPO

import evaltoolkit

MODULES = sorted(
    name
    for _, name, _ in pkgutil.walk_packages(evaltoolkit.__path__, prefix="evaltoolkit.")
    if not name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    monkeypatch.chdir(REPO)  # examples read the demo data as data/...
    # The default judge cache, as a user without settings has it, in a scratch home.
    monkeypatch.delenv("EVALTOOLKIT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache-home")))
    module = importlib.import_module(name)
    outcome = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert outcome.failed == 0, f"{outcome.failed} of {outcome.attempted} examples failed"
