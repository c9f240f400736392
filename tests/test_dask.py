"""Scale-out on Dask: score_frame on a Dask DataFrame and run_evals(client=...).

One LocalCluster of two single-threaded worker processes serves the whole module (starting
one takes seconds). Its workers inherit this process's environment, so they import this
checkout and use the suite's temporary cache directory. The nanny restarts a killed worker,
and each test waits for both. Of the two tests that kill a worker, one comes first, before
the workers have imported pandas and litellm for the others (a restarted worker imports them
again: seconds of CPU), and the other comes last.
"""

from __future__ import annotations

import collections
import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from _support import DATA, benchmarks_dir, skip_or_fail
from conftest import PLANTED_API_KEY
from judge_script import prompt_text
from loopback_server import LoopbackServer, reply

import evaltoolkit as et
from evaltoolkit.cli import main
from evaltoolkit.errors import ConfigurationError, MissingDependencyError
from evaltoolkit.judge._shards import shard_dir
from evaltoolkit.meta import load_summeval
from evaltoolkit.records.items import read_table
from evaltoolkit.runner import _distributed

try:
    import cloudpickle
    import dask
    import dask.dataframe as dd
    import distributed
except ImportError:  # the dev extra installs them; without it these tests skip, or fail in CI
    dd = None
    distributed = None
else:
    # Functions of this module reach the workers by value: the workers cannot import it.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])

INSTALL_HINT = 'pip install "evaltoolkit[dask]"'


def _need_dask() -> None:
    if dd is None or distributed is None:
        skip_or_fail(f"dask is not installed; {INSTALL_HINT} (the dev extra includes it)")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    _need_dask()
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with distributed.Client(cluster) as dask_client:
        yield dask_client
    cluster.close()


@pytest.fixture
def cluster(client: Any) -> Any:
    """The module's client, once both workers are up (one may be restarting)."""
    client.wait_for_workers(2, timeout=60)
    return client


def _demo(name: str) -> pd.DataFrame:
    return read_table(DATA / name)


def _summaries_scorers() -> list[et.Scorer]:
    return [et.create_summarization_scorer(), et.create_textual_difference_scorer()]


def _answers_scorers() -> list[et.Scorer]:
    return [et.create_answer_similarity_scorer(), et.create_textual_difference_scorer()]


# -- the cluster itself -----------------------------------------------------------------------


def test_the_workers_import_this_checkout(cluster: Any) -> None:
    here = et.__file__

    paths = cluster.run(lambda: __import__("evaltoolkit").__file__)

    assert len(paths) == 2
    assert set(paths.values()) == {here}


def _exit_on_doomed(text: str) -> str:
    if text == "doomed":
        os._exit(1)  # the worker process dies, as on a segfault or the OOM killer
    return text


def test_an_item_that_keeps_killing_workers_fails_alone(
    cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One death is enough here; Dask's default is to give a task three.
    monkeypatch.setattr(cluster.cluster.scheduler, "allowed_failures", 0)
    items = [{"id": n, "input": "doomed" if n == 3 else f"text {n}"} for n in range(8)]

    result = et.run_evals(
        items,
        et.create_textual_difference_scorer(),
        target=_exit_on_doomed,
        client=cluster,
        partition_size=1,
        progress=False,
    )

    assert [item.item_id for item in result] == list(range(8))
    errors = {item.item_id: item.scorer_results["textual-difference"].error for item in result}
    doomed = errors[3]
    assert doomed is not None and doomed.step == "worker" and "item 3" in doomed.message
    for item in result:
        error = errors[item.item_id]
        # A partition on the same worker when it died may share the fate; the rest score.
        assert error is None or error.step == "worker"
        if error is None:
            assert item.scorer_results["textual-difference"].score == 1.0


# -- score_frame on a Dask DataFrame ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "scorers", "ground_truth"),
    [
        ("demo_summaries.jsonl", _summaries_scorers, None),
        ("demo_answers.jsonl", _answers_scorers, "ground_truth"),
    ],
)
@pytest.mark.filterwarnings("ignore:1 item changed on loading")
def test_score_frame_on_dask_equals_the_pandas_path(
    cluster: Any, name: str, scorers: Any, ground_truth: str | None
) -> None:
    frame = _demo(name)
    # In the middle partition, a bad row (it comes back as a row with its error) and a number
    # in the output (scored as its text, with a note): what makes pandas add or widen columns.
    bad, number = frame.iloc[[0]].copy(), frame.iloc[[1]].copy()
    bad["output"], number["output"] = None, 42
    frame = pd.concat([frame.iloc[:8], bad, number, frame.iloc[8:]], ignore_index=True)
    with dask.config.set({"dataframe.convert-string": False}):  # keep the 42 a number
        lazy_input = dd.from_pandas(frame, npartitions=3)

    lazy = et.score_frame(lazy_input, scorers(), ground_truth_col=ground_truth)
    scored = lazy.compute()
    expected = et.score_frame(lazy_input.compute(), scorers(), ground_truth_col=ground_truth)

    assert isinstance(lazy, dd.DataFrame)
    assert lazy.npartitions == 3
    pd.testing.assert_frame_equal(scored, expected)  # values, columns, dtypes and index
    assert lazy.dtypes.to_dict() == scored.dtypes.to_dict()  # the meta says what comes back
    errors = scored.filter(like=".error")
    assert errors.loc[8].str.contains("item 8: field 'output' is missing").all()
    assert errors.drop(index=8).isna().all().all()
    assert "field 'output' held the number 42" in scored.loc[9, "notes"]
    assert scored["notes"].drop(index=9).isna().all()


