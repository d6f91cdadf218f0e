"""Page models shared by every page kind: links, crumbs, pagers, the ``Page`` record and the planner's labels."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Link:
    """A labelled link, optionally with the count of notes behind it."""

    label: str
    """Text shown for the link, e.g. ``🧪 ICML2026`` or a topic's name."""
    url: str
    """Site-relative target, e.g. ``ICML2026/optimization/`` (pass it through ``rel``); an in-page anchor
    (``#ICML2026``) on topic pages; an absolute URL for a note's external links."""
    count: int = 0
    """Number of notes behind the link (what the field holding the link says); 0 where no count applies."""


@dataclass(frozen=True, slots=True)
class Alternate:
    """The same page in one edition of the site (the language switch, ``<link rel="alternate" hreflang>``)."""

    lang: str
    """The edition's language: ``zh`` or ``en``."""
    label: str
    """The language's name in that language: ``中文``, ``English``."""
    url: str
    """Site-relative URL of the page in that edition, prefix included (``en/ICML2026/``); that edition's
    home when it lacks the page."""


@dataclass(frozen=True, slots=True)
class PaperItem:
    """One note in a listing: title linking to the note, one-line summary beneath."""

    title_html: str
    """The note's title as HTML (math kept as TeX spans); safe to output unescaped."""
    summary_html: str
    """The one-line summary as inline HTML; safe to output unescaped."""
    url: str
    """Site-relative URL of the note's page."""
    context: str = ""
    """Venue / domain label shown on cross-venue listings (topic pages); empty elsewhere."""
    key: str = ""
    """Digest of the title, summary and language: stands for them in page fingerprints (a body edit leaves it)."""
    lang: str = ""
    """Language the title and summary are written in; a listing marks a note whose ``lang`` differs from the
    page's (a note not translated into this edition's language)."""


@dataclass(frozen=True, slots=True)
class RelatedItem:
    """One related note on a note page (``NoteContext.related``)."""

    title: str
    """The note's title as plain text."""
    url: str
    """Site-relative URL of the note's page."""
    venue: str
    """The note's venue id, e.g. ``ICLR2026``."""


@dataclass(frozen=True, slots=True)
class Crumb:
    """One step of a page's breadcrumb trail (``page.crumbs``)."""

    label: str
    """Text shown, e.g. ``首页`` / ``Home`` or ``🧪 ICML2026``."""
    url: str
    """Site-relative URL of that page (``""`` for home)."""


@dataclass(frozen=True, slots=True)
class PagerLink:
    """One page of a listing split into pages (``Pager.pages``)."""

    number: int
    """1-based page number."""
    url: str
    """Site-relative URL: the listing's own for page 1, ``…/page/{n}/`` after it."""


@dataclass(frozen=True, slots=True)
class Pager:
    """Where a page stands in a listing longer than ``page_size`` (``site/paging.py``)."""

    number: int
    """This page's number, from 1."""
    pages: tuple[PagerLink, ...]
    """Every page of the listing, in order."""
    first: int
    """1-based position in the whole list of the first item this page shows."""
    last: int
    """Position of the last item this page shows."""
    total: int
    """Items in the whole list."""

    @property
    def prev(self) -> PagerLink | None:
        return self.pages[self.number - 2] if self.number > 1 else None

    @property
    def next(self) -> PagerLink | None:
        return self.pages[self.number] if self.number < len(self.pages) else None

    @property
    def window(self) -> tuple[PagerLink | None, ...]:
        """The page links to show: the first, the last and two either side of this one, ``None`` for a gap
        (``1 … 5 6 [7] 8 9 … 120``), so a list of a hundred pages is a short line."""
        last = len(self.pages)
        keep = sorted({1, last, *range(max(1, self.number - 2), min(last, self.number + 2) + 1)})
        shown: list[PagerLink | None] = []
        for n in keep:
            if shown and n > (shown[-1].number if shown[-1] else 0) + 1:
                shown.append(None)
            shown.append(self.pages[n - 1])
        return tuple(shown)


@dataclass(frozen=True)
class Page:
    """One page of the site: where it goes, which template renders it and with what."""

    url: str
    """Site-relative URL: ``""`` for home, ``ICML2026/`` for a directory page, ``404.html`` for a file."""
    template: str
    """Template name, e.g. ``venue_domain.html``; resolved through the theme folder first."""
    title: str
    """Plain-text page title (the ``<title>`` adds the site's)."""
    context: Any
    """The page's context dataclass, given to the template as ``c``."""
    crumbs: tuple[Crumb, ...] = ()
    """Breadcrumb trail from the home page to the page's parent; empty on the home page."""
    fingerprint: str = ""
    """Digest of everything the page shows; the build re-renders a page only when it changes."""
    edition: str = ""
    """URL prefix of the page's edition: ``""`` for the site language's, ``en/`` or ``zh/`` for another.
    ``url`` includes it; every URL of the context is relative to it (``rel`` adds it)."""
    lang: str = ""
    """Interface language of the page's edition (``""``: the site language)."""
    alternates: tuple[Alternate, ...] = ()
    """The same page in every edition, this one included; empty on a one-language site."""

    @property
    def output_path(self) -> str:
        return self.url + "index.html" if self.url == "" or self.url.endswith("/") else self.url


@dataclass(frozen=True, slots=True)
class SiteLabels:
    """Translated strings the planner needs (from ``data/i18n.toml``)."""

    lang: str
    """``zh`` or ``en``."""
    strings: dict[str, str]
    """Key -> text with optional ``{n}``-style placeholders; the template's ``t`` looks keys up here."""

    def __call__(self, key: str, **kw: object) -> str:
        text = self.strings.get(key, key)
        return text.format(**kw) if kw else text
