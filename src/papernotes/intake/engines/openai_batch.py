"""Draft engine ``openai_batch`` (``draft --batch``): the ``openai`` engine's requests through the Batch API.

In: a ``DraftJob``. Out: every stub drafted like a live one — the same
prompts, validation, repairs and grounding (``_conversation.converse``) — at
the batch price; the run's token ``Usage``. The conversation runner
(``papernotes.intake.llm_run``) advances the exchanges of all stubs together,
one round at a time: every request a round needs that is not in the response
cache goes into one batch, and when it has ended every stub takes its replies
and asks for its next round. A paper drafted whole needs one round; a long one
a map round first; a reply to repair (not the expected JSON, or numbers not in
the paper) another, so a run makes one to four batches, each up to 24 hours.
Repairs go in a batch too (half price, and the run stays resumable), not live.

Re-running after an interruption replays the rounds from the cache and polls
the batch that was under way (recorded in the cache with its stubs' digests):
no request is sent or paid twice, and notes are written as their last round
ends.
"""
from __future__ import annotations

from papernotes.intake.draft import DraftJob
from papernotes.intake.engines import DraftEngine
from papernotes.intake.engines.openai import play
from papernotes.intake.conversation import Usage


def run(job: DraftJob) -> Usage:
    return play(job, ENGINE.name, batch=True)


ENGINE = DraftEngine(
    name="openai_batch",
    help="the openai engine through the OpenAI Batch API (half price, results within 24 h); what --batch picks",
    run=run,
    uses_llm=True,
)