def test_clean_data_differs_from_pandas_only_by_dtypes_that_hold_failures(cluster: Any) -> None:
    frame = _demo("demo_summaries.jsonl")
    lazy_input = dd.from_pandas(frame, npartitions=2)

    scored = et.score_frame(lazy_input, _summaries_scorers()).compute()
    expected = et.score_frame(lazy_input.compute(), _summaries_scorers(), progress=False)

    # The notes column is always there on Dask, empty when loading changed nothing.
    assert set(scored.columns) - set(expected.columns) == {"notes"}
    assert scored.pop("notes").isna().all()
    widened = {
        column: (str(expected[column].dtype), str(scored[column].dtype))
        for column in scored.columns
        if scored[column].dtype != expected[column].dtype
    }
    assert set(widened.values()) <= {("int64", "float64"), ("object", "str")}
    assert "summarization.claims" in widened and "summarization.error" in widened
    pd.testing.assert_frame_equal(scored, expected.astype(scored.dtypes.to_dict()))


def test_600_summeval_rows_score_as_in_one_process(cluster: Any) -> None:
    summeval = load_summeval(benchmarks_dir() / "summeval_dev.jsonl").iloc[:400]
    rows = pd.concat([summeval] * 2, ignore_index=True).iloc[:600]
    scorer = et.create_summarization_scorer()

    running = cluster.compute(et.score_frame(dd.from_pandas(rows, npartitions=4), scorer))
    # Meanwhile, here: the offline judge is deterministic, so each of the 400 distinct rows is
    # scored once by the pandas path and its result repeated (200 of them twice over the four
    # partitions); a repeat cannot score otherwise.
    distinct = dd.from_pandas(summeval, npartitions=1).compute()
    once = et.score_frame(distinct, scorer, progress=False)
    expected = pd.concat([once] * 2, ignore_index=True).iloc[:600]
    scored = running.result()

    assert len(scored) == 600
    assert scored.index.tolist() == list(range(600))
    assert scored["summarization.error"].isna().all()
    assert scored.pop("notes").isna().all()
    pd.testing.assert_frame_equal(scored, expected.astype(scored.dtypes.to_dict()))


def _counting_scorer(log: Path) -> et.Scorer:
    """An offline custom scorer built from lambdas that logs each item it scores to a file."""

    def length(output: str) -> dict[str, Any]:
        with log.open("a") as handle:
            handle.write(f"{output}\n")
        return {"words": len(output.split())}

    step = et.Step(
        name="length",
        prompt="{{output}}",
        schema={
            "type": "object",
            "properties": {"words": {"type": "integer"}},
            "required": ["words"],
        },
        offline=length,
    )
    return et.create_judged_scorer(
        id="words",
        steps=[step],
        score=lambda context: et.Score(
            min(1.0, context.replies["length"]["words"] / 10), details={"words_seen": 1}
        ),
    )


