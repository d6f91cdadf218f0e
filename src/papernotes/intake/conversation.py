"""LLM edge, the contract: what a stage hands the conversation runner and what it gets back.

A stage (draft, translate, classify) talks to a model through *conversations*:
generators that yield the calls of one round (``Call``: a response-cache key
and chat messages) and receive their replies in the same order (``Reply``: a
``Completion`` or the ``RequestError`` of a request that failed for good), until
they return an ``Outcome``: what they made (a draft, a translation, a domain)
or why nothing, the repair requests they sent, and the cache keys of replies
that led nowhere (``forget``), which the runner drops so the next run asks
afresh.

What a run cost is counted in one ``Usage``, whichever way it was played.

A ``Talk`` is one conversation to have: a unique name (the note's path), the
digest of what it is about (recorded with a batch) and how to start it. The
runner (``papernotes.intake.llm_run``) plays talks live or in batch rounds; the
stage never sees which, so one conversation serves both modes.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from papernotes.intake.llm import LLMSettings

Messages = list[dict[str, str]]


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    cached: bool


class RequestError(Exception):
    """One request failed for good (retries used up, or a 4xx about this request); other papers go on."""


Reply = Completion | RequestError
"""The answer to one ``Call``: a completion, or the error of a request that failed for good."""


@dataclass(frozen=True, slots=True)
class Call:
    """One request of a conversation: its response-cache key (also its batch ``custom_id``) and messages."""

    key: str
    messages: Messages
    schema: dict[str, Any] | None = None
    """``{"name", "schema"}`` of the JSON the reply must be: sent as the server's structured output
    (``response_format``) when ``[llm] structured_output`` is on; the reply is validated either way."""


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Outcome(Generic[T]):
    """How a conversation ended: what it made, or why it made nothing."""

    value: T | None
    failure: str = ""
    """Why there is no ``value``."""
    forget: tuple[str, ...] = ()
    """Cache keys of replies that led nowhere, dropped so the next run asks again."""
    repaired: int = 0
    """Repair requests sent."""


R = TypeVar("R")
Conversation = Generator[list[Call], list[Reply], R]
"""Yields each round's calls, receives their replies in the same order, returns its outcome."""


@dataclass(frozen=True, slots=True)
class Talk(Generic[T]):
    """One conversation to have."""

    name: str
    """Unique in a run: the path of the note it is about."""
    digest: str
    """What it is about (a file's digest), recorded with the batch that carries its requests."""
    start: Callable[[], Conversation[Outcome[T]]]
    """Makes the conversation; may block (reading a paper), so a live run calls it in a worker thread."""


@dataclass(slots=True)
class Usage:
    """Counters of one run, for the summary line."""

    requests: int = 0
    """Requests answered by the endpoint (not counting failed attempts)."""
    cache_hits: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    """Tokens of replies served from the cache (not paid again)."""
    batches: int = 0
    """Batches created (``--batch``); a resumed batch is not counted again."""
    batch_requests: int = 0
    """Replies that came from a batch (included in ``requests``)."""
    batch_prompt_tokens: int = 0
    """Tokens of batch replies (included in ``prompt_tokens``/``completion_tokens``), billed at the batch price."""
    batch_completion_tokens: int = 0
    retry_waits: list[float] = field(default_factory=list)
    """Seconds waited before each retry, in order: the endpoint's ``Retry-After``, else the backoff."""

    def hit(self, reply: Completion) -> None:
        """Count a reply served from the response cache."""
        self.cache_hits += 1
        self.cached_tokens += reply.prompt_tokens + reply.completion_tokens

    def cost(self, settings: LLMSettings) -> float:
        """Live tokens at the configured prices, batch tokens at ``batch_price_factor`` of them."""
        live = ((self.prompt_tokens - self.batch_prompt_tokens) * settings.price_per_1k_input
                + (self.completion_tokens - self.batch_completion_tokens) * settings.price_per_1k_output)
        batch = (self.batch_prompt_tokens * settings.price_per_1k_input
                 + self.batch_completion_tokens * settings.price_per_1k_output) * settings.batch_price_factor
        return (live + batch) / 1000


def cache_key(*parts: Any) -> str:
    """Stable hash of JSON-serialisable parts (paper identity, messages, model)."""
    blob = json.dumps(parts, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
