"""Draft stage: stub notes (``status: stub``) become drafted notes.

In: the corpus's stubs, an engine and a language. Out: each stub rewritten
atomically the moment its draft is ready, with the canonical sections, and
``summary``, ``keywords``, ``ratings`` and ``status: drafted`` in its front
matter. Engines:

- ``openai``: any OpenAI-compatible chat endpoint (``papernotes.intake.llm``) with the
  prompts in ``papernotes/prompts``. A reply that is not the expected JSON gets
  one repair request that says what was wrong; if that fails too the note stays
  a stub and records ``draft_error``, and its replies are dropped from the cache
  so the next run asks again.
- ``extractive``: offline (``papernotes.intake.extractive``); sections hold abstract
  sentences, marked as such, and no ratings are made up.

A note that changed on disk while its draft was being made is left alone.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from papernotes.config import CACHE_DIR, load_config
from papernotes.corpus.frontmatter import DELETE, KEY_ORDER, FrontMatterError, read, update
from papernotes.corpus.load import scan
from papernotes.errors import CorpusError, Diagnostic, PapernotesError, error, warning
from papernotes.intake.extractive import Extract, Keyphraser, extract, split_sentences
from papernotes.intake.llm import CACHE_NAME, ChatClient, LLMSettings, RequestError, ResponseCache, Usage, cache_key
from papernotes.corpus.model import RATING_KEYS, SECTIONS
from papernotes.site.publish import atomic_write

ENGINES = ("openai", "extractive")
SECTION_KEYS = ("background", "method", "experiments", "highlights", "limitations", "related")
MAX_KEYWORDS = 10
_MARK = {"zh": "*摘自摘要（抽取式草稿，待人工整理）*", "en": "*From the abstract (extractive draft, to be edited)*"}
_MISSING = {"zh": "*摘要未涉及，待补充。*", "en": "*Not covered by the abstract; to be written.*"}

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
    source: str
    """The note's text as read: a draft rewrites its front matter in place, comments and key order kept."""

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
    """Replies that needed the repair request."""
    usage: Usage | None = None
    cost: float = 0.0
    model: str = ""
    diagnostics: tuple[Diagnostic, ...] = field(default=())


# ---------------------------------------------------------------- reading stubs

def find_stubs(corpus: Path) -> tuple[list[Stub], list[str]]:
    """Stubs in path order, and every note's abstract (the extractive engine's corpus)."""
    stubs: list[Stub] = []
    abstracts: list[str] = []
    for source in sorted(scan(corpus), key=lambda f: f.path):
        try:
            data = (corpus / source.path).read_bytes()
            text = data.decode("utf-8")
            front, body, _ = read(text)
        except (OSError, UnicodeDecodeError, FrontMatterError):
            continue  # `check` and `build` report unreadable notes
        if isinstance(front.get("abstract"), str) and front["abstract"].strip():
            abstracts.append(front["abstract"])
        if str(front.get("status", "")).strip() == "stub":
            stubs.append(Stub(source.path, hashlib.sha1(data).hexdigest(), front, body, text))
    return stubs, abstracts


# ---------------------------------------------------------------- validating replies

def _json_object(text: str) -> tuple[dict[str, Any] | None, str]:
    body = text.strip()
    if fence := re.match(r"^```(?:json)?\s*(.*?)\s*```$", body, re.S):
        body = fence.group(1)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        start, end = body.find("{"), body.rfind("}")
        try:
            data = json.loads(body[start:end + 1]) if 0 <= start < end else None
        except json.JSONDecodeError:
            data = None
        if data is None:
            return None, f"the reply is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
    if not isinstance(data, dict):
        return None, "the reply must be one JSON object"
    return data, ""


