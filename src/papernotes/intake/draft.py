"""Draft stage: notes that need a draft (``status: stub``, or canonical sections all empty) get one.

In: the corpus's notes, an engine (``papernotes.intake.engines``), a
language and ``--force``; a note's paper when its PDF is beside it (``foo.md``
↔ ``foo.pdf``). Out: each note rewritten atomically the moment its draft is
ready, its canonical sections replaced (``papernotes.intake.redraft``: sections
a person edited since the last draft are kept), and ``summary``, ``keywords``,
``ratings``, ``lang`` (the language the text is in), ``status: drafted``,
``draft_digest``, ``draft_date`` (and ``draft_model``, ``draft_prompt`` for a language model's draft)
and, when the paper was read, ``grounding: {checked,
unsupported, pdf_sha256}`` in its front matter; numbers the paper does not
have are marked ``⚠`` in the text. Every note not drafted is listed with why.

This module holds what every engine shares: finding the notes to draft,
validating a model's reply (its JSON read by ``intake.prompt``), rendering and
writing a note, and the ``DraftJob`` an engine works through. A PDF that cannot be read is reported as
``path.pdf: error: …`` and the note is drafted from its abstract. A note that
changed on disk while its draft was being made is left alone.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

from papernotes.config import load_config
from papernotes.corpus.frontmatter import DELETE, KEY_ORDER, FrontMatterError, read, update
from papernotes.corpus.scan import scan
from papernotes.corpus.model import RATING_KEYS, SECTIONS, Grounding
from papernotes.corpus.translation import translation_name
from papernotes.disk import write_if_unchanged
from papernotes.errors import CorpusError, Diagnostic, error, warning
from papernotes.extras import require
from papernotes.intake.conversation import Usage
from papernotes.intake.engines import ENGINES, DraftEngine
from papernotes.intake.engines._paper import abstract_of
from papernotes.intake.llm import LLMSettings
from papernotes.intake.paper import PaperError, PaperText, cache_dir, paper_path, read_paper
from papernotes.intake.prompt import prompt_version
from papernotes.intake.replies import DraftReply, read_reply
from papernotes.intake.draft_record import DIGEST_KEY, KEYWORDS, digest, keywords_digest, own_keywords, record_of
from papernotes.intake.redraft import SECTION_KEYS, decide, heading_language, language, merge, prose
from papernotes.registry import UnknownName
from papernotes.testhooks import pause

MAX_KEYWORDS = 10
SKIP_TRANSLATION = "a translation (`papernotes translate` makes it from its original)"
SKIP_UNREADABLE = "cannot be read (`papernotes check` says why)"

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class Stub:
    """A note waiting for a draft, as read from disk."""

    path: str
    """Relative to the corpus."""
    digest: str
    """SHA-1 of the file's bytes when read; the note is only rewritten if it still matches."""
    front: dict[str, Any]
    body: str
    source: str = ""
    """The note's text as read: a draft rewrites its front matter in place, comments and key order kept."""
    keep: tuple[str, ...] = ()
    """Canonical sections (``summary``: with the front matter's) a person wrote since the last draft: kept."""

    def text(self, key: str) -> str:
        value = self.front.get(key)
        return " ".join(value.split()) if isinstance(value, str) else ""

    def authors(self) -> list[str]:
        value = self.front.get("authors")
        return [str(a) for a in value] if isinstance(value, list) else []


@dataclass(frozen=True, slots=True)
class Drafted:
    """A validated draft of one note."""

    summary: str
    keywords: tuple[str, ...]
    sections: dict[str, str]
    """Markdown of each of ``SECTION_KEYS``."""
    ratings: dict[str, int]
    """``RATING_KEYS`` -> 1..5; empty when the engine does not rate (extractive)."""
    engine: str


@dataclass(frozen=True, slots=True)
class DraftResult:
    drafted: tuple[str, ...]
    failed: tuple[tuple[str, str], ...]
    """``(path, reason)`` of stubs left as stubs with ``draft_error``."""
    repaired: int = 0
    """Replies that needed a repair request because they were not the expected JSON."""
    usage: Usage | None = None
    cost: float = 0.0
    model: str = ""
    diagnostics: tuple[Diagnostic, ...] = field(default=())
    grounded: int = 0
    """Drafted notes whose numbers were checked against their paper."""
    checked: int = 0
    """Numbers checked in those notes."""
    unsupported: int = 0
    """Numbers still not in the paper after the repair (marked ``⚠``)."""
    ground_repaired: int = 0
    """Drafts sent back once because some of their numbers were not in the paper."""
    engine: str = ""
    batch_price_factor: float = 1.0
    """What a batch token costs relative to a live one (for the cost line)."""
    skipped: tuple[tuple[str, str], ...] = ()
    """``(path, why)`` of every note not drafted."""
    kept: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """``(path, keys)`` of drafted notes whose sections a person had edited, kept as they were."""
    previews: tuple[tuple[str, str, str], ...] = ()
    """With ``preview``: ``(path, text now, text the draft would write)`` of each note drafted; nothing written."""


