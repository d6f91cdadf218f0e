"""Classify stage, evidence: what in a note points at which domain, and how strongly.

In: a ``Note``, the ``Taxonomy`` and, when a PDF lies beside the note, its ``PaperText``. Out: ``Clue``s —
one per taxonomy phrase (or venue, or arXiv category) found, with where it was found and its weight — and
from them each domain's evidence. Pure. The rules classifier (``classify.by_rules``) turns the evidence into
confidences; the learned one (``classify.learned``) takes it as features; both name the clues of the domain
they chose, so a reader sees why a note landed where it did (``classify -v``, ``--json``).

Where a phrase stands decides its weight (``FIELD_WEIGHTS``): the title, keywords, one-line summary and a
track or workshop name say what a paper is about; an abstract, a PDF's section headings and its text also
name the fields it borrows from. A phrase counts once per domain, at the best place it was found.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from papernotes.corpus.model import Note
from papernotes.taxonomy import Taxonomy

if TYPE_CHECKING:
    from papernotes.intake.paper.model import PaperText

FIELD_WEIGHTS = {"title": 1.0, "keywords": 1.0, "summary": 1.0, "track": 1.0, "abstract": 0.75, "headings": 0.5,
                 "paper": 0.25}
"""Weight of a phrase by where it was found (times its own: 1 for a rule, ``HINT_WEIGHT`` for a hint)."""
PAPER_MIN_COUNT = 3
"""Times a phrase must occur in a PDF's text to count: a paper names many fields once, in passing."""
VENUE_WEIGHT = 0.5
"""Evidence a venue series listed under a domain's ``venues`` gives it (ACL for language, MICCAI for medical)."""
ARXIV_WEIGHT = 1.0
"""Evidence the note's arXiv primary category (front matter ``arxiv_category``) gives a domain listing it."""
ABSORB_MIN = 1.0
"""Own evidence a domain needs, from clues of weight ``STRONG`` or more, before the evidence of the domains it
``absorbs`` counts for it: a hint or two ("action", "3D") do not make a robotics paper."""
STRONG = 0.75
"""A clue this heavy is a rule phrase where a paper says what it is about (title, keywords, summary, track,
abstract) or the arXiv category."""
TRACK_KEYS = ("track", "workshop")
"""Front-matter keys naming a track or workshop of the venue (read as a field of weight 1)."""
ARXIV_KEYS = ("arxiv_category", "primary_category")
"""Front-matter keys naming the arXiv primary category."""


@dataclass(frozen=True, slots=True)
class Clue:
    """One piece of evidence for a domain."""

    domain: str
    phrase: str
    """The taxonomy's phrase, venue series or arXiv category."""
    where: str
    """``title``, ``keywords``, ``summary``, ``track``, ``abstract``, ``headings``, ``paper``, ``venue`` or
    ``arxiv``."""
    weight: float

    def __str__(self) -> str:
        return f"{self.phrase} ({self.where})"


def note_fields(note: Note) -> Iterator[tuple[str, str]]:
    """``(field, text)`` of what a note says about its paper; keywords one per line, so a phrase never spans
    two of them."""
    yield "title", note.title
    yield "keywords", "\n".join(note.keywords)
    yield "summary", note.summary
    for key in TRACK_KEYS:
        if isinstance(value := note.extra.get(key), str):
            yield "track", value
    yield "abstract", note.abstract


def clues(note: Note, taxonomy: Taxonomy, paper: PaperText | None = None) -> list[Clue]:
    """Every clue of the note (and its PDF, when given), the strongest of each (domain, phrase) only."""
    index = taxonomy.domain_index
    best: dict[tuple[str, str], Clue] = {}

    def add(clue: Clue) -> None:
        key = (clue.domain, clue.phrase.casefold())
        if key not in best or best[key].weight < clue.weight:
            best[key] = clue

    texts = list(note_fields(note))
    if paper is not None:
        texts.append(("headings", "\n".join(s.title for s in (*paper.sections, *paper.appendix))))
    for where, text in texts:
        for hit in index.hits(text):
            add(Clue(hit.owner, hit.phrase, where, hit.weight * FIELD_WEIGHTS[where]))
    if paper is not None:
        body = "\n".join(p.text for s in paper.sections for p in s.paragraphs)
        for hit, n in index.counts(body).items():
            if n >= PAPER_MIN_COUNT:
                add(Clue(hit.owner, hit.phrase, "paper", hit.weight * FIELD_WEIGHTS["paper"]))
    venue = taxonomy.venue(note.venue).name.casefold() if note.venue else ""
    category = next((v for k in ARXIV_KEYS if isinstance(v := note.extra.get(k), str)), "").strip()
    for domain in taxonomy.domains.values():
        if venue and any(v.casefold() == venue for v in domain.venues):
            add(Clue(domain.slug, taxonomy.venue(note.venue).name, "venue", VENUE_WEIGHT))
        if category and any(category == c or category.startswith(c + ".") for c in domain.arxiv):
            add(Clue(domain.slug, category, "arxiv", ARXIV_WEIGHT))
    return list(best.values())


def evidence(found: list[Clue], taxonomy: Taxonomy) -> tuple[dict[str, float], dict[str, str]]:
    """Each domain's evidence (the sum of its clues' weights), after every domain with at least ``ABSORB_MIN``
    of its own took the evidence of the domains it ``absorbs`` (the one with the most own evidence, when
    several absorb one); and which domain took which."""
    own: dict[str, float] = {}
    strong: dict[str, float] = {}
    for clue in found:
        own[clue.domain] = own.get(clue.domain, 0.0) + clue.weight
        if clue.weight >= STRONG:
            strong[clue.domain] = strong.get(clue.domain, 0.0) + clue.weight
    taken: dict[str, str] = {}
    for slug, weight in sorted(own.items(), key=lambda item: -item[1]):  # strongest first
        domain = taxonomy.domains.get(slug)
        if domain is None or strong.get(slug, 0.0) < ABSORB_MIN:
            continue
        for other in domain.absorbs:
            if other in own and other not in taken and other not in taken.values() and slug not in taken:
                taken[other] = slug
    result = dict(own)
    for other, slug in taken.items():
        result[slug] += result.pop(other, 0.0)
    return result, taken
