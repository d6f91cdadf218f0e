"""LLM edge, the conversation runner: the one way every stage's conversations are played, live or in batches.

In: the corpus (its ``.papernotes/llm-cache.sqlite`` response cache), the
``LLMSettings``, a run's talks (``conversation.Talk``: draft's stubs,
translate's originals, classify's notes) and ``settle(name, outcome)``, called
the moment each talk ends. Out: the run's ``Usage`` (requests, cache hits,
retries, tokens, batches).

Live (``batch=False``): each talk is one task, started in a worker thread
(starting may read a paper); each round's calls go out together through
``ChatClient`` — cached, paced, retried with backoff, up to ``[llm]
concurrency`` at once. The first ``PapernotesError`` (an endpoint that is down,
a bad key) stops every task and is raised as it is; what was settled stays.

Batch (``batch=True``): the talks advance together, a round at a time: every
call of a round not in the response cache goes into one batch
(``llm_batch.BatchClient``: half price, resumable after an interruption), and
when it has ended each talk takes its replies and asks for its next round — so
repairs go in a batch too.

Either way an outcome's ``forget`` keys leave the cache before ``settle``, so
the next run asks again where a reply led nowhere.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable, Sequence
from pathlib import Path
from typing import Any

from papernotes.errors import PapernotesError
from papernotes.intake.conversation import Call, Conversation, Outcome, R, Reply, T, Talk, Usage
from papernotes.intake.llm import CACHE_NAME, ChatClient, LLMSettings, ResponseCache
from papernotes.intake.llm_batch import BatchClient
from papernotes.layout import CACHE_DIR

Progress = Callable[[str, int, int], None]
Settle = Callable[[str, Outcome[T]], None]


def run_talks(corpus: Path, settings: LLMSettings, talks: Sequence[Talk[T]], settle: Settle[T], *,
              batch: bool = False, progress: Progress | None = None, backoff_base: float = 1.0) -> Usage:
    """Play every talk (live, or through the Batch API with ``batch``), ``settle`` each as it ends; the usage."""
    if not talks:
        return Usage()
    cache = ResponseCache(corpus / CACHE_DIR / CACHE_NAME)

    def end(name: str, outcome: Outcome[T]) -> None:
        if outcome.forget:
            cache.forget(list(outcome.forget))
        settle(name, outcome)

    try:
        if batch:
            usage = Usage()
            _in_rounds(BatchClient(settings, cache, usage, progress), cache, usage, talks, end)
            return usage
        return asyncio.run(_live(settings, cache, backoff_base, talks, end))
    finally:
        cache.close()


# ---------------------------------------------------------------- live

async def _live(settings: LLMSettings, cache: ResponseCache, backoff_base: float, talks: Sequence[Talk[T]],
                end: Settle[T]) -> Usage:
    client = ChatClient(settings, cache, backoff_base=backoff_base)  # made in the loop its semaphore belongs to

    async def one(talk: Talk[T]) -> None:
        conversation = await asyncio.to_thread(talk.start)
        end(talk.name, await _play(client, conversation))

    try:
        await _together(one(talk) for talk in talks)
    finally:
        await client.aclose()
    return client.usage


async def _play(client: ChatClient, talk: Conversation[R]) -> R:
    """Play one conversation against ``client``: each round's calls concurrently; its outcome."""
    replies: list[Reply] | None = None
    try:
        while True:
            calls = talk.send(replies)  # type: ignore[arg-type]  # None starts the generator
            replies = list(await asyncio.gather(*(client.answer(c.messages, c.key, c.schema) for c in calls)))
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]


async def _together(tasks: Iterable[Coroutine[Any, Any, None]]) -> None:
    """Run ``tasks`` together; the first ``PapernotesError`` one raises stops them all and is raised as it is."""
    try:
        async with asyncio.TaskGroup() as group:
            for task in tasks:
                group.create_task(task)
    except BaseExceptionGroup as exc:
        fatal = next((e for e in exc.exceptions if isinstance(e, PapernotesError)), None)
        if fatal is not None:
            raise fatal from None
        raise


# ---------------------------------------------------------------- batch rounds

def _in_rounds(client: BatchClient, cache: ResponseCache, usage: Usage, talks: Sequence[Talk[T]],
               end: Settle[T]) -> None:
    """Every talk started (in order), then played a round at a time: the round's uncached calls in one batch."""
    pending: dict[str, list[Call]] = {}
    playing: dict[str, tuple[str, Conversation[Outcome[T]]]] = {}

    def advance(name: str, replies: list[Reply] | None) -> None:
        try:
            pending[name] = playing[name][1].send(replies)  # type: ignore[arg-type]  # None starts it
        except StopIteration as stop:
            pending.pop(name, None)
            end(name, stop.value)

    try:
        for talk in talks:
            playing[talk.name] = (talk.digest, talk.start())
            advance(talk.name, None)
        while pending:
            calls = {call.key: call for waiting in pending.values() for call in waiting}
            owners = {call.key: (name, playing[name][0]) for name, waiting in pending.items() for call in waiting}
            answers: dict[str, Reply] = {}
            for key in calls:
                if (hit := cache.get(key)) is not None:
                    usage.hit(hit)
                    answers[key] = hit
            missing = {key: call for key, call in calls.items() if key not in answers}
            if missing:
                answers.update(client.answer(missing, owners))
            for name, waiting in list(pending.items()):
                advance(name, [answers[call.key] for call in waiting])
    finally:
        client.close()
