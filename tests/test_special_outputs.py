"""An output path that names a FIFO, a device or a link to one is refused, never replaced.

Every file the toolkit writes is written beside its target and renamed onto it, which would
put a regular file where the pipe or the device node was (the reader of the pipe gets
nothing; run as root, a device node becomes a CSV). So the toolkit refuses such a path, before
any scoring on the command line, and names it. Devices are never touched here: their case is
the same check on a file mode, tested without a device.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

import evaltoolkit as et
from evaltoolkit._internal.files import atomic_write, check_writable, not_a_regular_file
from evaltoolkit.cli import main
from evaltoolkit.errors import ConfigurationError

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="no FIFOs")


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.csv"
    os.mkfifo(path)
    return path


@pytest.fixture
def link_to_fifo(tmp_path: Path, fifo: Path) -> Path:
    link = tmp_path / "link.csv"
    link.symlink_to(fifo)
    return link


def _is_fifo(path: Path) -> bool:
    return stat.S_ISFIFO(os.stat(path).st_mode)


@pytest.mark.parametrize("which", ["fifo", "link_to_fifo"])
def test_the_command_line_refuses_a_fifo_before_scoring(
    which: str, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    out: Path = request.getfixturevalue(which)

    status = main(
        ["run", "data/demo_answers.jsonl", "--scorer", "textual-difference", "--out", str(out)]
    )

    captured = capsys.readouterr()
    assert status == 2
    assert f"--out: {str(out)!r} is a FIFO (named pipe), not a regular file" in captured.err
    assert "name a regular file" in captured.err
    assert "scored" not in captured.out and "wrote" not in captured.out
    assert _is_fifo(out)
    assert out.is_symlink() == (which == "link_to_fifo")


@pytest.mark.parametrize("which", ["fifo", "link_to_fifo"])
def test_every_export_refuses_a_fifo_and_leaves_it_in_place(
    which: str, request: pytest.FixtureRequest
) -> None:
    out: Path = request.getfixturevalue(which)
    result = et.run_evals(
        [{"input": "q", "output": "a", "ground_truth": "a"}],
        et.create_textual_difference_scorer(),
        progress=False,
    )

    for write in (result.to_csv, result.to_jsonl, result.to_parquet):
        with pytest.raises(ConfigurationError, match=r"is a FIFO \(named pipe\)"):
            write(out)
    assert _is_fifo(out)
    assert sorted(path.name for path in out.parent.iterdir() if path.name.startswith(".")) == []


def test_a_fifo_is_reported_by_the_writability_check(fifo: Path) -> None:
    problem = check_writable(fifo)

    assert problem is not None and "FIFO (named pipe)" in problem
    assert _is_fifo(fifo)


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        (stat.S_IFCHR | 0o666, "a character device"),
        (stat.S_IFBLK | 0o660, "a block device"),
        (stat.S_IFSOCK | 0o777, "a socket"),
        (stat.S_IFIFO | 0o644, "a FIFO (named pipe)"),
    ],
)
def test_devices_and_sockets_are_named_by_their_mode(mode: int, kind: str) -> None:
    # A device's mode, without a device: the same function decides for atomic_write and
    # for the command line's check.
    problem = not_a_regular_file("/tmp/out.csv", mode)

    assert problem is not None
    assert problem.startswith(f"'/tmp/out.csv' is {kind}, not a regular file")


def test_a_regular_file_a_missing_one_and_a_link_to_one_are_written(tmp_path: Path) -> None:
    target = tmp_path / "real.csv"
    target.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(target)

    assert not_a_regular_file(target, os.stat(target).st_mode) is None
    atomic_write(link, lambda tmp: tmp.write_text("new"))
    atomic_write(tmp_path / "fresh.csv", lambda tmp: tmp.write_text("x"))

    assert link.is_symlink() and target.read_text() == "new"
    assert (tmp_path / "fresh.csv").read_text() == "x"
