"""Plan stage, related papers: what the stage reads of a note, and its terms.

In: a note's title, summary, keywords and arXiv id. Out: ``RelatedInput`` (path, the paper it
is about, its terms with repeats) and ``input_digest`` (what decides whether its list, and its
place in others, must be computed again). Terms are Latin words of two characters or more (ASCII,
joined by ``-`` or ``'``) and CJK 2- and 3-grams, case-folded, composed of ``papernotes.text``'s
primitives, which search, classify and drafting share.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from papernotes.digests import stable_bytes
from papernotes.text import cjk_runs, latin_words, ngrams

_TITLE_KEY = re.compile(r"\W+")


@dataclass(frozen=True, slots=True)
class RelatedInput:
    """What the related-papers stage reads of one note."""

    path: str
    """The note's file path (stable identity; ties break by it)."""
    paper: str
    """The paper the note is about: ``arxiv:ID`` or ``title:normalised title``; equal values are duplicates."""
    terms: tuple[str, ...]
    """The note's terms with repeats (``terms_of``)."""


def terms_of(title: str, summary: str, keywords: Sequence[str]) -> tuple[str, ...]:
    """Latin words (two characters or more), then CJK 2- and 3-grams of the text, case-folded, with repeats."""
    text = " ".join((title, summary, *keywords)).casefold()
    out = [word for word in latin_words(text, "[-']", accents=False) if len(word) > 1]
    for run in cjk_runs(text):
        out += ngrams(run, 2)
        out += ngrams(run, 3)
    return tuple(out)


def paper_key(arxiv_id: str, title: str) -> str:
    return f"arxiv:{arxiv_id.lower()}" if arxiv_id else "title:" + _TITLE_KEY.sub("", title.casefold())


def input_digest(title: str, summary: str, keywords: Sequence[str], arxiv_id: str) -> str:
    """Digest of everything a note's related list and its place in other lists depend on."""
    return hashlib.blake2b(stable_bytes((title, summary, tuple(keywords), arxiv_id)), digest_size=12).hexdigest()


def related_input(path: str, title: str, summary: str, keywords: Sequence[str], arxiv_id: str) -> RelatedInput:
    return RelatedInput(path, paper_key(arxiv_id, title), terms_of(title, summary, keywords))
