"""A scripted OpenAI-protocol server for tests: ``POST /v1/chat/completions`` over real HTTP.

Runs ``http.server`` in a thread on 127.0.0.1 and a random port. Each request
is answered by the next queued ``Reply`` (``server.queue(...)``) or, when the
queue is empty, by ``server.responder(body)``; the default responder returns a
valid, deterministic draft built from the paper title in the prompt. Every
request is recorded (``server.requests``) with its arrival time.
"""
from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PROMPT_TOKENS = 100
COMPLETION_TOKENS = 50


@dataclass
class Reply:
    """One scripted answer."""

    content: str | None = None
    """Assistant message for a 200 reply; ``None`` means "ask the responder"."""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before answering (a timeout test makes this longer than the client's timeout)."""
    prompt_tokens: int = PROMPT_TOKENS
    completion_tokens: int = COMPLETION_TOKENS


def ok(content: str, **kwargs: Any) -> Reply:
    return Reply(content=content, **kwargs)


def error_status(status: int, retry_after: float | None = None) -> Reply:
    headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
    return Reply(content="", status=status, headers=headers)


def slow(seconds: float, reply: Reply | None = None) -> Reply:
    base = reply or Reply()
    return Reply(base.content, base.status, base.headers, seconds, base.prompt_tokens, base.completion_tokens)


@dataclass
class Request:
    body: dict[str, Any]
    at: float

    @property
    def user_text(self) -> str:
        return next((m["content"] for m in self.body.get("messages", []) if m.get("role") == "user"), "")

    @property
    def title(self) -> str:
        return title_of(self.body)


def title_of(body: dict[str, Any]) -> str:
    for message in body.get("messages", []):
        if message.get("role") == "user":
            m = re.search(r"^(?:Title|标题)[:：]\s*(.+)$", message.get("content", ""), re.M)
            if m:
                return m.group(1).strip()
    return ""


def draft_json(title: str, **override: Any) -> str:
    """A valid draft reply for ``title``; ``override`` replaces top-level keys (``None`` deletes one)."""
    data: dict[str, Any] = {
        "summary": f"{title} is summarised in one sentence for the test suite.",
        "keywords": ["test keyword", title.split(":")[0]],
        "sections": {
            "background": f"Why {title} matters.",
            "method": f"- How {title} works.\n- Its key design.",
            "experiments": f"| setting | result |\n| --- | --- |\n| {title} | 42.0 |",
            "highlights": "A clear idea.",
            "limitations": "Only tested on benchmarks.",
            "related": "**vs prior work**: simpler.",
        },
        "ratings": {"novelty": 4, "experiments": 3, "writing": 5, "value": 4},
    }
    for key, value in override.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return json.dumps(data, ensure_ascii=False)


def default_responder(body: dict[str, Any]) -> Reply:
    return ok(draft_json(title_of(body)))


class LLMServer:
    """Context manager: ``with LLMServer() as server: ... server.base_url``."""

    def __init__(self, responder: Callable[[dict[str, Any]], Reply] = default_responder, delay: float = 0.0) -> None:
        self.responder = responder
        self.delay = delay
        self.requests: list[Request] = []
        self._queue: list[Reply] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def __enter__(self) -> LLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(Request(body, time.monotonic()))
            queued = self._queue.pop(0) if self._queue else None
        reply = queued or self.responder(body)
        if reply.status == 200 and reply.content is None:
            fallback = self.responder(body)
            reply = Reply(fallback.content, 200, reply.headers, reply.delay, reply.prompt_tokens,
                          reply.completion_tokens)
        return reply

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                pass

            def do_POST(self) -> None:  # noqa: N802 - stdlib naming
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.rstrip("/") != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                reply = server._next(body)
                wait = reply.delay or server.delay
                if wait and server._stopping.wait(wait):
                    return
                if reply.status != 200:
                    return self._send(reply.status, {"error": {"message": f"scripted {reply.status}",
                                                               "type": "server_error", "code": reply.status}},
                                      reply.headers)
                self._send(200, {
                    "id": f"chatcmpl-{len(server.requests)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", ""),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": reply.content}}],
                    "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                              "total_tokens": reply.prompt_tokens + reply.completion_tokens},
                }, reply.headers)

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing left to answer

        return Handler