# ---------------------------------------------------------------- reading stubs

class Found(NamedTuple):
    stubs: list[Stub]
    """The notes to draft, in path order."""
    abstracts: list[str]
    """Every note's abstract (the extractive engine's corpus)."""
    skipped: list[tuple[str, str]]
    """``(path, why)`` of the other notes."""


def find_stubs(corpus: Path, force: bool = False) -> Found:
    """The notes that need a draft (``redraft.decide``; ``force``: drafted ones too), and why the others do not."""
    found = Found([], [], [])
    for source in sorted(scan(corpus), key=lambda f: f.path):
        try:
            data = (corpus / source.path).read_bytes()
            text = data.decode("utf-8")
            front, body, _ = read(text)
        except (OSError, UnicodeDecodeError, FrontMatterError):
            found.skipped.append((source.path, SKIP_UNREADABLE))
            continue
        if isinstance(front.get("abstract"), str) and front["abstract"].strip():
            found.abstracts.append(front["abstract"])
        if translation_name(source.path)[1]:
            found.skipped.append((source.path, SKIP_TRANSLATION))
            continue
        decision = decide(front, body, force)
        if decision.skip:
            found.skipped.append((source.path, decision.skip))
        else:
            found.stubs.append(Stub(source.path, hashlib.sha1(data).hexdigest(), front, body, text, decision.keep))
    return found


def stub_abstract(stub: Stub, paper: PaperText | None) -> str:
    """The note's abstract, else the one printed in its paper, else ``""``: what every engine drafts from."""
    return stub.text("abstract") or (abstract_of(paper) if paper is not None else "")


# ---------------------------------------------------------------- validating replies

def validate_reply(text: str, engine: str = "openai") -> tuple[Drafted | None, list[str]]:
    """A ``Drafted`` from a model reply (``replies.DraftReply``), or every reason the reply cannot be used."""
    reply, errors = read_reply(DraftReply, text)
    if reply is None:
        return None, errors
    return Drafted(reply.summary, reply.keywords, reply.sections, dict(reply.ratings or {}), engine), []


# ---------------------------------------------------------------- writing notes

def heading(key: str, lang: str) -> str:
    zh, en, _ = SECTIONS[key]
    return zh if lang == "zh" else en


def _rating_label(key: str, lang: str) -> str:
    names = RATING_KEYS[key]
    return names[0] if lang == "zh" else next(n for n in names if n.isascii()).capitalize()


def _merge_keywords(*groups: Any) -> list[str]:
    """Drafted keywords, then the source's own ones, without case-insensitive repeats."""
    out: list[str] = []
    seen: set[str] = set()
    for group in groups:
        for keyword in group:
            text = str(keyword).strip()
            if text and text.casefold() not in seen:
                seen.add(text.casefold())
                out.append(text)
    return out[:MAX_KEYWORDS]


def _drafted_parts(drafted: Drafted, lang: str) -> dict[str, str]:
    """Canonical key -> ``## heading`` and text of each section the draft wrote."""
    parts = {"summary": f"## {heading('summary', lang)}\n{drafted.summary}"}
    parts.update((key, f"## {heading(key, lang)}\n{drafted.sections[key]}") for key in SECTION_KEYS)
    if drafted.ratings:
        lines = "\n".join(f"- {_rating_label(k, lang)}: {'⭐' * v}" for k, v in drafted.ratings.items())
        parts["ratings"] = f"## {heading('ratings', lang)}\n{lines}"
    return parts


def body_parts(stub: Stub, drafted: Drafted, lang: str) -> list[tuple[str, str]]:
    """``(key, text)`` of each part of the drafted body, in order: ``key`` names a section the draft wrote,
    ``""`` text the note keeps (its own sections, sections a person edited, text before the headings)."""
    return merge(stub.body, _drafted_parts(drafted, lang), stub.keep)


