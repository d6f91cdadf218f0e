"""Corpus stage, translations: which file is a translation of which, and what it records (pure).

A note ``foo.md`` may have a translation beside it, ``foo.en.md`` or
``foo.zh.md``: the file name without a language suffix is the original, the
suffix is the translation's language. Both are the same paper: the
translation has the original's slug (so its URL lines up), id, venue and
domain. In front matter it records what it was made from::

    translation_of: {digest: 3f1c…}   # the original's text_digest when translated

``text_digest`` hashes what a translation is made from — title, front-matter
summary, keywords and body — so editing only other front matter of the
original (topics, domain, links, grounding) does not make its translations
stale. ``check`` compares the two digests; ``translate`` redoes the stale ones.

In: a note's relative path and its ``translation_of`` value. Out: the
``TranslationOf`` record (``corpus.model``) and diagnostics.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from papernotes.corpus.model import LANGUAGES, TranslationOf
from papernotes.errors import Diagnostic, error

KEY = "translation_of"
_SUFFIX = re.compile(r"^(?P<stem>.+)\.(?P<lang>" + "|".join(LANGUAGES) + r")\.md$")
_DIGEST = re.compile(r"[0-9a-f]{40}")


def translation_name(path: str) -> tuple[str, str]:
    """``(original path, language)`` of a translation's path (``a/foo.en.md`` → ``("a/foo.md", "en")``);
    ``(path, "")`` for an original."""
    folder, _, name = path.rpartition("/")
    m = _SUFFIX.match(name)
    if m is None:
        return path, ""
    return (f"{folder}/" if folder else "") + m["stem"] + ".md", m["lang"]


def translation_path(original: str, lang: str) -> str:
    """Where the ``lang`` translation of ``original`` lives: ``a/foo.md`` → ``a/foo.en.md``."""
    return original.removesuffix(".md") + f".{lang}.md"


def text_digest(title: str, summary: str, keywords: Sequence[str], body: str) -> str:
    """SHA-1 of a note's translatable text (title, front-matter summary, keywords, body)."""
    blob = json.dumps([title, summary, list(keywords), body], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha1(blob.encode("utf-8", "surrogatepass")).hexdigest()


def to_front(digest: str, model: str = "") -> dict[str, str]:
    """The ``translation_of`` mapping written into a translation's front matter (what ``read_record`` reads)."""
    return {"digest": digest, "model": model} if model else {"digest": digest}


def read_record(value: Any, path: str, line: int, problems: list[Diagnostic]) -> TranslationOf | None:
    """The ``TranslationOf`` of the note at ``path`` (``None`` for an original); bad records are reported."""
    original, lang = translation_name(path)
    if not lang:
        if value is not None:
            problems.append(error(path, line, f"`{KEY}` is only for translations: name the file "
                                              f"{path.removesuffix('.md')}.en.md (or .zh.md) beside its original",
                                  "translation"))
        return None
    if value is None:
        return TranslationOf(original, "")
    shape = f"`{KEY}` must be a mapping {{digest: <40 hex digits>}} (and optionally `model`)"
    if not isinstance(value, dict) or set(value) - {"digest", "model"}:
        problems.append(error(path, line, shape, "schema"))
        return TranslationOf(original, "")
    digest, model = value.get("digest"), value.get("model", "")
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest) or not isinstance(model, str):
        problems.append(error(path, line, shape, "schema"))
        return TranslationOf(original, "")
    return TranslationOf(original, digest, model.strip())
