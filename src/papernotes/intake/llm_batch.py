"""LLM edge, Batch API: chat requests sent as OpenAI batches, polled, their replies cached.

In: requests (a key — the response-cache key, used as the batch ``custom_id``
— and chat messages) and which stub each belongs to. Out: a reply or a
``RequestError`` per key. Steps: upload the requests as JSONL (``POST
/v1/files``, purpose ``batch``), create the batch (``POST /v1/batches``,
endpoint ``/v1/chat/completions``, window 24 h), poll it (``GET
/v1/batches/{id}``) every ``batch_poll_seconds``, download its output and
error files (``GET /v1/files/{id}/content``).

Resumable: the ``batches`` table of the response cache
(``.papernotes/llm-cache.sqlite``) records each batch as it is made — input
file, batch id, the keys it carries and the stubs (path and digest) they come
from — committed before the next step. A run killed while a batch is under
way polls that batch on the next run instead of paying twice (a batch whose
creation was interrupted is found again by its input file); replies are cached
the moment they are downloaded. Transient HTTP errors are retried by the SDK;
what still fails stops the run (``LLMError``), nothing is lost.
"""
from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from papernotes.extras import require
from papernotes.intake.conversation import Call, Completion, RequestError, Usage
from papernotes.intake.llm import LLMError, LLMSettings, ResponseCache, response_format
from papernotes.testhooks import pause

ENDPOINT = "/v1/chat/completions"
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
MAX_REQUESTS = 50_000
"""OpenAI's limit of requests per batch."""
MAX_BYTES = 180 * 2 ** 20
"""OpenAI's batch input files may be 200 MB; kept under it."""


@dataclass(frozen=True, slots=True)
class BatchRow:
    """One batch as recorded in the cache."""

    rowid: int
    input_file: str
    batch_id: str
    """``""`` while the batch is not created yet (the run stopped between upload and create)."""
    keys: tuple[str, ...]
    stubs: dict[str, str]
    """Path -> digest of the stubs whose requests it carries."""


