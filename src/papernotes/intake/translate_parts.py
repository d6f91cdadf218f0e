"""Translate stage, pure part: a note cut into what is translated, a model's reply checked, the translation written.

In: an original note's front matter and body. Out: the JSON payload a model
translates (title, the front-matter summary and keywords, the text before the
first ``##`` heading and every ``##`` section); from a reply, a ``Translated``
record or every reason it cannot be used; and the translation's text
(``render_translation``): the original's paper-level front matter (id, venue,
domain, slug, authors, topics, ratings, links, aliases, abstract, grounding)
copied, title, summary and keywords translated, ``lang`` and ``translation_of``
set, every canonical section under the target language's canonical heading.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from papernotes.corpus import translation
from papernotes.corpus.frontmatter import render
from papernotes.corpus.model import SECTIONS
from papernotes.corpus.sections import demote_headings, section_key
from papernotes.corpus.sections import split_body as split_sections
from papernotes.intake.replies import validate_data

COPIED = ("id", "venue", "domain", "slug", "authors", "topics", "ratings", "links", "aliases", "abstract",
          "grounding")
"""Front-matter keys of the original that a translation repeats as they are: they describe the paper."""
ORDER = ("id", "title", "venue", "domain", "slug", "lang", "translation_of", "authors", "summary", "keywords",
         "topics", "ratings", "links", "aliases", "abstract", "grounding")



@dataclass(frozen=True, slots=True)
class Part:
    """One ``##`` section of a body."""

    key: str
    """Canonical key (``SECTIONS``) or ``""`` for a section of the author's own."""
    heading: str
    text: str
    """The section's Markdown without its heading, surrounding blank lines removed."""


@dataclass(frozen=True, slots=True)
class Translated:
    """A usable translation of one note's translatable text."""

    title: str
    summary: str
    """``""`` when the original has no ``summary:`` in front matter."""
    keywords: tuple[str, ...]
    preamble: str
    sections: tuple[Part, ...]
    """In the original's order, canonical ones under the target language's heading."""


def split_body(body: str) -> tuple[str, tuple[Part, ...]]:
    """The text before the first ``##`` heading, and every ``##`` section (headings in code blocks do not count)."""
    preamble, sections = split_sections(body)
    return preamble, tuple(Part(s.key, s.heading, s.content) for s in sections)


def heading(key: str, lang: str) -> str:
    zh, en, _ = SECTIONS[key]
    return zh if lang == "zh" else en


def payload(front: dict[str, Any], title: str, body: str) -> dict[str, Any]:
    """What the model translates: the keys it must answer with, in order."""
    out: dict[str, Any] = {"title": title}
    if isinstance(front.get("summary"), str) and front["summary"].strip():
        out["summary"] = front["summary"].strip()
    keywords = front.get("keywords")
    if isinstance(keywords, list) and keywords:
        out["keywords"] = [str(k) for k in keywords]
    preamble, parts = split_body(body)
    if preamble:
        out["preamble"] = preamble
    out["sections"] = [{"heading": p.heading, "text": p.text} for p in parts]
    return out


def _text(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"`{key}` is missing or empty")
    return value.strip()


class TranslationReply(BaseModel):
    """A model's translation of one note's ``payload``; validated with ``context={"source": payload, "lang": …}``:
    only what the payload holds is asked for, and the sections answer its sections one for one."""

    model_config = ConfigDict(extra="ignore", validate_default=True)

    title: str = ""
    summary: str = ""
    keywords: tuple[str, ...] = ()
    preamble: str = ""
    sections: tuple[Part, ...] = ()

    @field_validator("title", mode="before")
    @classmethod
    def _title(cls, value: Any) -> str:
        return " ".join(_text(value, "title").split())

    @field_validator("summary", mode="before")
    @classmethod
    def _summary(cls, value: Any, info: ValidationInfo) -> str:
        return " ".join(_text(value, "summary").split()) if "summary" in info.context["source"] else ""

    @field_validator("keywords", mode="before")
    @classmethod
    def _keywords(cls, value: Any, info: ValidationInfo) -> tuple[str, ...]:
        if "keywords" not in info.context["source"]:
            return ()
        if not isinstance(value, list) or not value or not all(isinstance(k, str) and k.strip() for k in value):
            raise ValueError("`keywords` must be a non-empty list of strings")
        return tuple(dict.fromkeys(k.strip() for k in value))

    @field_validator("preamble", mode="before")
    @classmethod
    def _preamble(cls, value: Any, info: ValidationInfo) -> str:
        return demote_headings(_text(value, "preamble")) if "preamble" in info.context["source"] else ""

    @field_validator("sections", mode="before")
    @classmethod
    def _sections(cls, value: Any, info: ValidationInfo) -> tuple[Part, ...]:
        wanted, lang = info.context["source"]["sections"], info.context["lang"]
        if not isinstance(value, list) or len(value) != len(wanted):
            raise ValueError(f"`sections` must be a list of {len(wanted)} objects {{\"heading\", \"text\"}}, one per "
                             "section of the input, in its order")
        parts, errors = [], []
        for i, (want, got) in enumerate(zip(wanted, value, strict=True)):
            got = got if isinstance(got, dict) else {}
            text = got.get("text")
            if not isinstance(text, str) or (want["text"] and not text.strip()):
                errors.append(f"`sections[{i}].text` is missing or empty")
                continue
            key = section_key(want["heading"])
            title_of = heading(key, lang) if key else got.get("heading")
            if not isinstance(title_of, str) or not title_of.strip():
                errors.append(f"`sections[{i}].heading` is missing or empty")
                continue
            parts.append(Part(key, " ".join(title_of.split()), demote_headings(text.strip("\n"))))
        if errors:
            raise ValueError("\n".join(errors))
        return tuple(parts)


def validate(data: dict[str, Any], source: dict[str, Any], lang: str) -> tuple[Translated | None, list[str]]:
    """A ``Translated`` from a reply's JSON object (``TranslationReply``), checked against the ``payload`` it
    answers."""
    reply, errors = validate_data(TranslationReply, data, {"source": source, "lang": lang})
    if reply is None:
        return None, errors
    return Translated(reply.title, reply.summary, reply.keywords, reply.preamble, reply.sections), []


def assemble(translated: Translated) -> str:
    """The translation's body."""
    parts = [translated.preamble] if translated.preamble else []
    parts += [f"## {p.heading}\n{p.text}" if p.text else f"## {p.heading}" for p in translated.sections]
    return "\n\n".join(parts)


def document(title: str, summary: str, keywords: tuple[str, ...] | list[str], body: str) -> str:
    """One Markdown text holding everything translated, for the checks of what must survive (``translate_guard``)."""
    return "\n\n".join(x for x in (title, summary, ", ".join(keywords), body) if x)


def render_translation(front: dict[str, Any], translated: Translated, lang: str, digest: str, model: str) -> str:
    """The text of the translation file."""
    out: dict[str, Any] = {key: front[key] for key in COPIED if key in front}
    out["title"] = translated.title
    out["lang"] = lang
    out[translation.KEY] = translation.to_front(digest, model)
    if translated.summary:
        out["summary"] = translated.summary
    if translated.keywords:
        out["keywords"] = list(translated.keywords)
    return render(out, "\n" + assemble(translated) + "\n", order=ORDER)


def request_json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1)
