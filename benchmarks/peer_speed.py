"""The same summarization job beside Ragas and DeepEval, against the loopback server.

Every tool scores the same ``--items`` (default 100) source/summary pairs with its own
summarization metric (evaltoolkit's summarization scorer, Ragas' ``SummaryScore`` through
``ragas.evaluate``, DeepEval's ``SummarizationMetric`` through ``deepeval.evaluate``), each
talking to the project's loopback OpenAI-compatible server (``tests/loopback_server.py``), which
runs in a separate process, answers after ``--latency`` seconds (default 0.5) and, where the
condition says so, answers a random ``--fault-rate`` share of requests (default 20%) with a fault
instead: HTTP 429 with ``Retry-After: 1``, HTTP 500, HTTP 503 or a dropped connection, in turn
(seeded). Replies are built from the JSON schema each request carries (in ``response_format``,
or in the prompt text for a tool that puts it there), so each tool gets replies it can parse.

Four conditions: (a) each tool's default options, (b) ``--in-flight`` (default 100) requests in
flight, (c) faults at defaults, (d) faults at ``--in-flight``. Each tool's defaults are read from
the tool itself (its run function's signature or config class), never written here.

Each run is its own subprocess (a fresh interpreter, a fresh server, a fresh cache folder as the
working directory and ``$EVALTOOLKIT_CACHE_DIR``); the peers run with ``--peer-python``, the
interpreter of a virtual environment that has them, so the project's environment never gets
them. Without ``--peer-python`` (or where a peer does not import) the script says so and runs the
tools it has. A run's wall time starts when the tool's model-backed objects are built and ends
with its results. The tool's imports, its model client's included (litellm, langchain-openai,
openai), come before the clock starts and are reported apart as ``import_s``: evaltoolkit imports
litellm lazily at its first call, a cost a user pays once per process (about 2.5 s on an idle
machine, over 10 s on a loaded one) that would otherwise swamp the job's own time.

Reported per tool and condition, min/median over ``--runs`` (default 3): wall time, requests per
item (as the server counted them, faults included), items kept (scored, not failed), and per row
the ratio evaltoolkit / fastest peer (medians), and each tool's time under faults as a multiple of
its own fault-free time at the same concurrency.

Usage::

    python benchmarks/peer_speed.py --peer-python /work/peers-venv/bin/python --json out.json

Set up the peers' environment once (outside the project's)::

    python -m venv /work/peers-venv
    /work/peers-venv/bin/pip install ragas==0.4.3 deepeval==4.3.1 'langchain-community<0.4.2'
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
THIS = Path(__file__).resolve()
TOOLS = ("evaltoolkit", "ragas", "deepeval")
PEERS = ("ragas", "deepeval")
MODEL_NAME = "loopback"
API_KEY = "sk-benchmark-key"
FAULT_KINDS = ("429", "500", "503", "drop")
RUN_TIMEOUT_S = 900.0

TOPICS = (
    "a harbour town's new ferry timetable",
    "a university study of sleep and memory",
    "a city council vote on bicycle lanes",
    "a museum's exhibition of medieval maps",
    "a farm cooperative's switch to drip irrigation",
    "a regional airline's fleet renewal",
    "a library's late-fee amnesty",
    "a startup's recall of a faulty charger",
    "a school district's four-day week trial",
    "an orchestra's tour of small towns",
)


def make_items(count: int) -> list[dict[str, str]]:
    """``count`` distinct source documents, each with a one-sentence summary."""
    items = []
    for index in range(count):
        topic = TOPICS[index % len(TOPICS)]
        source = (
            f"Report {index}: this article covers {topic}. "
            f"The plan was announced on day {index % 28 + 1} and affects about "
            f"{(index + 3) * 120} people. Officials said the first phase costs "
            f"{(index % 9 + 1) * 10000} euros and ends within {index % 11 + 2} months. "
            "Critics asked for an independent review; supporters pointed to a pilot that "
            "met its targets. A public meeting is planned before the second phase."
        )
        summary = (
            f"Report {index} describes {topic}, affecting about {(index + 3) * 120} people, "
            f"with a first phase of {(index % 9 + 1) * 10000} euros."
        )
        items.append({"id": str(index), "source": source, "summary": summary})
    return items


# ---------------------------------------------------------------------------------------------
# The server side: replies built from each request's schema, and seeded random faults.


def _resolve(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Mapping[str, Any]:
    while "$ref" in schema:
        schema = defs[str(schema["$ref"]).rsplit("/", 1)[-1]]
    return schema


def instance_of(
    schema: Mapping[str, Any],
    defs: Mapping[str, Any],
    *,
    name: str,
    tag: str,
    texts: Mapping[str, Callable[[str], Any]],
) -> Any:
    """A value that matches ``schema``: the first enum value, ``True``, 1, three-entry lists.

    ``texts`` may give a value by property name (for fields whose meaning a tool checks, like
    Ragas' ``"1"``/``"0"`` answers); other strings name the property and the request's ``tag``.
    """
    schema = _resolve(schema, defs)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [_resolve(option, defs) for option in schema[key]]
            usable = [option for option in options if option.get("type") != "null"]
            return instance_of(usable[0], defs, name=name, tag=tag, texts=texts)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((entry for entry in kind if entry != "null"), "string")
    if name in texts and kind != "array":
        return texts[name](tag)
    if kind == "object":
        return {
            key: instance_of(value, defs, name=key, tag=tag, texts=texts)
            for key, value in schema.get("properties", {}).items()
        }
    if kind == "array":
        if name in texts:
            return texts[name](tag)
        length = max(int(schema.get("minItems", 0)), 3)
        length = min(length, int(schema.get("maxItems", length)))
        item_schema = schema.get("items", {"type": "string"})
        return [instance_of(item_schema, defs, name=name, tag=tag, texts=texts)] * length
    if kind == "boolean":
        return True
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.0
    return f"{name} {tag}"


def _schema_in_text(text: str) -> dict[str, Any] | None:
    """The JSON schema a prompt quotes after ``JSON Schema:`` (Ragas' prompts do), if any."""
    marker = text.find("JSON Schema")
    start = text.find("{", marker) if marker >= 0 else -1
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _prompt_text(body: Mapping[str, Any]) -> str:
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            content = " ".join(str(part.get("text", "")) for part in content)
        parts.append(str(content or ""))
    return "\n".join(parts)


def answer_for(body: Mapping[str, Any]) -> str:
    """The reply text for one request of any of the three tools."""
    prompt = _prompt_text(body)
    tag = hashlib.sha1(prompt.encode()).hexdigest()[:8]
    response_format = body.get("response_format") or {}
    schema = (response_format.get("json_schema") or {}).get("schema") or response_format.get(
        "schema"
    )
    if schema is None:
        schema = _schema_in_text(prompt)  # Ragas quotes its schema in the prompt
    if schema is None:
        return json.dumps({"reason": f"No schema was given ({tag})."})
    texts: dict[str, Callable[[str], Any]] = {
        # Ragas' SummaryScore counts the "1" answers; DeepEval's verdicts are "yes"/"no".
        "answers": lambda tag: ["1", "1", "0"],
        "verdict": lambda tag: "yes",
        "questions": lambda tag: [f"Does the text say fact {n} ({tag})?" for n in range(5)],
        "keyphrases": lambda tag: [f"phrase {n} {tag}" for n in range(3)],
    }
    return json.dumps(instance_of(schema, schema.get("$defs", {}), name="", tag=tag, texts=texts))


class FaultyResponder:
    """Answers each request from its schema, or, with probability ``rate``, with a fault."""

    def __init__(self, rate: float, seed: int) -> None:
        self.rate = rate
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.faults = 0
        self.turn = 0

    def __call__(self, body: dict[str, Any]) -> Any:
        from loopback_server import drop_connection, rate_limited, reply, server_error

        with self.lock:
            faulty = self.random.random() < self.rate
            kind = FAULT_KINDS[self.turn % len(FAULT_KINDS)] if faulty else None
            if faulty:
                self.faults += 1
                self.turn += 1
        if kind == "429":
            return rate_limited(retry_after_s=1)
        if kind in ("500", "503"):
            return server_error(int(kind))
        if kind == "drop":
            return drop_connection()
        return reply(answer_for(body))


def _serve(latency_s: float, fault_rate: float, seed: int, replies: Any, stop: Any) -> None:
    """Run the loopback server in this (separate) process until ``stop`` is set."""
    sys.path.insert(0, str(REPO / "tests"))
    # socketserver prints a traceback for every connection a client resets; faults make many.
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115
    from loopback_server import LoopbackServer

    responder = FaultyResponder(fault_rate, seed)
    with LoopbackServer(responder=responder, latency_s=latency_s) as server:
        replies.put(server.url)
        stop.wait()
        replies.put(
            {
                "requests": server.requests_total,
                "faults": responder.faults,
                "max_in_flight": server.max_in_flight,
                "responder_errors": [repr(error) for error in server.responder_errors],
            }
        )


class ServerProcess:
    """The loopback server in a child process; ``stats`` after ``close``."""

    def __init__(self, latency_s: float, fault_rate: float, seed: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.replies = context.Queue()
        self.stop = context.Event()
        self.process = context.Process(
            target=_serve, args=(latency_s, fault_rate, seed, self.replies, self.stop), daemon=True
        )
        self.process.start()
        self.url: str = self.replies.get(timeout=120)
        self.stats: dict[str, Any] = {}

    def close(self) -> dict[str, Any]:
        self.stop.set()
        self.stats = self.replies.get(timeout=60)
        self.process.join(timeout=30)
        return self.stats


# ---------------------------------------------------------------------------------------------
# The workers: one tool, one run, in its own interpreter. They print one JSON line.


@dataclass
class WorkerResult:
    tool: str
    version: str
    concurrency: int
    import_s: float
    wall_s: float | None
    kept: int
    items: int
    aborted: str | None = None
    notes: list[str] = field(default_factory=list)


def _describe_evaltoolkit() -> dict[str, Any]:
    import inspect

    import evaltoolkit

    default = inspect.signature(evaltoolkit.run_evals).parameters["concurrency"].default
    return {"version": evaltoolkit.__version__, "default_concurrency": default}


def _describe_ragas() -> dict[str, Any]:
    import ragas
    from ragas.run_config import RunConfig

    return {"version": ragas.__version__, "default_concurrency": RunConfig().max_workers}


def _describe_deepeval() -> dict[str, Any]:
    import deepeval
    from deepeval.evaluate.configs import AsyncConfig

    return {"version": deepeval.__version__, "default_concurrency": AsyncConfig().max_concurrent}


# Each tool's model client, imported before the clock starts (evaltoolkit imports litellm
# lazily, at its first call; under load that import alone can take longer than the job).
CLIENT_MODULES: dict[str, tuple[str, ...]] = {
    "evaltoolkit": ("litellm",),
    "ragas": ("langchain_openai", "ragas.metrics"),
    "deepeval": ("deepeval.models", "deepeval.metrics"),
}

DESCRIBE: dict[str, Callable[[], dict[str, Any]]] = {
    "evaltoolkit": _describe_evaltoolkit,
    "ragas": _describe_ragas,
    "deepeval": _describe_deepeval,
}


def _run_evaltoolkit(
    api_base: str, items: Sequence[Mapping[str, str]], concurrency: int | None
) -> tuple[int, list[str]]:
    import evaltoolkit as et

    scorer = et.create_summarization_scorer(
        f"openai/{MODEL_NAME}", api_base=api_base, api_key=API_KEY
    )
    data = [
        {"id": item["id"], "input": item["source"], "output": item["summary"]} for item in items
    ]
    options = {} if concurrency is None else {"concurrency": concurrency}
    result = et.run_evals(data, scorer, progress=False, **options)
    summary = result.scores["summarization"]
    errors = sorted(
        {
            f"{score.error.step}: {score.error.message[:120]}"
            for score in result.results("summarization")
            if score.error is not None
        }
    )
    return summary.scored, errors[:5]


def _run_ragas(
    api_base: str, items: Sequence[Mapping[str, str]], concurrency: int | None
) -> tuple[int, list[str]]:
    import math

    from langchain_openai import ChatOpenAI
    from ragas import EvaluationDataset, evaluate
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import SummarizationScore
    from ragas.run_config import RunConfig

    llm = LangchainLLMWrapper(ChatOpenAI(model=MODEL_NAME, base_url=api_base, api_key=API_KEY))
    dataset = EvaluationDataset.from_list(
        [{"reference_contexts": [item["source"]], "response": item["summary"]} for item in items]
    )
    run_config = RunConfig() if concurrency is None else RunConfig(max_workers=concurrency)
    result = evaluate(
        dataset,
        metrics=[SummarizationScore()],
        llm=llm,
        run_config=run_config,
        show_progress=False,
    )
    scores = result.to_pandas()["summary_score"].tolist()
    kept = sum(1 for score in scores if score is not None and not math.isnan(score))
    return kept, []


def _run_deepeval(
    api_base: str, items: Sequence[Mapping[str, str]], concurrency: int | None
) -> tuple[int, list[str]]:
    from deepeval import evaluate
    from deepeval.evaluate.configs import AsyncConfig, DisplayConfig
    from deepeval.metrics import SummarizationMetric
    from deepeval.models import GPTModel
    from deepeval.test_case import LLMTestCase

    model = GPTModel(model="gpt-4o-mini", base_url=api_base, api_key=API_KEY)
    cases = [LLMTestCase(input=item["source"], actual_output=item["summary"]) for item in items]
    async_config = AsyncConfig() if concurrency is None else AsyncConfig(max_concurrent=concurrency)
    result = evaluate(
        cases,
        [SummarizationMetric(model=model)],
        async_config=async_config,
        display_config=DisplayConfig(
            show_indicator=False, print_results=False, inspect_after_run=False
        ),
    )
    kept = 0
    errors: set[str] = set()
    for case in result.test_results:
        for metric in case.metrics_data or []:
            if metric.error is None and metric.score is not None:
                kept += 1
            elif metric.error:
                errors.add(str(metric.error)[:120])
    return kept, sorted(errors)[:5]


RUNNERS: dict[
    str, Callable[[str, Sequence[Mapping[str, str]], int | None], tuple[int, list[str]]]
] = {
    "evaltoolkit": _run_evaltoolkit,
    "ragas": _run_ragas,
    "deepeval": _run_deepeval,
}


def worker(tool: str, api_base: str | None, items: int, concurrency: int | None) -> None:
    """One tool's run (or, without ``api_base``, its description), as one JSON line."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
    os.environ.setdefault("DEEPEVAL_UPDATE_WARNING_OPT_IN", "NO")
    os.environ.setdefault("DEEPEVAL_NO_INSPECT_PROMPT", "1")
    os.environ.setdefault("OPENAI_API_KEY", API_KEY)
    if tool == "evaltoolkit":
        sys.path.insert(0, str(REPO))
    start = time.perf_counter()
    description = DESCRIBE[tool]()
    for module in CLIENT_MODULES[tool]:
        importlib.import_module(module)
    import_s = time.perf_counter() - start
    if api_base is None:
        print("RESULT " + json.dumps({**description, "import_s": import_s}), flush=True)
        return
    data = make_items(items)
    used = concurrency or int(description["default_concurrency"])
    start = time.perf_counter()
    aborted = None
    kept, notes = 0, []
    try:
        kept, notes = RUNNERS[tool](api_base, data, concurrency)
    except BaseException as error:  # a tool that gives up on the whole run
        aborted = f"{type(error).__name__}: {str(error)[:200]}"
    wall = time.perf_counter() - start
    result = WorkerResult(
        tool=tool,
        version=str(description["version"]),
        concurrency=used,
        import_s=import_s,
        wall_s=wall,
        kept=kept,
        items=items,
        aborted=aborted,
        notes=notes,
    )
    print("RESULT " + json.dumps(asdict(result)), flush=True)


# ---------------------------------------------------------------------------------------------
# The orchestrator.


@dataclass(frozen=True)
class Condition:
    key: str
    label: str
    in_flight: int | None
    fault_rate: float


def _invoke(
    python: str, tool: str, extra: Sequence[str], env: Mapping[str, str], cwd: str
) -> dict[str, Any] | str:
    command = [python, str(THIS), "--worker", tool, *extra]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            text=True,
            env=dict(env),
            cwd=cwd,
            timeout=RUN_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {RUN_TIMEOUT_S:.0f} s"
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("RESULT "):
            parsed: dict[str, Any] = json.loads(line[len("RESULT ") :])
            return parsed
    tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
    return f"exit {done.returncode}: " + " | ".join(tail)


def describe_tools(pythons: Mapping[str, str]) -> dict[str, dict[str, Any] | str]:
    """Each tool's version and default concurrency, or why it cannot run."""
    found: dict[str, dict[str, Any] | str] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for tool, python in pythons.items():
            found[tool] = _invoke(python, tool, [], os.environ, scratch)
    return found


def run_once(
    python: str,
    tool: str,
    condition: Condition,
    *,
    items: int,
    latency_s: float,
    seed: int,
) -> dict[str, Any]:
    server = ServerProcess(latency_s, condition.fault_rate, seed)
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "EVALTOOLKIT_CACHE_DIR": str(Path(scratch) / "cache")}
        extra = ["--api-base", server.url, "--items", str(items)]
        if condition.in_flight is not None:
            extra += ["--concurrency", str(condition.in_flight)]
        outcome = _invoke(python, tool, extra, env, scratch)
    stats = server.close()
    if isinstance(outcome, str):
        return {"tool": tool, "aborted": outcome, "wall_s": None, "kept": 0, "server": stats}
    return {**outcome, "server": stats}


def _fmt(value: float | None, digits: int = 1, suffix: str = "") -> str:
    return "n/a" if value is None else f"{value:.{digits}f}{suffix}"


def summarize(runs: Sequence[Mapping[str, Any]], items: int) -> dict[str, Any]:
    walls = [run["wall_s"] for run in runs if run.get("wall_s") is not None and not run["aborted"]]
    requests = [run["server"]["requests"] / items for run in runs if run.get("server")]
    kept = [int(run.get("kept", 0)) for run in runs]
    aborted = [str(run["aborted"]) for run in runs if run.get("aborted")]
    return {
        "wall_min_s": min(walls) if walls else None,
        "wall_median_s": statistics.median(walls) if walls else None,
        "requests_per_item_median": statistics.median(requests) if requests else None,
        "kept_min": min(kept) if kept else 0,
        "kept_median": statistics.median(kept) if kept else 0,
        "concurrency": runs[0].get("concurrency") if runs else None,
        "aborted": aborted,
        "runs": list(runs),
    }


def table(
    conditions: Sequence[Condition],
    tools: Sequence[str],
    versions: Mapping[str, str],
    summaries: Mapping[str, Mapping[str, Mapping[str, Any]]],
    items: int,
) -> tuple[str, dict[str, Any]]:
    """The Markdown table and the derived ratios."""
    header = "| condition | " + " | ".join(f"{tool} {versions[tool]}" for tool in tools)
    has_peers = any(tool in PEERS for tool in tools)
    header += " | evaltoolkit / fastest peer |" if has_peers else " |"
    rule = "|---" * (len(tools) + 1 + int(has_peers)) + "|"
    lines = [header, rule]
    derived: dict[str, Any] = {}
    fault_free = {"c": "a", "d": "b"}
    for condition in conditions:
        cells = []
        for tool in tools:
            cell = summaries[condition.key][tool]
            if cell["wall_median_s"] is None:
                text = "aborts" if cell["aborted"] else "n/a"
                if cell["aborted"]:
                    text += f" ({len(cell['aborted'])}/{len(cell['runs'])} runs)"
            else:
                text = (
                    f"{_fmt(cell['wall_min_s'])}/{_fmt(cell['wall_median_s'])} s"
                    f" ({cell['concurrency']})"
                )
                if cell["aborted"]:
                    text += f", {len(cell['aborted'])} aborted"
            text += (
                f"; {_fmt(cell['requests_per_item_median'], 2)} req/item"
                f"; kept {cell['kept_min']}/{items}"
            )
            base_key = fault_free.get(condition.key)
            if base_key in summaries:
                base = summaries[base_key][tool]["wall_median_s"]
                if base and cell["wall_median_s"]:
                    multiple = cell["wall_median_s"] / base
                    derived.setdefault("fault_multiple", {}).setdefault(tool, {})[condition.key] = (
                        multiple
                    )
                    text += f"; **{multiple:.2f}x** fault-free"
            cells.append(text)
        row = f"| ({condition.key}) {condition.label} | " + " | ".join(cells)
        if has_peers:
            peer_walls = [
                summaries[condition.key][tool]["wall_median_s"]
                for tool in tools
                if tool in PEERS and summaries[condition.key][tool]["wall_median_s"] is not None
            ]
            own = summaries[condition.key].get("evaltoolkit", {}).get("wall_median_s")
            if peer_walls and own:
                ratio = own / min(peer_walls)
                derived.setdefault("ratio_to_fastest_peer", {})[condition.key] = ratio
                row += f" | {ratio:.2f}"
            else:
                row += " | n/a"
        lines.append(row + " |")
    return "\n".join(lines), derived


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-python", help="interpreter of an environment with the peers")
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fault-rate", type=float, default=0.2)
    parser.add_argument("--in-flight", type=int, default=100)
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated subset")
    parser.add_argument("--conditions", default="abcd", help="subset of a, b, c, d")
    parser.add_argument("--json", type=Path, help="write every run and the summary here")
    parser.add_argument("--worker", choices=TOOLS, help=argparse.SUPPRESS)
    parser.add_argument("--api-base", help=argparse.SUPPRESS)
    parser.add_argument("--concurrency", type=int, help=argparse.SUPPRESS)
    options = parser.parse_args()

    if options.worker:
        worker(options.worker, options.api_base, options.items, options.concurrency)
        return

    wanted = [tool for tool in options.tools.split(",") if tool]
    pythons = {tool: sys.executable for tool in wanted if tool == "evaltoolkit"}
    if options.peer_python:
        pythons.update({tool: options.peer_python for tool in wanted if tool in PEERS})
    elif any(tool in PEERS for tool in wanted):
        print("no --peer-python given: Ragas and DeepEval are not run", flush=True)
    described = describe_tools(pythons)
    tools = []
    for tool, found in described.items():
        if isinstance(found, str):
            print(f"{tool} cannot run ({found}); left out", flush=True)
        else:
            tools.append(tool)
            print(
                f"{tool} {found['version']}: default concurrency {found['default_concurrency']}"
                f" (import {found['import_s']:.1f} s)",
                flush=True,
            )
    if not tools:
        raise SystemExit("no tool can run")
    in_flight = options.in_flight
    rate = options.fault_rate
    all_conditions = [
        Condition("a", "default options", None, 0.0),
        Condition("b", f"{in_flight} in flight", in_flight, 0.0),
        Condition("c", f"{rate:.0%} random faults, defaults", None, rate),
        Condition("d", f"{rate:.0%} random faults, {in_flight} in flight", in_flight, rate),
    ]
    conditions = [condition for condition in all_conditions if condition.key in options.conditions]
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    started = time.time()
    raw: dict[str, dict[str, list[dict[str, Any]]]] = {
        condition.key: {tool: [] for tool in tools} for condition in conditions
    }
    # Runs interleave (run 1 of every tool and condition, then run 2, ...) so that a change
    # in the machine's load falls on every tool alike.
    for run_index in range(options.runs):
        for condition in conditions:
            for tool in tools:
                outcome = run_once(
                    pythons[tool],
                    tool,
                    condition,
                    items=options.items,
                    latency_s=options.latency,
                    seed=1000 + run_index,
                )
                raw[condition.key][tool].append(outcome)
                print(
                    f"  run {run_index + 1} ({condition.key}) {tool:<11} "
                    f"wall {_fmt(outcome.get('wall_s'))} s, kept {outcome.get('kept')}, "
                    f"requests {outcome.get('server', {}).get('requests')}, "
                    f"faults {outcome.get('server', {}).get('faults')}"
                    + (f", ABORTED {outcome['aborted']}" if outcome.get("aborted") else "")
                    + (f", notes {outcome['notes']}" if outcome.get("notes") else ""),
                    flush=True,
                )
    summaries = {
        key: {tool: summarize(runs, options.items) for tool, runs in by_tool.items()}
        for key, by_tool in raw.items()
    }
    versions = {tool: str(described[tool]["version"]) for tool in tools}  # type: ignore[index]
    markdown, derived = table(conditions, tools, versions, summaries, options.items)
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    print()
    print(
        f"{options.items} items, server latency {options.latency} s, min/median of "
        f"{options.runs} runs; cell: wall min/median (concurrency); requests per item (median, "
        "faults included); fewest items kept over the runs; load average before "
        f"{' '.join(load_before)}, after {' '.join(load_after)}"
    )
    print(markdown)
    for tool in tools:
        imports = [
            run["import_s"]
            for by_tool in raw.values()
            for run in by_tool[tool]
            if "import_s" in run
        ]
        if imports:
            print(f"{tool}: imports before the clock, median {statistics.median(imports):.1f} s")
    if options.json:
        options.json.write_text(
            json.dumps(
                {
                    "items": options.items,
                    "latency_s": options.latency,
                    "fault_rate": options.fault_rate,
                    "fault_kinds": FAULT_KINDS,
                    "runs": options.runs,
                    "tools": {tool: described[tool] for tool in tools},
                    "conditions": [asdict(condition) for condition in conditions],
                    "loadavg_before": load_before,
                    "loadavg_after": load_after,
                    "elapsed_s": time.time() - started,
                    "summary": summaries,
                    "derived": derived,
                    "markdown": markdown,
                },
                indent=2,
            )
        )
        print(f"wrote {options.json}")


if __name__ == "__main__":
    main()
