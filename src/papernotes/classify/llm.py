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
next run asks again). Requests go through ``intake.llm.ChatClient``: replies are
cached in ``.papernotes/llm-cache.sqlite`` by the note, the exact messages and
the model, paced, retried, up to ``[llm] concurrency`` at once.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from papernotes.classify.prediction import Prediction
from papernotes.classify.rules import note_topics
from papernotes.corpus.model import Note
from papernotes.intake.draft import Prompt, json_object
from papernotes.intake.llm import (
    CACHE_NAME,
    ChatClient,
    Completion,
    LLMSettings,
    RequestError,
    ResponseCache,
    Usage,
    cache_key,
)
from papernotes.layout import CACHE_DIR
from papernotes.taxonomy import Taxonomy, suggest

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
    """A ``Choice`` from a reply, or what is wrong with it (quoted back to the model in the repair request)."""
    data, problem = json_object(text)
    if data is None:
        return None, problem
    problems = []
    domain = _slug(data.get("domain"), taxonomy)
    if domain is None:
        problems.append(f"`domain` must be one of the slugs listed, got {data.get('domain')!r}"
                        + _meant(data.get("domain"), taxonomy))
    confidence = data.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 <= confidence <= 1:
        problems.append(f"`confidence` must be a number from 0 to 1, got {confidence!r}")
    second = data.get("second")
    second_slug = None if second in (None, "", "null") else _slug(second, taxonomy)
    if second not in (None, "", "null") and second_slug is None:
        problems.append(f"`second` must be a slug listed or null, got {second!r}" + _meant(second, taxonomy))
    if problems:
        return None, "; ".join(problems)
    return Choice(str(domain), float(confidence), second_slug if second_slug != domain else None), ""  # type: ignore[arg-type]


def _slug(value: object, taxonomy: Taxonomy) -> str | None:
    """The taxonomy slug ``value`` names (the slug itself, any case, or a domain's English or Chinese name)."""
    if not isinstance(value, str):
        return None
    wanted = value.strip().casefold()
    for d in taxonomy.domains.values():
        if wanted in (d.slug.casefold(), d.en.casefold(), d.zh.casefold()):
            return d.slug
    return None


def _meant(value: object, taxonomy: Taxonomy) -> str:
    close = suggest(value, taxonomy.domains) if isinstance(value, str) else []
    return f" (did you mean {close[0]!r}?)" if close else ""


def _messages(note: Note, prompt: Prompt, domains: str) -> list[dict[str, str]]:
    fields = {"title": note.title or "-", "keywords": ", ".join(note.keywords) or "-", "venue": note.venue or "-",
              "summary": note.summary or "-", "abstract": note.abstract or "-"}
    return [{"role": "system", "content": prompt.fill("system", domains=domains)},
            {"role": "user", "content": prompt.fill("user", **fields)}]


def classify_with_llm(corpus: Path, notes: Sequence[Note], taxonomy: Taxonomy, settings: LLMSettings,
                      progress: Progress | None = None, backoff_base: float = 1.0) -> LLMClassification:
    """Ask the model for a domain of each of ``notes``; see the module docstring."""
    return asyncio.run(_run(corpus, list(notes), taxonomy, settings, progress, backoff_base))


async def _run(corpus: Path, notes: list[Note], taxonomy: Taxonomy, settings: LLMSettings,
               progress: Progress | None, backoff_base: float) -> LLMClassification:
    prompt = Prompt.load(PROMPT, "en")
    domains = domain_lines(taxonomy)
    cache = ResponseCache(corpus / CACHE_DIR / CACHE_NAME)
    client = ChatClient(settings, cache, backoff_base=backoff_base)
    results: dict[int, Choice | str] = {}
    repaired = 0
    done = 0

    async def one(index: int, note: Note) -> None:
        nonlocal repaired, done
        messages = _messages(note, prompt, domains)
        identity = (PROMPT, note.id, note.title, note.abstract, settings.model)
        key = cache_key(*identity, messages)
        reply = await client.answer(messages, key)
        keys = [key]
        choice, problem = _check(reply, taxonomy)
        if choice is None and isinstance(reply, Completion):
            repaired += 1
            messages = [*messages, {"role": "assistant", "content": reply.text},
                        {"role": "user", "content": prompt.fill("repair", problems=problem)}]
            keys.append(cache_key(*identity, messages))
            reply = await client.answer(messages, keys[-1])
            choice, problem = _check(reply, taxonomy)
        if choice is None:
            cache.forget(keys)
            if isinstance(reply, Completion):
                problem = f"the model's reply cannot be used, even after a repair request: {problem}"
        results[index] = choice if choice is not None else problem
        done += 1
        if progress is not None:
            progress("classify", done, len(notes))

    try:
        async with asyncio.TaskGroup() as group:
            for index, note in enumerate(notes):
                group.create_task(one(index, note))
    except BaseExceptionGroup as exc:
        from papernotes.errors import PapernotesError

        fatal = next((e for e in exc.exceptions if isinstance(e, PapernotesError)), None)
        if fatal is not None:
            raise fatal from None
        raise
    finally:
        await client.aclose()
        cache.close()
    predictions, failed = [], []
    for index, note in enumerate(notes):
        outcome = results[index]
        if isinstance(outcome, Choice):
            predictions.append(_prediction(note, outcome, taxonomy))
        else:
            failed.append((note, outcome))
    return LLMClassification(tuple(predictions), tuple(failed), client.usage, repaired)


def _check(reply: Completion | RequestError, taxonomy: Taxonomy) -> tuple[Choice | None, str]:
    if isinstance(reply, RequestError):
        return None, str(reply)
    return validate_choice(reply.text, taxonomy)


def _prediction(note: Note, choice: Choice, taxonomy: Taxonomy) -> Prediction:
    top = ((choice.domain, round(choice.confidence, 4)),)
    if choice.second is not None:
        top += ((choice.second, round(max(0.0, 1.0 - choice.confidence), 4)),)
    return Prediction(note.path, note.id, note.title, note.domain, top, choice.second,
                      tuple(t.slug for t in note_topics(note, taxonomy)), "openai", note.line_of("domain"))
