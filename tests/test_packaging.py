"""What an installed (not editable) evaltoolkit needs: the demo data inside the package."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest
from _support import DATA, REPO, skip_or_fail

from evaltoolkit.cli._demo import _demo_file
from evaltoolkit.cli._internal import DEMO_FILES

PACKAGE_DATA = REPO / "evaltoolkit" / "_demo_data"


def _source_copy(tmp_path: Path) -> Path:
    """What a build reads, copied, so that building leaves no files in the checkout."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(
        REPO / "evaltoolkit", source / "evaltoolkit", ignore=shutil.ignore_patterns("__pycache__")
    )
    return source


@pytest.mark.parametrize("name", DEMO_FILES)
def test_the_packaged_demo_data_is_the_data_folders(name: str) -> None:
    # data/make_demo.py writes both; a hand edit of one would make them drift.
    assert (PACKAGE_DATA / name).read_bytes() == (DATA / name).read_bytes()
    with _demo_file(name) as path:
        assert path.read_bytes() == (DATA / name).read_bytes()


def test_a_build_puts_the_demo_data_in_the_package(tmp_path: Path) -> None:
    source = _source_copy(tmp_path)
    built = tmp_path / "lib"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from setuptools import setup; setup()",
            "-q",
            "build_py",
            "-d",
            str(built),
        ],
        cwd=source,
        check=True,
        capture_output=True,
    )
    for name in DEMO_FILES:
        assert (built / "evaltoolkit" / "_demo_data" / name).is_file()


def _can_build_wheels() -> bool:
    setuptools_major = int(version("setuptools").split(".")[0])
    return importlib.util.find_spec("wheel") is not None or setuptools_major >= 71


def test_the_wheel_ships_the_demo_data_and_the_command(tmp_path: Path) -> None:
    if not _can_build_wheels():
        skip_or_fail(
            "building a wheel offline needs the 'wheel' package or setuptools >= 71 "
            '(pip install -e ".[dev]" installs it)'
        )
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(wheels),
            str(_source_copy(tmp_path)),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    [wheel] = wheels.glob("evaltoolkit-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        assert "evaltoolkit = evaltoolkit.cli:console_main" in archive.read(entry_points).decode()
    for name in DEMO_FILES:
        assert f"evaltoolkit/_demo_data/{name}" in names


@pytest.mark.parametrize(
    ("notebook", "written"),
    [("01_quickstart.ipynb", 'Path(\\"results\\")'), ("07_scaling_out.ipynb", "scaling_out/")],
)
def test_what_the_notebooks_write_is_ignored_by_git(notebook: str, written: str) -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        skip_or_fail("needs a git checkout")
    assert written in (REPO / "notebooks" / notebook).read_text(encoding="utf-8")
    folder = "results" if "results" in written else "scaling_out"
    checked = subprocess.run(
        ["git", "check-ignore", "-q", f"notebooks/{folder}/summaries.parquet"],
        cwd=REPO,
        check=False,
    )
    assert checked.returncode == 0, f"notebooks/{folder}/ is not ignored by git"