def test_score_frame_is_lazy_and_custom_scorers_travel(cluster: Any, tmp_path: Path) -> None:
    log = tmp_path / "scored.txt"
    frame = pd.DataFrame({"input": ["q"] * 6, "output": [f"{'w ' * n}end" for n in range(6)]})

    lazy = et.score_frame(dd.from_pandas(frame, npartitions=2), _counting_scorer(log))
    probed = log.read_text().splitlines()
    scored = lazy.compute()

    assert len(probed) == 1  # only the first row, to learn the columns
    assert len(log.read_text().splitlines()) == 1 + 6
    assert scored["words.score"].tolist() == [min(1.0, (n + 1) / 10) for n in range(6)]
    assert scored["words.words_seen"].tolist() == [1.0] * 6


def test_meta_skips_the_probe(cluster: Any, tmp_path: Path) -> None:
    log = tmp_path / "scored.txt"
    frame = pd.DataFrame({"input": ["q"] * 4, "output": ["a b", "c", "d e f", "g"]})
    meta = et.score_frame(frame.iloc[:1], _counting_scorer(tmp_path / "other.txt"), progress=False)
    meta = meta.iloc[:0].astype({"words.words_seen": "float64", "words.error": "str"})

    lazy = et.score_frame(dd.from_pandas(frame, npartitions=2), _counting_scorer(log), meta=meta)
    assert not log.exists()
    scored = lazy.compute()

    assert list(scored.columns) == list(meta.columns)
    assert scored["words.words_seen"].tolist() == [1.0] * 4


def test_when_the_first_rows_all_fail_the_details_are_left_out_with_a_warning(
    cluster: Any,
) -> None:
    # Three partitions are probed; here every row in them fails, and only the fourth scores.
    frame = pd.DataFrame({"input": ["a b"] * 8, "output": [None] * 6 + ["a", "a b"]})

    with pytest.warns(RuntimeWarning, match="for 'textual-difference' .*field 'output' is missing"):
        lazy = et.score_frame(
            dd.from_pandas(frame, npartitions=4), et.create_textual_difference_scorer()
        )
    scored = lazy.compute()

    assert list(scored.columns) == [
        "input",
        "output",
        "textual-difference.score",
        "textual-difference.reason",
        "textual-difference.error",
        "notes",
    ]
    one = et.create_textual_difference_scorer()
    assert scored["textual-difference.score"].tolist()[6:] == [
        one.run(input="a b", output=output).score for output in ("a", "a b")
    ]
    assert scored["textual-difference.error"].notna().tolist() == [True] * 6 + [False] * 2


def test_the_local_schedulers_need_no_cluster() -> None:
    _need_dask()
    frame = pd.DataFrame({"input": ["a b c", "d e"], "output": ["a b", "d e"]})
    expected = et.score_frame(frame, et.create_textual_difference_scorer(), progress=False)
    lazy = et.score_frame(
        dd.from_pandas(frame, npartitions=2), et.create_textual_difference_scorer()
    )

    for scheduler in ("sync", "threads"):
        scored = lazy.compute(scheduler=scheduler)
        assert scored["textual-difference.score"].tolist() == (
            expected["textual-difference.score"].tolist()
        )


def test_score_frame_names_a_missing_column(cluster: Any) -> None:
    frame = dd.from_pandas(pd.DataFrame({"input": ["q"], "answer": ["a"]}), npartitions=1)

    with pytest.raises(ConfigurationError, match="no column 'output'"):
        et.score_frame(frame, et.create_textual_difference_scorer())


def test_a_scorer_that_cannot_be_pickled_is_named(cluster: Any) -> None:
    lock = threading.Lock()

    def score(context: et.StepContext) -> float:
        with lock:
            return 1.0

    step = et.Step(name="s", prompt="{{output}}", schema={"type": "object"}, offline=dict)
    scorer = et.create_judged_scorer(id="locked", steps=[step], score=score)
    frame = dd.from_pandas(pd.DataFrame({"input": ["q"], "output": ["a"]}), npartitions=1)

    with pytest.raises(ConfigurationError, match="scorer 'locked' cannot be sent to the workers"):
        et.score_frame(frame, scorer)


# -- run_evals on a cluster -------------------------------------------------------------------


def _comparable(result: et.EvalResult) -> pd.DataFrame:
    return result.to_frame().drop(columns=["latency_s", "run_id"])


