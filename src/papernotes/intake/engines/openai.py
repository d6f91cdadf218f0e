"""Draft engine ``openai``: any OpenAI-compatible chat endpoint, live requests.

In: a ``DraftJob``. Out: each stub drafted (or failed) as soon as its
requests are answered; the run's token ``Usage``. Each stub's exchange
(``_conversation.converse``: map, draft, repairs) is one talk of the
conversation runner (``papernotes.intake.llm_run``: cache, pacing, retries),
so stubs are drafted concurrently up to ``[llm] concurrency``; papers are read
in worker threads so reading one does not hold up the replies of the others.
``openai_batch`` is this engine through the Batch API (``play`` with ``batch``).

A reply that is not the expected JSON gets one repair request; if that fails
too the note stays a stub and records ``draft_error``, and its replies are
dropped from the cache so the next run asks again.
"""
from __future__ import annotations

from papernotes.intake.conversation import Outcome, Talk, Usage
from papernotes.intake.draft import DraftJob, Stub
from papernotes.intake.engines import DraftEngine
from papernotes.intake.engines._conversation import Conversation, Draft, Prompts, converse
from papernotes.intake.llm_run import run_talks


def play(job: DraftJob, engine: str, batch: bool) -> Usage:
    """Every stub's exchange through the runner, live or in batch rounds; each outcome handed to the job."""
    settings = job.settings
    assert settings is not None  # the stage resolves them for every engine that uses_llm
    prompts = {lang: Prompts.load(lang) for lang in set(job.langs.values())}
    stubs = {stub.path: stub for stub in job.stubs}
    read = 0

    def talk(stub: Stub) -> Talk[Draft]:
        def start() -> Conversation:
            nonlocal read
            lang = job.langs[stub.path]
            conversation = converse(stub, lang, job.paper(stub), prompts[lang], settings, engine)
            if batch and job.progress is not None:  # every paper is read before the first batch goes out
                read += 1
                job.progress("read", read, len(job.stubs))
            return conversation
        return Talk(stub.path, stub.digest, start)

    def settle(path: str, outcome: Outcome[Draft]) -> None:
        job.repaired += outcome.repaired
        if outcome.value is None:
            job.fail(stubs[path], outcome.failure)
        else:
            job.ground_repaired += outcome.value.ground_repaired
            job.finish(stubs[path], outcome.value.drafted, outcome.value.grounding, settings.model)

    return run_talks(job.corpus, settings, [talk(stub) for stub in job.stubs], settle, batch=batch,
                     progress=job.progress, backoff_base=job.backoff_base)


def run(job: DraftJob) -> Usage:
    return play(job, ENGINE.name, batch=False)


ENGINE = DraftEngine(
    name="openai",
    help="any OpenAI-compatible endpoint, set up in the llm table of papernotes.toml; reads the PDF beside a note",
    run=run,
    uses_llm=True,
    batch="openai_batch",
)
