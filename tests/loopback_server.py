"""An OpenAI-compatible chat-completions server on 127.0.0.1 with scripted replies and faults.

Judge tests point litellm at it (``model="openai/loopback"``, ``api_base=server.url``) so that
litellm's real HTTP path runs, without reaching the internet. Each request to
``POST /v1/chat/completions`` takes the next scripted :class:`Action` from the queue, or, when
the queue is empty, asks the server's ``responder`` (a function of the request body).

Example:
    >>> with LoopbackServer(responder=lambda body: reply({"ok": True})) as server:
    ...     server.url.startswith("http://127.0.0.1:")
    True
"""

from __future__ import annotations

import collections
import json
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = [
    "Action",
    "LoopbackServer",
    "cycle",
    "drop_connection",
    "hang",
    "invalid_json",
    "missing_fields",
    "rate_limited",
    "raw_body",
    "reply",
    "server_error",
    "status_error",
    "tool_call_reply",
]

ActionKind = Literal["reply", "status", "drop", "hang", "raw"]
Responder = Callable[[dict[str, Any]], "Action"]


@dataclass(frozen=True)
class Action:
    """What the server does with one request.

    Attributes:
        kind: ``reply`` (a chat completion), ``status`` (an HTTP error), ``drop`` (close the
            connection without answering), ``hang`` (answer nothing for ``delay_s``) or
            ``raw`` (send ``body`` as it is, with ``status``).
        content: The assistant message's content for a reply (None sends ``null``).
        tool_arguments: When set, the reply carries this text as a tool call's arguments
            instead of message content.
        status: The HTTP status for ``status``.
        headers: Extra response headers (``Retry-After``, ...).
        delay_s: Latency before answering; None uses the server's default latency.
        usage: The ``usage`` object to return; None derives token counts from word counts.
        echo_header: For ``status``: a request header whose value replaces ``{header}`` in the
            error message (a provider quoting the credential it was sent).
        finish_reason: For ``reply``: why the model stopped (default ``stop``, or
            ``tool_calls``); ``length`` says the reply was cut at the token limit.
    """

    kind: ActionKind
    content: str | None = None
    tool_arguments: str | None = None
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float | None = None
    usage: Mapping[str, Any] | None = None
    echo_header: str | None = None
    finish_reason: str | None = None
    body: bytes = b""


def reply(
    content: str | Mapping[str, Any] | None,
    *,
    delay_s: float | None = None,
    usage: Mapping[str, Any] | None = None,
    finish_reason: str | None = None,
) -> Action:
    """A successful completion whose content is ``content`` (a mapping is sent as JSON text)."""
    text = json.dumps(content) if isinstance(content, Mapping) else content
    return Action("reply", content=text, delay_s=delay_s, usage=usage, finish_reason=finish_reason)


def tool_call_reply(arguments: Mapping[str, Any]) -> Action:
    """A completion with ``content: null`` and the object as a tool call's arguments."""
    return Action("reply", content=None, tool_arguments=json.dumps(arguments))


def invalid_json(text: str = '{"claims": [oops') -> Action:
    """A completion whose content is not JSON at all."""
    return Action("reply", content=text)


def missing_fields(value: Mapping[str, Any], *fields: str) -> Action:
    """A completion with ``value`` as JSON, minus ``fields``."""
    return reply({key: item for key, item in value.items() if key not in fields})


def rate_limited(retry_after_s: float | None = 0.3) -> Action:
    """HTTP 429, with a ``Retry-After`` header in seconds unless ``retry_after_s`` is None."""
    headers = {} if retry_after_s is None else {"Retry-After": f"{retry_after_s:g}"}
    return Action("status", status=429, headers=headers)


def server_error(status: int = 500) -> Action:
    """An HTTP 5xx error."""
    return Action("status", status=status)


def status_error(
    status: int, message: str = "request rejected", *, echo_header: str | None = None
) -> Action:
    """Any HTTP error status, with ``message`` in the OpenAI-style error body.

    With ``echo_header``, ``{header}`` in the message is replaced by that request header's
    value, as a provider that quotes the credential it was sent does.
    """
    return Action("status", status=status, content=message, echo_header=echo_header)


def raw_body(body: bytes, *, status: int = 200) -> Action:
    """Answer with ``body`` as it is (a proxy's page, bytes that are not UTF-8), as JSON."""
    return Action("raw", status=status, body=body)


def drop_connection() -> Action:
    """Close the connection after reading the request, without sending a response."""
    return Action("drop")


def hang(seconds: float) -> Action:
    """Send nothing for ``seconds`` (longer than the client timeout), then close."""
    return Action("hang", delay_s=seconds)


