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

from papernotes.layout import CACHE_DIR
from papernotes.intake.draft import DraftJob, Stub
from papernotes.intake.engines import DraftEngine
from papernotes.intake.engines._conversation import Call, Conversation, Prompts, Reply, converse
from papernotes.intake.engines.openai import settle
from papernotes.intake.llm import CACHE_NAME, ResponseCache, Usage
from papernotes.intake.llm_batch import BatchClient


def run(job: DraftJob) -> Usage:
    settings = job.settings
    assert settings is not None  # the stage resolves them for every engine that uses_llm
    prompts = {lang: Prompts.load(lang) for lang in set(job.langs.values())}
    cache = ResponseCache(job.corpus / CACHE_DIR / CACHE_NAME)
    usage = Usage()
    client = BatchClient(settings, cache, usage, job.progress)
    talks: dict[str, tuple[Stub, Conversation]] = {}
    pending: dict[str, list[Call]] = {}

    def advance(path: str, replies: list[Reply] | None) -> None:
        stub, talk = talks[path]
        try:
            pending[path] = talk.send(replies)  # type: ignore[arg-type]  # None starts the generator
        except StopIteration as stop:
            pending.pop(path, None)
            settle(job, cache, stub, stop.value, settings.model)

    try:
        for i, stub in enumerate(job.stubs, 1):
            lang = job.langs[stub.path]
            talks[stub.path] = (stub, converse(stub, lang, job.paper(stub), prompts[lang], settings, ENGINE.name))
            advance(stub.path, None)
            if job.progress is not None:
                job.progress("read", i, len(job.stubs))
        while pending:
            calls = {call.key: call for calls in pending.values() for call in calls}
            owners = {call.key: (path, talks[path][0].digest) for path, calls in pending.items() for call in calls}
            answers: dict[str, Reply] = {}
            for key in calls:
                if (hit := cache.get(key)) is not None:
                    usage.cache_hits += 1
                    usage.cached_tokens += hit.prompt_tokens + hit.completion_tokens
                    answers[key] = hit
            missing = {key: call.messages for key, call in calls.items() if key not in answers}
            if missing:
                answers.update(client.answer(missing, owners))
            for path, waiting in list(pending.items()):
                advance(path, [answers[call.key] for call in waiting])
    finally:
        client.close()
        cache.close()
    return usage


ENGINE = DraftEngine(
    name="openai_batch",
    help="the openai engine through the OpenAI Batch API (half price, results within 24 h); what --batch picks",
    run=run,
    uses_llm=True,
)
