"""Translate stage: originals without an up-to-date translation in the target language get one.

In: a corpus, a target language (``zh``/``en``) and the ``[llm]`` settings. Out:
``foo.en.md`` (or ``foo.zh.md``) beside each original ``foo.md`` that had none
or a stale one (``translation_of.digest`` differs from the original's
``text_digest``), each written atomically the moment it is ready, and a
``TranslateResult`` with every note left untranslated and why.

One exchange per note (``converse``): the translation request (prompt data
files ``prompts/translate.{lang}.txt``), then — when the reply is not the
expected JSON, or lost a formula, code, a link target or a number of the
original (``translate_guard``) — one repair request listing what is wrong. A
reply still wrong after it leaves the note untranslated (its cached replies
dropped so the next run asks afresh). The conversation runner
(``papernotes.intake.llm_run``) plays every note's exchange live (cache, pacing,
retries) or, with ``batch``, through the Batch API (resumable).
A translation made by hand (no ``translation_of`` digest) is never
overwritten; nor is a translation or an original that changed on disk while
the model was working.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from papernotes.cache import BuildCache
from papernotes.config import load_config
from papernotes.corpus.frontmatter import FrontMatterError, read
from papernotes.corpus.load import cache_path, load_corpus
from papernotes.corpus.model import LANGUAGES, Note
from papernotes.corpus.parse import parse_note
from papernotes.corpus.translation import translation_path
from papernotes.disk import as_read, sha1_hex, write_if_unchanged
from papernotes.errors import CorpusError, Diagnostic, error, warning
from papernotes.intake import translate_guard as guard
from papernotes.intake import translate_parts as parts
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
from papernotes.intake.prompt import Prompt, json_object, then
from papernotes.testhooks import pause

ENGINES = ("openai",)
"""``--engine`` choices: any OpenAI-compatible endpoint (``[llm]`` in papernotes.toml); ``batch`` sends its
requests through the Batch API."""

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class Work:
    """One note to translate, as read from disk."""

    path: str
    """The original, relative to the corpus."""
    target: str
    """Where its translation goes."""
    digest: str
    """SHA-1 of the original's bytes when read: it is only translated into a file if still so."""
    target_digest: str
    """SHA-1 of the translation's bytes when read (a stale one is redone); ``""``: there was none."""
    front: dict[str, Any]
    payload: dict[str, Any]
    text_digest: str
    """The original's ``text_digest``: what the translation records."""


@dataclass(frozen=True, slots=True)
class TranslateResult:
    translated: tuple[str, ...]
    """Translations written, by path."""
    redone: int
    """Of them, stale translations redone."""
    failed: tuple[tuple[str, str], ...]
    """``(original, reason)`` of notes left untranslated."""
    up_to_date: int
    """Originals whose translation is current (or made by hand, never overwritten)."""
    repaired: int = 0
    usage: Usage | None = None
    cost: float = 0.0
    model: str = ""
    diagnostics: tuple[Diagnostic, ...] = field(default=())
    batch_price_factor: float = 1.0


def _read(corpus: Path, rel: str) -> bytes | None:
    try:
        return (corpus / rel).read_bytes()
    except OSError:
        return None


# ---------------------------------------------------------------- what needs doing

def find_work(corpus: Path, lang: str) -> tuple[list[Work], int, list[Diagnostic]]:
    """Originals (path order) needing a ``lang`` translation, how many already have a current one, and problems."""
    with BuildCache(cache_path(corpus)) as cache:
        loaded = load_corpus(corpus, cache)
        notes, files = loaded.notes, set(loaded.digests)
        failed = {d.path for d in loaded.diagnostics if d.is_error}
    by_path = {n.path: n for n in notes}
    work: list[Work] = []
    current = 0
    problems: list[Diagnostic] = []
    for note in notes:
        if note.translation_of is not None or note.lang == lang or note.status == "stub":
            continue
        target = translation_path(note.path, lang)
        existing = by_path.get(target)
        if note.path in failed:
            problems.append(warning(note.path, 0, "not translated: it has errors (see `papernotes check`)", "translate"))
            continue
        if target in files and (existing is None or target in failed):
            problems.append(error(target, 0, f"has errors (see `papernotes check`), so {note.path} is not translated "
                                             "again; fix or delete it", "translate"))
            continue
        if existing is not None and existing.translation_of is not None and (
                not existing.translation_of.digest or existing.translation_of.digest == note.text_digest):
            current += 1
            continue
        if (item := _work(corpus, note, target)) is not None:
            work.append(item)
    return work, current, problems


def _work(corpus: Path, note: Note, target: str) -> Work | None:
    data = _read(corpus, note.path)
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
        front, body, _ = read(text)
    except (UnicodeDecodeError, FrontMatterError):
        return None  # changed since it was loaded; the next run sees it as it is
    fresh, _ = parse_note(note.path, text, sha1_hex(data))
    if fresh is None:
        return None
    existing = _read(corpus, target)
    return Work(note.path, target, sha1_hex(data), sha1_hex(existing) if existing is not None else "", front,
                parts.payload(front, fresh.title, body.replace("\r\n", "\n")), fresh.text_digest)


# ---------------------------------------------------------------- one note's exchange