class BatchStore:
    """The ``batches`` table; each change is its own committed transaction."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        db.execute("CREATE TABLE IF NOT EXISTS batches (id INTEGER PRIMARY KEY, input_file TEXT NOT NULL, "
                   "batch_id TEXT NOT NULL DEFAULT '', model TEXT NOT NULL, keys TEXT NOT NULL, "
                   "stubs TEXT NOT NULL, state TEXT NOT NULL, created REAL NOT NULL)")

    def open(self, model: str) -> list[BatchRow]:
        """Batches of ``model`` not collected yet, oldest first."""
        rows = self.db.execute("SELECT id, input_file, batch_id, keys, stubs FROM batches WHERE model = ? AND "
                               "state IN ('uploaded', 'submitted') ORDER BY id", (model,)).fetchall()
        return [BatchRow(r[0], r[1], r[2], tuple(json.loads(r[3])), json.loads(r[4])) for r in rows]

    def add(self, input_file: str, model: str, keys: Sequence[str], stubs: dict[str, str]) -> BatchRow:
        cursor = self.db.execute("INSERT INTO batches (input_file, model, keys, stubs, state, created) "
                                 "VALUES (?, ?, ?, ?, 'uploaded', ?)",
                                 (input_file, model, json.dumps(list(keys)), json.dumps(stubs), time.time()))
        return BatchRow(int(cursor.lastrowid or 0), input_file, "", tuple(keys), stubs)

    def submitted(self, row: BatchRow, batch_id: str) -> BatchRow:
        self.db.execute("UPDATE batches SET batch_id = ?, state = 'submitted' WHERE id = ?", (batch_id, row.rowid))
        return BatchRow(row.rowid, row.input_file, batch_id, row.keys, row.stubs)

    def close(self, row: BatchRow, state: str) -> None:
        self.db.execute("UPDATE batches SET state = ? WHERE id = ?", (state, row.rowid))


def _line(key: str, call: Call, settings: LLMSettings) -> bytes:
    body = {"model": settings.model, "messages": call.messages, "temperature": settings.temperature,
            **response_format(call.schema, settings)}
    record = {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": body}
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


class BatchClient:
    """Answers requests through the Batch API; one instance per run."""

    def __init__(self, settings: LLMSettings, cache: ResponseCache, usage: Usage,
                 progress: Callable[[str, int, int], None] | None = None) -> None:
        self.openai = require("openai", "the openai engines")
        self.settings, self.cache, self.usage, self.progress = settings, cache, usage, progress
        self.store = BatchStore(cache.db)
        self.client = self.openai.OpenAI(base_url=settings.base_url, api_key=settings.api_key,
                                         timeout=settings.timeout, max_retries=settings.max_retries)

    def close(self) -> None:
        self.client.close()

    def answer(self, requests: dict[str, Call], owners: dict[str, tuple[str, str]]
               ) -> dict[str, Completion | RequestError]:
        """A reply (cached as it arrives) or the error of each request; ``owners``: key -> (stub path, digest)."""
        rows = [r for r in self.store.open(self.settings.model) if not requests.keys().isdisjoint(r.keys)]
        covered = {key for row in rows for key in row.keys}
        fresh = [key for key in requests if key not in covered]
        for part in self._parts(fresh, requests):
            data = b"".join(_line(key, requests[key], self.settings) for key in part)
            upload = self._call(self.client.files.create, file=("papernotes-batch.jsonl", data), purpose="batch")
            stubs = {owners[key][0]: owners[key][1] for key in part if key in owners}
            rows.append(self.store.add(upload.id, self.settings.model, part, stubs))
            pause("draft.batch.uploaded")
        rows = [self._created(row) for row in rows]
        replies: dict[str, Completion | RequestError] = {}
        for row, batch in zip(rows, self._wait(rows), strict=True):
            replies.update(self._collect(row, batch))
        missing = RequestError("the batch returned no reply for this request; re-run to send it again")
        return {key: replies.get(key, missing) for key in requests}

    def _parts(self, keys: list[str], requests: dict[str, Call]) -> list[list[str]]:
        parts: list[list[str]] = []
        size = 0
        for key in keys:
            length = len(_line(key, requests[key], self.settings))
            if not parts or len(parts[-1]) >= MAX_REQUESTS or size + length > MAX_BYTES:
                parts.append([])
                size = 0
            parts[-1].append(key)
            size += length
        return parts

    def _created(self, row: BatchRow) -> BatchRow:
        """The row with its batch id: created now, or found again when an earlier run created it unrecorded."""
        if row.batch_id:
            return row
        listed = self._call(self.client.batches.list, limit=100)
        found = next((b for b in listed.data if b.input_file_id == row.input_file), None)
        if found is None:
            found = self._call(self.client.batches.create, input_file_id=row.input_file, endpoint=ENDPOINT,
                               completion_window="24h", metadata={"papernotes": f"{len(row.keys)} requests"})
            self.usage.batches += 1
            pause("draft.batch.created")
        return self.store.submitted(row, found.id)

    def _wait(self, rows: list[BatchRow]) -> list[Any]:
        """Each row's batch once it has ended, polling all of them every ``batch_poll_seconds``."""
        ended: dict[str, Any] = {}
        while True:
            done = total = 0
            for row in rows:
                if row.batch_id not in ended:
                    batch = self._call(self.client.batches.retrieve, row.batch_id)
                    if batch.status in TERMINAL:
                        ended[row.batch_id] = batch
                else:
                    batch = ended[row.batch_id]
                counts = batch.request_counts
                total += counts.total if counts else len(row.keys)
                done += (counts.completed + counts.failed) if counts else 0
            if self.progress is not None:
                self.progress("batch", done, total)
            if len(ended) == len(rows):
                return [ended[row.batch_id] for row in rows]
            pause("draft.batch.poll")
            time.sleep(self.settings.batch_poll_seconds)

    def _collect(self, row: BatchRow, batch: Any) -> dict[str, Completion | RequestError]:
        if batch.status == "failed":
            self.store.close(row, "failed")
            errors = getattr(batch.errors, "data", None) or []
            reasons = "; ".join(f"{e.code}: {e.message}" if e.code else str(e.message) for e in errors)
            raise LLMError(f"batch {batch.id} failed: {reasons or 'no reason given'} (re-run to submit it again)")
        out: dict[str, Completion | RequestError] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                text = self._call(self.client.files.content, file_id).text
                for line in text.splitlines():
                    if line.strip():
                        out.update(self._result(json.loads(line)))
        if batch.status != "completed":
            ended = RequestError(f"batch {batch.id} {batch.status} before this request ran; re-run to send it again")
            out.update((key, ended) for key in row.keys if key not in out)
        self.store.close(row, "collected")
        return out

    def _result(self, record: dict[str, Any]) -> dict[str, Completion | RequestError]:
        key = str(record.get("custom_id", ""))
        response = record.get("response") or {}
        body = response.get("body") or {}
        if response.get("status_code") != 200:
            error = record.get("error") or body.get("error") or {}
            detail = f"{error.get('code') or ''}: {error.get('message') or ''}".strip(": ")
            return {key: RequestError(f"HTTP {response.get('status_code', '-')}: {detail or 'failed in the batch'}")}
        choices = body.get("choices") or [{}]
        usage = body.get("usage") or {}
        reply = Completion((choices[0].get("message") or {}).get("content") or "",
                           int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0), False)
        self.cache.put(key, self.settings.model, reply)
        self.usage.requests += 1
        self.usage.batch_requests += 1
        self.usage.prompt_tokens += reply.prompt_tokens
        self.usage.completion_tokens += reply.completion_tokens
        self.usage.batch_prompt_tokens += reply.prompt_tokens
        self.usage.batch_completion_tokens += reply.completion_tokens
        return {key: reply}

    def _call(self, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """One Batch API call (the SDK retries 429/5xx); what still fails stops the run."""
        where = self.settings.base_url or "OpenAI"
        try:
            return method(*args, **kwargs)
        except self.openai.APIStatusError as exc:
            raise LLMError(f"{where}: batch API: HTTP {exc.status_code}: {exc.message} (re-run to resume)") from None
        except self.openai.APIError as exc:
            raise LLMError(f"{where}: batch API: {exc} (re-run to resume)") from None