def render_drafted(stub: Stub, drafted: Drafted, lang: str, model: str = "",
                   grounding: Grounding | None = None) -> str:
    """The note's text with its draft: canonical sections replaced, the note's own and edited text kept."""
    parts = body_parts(stub, drafted, lang)
    written = {key: text.split("\n", 1)[1] if "\n" in text else "" for key, text in parts if key}
    record = {k: v for k, v in record_of(stub.front).items() if k not in stub.keep}
    record.update((key, digest(text)) for key, text in written.items())
    keywords = _merge_keywords(drafted.keywords, own_keywords(stub.front))  # the last draft's replaced, not kept
    record[KEYWORDS] = keywords_digest(drafted.keywords)
    summary = drafted.summary if "summary" in written else stub.text("summary")
    front: dict[str, Any] = {"draft_error": DELETE, "keywords": keywords,
                             "lang": language(f"{summary}\n{prose(parts)}"), "status": "drafted",
                             "draft_engine": drafted.engine, DIGEST_KEY: record,
                             "grounding": grounding.to_front() if grounding is not None else DELETE}
    if "summary" in written:
        front["summary"] = drafted.summary
    if drafted.ratings and "ratings" in written:
        front["ratings"] = dict(drafted.ratings)
    front["draft_date"] = datetime.now(timezone.utc).date().isoformat()
    # a language model wrote it from the prompt file of the note's language; an offline redraft forgets them
    front["draft_model"] = model or DELETE
    front["draft_prompt"] = prompt_version("draft", lang) if model else DELETE
    body = "\n\n".join(text for _, text in parts)
    return update(stub.source, front, order=KEY_ORDER, body="\n" + body + "\n")


class DraftJob:
    """What an engine works through: the stubs, their languages and papers, and where results go.

    ``finish`` and ``fail`` write the note at once (only if it did not change
    on disk meanwhile) and count it; engines call them as drafts arrive, in
    any order.
    """

    def __init__(self, corpus: Path, stubs: list[Stub], langs: dict[str, str], abstracts: list[str],
                 settings: LLMSettings | None, progress: Progress | None = None, backoff_base: float = 1.0,
                 preview: bool = False) -> None:
        self.corpus, self.stubs, self.langs, self.abstracts = corpus, stubs, langs, abstracts
        self.settings, self.progress, self.backoff_base = settings, progress, backoff_base
        self.preview = preview
        """Keep each finished draft in ``previews`` instead of writing it (``draft --diff``)."""
        self.previews: list[tuple[str, str, str]] = []
        self.drafted: list[str] = []
        self.failed: list[tuple[str, str]] = []
        self.problems: list[Diagnostic] = []
        self.repaired = self.ground_repaired = 0
        self.grounded = self.checked = self.unsupported = 0
        self.count = 0
        self._papers: dict[str, PaperText | None] = {}

    def paper(self, stub: Stub) -> PaperText | None:
        """The stub's paper when its PDF is beside it and readable; an unreadable one is reported once."""
        if stub.path in self._papers:
            return self._papers[stub.path]
        pdf = paper_path(self.corpus / stub.path)
        paper = None
        if pdf.is_file():
            require("pypdf", "drafting from the PDF beside a note")
            try:
                paper = read_paper(pdf, cache_dir(self.corpus))
            except PaperError as exc:
                where = Path(stub.path).with_suffix(".pdf").as_posix()
                self.problems.append(error(where, 0, f"{exc.reason}; {stub.path} is drafted from its abstract",
                                           "paper-unreadable"))
        self._papers[stub.path] = paper
        return paper

    def abstract(self, stub: Stub) -> str:
        """The note's abstract, else its paper's (``stub_abstract``)."""
        return stub_abstract(stub, self.paper(stub))

    def finish(self, stub: Stub, drafted: Drafted, grounding: Grounding | None = None, model: str = "") -> None:
        if self._done(stub, render_drafted(stub, drafted, self.langs[stub.path], model, grounding)):
            self.drafted.append(stub.path)
            if grounding is not None:
                self.grounded += 1
                self.checked += grounding.checked
                self.unsupported += grounding.unsupported

    def fail(self, stub: Stub, reason: str) -> None:
        if self._done(stub, update(stub.source, {"draft_error": reason}, order=KEY_ORDER)):
            self.failed.append((stub.path, reason))
            still = "still a stub" if stub.text("status") == "stub" else "left as it was"
            self.problems.append(error(stub.path, 0, f"draft failed, {still}: {reason}", "draft-failed"))

    def _done(self, stub: Stub, text: str) -> bool:
        if self.preview:
            self.previews.append((stub.path, stub.source, text))
        written = self.preview or write_if_unchanged(self.corpus / stub.path, stub.digest, text)
        if written:
            pause("draft.written")
        if not written:
            self.problems.append(warning(stub.path, 0, "changed while it was being drafted; left as it is",
                                         "draft-conflict"))
        self.count += 1
        if self.progress is not None:
            self.progress("draft", self.count, len(self.stubs))
        return written


