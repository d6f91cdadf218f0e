"""Draft engine ``openai_batch`` (``draft --batch``): the ``openai`` engine's requests through the Batch API.

In: a ``DraftJob``. Out: every stub drafted like a live one — the same
prompts, validation, repairs and grounding (``_conversation.converse``) — at
the batch price; the run's token ``Usage``. The exchanges of all stubs advance
together, one round at a time: every request a round needs that is not in the
response cache goes into one batch (``papernotes.intake.llm_batch``), and when
it has ended every stub takes its replies and asks for its next round. A
paper drafted whole needs one round; a long one a map round first; a reply
to repair (not the expected JSON, or numbers not in the paper) another, so a
run makes one to four batches, each up to 24 hours. Repairs go in a batch too
(half price, and the run stays resumable), not live.

Re-running after an interruption replays the rounds from the cache and polls
the batch that was under way (recorded in the cache with its stubs' digests):
no request is sent or paid twice, and notes are written as their last round
ends.
"""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.intake.draft import DraftJob
from papernotes.intake.engines import DraftEngine
from papernotes.intake.engines._conversation import Conversation, Prompts, converse
from papernotes.intake.engines.openai import settle
from papernotes.intake.llm import CACHE_NAME, ResponseCache, Usage
from papernotes.intake.llm_batch import BatchClient, converse_in_rounds
from papernotes.layout import CACHE_DIR


def run(job: DraftJob) -> Usage:
    settings = job.settings
    assert settings is not None  # the stage resolves them for every engine that uses_llm
    prompts = {lang: Prompts.load(lang) for lang in set(job.langs.values())}
    cache = ResponseCache(job.corpus / CACHE_DIR / CACHE_NAME)
    usage = Usage()
    stubs = {stub.path: stub for stub in job.stubs}

    def talks() -> Iterator[tuple[str, str, Conversation]]:
        for i, stub in enumerate(job.stubs, 1):
            lang = job.langs[stub.path]
            yield stub.path, stub.digest, converse(stub, lang, job.paper(stub), prompts[lang], settings, ENGINE.name)
            if job.progress is not None:
                job.progress("read", i, len(job.stubs))

    try:
        converse_in_rounds(BatchClient(settings, cache, usage, job.progress), cache, usage, talks(),
                           lambda path, outcome: settle(job, cache, stubs[path], outcome, settings.model))
    finally:
        cache.close()
    return usage


ENGINE = DraftEngine(
    name="openai_batch",
    help="the openai engine through the OpenAI Batch API (half price, results within 24 h); what --batch picks",
    run=run,
    uses_llm=True,
)
