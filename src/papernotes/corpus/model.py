"""Typed, immutable records passed between stages.

``Note`` is what the parse step makes of one Markdown file (metadata and the
outline of its sections; the body stays on disk and is re-read when its page is
rendered). ``Entry`` is a note after resolution against the taxonomy: its venue,
domain and topics as taxonomy records and its URL. Pages are built from entries.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from papernotes import layout
from papernotes.taxonomy import Domain, Topic, Venue

#: Canonical sections in display order: key -> (zh heading, en heading, other accepted headings).
SECTIONS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "summary": ("一句话总结", "TL;DR", ("tldr", "one-line summary", "summary", "一句话")),
    "background": ("研究背景与动机", "Background and motivation", ("background", "motivation", "研究背景", "背景与动机", "背景")),
    "method": ("方法详解", "Method", ("methods", "approach", "方法")),
    "experiments": ("实验关键数据", "Experiments", ("experimental results", "results", "key results", "实验")),
    "highlights": ("亮点与洞察", "Highlights", ("insights", "亮点")),
    "limitations": ("局限性", "Limitations", ("局限",)),
    "related": ("相关工作与启发", "Related work", ("related works", "相关工作")),
    "ratings": ("评分", "Ratings", ("rating", "scores")),
}

#: Rating dimensions: key -> accepted names in the 评分 / Ratings section.
RATING_KEYS: dict[str, tuple[str, ...]] = {
    "novelty": ("新颖性", "创新性", "novelty", "originality"),
    "experiments": ("实验充分度", "实验", "experiments", "experimental rigor"),
    "writing": ("写作质量", "写作", "writing", "clarity"),
    "value": ("价值", "实用价值", "value", "significance", "impact"),
}

LINK_KINDS = ("arxiv", "openreview", "code", "pdf")

LANGUAGES = layout.LANGUAGES
"""Languages a note may be written in; also the suffixes of translations (``foo.en.md``)."""


class SectionInfo(NamedTuple):
    """Outline entry of one ``##`` section of a note (a tuple: a large corpus has hundreds of thousands)."""

    key: str
    """Canonical key (see ``SECTIONS``) or ``""`` for a section of the author's own."""
    heading: str
    """Heading text as written."""
    line: int
    """1-based line of the heading in the file."""
    chars: int
    """Length of the section's body, surrounding blank space removed; 0 means empty."""


@dataclass(frozen=True, slots=True)
class Grounding:
    """Front matter ``grounding:``: the note's numbers as checked against its paper by ``draft``."""

    checked: int
    """Numbers the note states that were looked up in the paper."""
    unsupported: int
    """Of those, how many the paper does not have (each is marked ``⚠`` in the body)."""
    pdf_sha256: str
    """SHA-256 of the PDF they were checked against."""
    not_in_paper: tuple[str, ...] = ()
    """The unsupported numbers as the note writes them, for the page to show without the PDF."""

    @property
    def supported(self) -> int:
        return self.checked - self.unsupported

    def to_front(self) -> dict[str, Any]:
        """The mapping written into front matter (what ``parse`` reads back)."""
        front: dict[str, Any] = {"checked": self.checked, "unsupported": self.unsupported,
                                 "pdf_sha256": self.pdf_sha256}
        if self.not_in_paper:
            front["not_in_paper"] = list(self.not_in_paper)
        return front


@dataclass(frozen=True, slots=True)
class TranslationOf:
    """What makes a note a translation: its file name has a language suffix (``foo.en.md`` of ``foo.md``)."""

    original: str
    """Path of the original, relative to the corpus: the same name without the suffix."""
    digest: str
    """Front matter ``translation_of.digest``: the original's ``text_digest`` when the translation was made;
    ``""`` when the translation does not record it (made by hand)."""
    model: str = ""
    """Front matter ``translation_of.model``: the model that translated it (``papernotes translate``)."""