# ---------------------------------------------------------------- the stage

def asked_language(stub: Stub, site: str) -> str:
    """The language to write a draft in: the one the note's canonical headings are in (a redraft keeps the
    language of the draft before), else the note's ``lang`` until it is drafted (``new --lang en`` asks for
    English), else the site's. A drafted note's ``lang`` records what its text is in, not what was asked."""
    if found := heading_language(stub.body):
        return found
    drafted = isinstance(stub.front.get("draft_engine"), str)
    return stub.text("lang") if not drafted and stub.text("lang") in ("zh", "en") else site


def engine_for(name: str, batch: bool = False) -> DraftEngine:
    """The registered engine ``name``, or its batch mode; a ``CorpusError`` naming the choices otherwise."""
    try:
        engine = ENGINES.get(name)
    except UnknownName as exc:
        raise CorpusError(str(exc)) from None
    if not batch or any(e.batch == name for e in ENGINES):  # ``--engine openai_batch --batch`` is fine too
        return engine
    if not engine.batch:
        with_batch = [e.name for e in ENGINES if e.batch]
        raise CorpusError(f"the {name} engine has no batch mode (engines with one: {', '.join(with_batch)})")
    return ENGINES.get(engine.batch)


def chosen_notes(corpus: Path, notes: tuple[Path, ...]) -> frozenset[str]:
    """The corpus-relative paths of the notes named (as the shell gave them); a ``CorpusError`` naming the first
    that is not a note file inside ``corpus``."""
    root = corpus.resolve()
    chosen = set()
    for note in notes:
        path = note if note.is_absolute() else Path.cwd() / note
        try:
            rel = path.resolve().relative_to(root)
        except ValueError:
            raise CorpusError(f"{note}: not a note of {corpus}") from None
        if path.suffix != ".md" or not path.is_file():
            raise CorpusError(f"{note}: no such note (a .md file of {corpus})")
        chosen.add(rel.as_posix())
    return frozenset(chosen)


def draft(corpus: Path, engine: str = "openai", limit: int | None = None, lang: str | None = None,
          progress: Progress | None = None, backoff_base: float = 1.0, batch: bool = False,
          force: bool = False, notes: tuple[Path, ...] = (), preview: bool = False) -> DraftResult:
    """Draft up to ``limit`` notes of ``corpus`` that need it (in path order) with ``engine`` (its batch mode
    with ``batch``); ``force``: drafted notes too, edited sections included; ``notes``: only these (paths as
    given on the command line); ``preview``: write nothing, return what each note would become."""
    if not corpus.is_dir():
        raise CorpusError(f"{corpus}: corpus directory not found")
    chosen = engine_for(engine, batch)
    if preview and any(e.batch == chosen.name for e in ENGINES):
        raise CorpusError("--diff shows a redraft at once; the batch API answers within a day: leave out --batch")
    config, _ = load_config(corpus)
    stubs, abstracts, skipped = find_stubs(corpus, force)
    if notes:
        named = chosen_notes(corpus, notes)
        stubs = [s for s in stubs if s.path in named]
        skipped = [(path, why) for path, why in skipped if path in named]
    if limit is not None:
        skipped += [(s.path, f"left for a later run (--limit {limit})") for s in stubs[max(0, limit):]]
        stubs = stubs[:max(0, limit)]
    langs = {s.path: lang or asked_language(s, config.language) for s in stubs}
    settings = LLMSettings.resolve(config.llm, corpus) if chosen.uses_llm else None
    job = DraftJob(corpus, stubs, langs, abstracts, settings, progress, backoff_base, preview)
    usage = chosen.run(job) if stubs else (Usage() if chosen.uses_llm else None)
    done = set(job.drafted)
    return DraftResult(tuple(job.drafted), tuple(job.failed), job.repaired, usage,
                       usage.cost(settings) if usage is not None and settings is not None else 0.0,
                       settings.model if settings is not None else "", tuple(job.problems), job.grounded,
                       job.checked, job.unsupported, job.ground_repaired, chosen.name,
                       settings.batch_price_factor if settings is not None else 1.0, tuple(sorted(skipped)),
                       tuple((s.path, s.keep) for s in stubs if s.keep and s.path in done), tuple(job.previews))