@pytest.mark.filterwarnings("ignore:1 item changed on loading")
def test_run_evals_on_the_cluster_equals_one_process(cluster: Any) -> None:
    items = read_table(DATA / "demo_answers.jsonl").to_dict(orient="records")
    items[3] = "not a mapping"
    items[5] = {**items[5], "output": 42}
    seen: list[Any] = []

    result = et.run_evals(
        items,
        _answers_scorers(),
        client=cluster,
        partition_size=3,
        on_item_complete=lambda item: seen.append(item.item_id),
        progress=False,
    )
    expected = et.run_evals(items, _answers_scorers(), progress=False)

    pd.testing.assert_frame_equal(_comparable(result), _comparable(expected))
    assert sorted(seen, key=str) == sorted((item.item_id for item in expected), key=str)
    assert len({item.run_id for item in result.results("textual-difference")}) == 1
    errors = [str(score.error) for score in result.results("answer-similarity")]
    assert "item 3: expected a mapping" in errors[3]
    assert result[5].output == "42" and "held the number 42" in result[5].notes[0]


def test_a_target_runs_on_the_workers(cluster: Any) -> None:
    items = [{"input": "paris"}, {"input": "rome"}]

    result = et.run_evals(
        items,
        et.create_textual_difference_scorer(),
        target=lambda text: f"{text.upper()} from pid {os.getpid()}",
        client=cluster,
        partition_size=1,
        progress=False,
    )

    outputs = [item.output for item in result]
    assert [output.split()[0] for output in outputs] == ["PARIS", "ROME"]
    assert f"pid {os.getpid()}" not in " ".join(outputs)


async def test_the_async_twins_run_on_the_cluster(cluster: Any) -> None:
    items = [{"id": n, "input": "a b c", "output": "a b" if n else "a b c"} for n in range(4)]
    scorer = et.create_textual_difference_scorer()
    seen: list[Any] = []

    async def remember(item: et.ItemResult) -> None:
        seen.append(item.item_id)

    result = await et.arun_evals(
        items, scorer, client=cluster, partition_size=1, on_item_complete=remember
    )
    lazy = await et.ascore_frame(dd.from_pandas(pd.DataFrame(items), npartitions=2), scorer)

    assert sorted(seen) == [0, 1, 2, 3]
    assert result.results("textual-difference")[0].score == 1.0
    assert isinstance(lazy, dd.DataFrame)
    assert lazy.compute()["textual-difference.score"].tolist() == [
        score.score for score in result.results("textual-difference")
    ]


def test_a_scheduler_address_works_as_a_client(cluster: Any) -> None:
    items = [{"input": "a", "output": "a b"}, {"input": "c", "output": "c"}]

    result = et.run_evals(
        items, et.create_textual_difference_scorer(), client=cluster.scheduler.address
    )

    assert [score.score for score in result.results("textual-difference")][1] == 1.0


def _echo_reply(body: dict[str, Any]) -> Any:
    answer = prompt_text(body).rsplit("ANSWER:", 1)[1].strip()
    return reply({"echo": answer})


def _echo_scorer(server: LoopbackServer, cache: Path | bool) -> et.Scorer:
    """One judge call per item; the score is the number in the answer the server echoes."""
    step = et.Step(
        name="echo",
        prompt="Repeat the answer.\nANSWER: {{output}}",
        schema={
            "type": "object",
            "properties": {"echo": {"type": "string"}},
            "required": ["echo"],
        },
    )
    return et.create_judged_scorer(
        id="echo",
        steps=[step],
        score=lambda context: float(context.replies["echo"]["echo"].split()[-1]),
        model="openai/loopback",
        api_base=server.url,
        api_key=PLANTED_API_KEY,
        cache=cache,
        timeout=10.0,
        backoff_base=0.01,
        backoff_max=0.05,
    )


def _answers(count: int) -> list[dict[str, Any]]:
    return [{"id": f"item-{n}", "input": "q", "output": f"answer {n}"} for n in range(count)]


