"""Draft engine ``openai``: any OpenAI-compatible chat endpoint, live requests.

In: a ``DraftJob``. Out: each stub drafted (or failed) as soon as its
requests are answered; the run's token ``Usage``. Each stub's exchange
(``_conversation.converse``: map, draft, repairs) runs as one task; requests go
through ``papernotes.intake.llm.ChatClient`` (cache, pacing, retries), so
stubs are drafted concurrently up to ``[llm] concurrency``. Papers are read in a
worker thread so reading one does not hold up the replies of the others.

A reply that is not the expected JSON gets one repair request; if that fails
too the note stays a stub and records ``draft_error``, and its replies are
dropped from the cache so the next run asks again.
"""
from __future__ import annotations

import asyncio

from papernotes.intake.draft import DraftJob, Stub
from papernotes.intake.engines import DraftEngine
from papernotes.intake.engines._conversation import Outcome, Prompts, converse
from papernotes.intake.llm import CACHE_NAME, ChatClient, ResponseCache, Usage, converse_live, run_all
from papernotes.layout import CACHE_DIR


def settle(job: DraftJob, cache: ResponseCache, stub: Stub, outcome: Outcome, model: str) -> None:
    """Hand one stub's outcome to the job (shared with the batch engine)."""
    job.repaired += outcome.repaired
    job.ground_repaired += outcome.ground_repaired
    if outcome.drafted is None:
        cache.forget(list(outcome.forget))
        job.fail(stub, outcome.failure)
    else:
        job.finish(stub, outcome.drafted, outcome.grounding, model)


async def _run(job: DraftJob) -> Usage:
    settings = job.settings
    assert settings is not None  # the stage resolves them for every engine that uses_llm
    prompts = {lang: Prompts.load(lang) for lang in set(job.langs.values())}
    cache = ResponseCache(job.corpus / CACHE_DIR / CACHE_NAME)
    client = ChatClient(settings, cache, backoff_base=job.backoff_base)

    async def one(stub: Stub) -> None:
        lang = job.langs[stub.path]
        paper = await asyncio.to_thread(job.paper, stub)
        outcome = await converse_live(client, converse(stub, lang, paper, prompts[lang], settings, ENGINE.name))
        settle(job, cache, stub, outcome, settings.model)

    try:
        await run_all(one(stub) for stub in job.stubs)
    finally:
        await client.aclose()
        cache.close()
    return client.usage


def run(job: DraftJob) -> Usage:
    return asyncio.run(_run(job))


ENGINE = DraftEngine(
    name="openai",
    help="any OpenAI-compatible endpoint, set up in the llm table of papernotes.toml; reads the PDF beside a note",
    run=run,
    uses_llm=True,
    batch="openai_batch",
)