def _word_count(text: str | list[Any] | None) -> int:
    if isinstance(text, list):  # content parts: [{"type": "text", "text": ...}, ...]
        return sum(_word_count(part.get("text")) for part in text if isinstance(part, dict))
    return len(text.split()) if text else 0


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def do_GET(self) -> None:
        props = self.server.loopback.props
        if props is not None and self.path.rstrip("/") == "/props":
            self.server.loopback.props_asked += 1
            self._send_json(200, props)
            return
        self._send_json(404, {"error": {"message": "only POST /v1/chat/completions"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw_body = self.rfile.read(length)
        loopback = self.server.loopback
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"unknown path {self.path}"}})
            return
        body: dict[str, Any] = json.loads(raw_body or b"{}")
        try:
            action = loopback._record_and_choose(body, dict(self.headers.items()))
        except Exception as error:  # a broken script: answer 400 so the client fails at once
            loopback.responder_errors.append(error)
            action = status_error(400, f"loopback responder raised {error!r}")
        try:
            self._perform(action, body, loopback)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up first (a timeout test); nothing to answer
        finally:
            loopback._finish_request()

    def _perform(self, action: Action, body: dict[str, Any], loopback: LoopbackServer) -> None:
        delay = loopback.latency_s if action.delay_s is None else action.delay_s
        if action.kind == "hang":
            loopback._stopping.wait(delay)
            self.close_connection = True
            return
        if delay > 0:
            loopback._stopping.wait(delay)
        if action.kind == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if action.kind == "raw":
            self.send_response(action.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(action.body)))
            self.end_headers()
            self.wfile.write(action.body)
            self.wfile.flush()
            return
        if action.kind == "status":
            message = action.content or f"loopback fault {action.status}"
            if action.echo_header is not None:
                message = message.replace("{header}", self.headers.get(action.echo_header, ""))
            error = {"message": message, "type": "loopback_fault", "code": action.status}
            self._send_json(action.status, {"error": error}, action.headers)
            return
        self._send_json(200, self._completion(action, body), action.headers)

    def _completion(self, action: Action, body: dict[str, Any]) -> dict[str, Any]:
        prompt_words = sum(
            _word_count(message.get("content")) for message in body.get("messages", [])
        )
        message: dict[str, Any] = {"role": "assistant", "content": action.content}
        if action.tool_arguments is not None:
            message["tool_calls"] = [
                {
                    "id": "call_loopback",
                    "type": "function",
                    "function": {"name": "reply", "arguments": action.tool_arguments},
                }
            ]
        completion_words = _word_count(action.content or action.tool_arguments)
        usage = (
            dict(action.usage)
            if action.usage is not None
            else {
                "prompt_tokens": prompt_words,
                "completion_tokens": completion_words,
                "total_tokens": prompt_words + completion_words,
            }
        )
        return {
            "id": f"chatcmpl-loopback-{self.server.loopback.requests_total}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "loopback"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": action.finish_reason
                    or ("tool_calls" if action.tool_arguments else "stop"),
                }
            ],
            "usage": usage,
        }

    def _send_json(
        self, status: int, payload: object, headers: Mapping[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


class _HTTPServer(ThreadingHTTPServer):
    # The default backlog of 5 makes a burst of connections wait on TCP SYN retries.
    request_queue_size = 256
    daemon_threads = True
    block_on_close = False
    loopback: LoopbackServer


class LoopbackServer:
    """A scripted OpenAI-compatible server on 127.0.0.1, run in a background thread.

    Args:
        responder: Chooses the action for a request body when the queue is empty. The
            default replies ``{}``.
        latency_s: Default delay before each answer.

    Attributes:
        requests: Every request body received, in arrival order.
        request_headers: The headers of each request, in the same order.
        request_times: ``time.monotonic()`` at each request's arrival.
        requests_total: How many requests arrived.
        max_in_flight: The most requests handled at once.
        responder_errors: Exceptions the responder raised (each answered with HTTP 400).
        props: What ``GET /props`` answers, as llama.cpp's server does (None: 404).
        props_asked: How many times ``GET /props`` was answered.

    Example:
        >>> server = LoopbackServer(latency_s=0.0).start()
        >>> server.enqueue(reply({"answer": 1}), server_error())
        >>> server.stop()
    """

    def __init__(self, *, responder: Responder | None = None, latency_s: float = 0.0) -> None:
        self.responder: Responder = responder or (lambda body: reply({}))
        self.latency_s = latency_s
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.request_times: list[float] = []
        self.requests_total = 0
        self.max_in_flight = 0
        self.in_flight = 0
        self.responder_errors: list[Exception] = []
        self.props: dict[str, Any] | None = None
        self.props_asked = 0
        self._queue: collections.deque[Action] = collections.deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The ``api_base`` to give litellm: ``http://127.0.0.1:<port>/v1``."""
        if self._server is None:
            raise RuntimeError("the loopback server is not running; call start() first")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> LoopbackServer:
        """Bind a free port and serve in a daemon thread; returns the server itself."""
        server = _HTTPServer(("127.0.0.1", 0), _Handler)
        server.loopback = self
        self._server = server
        self._stopping.clear()
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake any hanging handler, and close the socket."""
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def enqueue(self, *actions: Action) -> None:
        """Script the next requests' actions, in order, ahead of the responder."""
        with self._lock:
            self._queue.extend(actions)

    def set_responder(self, responder: Responder) -> None:
        """Replace the function that answers requests once the queue is empty."""
        self.responder = responder

    def reset(self) -> None:
        """Forget recorded requests, counters and queued actions."""
        with self._lock:
            self.requests.clear()
            self.request_headers.clear()
            self.request_times.clear()
            self.requests_total = 0
            self.max_in_flight = self.in_flight
            self.responder_errors.clear()
            self._queue.clear()

    def messages_of(self, index: int) -> list[dict[str, Any]]:
        """The messages of the ``index``-th received request."""
        messages: list[dict[str, Any]] = self.requests[index]["messages"]
        return messages

    def _record_and_choose(self, body: dict[str, Any], headers: dict[str, str]) -> Action:
        with self._lock:
            self.requests.append(body)
            self.request_headers.append(headers)
            self.request_times.append(time.monotonic())
            self.requests_total += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            queued = self._queue.popleft() if self._queue else None
        return queued if queued is not None else self.responder(body)

    def _finish_request(self) -> None:
        with self._lock:
            self.in_flight -= 1


def cycle(actions: Iterable[Action]) -> Responder:
    """A responder that answers with ``actions`` in turn, over and over."""
    pool = list(actions)
    lock = threading.Lock()
    position = 0

    def respond(body: dict[str, Any]) -> Action:
        nonlocal position
        with lock:
            action = pool[position % len(pool)]
            position += 1
        return action

    return respond