def _section_text(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(f"- {v.strip()}" for v in value if v.strip())
    if not isinstance(value, str):
        return ""
    # a heading inside a section would end the section in the note's outline
    return re.sub(r"^(#{1,2})(?=\s)", "###", value.strip(), flags=re.M)


def validate_reply(text: str, engine: str = "openai") -> tuple[Drafted | None, list[str]]:
    """A ``Drafted`` from a model reply, or every reason the reply cannot be used."""
    data, problem = _json_object(text)
    if data is None:
        return None, [problem]
    errors: list[str] = []
    summary = " ".join(data["summary"].split()) if isinstance(data.get("summary"), str) else ""
    if not summary:
        errors.append("`summary` is missing or empty")
    elif (n := len(split_sentences(summary))) != 1:
        errors.append(f"`summary` must be exactly one sentence, it has {n}")
    keywords = data.get("keywords")
    if not isinstance(keywords, list) or not keywords or not all(isinstance(k, str) and k.strip() for k in keywords):
        errors.append("`keywords` must be a non-empty list of strings")
        keywords = []
    sections_in: dict[str, Any] = data["sections"] if isinstance(data.get("sections"), dict) else data
    sections = {key: _section_text(sections_in.get(key)) for key in SECTION_KEYS}
    errors.extend(f"`sections.{key}` is missing or empty" for key, value in sections.items() if not value)
    ratings_in = data.get("ratings")
    ratings: dict[str, int] = {}
    if not isinstance(ratings_in, dict):
        errors.append(f"`ratings` must be an object with integer scores 1-5 for {', '.join(RATING_KEYS)}")
    else:
        for key in RATING_KEYS:
            value = ratings_in.get(key)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
                errors.append(f"`ratings.{key}` must be an integer from 1 to 5, got {json.dumps(value)}")
            else:
                ratings[key] = value
    if errors:
        return None, errors
    return Drafted(summary, tuple(dict.fromkeys(k.strip() for k in keywords)), sections, ratings, engine), []


# ---------------------------------------------------------------- writing notes

def _heading(key: str, lang: str) -> str:
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


def render_drafted(stub: Stub, drafted: Drafted, lang: str, model: str = "") -> str:
    """The stub's text with its draft: sections first, any text the stub already had after them."""
    source = stub.front.get("keywords") if isinstance(stub.front.get("keywords"), list) else []
    front: dict[str, Any] = {"draft_error": DELETE, "keywords": _merge_keywords(drafted.keywords, source),
                             "summary": drafted.summary, "lang": lang, "status": "drafted",
                             "draft_engine": drafted.engine}
    if drafted.ratings:
        front["ratings"] = dict(drafted.ratings)
    if model:
        front["draft_model"] = model
    parts = [f"## {_heading('summary', lang)}\n{drafted.summary}"]
    parts.extend(f"## {_heading(key, lang)}\n{drafted.sections[key]}" for key in SECTION_KEYS)
    if drafted.ratings:
        lines = "\n".join(f"- {_rating_label(k, lang)}: {'⭐' * v}" for k, v in drafted.ratings.items())
        parts.append(f"## {_heading('ratings', lang)}\n{lines}")
    if stub.body.strip():
        parts.append(stub.body.strip())
    return update(stub.source, front, order=KEY_ORDER, body="\n" + "\n\n".join(parts) + "\n")


def from_extract(found: Extract, lang: str) -> Drafted:
    """An extractive draft: each section quotes its abstract sentences under a visible mark."""
    sections = {}
    for key in SECTION_KEYS:
        sentences = found.sections.get(key, ())
        sections[key] = f"> {_MARK[lang]}\n>\n> " + " ".join(sentences) if sentences else _MISSING[lang]
    return Drafted(found.summary, found.keywords, sections, {}, "extractive")


def _write_if_unchanged(corpus: Path, stub: Stub, text: str) -> bool:
    path = corpus / stub.path
    try:
        current = path.read_bytes()
    except OSError:
        return False
    if hashlib.sha1(current).hexdigest() != stub.digest:
        return False
    atomic_write(path, text)
    return True


class _Outcome:
    """Collects what happened to each stub, in the order drafts finish."""

    def __init__(self, corpus: Path, total: int, progress: Progress | None) -> None:
        self.corpus, self.total, self.progress = corpus, total, progress
        self.count = 0
        self.drafted: list[str] = []
        self.failed: list[tuple[str, str]] = []
        self.problems: list[Diagnostic] = []

    def done(self, stub: Stub, text: str, failure: str = "") -> None:
        if not _write_if_unchanged(self.corpus, stub, text):
            self.problems.append(warning(stub.path, 0, "changed while it was being drafted; left as it is",
                                         "draft-conflict"))
        elif failure:
            self.failed.append((stub.path, failure))
            self.problems.append(error(stub.path, 0, f"draft failed, still a stub: {failure}", "draft-failed"))
        else:
            self.drafted.append(stub.path)
        self.count += 1
        if self.progress is not None:
            self.progress("draft", self.count, self.total)


# ---------------------------------------------------------------- engines

@dataclass(frozen=True, slots=True)
class Prompt:
    """One language's prompt file: system and user messages and the repair request."""

    system: Template
    user: Template
    repair: Template

    @classmethod
    def load(cls, lang: str) -> Prompt:
        text = resources.files("papernotes").joinpath("prompts", f"draft.{lang}.txt").read_text(encoding="utf-8")
        blocks = dict(re.findall(r"^=== (\w+) ===\n(.*?)(?=^=== \w+ ===\n|\Z)", text, re.S | re.M))
        return cls(*(Template(blocks[name].strip()) for name in ("system", "user", "repair")))

    def messages(self, stub: Stub) -> list[dict[str, str]]:
        user = self.user.safe_substitute(title=stub.text("title"), authors=", ".join(stub.authors()) or "-",
                                         venue=stub.text("venue") or "-", abstract=stub.text("abstract") or "-")
        return [{"role": "system", "content": self.system.safe_substitute()}, {"role": "user", "content": user}]


async def _draft_openai(corpus: Path, stubs: list[Stub], langs: dict[str, str], settings: LLMSettings,
                        outcome: _Outcome, backoff_base: float) -> tuple[Usage, int]:
    prompts = {lang: Prompt.load(lang) for lang in set(langs.values())}
    cache = ResponseCache(corpus / CACHE_DIR / CACHE_NAME)
    client = ChatClient(settings, cache, backoff_base=backoff_base)
    repaired = 0

    async def one(stub: Stub) -> None:
        nonlocal repaired
        prompt = prompts[langs[stub.path]]
        identity = (stub.text("id") or stub.path, stub.text("title"), stub.text("abstract"))
        messages = prompt.messages(stub)
        keys = [cache_key(identity, messages, settings.model)]
        try:
            reply = await client.complete(messages, keys[0])
            drafted, errors = validate_reply(reply.text)
            if errors:
                repaired += 1
                messages = [*messages, {"role": "assistant", "content": reply.text},
                            {"role": "user", "content": prompt.repair.safe_substitute(
                                errors="\n".join(f"- {e}" for e in errors))}]
                keys.append(cache_key(identity, messages, settings.model))
                reply = await client.complete(messages, keys[1])
                drafted, errors = validate_reply(reply.text)
        except RequestError as exc:
            drafted, errors = None, [str(exc)]
        if drafted is None:
            cache.forget(keys)
            failure = "; ".join(errors)
            outcome.done(stub, update(stub.source, {"draft_error": failure}, order=KEY_ORDER), failure)
        else:
            outcome.done(stub, render_drafted(stub, drafted, langs[stub.path], settings.model))

    try:
        async with asyncio.TaskGroup() as group:
            for stub in stubs:
                group.create_task(one(stub))
    except BaseExceptionGroup as exc:
        fatal = next((e for e in exc.exceptions if isinstance(e, PapernotesError)), None)
        if fatal is not None:
            raise fatal from None
        raise
    finally:
        await client.aclose()
        cache.close()
    return client.usage, repaired


def _draft_extractive(stubs: list[Stub], abstracts: list[str], langs: dict[str, str], outcome: _Outcome) -> None:
    keyphraser = Keyphraser(abstracts)
    for stub in stubs:
        abstract = stub.text("abstract")
        if not abstract:
            failure = "no abstract to extract from"
            outcome.done(stub, update(stub.source, {"draft_error": failure}, order=KEY_ORDER), failure)
            continue
        drafted = from_extract(extract(stub.text("title"), abstract, keyphraser), langs[stub.path])
        outcome.done(stub, render_drafted(stub, drafted, langs[stub.path]))


def draft(corpus: Path, engine: str = "openai", limit: int | None = None, lang: str | None = None,
          progress: Progress | None = None, backoff_base: float = 1.0) -> DraftResult:
    """Draft up to ``limit`` stubs of ``corpus`` (in path order) with ``engine``."""
    if not corpus.is_dir():
        raise CorpusError(f"{corpus}: corpus directory not found")
    if engine not in ENGINES:
        raise CorpusError(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    config, _ = load_config(corpus)
    stubs, abstracts = find_stubs(corpus)
    if limit is not None:
        stubs = stubs[:max(0, limit)]
    langs = {s.path: lang or (s.text("lang") if s.text("lang") in ("zh", "en") else config.language) for s in stubs}
    outcome = _Outcome(corpus, len(stubs), progress)
    if engine == "extractive":
        _draft_extractive(stubs, abstracts, langs, outcome)
        return DraftResult(tuple(outcome.drafted), tuple(outcome.failed), diagnostics=tuple(outcome.problems))
    settings = LLMSettings.resolve(config.llm, corpus)
    usage, repaired = (asyncio.run(_draft_openai(corpus, stubs, langs, settings, outcome, backoff_base))
                       if stubs else (Usage(), 0))
    return DraftResult(tuple(outcome.drafted), tuple(outcome.failed), repaired, usage, usage.cost(settings),
                       settings.model, tuple(outcome.problems))