def check_reply(reply: Reply, work: Work, lang: str) -> tuple[parts.Translated | None, list[str], bool]:
    """``(translation, problems, repairable)`` of one reply."""
    if isinstance(reply, RequestError):
        return None, [str(reply)], False
    data, problem = json_object(reply.text)
    if data is None:
        return None, [problem], True
    translated, errors = parts.validate(data, work.payload, lang)
    if translated is None:
        return None, errors, True
    p = work.payload
    before = guard.kept(parts.document(p["title"], p.get("summary", ""), p.get("keywords", []),
                                       "\n\n".join([p.get("preamble", ""), *(s["text"] for s in p["sections"])])))
    after = guard.kept(parts.document(translated.title, translated.summary, translated.keywords,
                                      "\n\n".join([translated.preamble, *(s.text for s in translated.sections)])))
    lost = guard.missing(before, after)
    return (None, [f"it lost {item}" for item in lost], True) if lost else (translated, [], False)


def converse(work: Work, lang: str, prompt: Prompt, model: str) -> Conversation[Outcome[parts.Translated]]:
    """The requests one note needs: the translation, and one repair when the reply cannot be used."""
    identity = ("translate", work.path, lang, work.text_digest)

    def call(messages: Messages) -> Call:
        return Call(cache_key(identity, messages, model), messages)

    messages = [{"role": "system", "content": prompt.fill("system")},
                {"role": "user", "content": prompt.fill("user", title=work.payload["title"],
                                                        note=parts.request_json(work.payload))}]
    sent = call(messages)
    (reply,) = yield [sent]
    translated, problems, repairable = check_reply(reply, work, lang)
    if translated is not None:
        return Outcome(translated)
    if not repairable or not isinstance(reply, Completion):
        return Outcome(None, "; ".join(problems), (sent.key,))
    again = call(then(messages, reply.text, prompt.fill("repair", problems="\n".join(f"- {p}" for p in problems))))
    (second,) = yield [again]
    translated, problems, _ = check_reply(second, work, lang)
    if translated is not None:
        return Outcome(translated, repaired=1)
    return Outcome(None, "after one repair request, " + "; ".join(problems), (sent.key, again.key), repaired=1)


# ---------------------------------------------------------------- results, written as they come

class TranslateJob:
    """The notes to translate and where their results go; ``settle`` writes each one at once."""

    def __init__(self, corpus: Path, work: list[Work], lang: str, settings: LLMSettings,
                 progress: Progress | None) -> None:
        self.corpus, self.work, self.lang, self.settings = corpus, work, lang, settings
        self.progress = progress
        self.prompt = Prompt.load("translate", lang)
        self.by_path = {w.path: w for w in work}
        self.written: list[str] = []
        self.redone = self.repaired = self.count = 0
        self.failed: list[tuple[str, str]] = []
        self.problems: list[Diagnostic] = []

    def talk(self, work: Work) -> Talk[parts.Translated]:
        return Talk(work.path, work.digest, lambda: converse(work, self.lang, self.prompt, self.settings.model))

    def settle(self, path: str, outcome: Outcome[parts.Translated]) -> None:
        work = self.by_path[path]
        self.repaired += outcome.repaired
        if outcome.value is None:
            self.failed.append((work.path, outcome.failure))
            self.problems.append(error(work.path, 0, f"not translated to {self.lang}: {outcome.failure}",
                                       "translate-failed"))
        else:
            pause("translate.answered")
            text = parts.render_translation(work.front, outcome.value, self.lang, work.text_digest,
                                            self.settings.model)
            if self._write_if_unchanged(work, text):
                self.written.append(work.target)
                self.redone += bool(work.target_digest)
                pause("translate.written")
        self.count += 1
        if self.progress is not None:
            self.progress("translate", self.count, len(self.work))

    def _write_if_unchanged(self, work: Work, text: str) -> bool:
        if as_read(self.corpus / work.path, work.digest) is None:
            self.problems.append(warning(work.path, 0, "changed while it was being translated; its translation "
                                                       "was not written (run again)", "translate-conflict"))
            return False
        if not write_if_unchanged(self.corpus / work.target, work.target_digest, text):
            self.problems.append(warning(work.target, 0, "changed while a new translation was being made; left "
                                                         "as it is", "translate-conflict"))
            return False
        return True


# ---------------------------------------------------------------- the stage

def translate(corpus: Path, lang: str, engine: str = "openai", batch: bool = False, limit: int | None = None,
              progress: Progress | None = None, backoff_base: float = 1.0) -> TranslateResult:
    """Translate into ``lang`` up to ``limit`` originals (path order) that lack a current translation."""
    if lang not in LANGUAGES:
        raise CorpusError(f"cannot translate to {lang!r}: choose one of {', '.join(LANGUAGES)}")
    if engine not in ENGINES:
        raise CorpusError(f"unknown translation engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    if not corpus.is_dir():
        raise CorpusError(f"{corpus}: corpus directory not found")
    config, _ = load_config(corpus)
    settings = LLMSettings.resolve(config.llm, corpus)
    work, current, problems = find_work(corpus, lang)
    if limit is not None:
        work = work[:max(0, limit)]
    job = TranslateJob(corpus, work, lang, settings, progress)
    usage = run_talks(corpus, settings, [job.talk(w) for w in work], job.settle, batch=batch, progress=progress,
                      backoff_base=backoff_base)
    return TranslateResult(tuple(job.written), job.redone, tuple(job.failed), current, job.repaired, usage,
                           usage.cost(settings), settings.model, tuple([*problems, *job.problems]),
                           settings.batch_price_factor)
