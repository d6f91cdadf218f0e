"""Classify stage (language model): a domain of the taxonomy for each note without one, chosen by an LLM.

In: notes without a domain, the ``Taxonomy`` and the ``[llm]`` settings that
``draft`` uses (``LLMSettings``). Out: a ``Prediction`` per note the model
answered (``source = "openai"``, its probability the confidence the model
gave), the notes it could not classify with the reason, and the run's
``Usage``. For a corpus with no labels yet, where the learned classifier has
nothing to learn from.

One request per note (``prompts/classify.en.txt``: every domain of the taxonomy
as ``slug: English name (中文名)``, then the note's title, keywords, venue,
summary and abstract). The reply must be one JSON object ``{"domain": slug,
"confidence": 0..1, "second": slug | null}`` naming slugs of the taxonomy; a
reply that is not gets one repair request quoting what was wrong, and a second
failure leaves the note unclassified (its replies dropped from the cache, so the
next run asks again). Each note's exchange (``converse``) is played by the
conversation runner (``intake.llm_run``), the one draft and translate use:
replies cached in ``.papernotes/llm-cache.sqlite`` by the note, the exact
messages and the model; live requests paced, retried, up to ``[llm]
concurrency`` at once; or, with ``batch``, every request of a round in one
Batch API batch (half price, resumable: a re-run polls the batch that was
under way), the repair round in a second one.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from papernotes.classify.prediction import Prediction
from papernotes.classify.rules import note_topics
from papernotes.corpus.model import Note
from papernotes.intake.conversation import (
    Call,
    Completion,
    Conversation,
    Messages,
    Outcome,
    Reply,
    RequestError,
    Talk,
    Usage,
    cache_key,
)
from papernotes.intake.llm import LLMSettings
from papernotes.intake.llm_run import run_talks
from papernotes.intake.prompt import Prompt, then
from papernotes.intake.replies import ChoiceReply, read_reply
from papernotes.taxonomy import Taxonomy

Progress = Callable[[str, int, int], None]
PROMPT = "classify"


@dataclass(frozen=True, slots=True)
class Choice:
    """A validated reply."""

    domain: str
    confidence: float
    second: str | None


@dataclass(frozen=True, slots=True)
class LLMClassification:
    predictions: tuple[Prediction, ...]
    """One per note the model classified, in the order given."""
    failed: tuple[tuple[Note, str], ...]
    """Notes left without a prediction, with the reason (the reply stayed unusable, or the request failed)."""
    usage: Usage
    repaired: int
    """Replies that needed the repair request."""


def domain_lines(taxonomy: Taxonomy) -> str:
    """The prompt's list of choices: ``slug: English name (中文名)``, in taxonomy order."""
    return "\n".join(f"{d.slug}: {d.en} ({d.zh})" for d in taxonomy.domains.values())


def validate_choice(text: str, taxonomy: Taxonomy) -> tuple[Choice | None, str]:
    """A ``Choice`` from a reply (``replies.ChoiceReply``), or what is wrong with it (quoted back to the model in
    the repair request)."""
    reply, problems = read_reply(ChoiceReply, text, {"taxonomy": taxonomy})
    if reply is None:
        return None, "; ".join(problems)
    return Choice(reply.domain, reply.confidence, reply.second), ""


def _messages(note: Note, prompt: Prompt, domains: str) -> Messages:
    fields = {"title": note.title or "-", "keywords": ", ".join(note.keywords) or "-", "venue": note.venue or "-",
              "summary": note.summary or "-", "abstract": note.abstract or "-"}
    return [{"role": "system", "content": prompt.fill("system", domains=domains)},
            {"role": "user", "content": prompt.fill("user", **fields)}]


def converse(note: Note, prompt: Prompt, domains: str, taxonomy: Taxonomy, model: str) -> Conversation[Outcome[Choice]]:
    """The requests one note needs: its question, and one repair when the reply cannot be used."""
    identity = (PROMPT, note.id, note.title, note.abstract, model)

    def call(messages: Messages) -> Call:
        return Call(cache_key(*identity, messages), messages)

    sent = call(_messages(note, prompt, domains))
    (reply,) = yield [sent]
    choice, problem = _check(reply, taxonomy)
    if choice is not None:
        return Outcome(choice)
    if not isinstance(reply, Completion):
        return Outcome(None, problem, (sent.key,))
    again = call(then(sent.messages, reply.text, prompt.fill("repair", problems=problem)))
    (reply,) = yield [again]
    choice, problem = _check(reply, taxonomy)
    if choice is not None:
        return Outcome(choice, repaired=1)
    if isinstance(reply, Completion):
        problem = f"the model's reply cannot be used, even after a repair request: {problem}"
    return Outcome(None, problem, (sent.key, again.key), repaired=1)


def classify_with_llm(corpus: Path, notes: Sequence[Note], taxonomy: Taxonomy, settings: LLMSettings,
                      progress: Progress | None = None, backoff_base: float = 1.0,
                      batch: bool = False) -> LLMClassification:
    """Ask the model for a domain of each of ``notes`` (through the Batch API with ``batch``); see the module
    docstring."""
    prompt = Prompt.load(PROMPT, "en")
    domains = domain_lines(taxonomy)
    outcomes: dict[str, Outcome[Choice]] = {}

    def talk(note: Note) -> Talk[Choice]:
        return Talk(note.path, note.digest, lambda: converse(note, prompt, domains, taxonomy, settings.model))

    def settle(path: str, outcome: Outcome[Choice]) -> None:
        outcomes[path] = outcome
        if progress is not None:
            progress("classify", len(outcomes), len(notes))

    usage = run_talks(corpus, settings, [talk(note) for note in notes], settle, batch=batch, progress=progress,
                      backoff_base=backoff_base)
    predictions, failed = [], []
    for note in notes:
        outcome = outcomes[note.path]
        if outcome.value is not None:
            predictions.append(_prediction(note, outcome.value, taxonomy))
        else:
            failed.append((note, outcome.failure))
    return LLMClassification(tuple(predictions), tuple(failed), usage, sum(o.repaired for o in outcomes.values()))


def _check(reply: Reply, taxonomy: Taxonomy) -> tuple[Choice | None, str]:
    if isinstance(reply, RequestError):
        return None, str(reply)
    return validate_choice(reply.text, taxonomy)


def _prediction(note: Note, choice: Choice, taxonomy: Taxonomy) -> Prediction:
    top = ((choice.domain, round(choice.confidence, 4)),)
    if choice.second is not None:
        top += ((choice.second, round(max(0.0, 1.0 - choice.confidence), 4)),)
    return Prediction(note.path, note.id, note.title, note.domain, top, choice.second,
                      tuple(t.slug for t in note_topics(note, taxonomy)), "openai", note.line_of("domain"))