def test_total_concurrency_caps_calls_across_the_cluster(
    cluster: Any, loopback_server: LoopbackServer
) -> None:
    loopback_server.latency_s = 0.2
    loopback_server.set_responder(_echo_reply)

    result = et.run_evals(
        _answers(24),
        _echo_scorer(loopback_server, cache=False),
        client=cluster,
        concurrency=16,
        total_concurrency=4,
        partition_size=6,
        progress=False,
    )

    assert [score.score for score in result.results("echo")] == [float(n) for n in range(24)]
    assert loopback_server.requests_total == 24
    assert loopback_server.max_in_flight <= 4  # 16 per partition would allow 12 at once


def test_a_dask_frame_rerun_on_the_cluster_makes_no_model_call(
    cluster: Any, loopback_server: LoopbackServer, tmp_path: Path
) -> None:
    loopback_server.set_responder(_echo_reply)
    frame = pd.DataFrame(_answers(12)).set_index("id")
    scorer = _echo_scorer(loopback_server, cache=tmp_path / "cache")

    first = et.score_frame(dd.from_pandas(frame, npartitions=3), scorer).compute()
    asked = loopback_server.requests_total
    loopback_server.reset()
    again = et.score_frame(dd.from_pandas(frame, npartitions=3), scorer).compute()

    assert first["echo.score"].to_dict() == {f"item-{n}": float(n) for n in range(12)}
    assert asked == 12  # the probe's call too is stored, and found by whichever worker
    assert loopback_server.requests_total == 0
    pd.testing.assert_frame_equal(first, again)
    shards = {path.name for path in shard_dir(tmp_path / "cache").iterdir()}
    assert shards and shards <= {f"{name}.sqlite3" for name in _shard_names(cluster)}


def _shard_names(client: Any) -> list[str]:
    return list(client.run(lambda dask_worker: _distributed.shard_name(dask_worker)).values())


# -- the command line -------------------------------------------------------------------------


