"""LLM edge: chat completions from any OpenAI-compatible endpoint, cached and paced.

In: the ``[llm]`` settings (``LLMConfig``; environment variables fill what the
file leaves unset), chat messages and a cache key. Out: the reply text and its
token counts. Everything that makes remote calls survivable lives here: bounded
concurrency (a semaphore), a requests-per-minute pacer, retries with
exponential backoff and jitter on 429/5xx/timeouts (honouring ``Retry-After``),
and a SQLite response cache in ``.papernotes/llm-cache.sqlite`` that commits
each reply as it arrives, so an interrupted run loses no paid-for answer.
The ``openai`` package is imported only when a client is made.

Stages do not call the client themselves: they hand conversations
(``papernotes.intake.conversation``) to the one runner, ``papernotes.intake.llm_run``,
which plays them through a ``ChatClient`` or, in batch mode, ``llm_batch.BatchClient``.
"""
from __future__ import annotations

import asyncio
import email.utils
import os
import random
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from papernotes.config import CONFIG_NAME, LLMConfig
from papernotes.errors import ConfigError, PapernotesError, error
from papernotes.extras import require
from papernotes.intake.conversation import Completion, Messages, RequestError, Usage

CACHE_NAME = "llm-cache.sqlite"
RETRY_AFTER_CAP = 120.0
"""Longest wait a ``Retry-After`` header can impose on one retry, in seconds."""
GIVE_UP_LIMIT = 3
"""Requests in a row that may fail for good before the endpoint counts as down and the run stops."""
_RETRY_STATUS = frozenset({408, 409, 425, 429})
_FATAL_STATUS = frozenset({401, 403, 404})


class LLMError(PapernotesError):
    """The endpoint refuses every request (bad key, unknown model, wrong URL) or is down: the run stops."""

    exit_code = 1


class ModelNotConfigured(PapernotesError):
    """No model is set for the openai engines, and there is no ``papernotes.toml`` to point at."""

    exit_code = 2


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """``LLMConfig`` with the environment applied and the model required."""

    model: str
    base_url: str | None
    api_key: str
    concurrency: int
    requests_per_minute: float
    timeout: float
    max_retries: int
    temperature: float
    price_per_1k_input: float
    price_per_1k_output: float
    context_tokens: int = 128_000
    batch_price_factor: float = 0.5
    batch_poll_seconds: float = 30.0
    structured_output: bool = False

    @classmethod
    def resolve(cls, config: LLMConfig, corpus: Path, env: dict[str, str] | None = None,
                offline: str = "or draft offline with `--engine extractive`") -> LLMSettings:
        """File values win; ``OPENAI_BASE_URL``, ``PAPERNOTES_MODEL`` and the key variable fill the gaps.

        Without a model, the error says where to set one and ``offline``: what to run instead.
        """
        env = dict(os.environ) if env is None else env
        model = config.model or env.get("PAPERNOTES_MODEL", "")
        if not model:
            raise _no_model(corpus / CONFIG_NAME, offline)
        return cls(model=model, base_url=config.base_url or env.get("OPENAI_BASE_URL") or None,
                   # local servers accept any key, and the SDK refuses to start without one
                   api_key=env.get(config.api_key_env, "") or "unset",
                   concurrency=config.concurrency, requests_per_minute=config.requests_per_minute,
                   timeout=config.timeout, max_retries=config.max_retries, temperature=config.temperature,
                   price_per_1k_input=config.price_per_1k_input, price_per_1k_output=config.price_per_1k_output,
                   context_tokens=config.context_tokens, batch_price_factor=config.batch_price_factor,
                   batch_poll_seconds=config.batch_poll_seconds, structured_output=config.structured_output)


def _no_model(path: Path, offline: str) -> PapernotesError:
    """The error for a missing model: at the ``[llm]`` table when the config file exists, else how to write one."""
    setting = "set `model` (and `base_url` for a server other than OpenAI's) in the [llm] table"
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return ModelNotConfigured(f"no language model configured: {path} does not exist; create it with an [llm] table "
                        f"(model = \"…\", base_url = \"…\"), or set PAPERNOTES_MODEL and OPENAI_BASE_URL; {offline}")
    line = next((i for i, row in enumerate(text.splitlines(), 1) if row.strip().startswith("[llm]")), 0)
    return ConfigError([error(str(path), line, f"no language model configured: {setting}, or set PAPERNOTES_MODEL; "
                              f"{offline}", "config")])


def endpoint(settings: LLMSettings) -> str:
    """The URL requests go to, for messages (the SDK's default when ``base_url`` is not set)."""
    return (settings.base_url or "https://api.openai.com/v1").rstrip("/")


