"""A scripted OpenAI-protocol server for tests: chat completions and the Batch API over real HTTP.

Runs ``http.server`` in a thread on 127.0.0.1 and a random port. Each chat
request is answered by the next queued ``Reply`` (``server.queue(...)``) or,
when the queue is empty, by ``server.responder(body)``; the default responder
returns a valid, deterministic draft built from the paper title in the prompt.
Every live request is recorded (``server.requests``) with its arrival time.

Batch API: ``POST /v1/files`` (multipart upload), ``GET /v1/files/{id}/content``,
``POST /v1/batches``, ``GET /v1/batches/{id}`` and ``GET /v1/batches``. A batch
moves one step along ``batch_statuses`` each time it is retrieved; when it
reaches ``completed`` (or ``expired``: only the first half is answered) its
requests are answered like live ones (recorded in ``server.batch_requests``)
into an output file and an error file (non-200 replies). Uploads and batch
creations are recorded too (``server.uploads``, ``server.batch_creates``).
"""
from __future__ import annotations

import json
import re
import threading
from email.parser import BytesParser
from email.policy import HTTP
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

    def __init__(self, responder: Callable[[dict[str, Any]], Reply] = default_responder, delay: float = 0.0,
                 batch_statuses: tuple[str, ...] = ("validating", "in_progress", "finalizing", "completed")) -> None:
        self.responder = responder
        self.delay = delay
        self.batch_statuses = batch_statuses
        self.requests: list[Request] = []
        self.batch_requests: list[Request] = []
        self.uploads: list[dict[str, Any]] = []
        self.batch_creates: list[dict[str, Any]] = []
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self._steps: dict[str, int] = {}
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

    def _next(self, body: dict[str, Any], log: list[Request] | None = None) -> Reply:
        with self._lock:
            (self.requests if log is None else log).append(Request(body, time.monotonic()))
            queued = self._queue.pop(0) if self._queue else None
        reply = queued or self.responder(body)
        if reply.status == 200 and reply.content is None:
            fallback = self.responder(body)
            reply = Reply(fallback.content, 200, reply.headers, reply.delay, reply.prompt_tokens,
                          reply.completion_tokens)
        return reply

    # ------------------------------------------------------------ Batch API

    def _upload(self, content_type: str, data: bytes) -> dict[str, Any]:
        message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + data)
        fields: dict[str, Any] = {}
        filename = ""
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if part.get_filename():
                filename = part.get_filename()
            fields[str(name)] = part.get_payload(decode=True)
        with self._lock:
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = fields.get("file", b"")
            self.uploads.append({"id": file_id, "purpose": fields.get("purpose", b"").decode(), "filename": filename})
        return _file_json(file_id, filename, len(self.files[file_id]))

    def _create_batch(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            batch_id = f"batch_{len(self.batches) + 1}"
            lines = [json.loads(x) for x in self.files.get(body.get("input_file_id", ""), b"").splitlines() if x]
            self.batch_creates.append(body)
            self.batches[batch_id] = {
                "id": batch_id, "object": "batch", "endpoint": body.get("endpoint"), "errors": None,
                "input_file_id": body.get("input_file_id"), "completion_window": body.get("completion_window"),
                "status": self.batch_statuses[0], "output_file_id": None, "error_file_id": None,
                "created_at": int(time.time()), "metadata": body.get("metadata"),
                "request_counts": {"total": len(lines), "completed": 0, "failed": 0}}
            self._steps[batch_id] = 0
            return dict(self.batches[batch_id])

    def _retrieve_batch(self, batch_id: str) -> dict[str, Any] | None:
        with self._lock:
            batch = self.batches.get(batch_id)
            if batch is None:
                return None
            step = min(self._steps[batch_id] + 1, len(self.batch_statuses) - 1)
            self._steps[batch_id] = step
            status = self.batch_statuses[step]
            run = status in ("completed", "expired") and batch["status"] != status
            batch["status"] = status
            lines = [json.loads(x) for x in self.files[batch["input_file_id"]].splitlines() if x]
        if status == "failed":
            batch["errors"] = {"object": "list", "data": [{"code": "invalid_request", "message": "scripted failure",
                                                           "line": 1, "param": None}]}
        if run:
            self._run_batch(batch, lines[: len(lines) // 2] if status == "expired" else lines)
        return dict(batch)

    def _run_batch(self, batch: dict[str, Any], lines: list[dict[str, Any]]) -> None:
        output, errors = [], []
        for n, line in enumerate(lines):
            reply = self._next(line["body"], self.batch_requests)
            result = {"id": f"batch_req_{n}", "custom_id": line["custom_id"], "error": None,
                      "response": {"status_code": reply.status, "request_id": f"req_{n}",
                                   "body": _completion_json(line["body"], reply, n) if reply.status == 200 else
                                   {"error": {"message": f"scripted {reply.status}", "type": "server_error"}}}}
            (output if reply.status == 200 else errors).append(json.dumps(result).encode())
        with self._lock:
            for kind, rows in (("output_file_id", output), ("error_file_id", errors)):
                if rows:
                    file_id = f"file-{len(self.files) + 1}"
                    self.files[file_id] = b"\n".join(rows) + b"\n"
                    batch[kind] = file_id
            batch["request_counts"] = {"total": batch["request_counts"]["total"], "completed": len(output),
                                       "failed": len(errors)}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                pass

            def do_POST(self) -> None:  # noqa: N802 - stdlib naming
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length)
                route = self.path.rstrip("/")
                if route == "/v1/files":
                    return self._send(200, server._upload(self.headers.get("Content-Type", ""), data))
                body = json.loads(data or b"{}")
                if route == "/v1/batches":
                    return self._send(200, server._create_batch(body))
                if route != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                reply = server._next(body)
                wait = reply.delay or server.delay
                if wait and server._stopping.wait(wait):
                    return
                if reply.status != 200:
                    return self._send(reply.status, {"error": {"message": f"scripted {reply.status}",
                                                               "type": "server_error", "code": reply.status}},
                                      reply.headers)
                self._send(200, _completion_json(body, reply, len(server.requests)), reply.headers)

            def do_GET(self) -> None:  # noqa: N802 - stdlib naming
                route = self.path.split("?")[0].rstrip("/")
                if m := re.fullmatch(r"/v1/files/([\w-]+)/content", route):
                    if m.group(1) in server.files:
                        return self._send_bytes(server.files[m.group(1)])
                elif m := re.fullmatch(r"/v1/batches/([\w-]+)", route):
                    if (batch := server._retrieve_batch(m.group(1))) is not None:
                        return self._send(200, batch)
                elif route == "/v1/batches":
                    with server._lock:
                        data = [dict(b) for b in reversed(server.batches.values())]
                    return self._send(200, {"object": "list", "data": data, "has_more": False,
                                            "first_id": data[0]["id"] if data else None,
                                            "last_id": data[-1]["id"] if data else None})
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

            def _send_bytes(self, data: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

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


def _completion_json(body: dict[str, Any], reply: Reply, n: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", ""),
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply.content}}],
        "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                  "total_tokens": reply.prompt_tokens + reply.completion_tokens},
    }


def _file_json(file_id: str, filename: str, size: int) -> dict[str, Any]:
    return {"id": file_id, "object": "file", "bytes": size, "created_at": int(time.time()), "filename": filename,
            "purpose": "batch", "status": "processed"}