def test_the_cli_scores_on_a_scheduler(
    cluster: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scored.parquet"

    status = main(
        [
            "run",
            str(DATA / "demo_answers.jsonl"),
            "--scorer",
            "textual-difference",
            "--scheduler",
            cluster.scheduler.address,
            "--out",
            str(out),
            "--no-progress",
        ]
    )

    assert status == 0
    assert "16 items" in capsys.readouterr().out
    expected = et.run_evals(
        DATA / "demo_answers.jsonl", et.create_textual_difference_scorer(), progress=False
    )
    written = pd.read_parquet(out).drop(columns=["latency_s", "run_id"])
    pd.testing.assert_frame_equal(written, _comparable(expected), check_dtype=False)


def test_the_cli_starts_a_local_cluster_of_worker_processes(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[dict[str, Any]] = []

    class ReuseTheModuleCluster:
        """Stands in for LocalCluster, recording how it was asked for (starting one is slow)."""

        def __init__(self, **options: Any) -> None:
            started.append(options)
            self.scheduler_address = cluster.scheduler.address

        def __enter__(self) -> str:
            return self.scheduler_address

        def __exit__(self, *exc: object) -> None:
            pass

    monkeypatch.setattr(distributed, "LocalCluster", ReuseTheModuleCluster)

    status = main(
        [
            "run",
            str(DATA / "demo_answers.jsonl"),
            "--scorer",
            "textual-difference",
            "--workers",
            "2",
            "--no-progress",
        ]
    )

    assert status == 0
    assert started == [
        {"n_workers": 2, "threads_per_worker": 1, "processes": True, "dashboard_address": None}
    ]


# -- without Dask ------------------------------------------------------------------------------


@pytest.fixture
def without_dask(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("dask", "dask.dataframe", "distributed"):
        monkeypatch.setitem(sys.modules, name, None)  # `import name` raises ImportError


@pytest.mark.usefixtures("without_dask")
def test_without_dask_a_cluster_run_says_what_to_install() -> None:
    with pytest.raises(MissingDependencyError, match=INSTALL_HINT.replace("[", r"\[")):
        et.run_evals(
            [{"input": "a", "output": "b"}],
            et.create_textual_difference_scorer(),
            client="tcp://127.0.0.1:8786",
        )


@pytest.mark.usefixtures("without_dask")
def test_without_dask_the_cli_says_what_to_install(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        [
            "run",
            str(DATA / "demo_answers.jsonl"),
            "--scorer",
            "textual-difference",
            "--workers",
            "2",
        ]
    )

    assert status == 2
    assert INSTALL_HINT in capsys.readouterr().err


def test_cluster_options_without_a_cluster_are_refused() -> None:
    items = [{"input": "a", "output": "b"}]
    scorer = et.create_textual_difference_scorer()

    with pytest.raises(ConfigurationError, match="client="):
        et.run_evals(items, scorer, total_concurrency=4)
    with pytest.raises(ConfigurationError, match="apply to a Dask DataFrame"):
        et.score_frame(pd.DataFrame(items), scorer, meta=pd.DataFrame())
    assert (
        main(
            [
                "run",
                str(DATA / "demo_answers.jsonl"),
                "--scorer",
                "textual-difference",
                "--total-concurrency",
                "4",
            ]
        )
        == 2
    )


def test_run_evals_points_a_dask_frame_to_score_frame() -> None:
    _need_dask()
    frame = dd.from_pandas(pd.DataFrame({"input": ["a"], "output": ["b"]}), npartitions=1)

    with pytest.raises(ConfigurationError, match="score_frame"):
        et.run_evals(frame, et.create_textual_difference_scorer())


def test_importing_evaltoolkit_loads_no_dask() -> None:
    code = (
        "import sys, evaltoolkit, evaltoolkit.cli; "
        "print(','.join(m for m in ('dask', 'distributed', 'cloudpickle') if m in sys.modules))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == ""


@pytest.mark.parametrize(
    ("concurrency", "total", "threads", "expected"),
    [(8, None, 4, 8), (8, 64, 4, 16), (8, 6, 4, 1), (8, 3, 0, 3)],
)
def test_the_total_limit_is_split_over_worker_threads(
    concurrency: int, total: int | None, threads: int, expected: int
) -> None:
    with pytest.warns(RuntimeWarning) if total is not None and total < threads else _no_warning():
        assert _distributed._per_task_concurrency(concurrency, total, threads) == expected


class _no_warning:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def test_a_missing_string_cell_reads_as_missing() -> None:
    frame = pd.DataFrame({"input": ["a b c"], "output": [None]}).astype({"output": "string"})

    scored = et.score_frame(frame, et.create_textual_difference_scorer(), progress=False)

    assert "field 'output' is missing" in scored["textual-difference.error"].iloc[0]


# -- a worker dies mid-run (last: the nanny restarts it) ----------------------------------------

KILL_AT_REQUEST = 12


def test_a_worker_killed_mid_run_loses_nothing_and_pays_no_cached_call_twice(
    cluster: Any, loopback_server: LoopbackServer, tmp_path: Path
) -> None:
    victim = min(cluster.run(os.getpid).values())
    killed = threading.Event()
    counter = iter(range(1, 10**6))
    lock = threading.Lock()

    def respond(body: dict[str, Any]) -> Any:
        with lock:
            number = next(counter)
        if number == KILL_AT_REQUEST:
            os.kill(victim, signal.SIGKILL)
            killed.set()
        return _echo_reply(body)

    loopback_server.latency_s = 0.05
    loopback_server.set_responder(respond)
    cache = tmp_path / "cache"
    scorer = _echo_scorer(loopback_server, cache=cache)
    items = _answers(40)

    result = et.run_evals(
        items, scorer, client=cluster, partition_size=10, concurrency=2, progress=False
    )

    assert killed.is_set()
    assert [item.item_id for item in result] == [item["id"] for item in items]
    assert [score.score for score in result.results("echo")] == [float(n) for n in range(40)]
    prompts = collections.Counter(
        hashlib.sha256(prompt_text(body).encode()).hexdigest() for body in loopback_server.requests
    )
    assert len(prompts) == 40
    # Asked twice: at most the calls in flight on the killed worker (2), never a stored one.
    assert sum(count - 1 for count in prompts.values()) <= 2

    stored: list[str] = []
    for path in shard_dir(cache).glob("*.sqlite3"):
        with sqlite3.connect(path) as connection:
            assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            stored += [key for (key,) in connection.execute("SELECT key FROM judge_calls")]
    assert len(set(stored)) == 40

    loopback_server.reset()
    again = et.run_evals(items, scorer, client=cluster, partition_size=10, progress=False)

    assert loopback_server.requests_total == 0
    same = ["item_id", "score", "reason", "error", "raw_replies"]
    pd.testing.assert_frame_equal(_comparable(again)[same], _comparable(result)[same])