@dataclass(frozen=True, slots=True)
class Note:
    """One parsed note: front matter and section outline, no body."""

    path: str
    """Path relative to the corpus root, with ``/`` separators."""
    slug: str
    """File name without ``.md``; the last URL segment."""
    id: str
    title: str
    venue: str
    domain: str
    """Domain slug; ``""`` when the note has none yet (``classify --apply`` fills it)."""
    topics: tuple[str, ...] | None
    """Topics as written in front matter; ``None`` when the key is absent (rules decide)."""
    keywords: tuple[str, ...]
    summary: str
    """The one-line summary (Markdown, may contain ``$math$``)."""
    links: tuple[tuple[str, str], ...]
    """``(kind, url)`` pairs; kinds in ``LINK_KINDS`` first."""
    authors: tuple[str, ...]
    lang: str
    ratings: tuple[tuple[str, float], ...]
    aliases: tuple[str, ...]
    """Old URLs (site-relative, e.g. ``ICML2026/optimization/foo/``) that redirect here."""
    sections: tuple[SectionInfo, ...]
    body_line: int
    """1-based file line where the Markdown body starts."""
    field_lines: dict[str, int]
    """Front-matter key -> 1-based line, for diagnostics."""
    extra: dict[str, Any]
    """Front-matter keys papernotes does not interpret, kept verbatim: a theme's own keys reach templates here,
    e.g. ``cover_image: x.png`` as ``c.entry.note.extra.cover_image`` on note pages."""
    arxiv_id: str = ""
    digest: str = ""
    """Hash of the file's bytes."""
    abstract: str = ""
    status: str = ""
    """``stub`` for notes made by ``ingest`` and not drafted yet; ``""`` otherwise."""
    local_links: tuple[str, ...] = ()
    """Relative link targets in the body (other notes, site pages), for link checking."""
    title_html: str = ""
    """The title rendered as HTML (math kept as TeX spans)."""
    summary_html: str = ""
    """The one-line summary rendered as inline HTML."""
    grounding: Grounding | None = None
    """Front matter ``grounding``: numbers checked against the paper; ``None`` when never checked."""
    translation_of: TranslationOf | None = None
    """Set for a translation (``foo.en.md``); ``None`` for an original."""
    text_digest: str = ""
    """SHA-1 of what a translation is made from: title, front-matter summary, keywords and body
    (``corpus.translation.text_digest``); a translation records its original's."""
    figures: tuple[int, ...] = ()
    """Front matter ``figures: [2, 3]``: numbers of the paper's figures the page shows besides its teaser."""
    show_figures: bool = True
    """False when front matter says ``figures: none``: the page shows no figure, not even the teaser."""
    paper: str = ""
    """The PDF beside the note (``foo.md`` ↔ ``foo.pdf``; a translation's is its original's), relative to the
    corpus; ``""`` when there is none. Set by the load stage, which folds the PDF's mtime and size into
    ``digest``, so a PDF added, replaced or removed is an edit of the note."""

    def line_of(self, key: str) -> int:
        return self.field_lines.get(key, 1)

    def to_row(self) -> tuple[Any, ...]:
        """Plain tuples and dicts only, for the fast ``marshal`` codec of the build cache."""
        values = [getattr(self, name) for name in NOTE_FIELDS]
        values[NOTE_FIELDS.index("sections")] = tuple(map(tuple, self.sections))
        if self.grounding is not None:
            g = self.grounding
            values[NOTE_FIELDS.index("grounding")] = (g.checked, g.unsupported, g.pdf_sha256, g.not_in_paper)
        if self.translation_of is not None:
            t = self.translation_of
            values[NOTE_FIELDS.index("translation_of")] = (t.original, t.digest, t.model)
        return tuple(values)

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Note:
        values = list(row)
        idx = NOTE_FIELDS.index("sections")
        values[idx] = tuple(map(SectionInfo._make, values[idx]))
        idx = NOTE_FIELDS.index("grounding")
        if idx < len(values) and values[idx] is not None:
            values[idx] = Grounding(*values[idx])
        idx = NOTE_FIELDS.index("translation_of")
        if idx < len(values) and values[idx] is not None:
            values[idx] = TranslationOf(*values[idx])
        return cls(*values)


NOTE_FIELDS = tuple(Note.__dataclass_fields__)


@dataclass(frozen=True, slots=True)
class Entry:
    """A note placed in the site: resolved taxonomy records and URL."""

    note: Note
    venue: Venue
    domain: Domain
    topics: tuple[Topic, ...]
    url: str
    """Site-relative URL of the note page, e.g. ``ICML2026/optimization/foo/``."""
    order: tuple[int, str, str, str] = field(default=(0, "", "", ""))
    """Site-wide order: newest venue first, then venue id, domain slug and slug."""
    stale_translation: bool = False
    """In an edition of another language: ``note`` is a translation made before the last edit of its
    original's text (its ``translation_of.digest`` is not the original's ``text_digest``); the page says so."""