class ResponseCache:
    """Replies by cache key; each insert is its own committed transaction."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, timeout=30, isolation_level=None)
        self.db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT, text TEXT, "
                        "prompt_tokens INTEGER, completion_tokens INTEGER, created REAL)")

    def get(self, key: str) -> Completion | None:
        row = self.db.execute("SELECT text, prompt_tokens, completion_tokens FROM replies WHERE key = ?",
                              (key,)).fetchone()
        return Completion(row[0], row[1], row[2], cached=True) if row else None

    def put(self, key: str, model: str, reply: Completion) -> None:
        self.db.execute("INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?)",
                        (key, model, reply.text, reply.prompt_tokens, reply.completion_tokens, time.time()))

    def forget(self, keys: list[str]) -> None:
        """Drop replies that led nowhere, so the next run asks the model afresh."""
        self.db.executemany("DELETE FROM replies WHERE key = ?", [(k,) for k in keys])

    def close(self) -> None:
        self.db.close()


class RateLimiter:
    """Spaces request starts at least ``60 / per_minute`` seconds apart (``clock`` and ``sleep``: a test's own)."""

    def __init__(self, per_minute: float, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.interval = 60.0 / per_minute
        self.next = 0.0
        self.lock = asyncio.Lock()
        self.clock, self.sleep = clock, sleep

    async def wait(self) -> None:
        async with self.lock:
            now = self.clock()
            delay = self.next - now
            self.next = max(now, self.next) + self.interval
        if delay > 0:
            await self.sleep(delay)


def response_format(schema: dict[str, Any] | None, settings: LLMSettings) -> dict[str, Any]:
    """The request's ``response_format`` argument: the reply's JSON schema as structured output, when the
    settings ask for it and the request has one; else nothing (the prompt asks for the JSON in words)."""
    if schema is None or not settings.structured_output:
        return {}
    return {"response_format": {"type": "json_schema", "json_schema": {**schema, "strict": False}}}


def retry_after(headers: Any) -> float | None:
    """Seconds asked for by ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    if headers is None:
        return None
    if (ms := headers.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class ChatClient:
    """Cached, paced, retrying chat completions; use inside one event loop."""

    def __init__(self, settings: LLMSettings, cache: ResponseCache, backoff_base: float = 1.0,
                 backoff_cap: float = 60.0) -> None:
        self.openai = require("openai", "the openai engines")
        self.settings = settings
        self.cache = cache
        self.usage = Usage()
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.give_ups = 0
        self.limiter = RateLimiter(settings.requests_per_minute)
        self.slots = asyncio.Semaphore(settings.concurrency)
        # our own retry loop counts and paces retries; the SDK's would hide them
        self.client = self.openai.AsyncOpenAI(base_url=settings.base_url, api_key=settings.api_key,
                                  timeout=settings.timeout, max_retries=0)

    async def aclose(self) -> None:
        await self.client.close()

    def backoff(self, attempt: int) -> float:
        return min(self.backoff_cap, self.backoff_base * 2.0 ** attempt) * random.uniform(0.5, 1.5)

    async def complete(self, messages: Messages, key: str, schema: dict[str, Any] | None = None) -> Completion:
        """The reply to ``messages``: from the cache when ``key`` is known, else from the endpoint (``schema``:
        the reply's JSON schema, sent as structured output when the settings say so)."""
        cached = self.cache.get(key)
        if cached is not None:
            self.usage.hit(cached)
            return cached
        reply = await self._request(messages, response_format(schema, self.settings))
        self.cache.put(key, self.settings.model, reply)
        return reply

    async def answer(self, messages: Messages, key: str, schema: dict[str, Any] | None = None
                     ) -> Completion | RequestError:
        """Like ``complete``, but a request that failed for good is returned rather than raised."""
        try:
            return await self.complete(messages, key, schema)
        except RequestError as exc:
            return exc

    @property
    def url(self) -> str:
        return endpoint(self.settings)

    async def _request(self, messages: Messages, structured: dict[str, Any]) -> Completion:
        openai = self.openai
        last, refused = "", False
        for attempt in range(self.settings.max_retries + 1):
            try:
                async with self.slots:  # pace inside the slot, so queued requests cannot start in a burst
                    await self.limiter.wait()
                    response = await self.client.chat.completions.create(
                        model=self.settings.model, messages=messages,  # type: ignore[arg-type]
                        temperature=self.settings.temperature, **structured)
            except openai.APIStatusError as exc:
                status = exc.status_code
                if status in _FATAL_STATUS:
                    raise LLMError(f"{self.url}: HTTP {status}: {_message(exc)}") from None
                if status not in _RETRY_STATUS and status < 500:
                    raise RequestError(f"{self.url}: HTTP {status}: {_message(exc)}") from None
                last, refused = f"HTTP {status}", False
                delay = retry_after(exc.response.headers)
                delay = min(delay, RETRY_AFTER_CAP) if delay is not None else self.backoff(attempt)
            except openai.APITimeoutError:
                last, refused = f"timed out after {self.settings.timeout:g}s", False
                delay = self.backoff(attempt)
            except openai.APIConnectionError as exc:
                last, refused, delay = f"cannot connect ({_cause(exc)})", True, self.backoff(attempt)
            else:
                self.give_ups = 0
                self.usage.requests += 1
                usage = response.usage
                prompt = usage.prompt_tokens if usage else 0
                completion = usage.completion_tokens if usage else 0
                self.usage.prompt_tokens += prompt
                self.usage.completion_tokens += completion
                text = response.choices[0].message.content if response.choices else ""
                return Completion(text or "", prompt, completion, cached=False)
            if attempt < self.settings.max_retries:
                self.usage.retries += 1
                self.usage.retry_waits.append(delay)
                await asyncio.sleep(delay)
        self.give_ups += 1
        attempts = self.settings.max_retries + 1
        reason = f"{self.url}: {last} (gave up after {attempts} attempt{'s' if attempts > 1 else ''})"
        if refused:  # nothing answers at that address: every other request would wait just as long
            raise LLMError(f"{reason}; is the server running, and is `base_url` in [llm] (or OPENAI_BASE_URL) "
                           "right? Finished notes are saved; re-run to continue")
        if self.give_ups >= GIVE_UP_LIMIT:
            raise LLMError(f"{reason}; stopped after {self.give_ups} requests in a row failed "
                           "(finished notes are saved; re-run to continue)")
        raise RequestError(reason)


def _cause(exc: BaseException) -> str:
    """The innermost reason of a connection error ("[Errno 111] Connection refused"), not the SDK's wrapper."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return str(exc) or type(exc).__name__


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return str(getattr(exc, "message", "") or exc)
