"""Page models: the records the planner produces and the templates receive.

Each template gets exactly one context dataclass, documented here field by field
(``plan.plan_site`` builds them; ``theme.Theme`` renders them). Pure data, no logic
beyond formatting helpers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from papernotes.corpus.model import Entry, Grounding
from papernotes.taxonomy import Venue


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
    """Digest of the note's file: stands for title and summary in page fingerprints."""


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
class VenueDomainContext:
    """``/{VENUE}/{domain}/``: every note of one domain at one venue, the page the reference sites are built around."""

    heading: str
    """Domain icon and name, e.g. ``📐 优化/理论``."""
    anchor: str
    """Id of the heading (the domain's slug), so ``#optimization`` links keep working."""
    venue: Link
    """Venue icon + id linking to the venue page; ``count`` is the number of notes on this page."""
    cross: tuple[Link, ...]
    """Same domain in every other venue that has it, newest venue first, with counts."""
    hot: tuple[Link, ...]
    """Most frequent topics on this page with counts (``×n``)."""
    items: tuple[PaperItem, ...]
    """Every note, ordered by slug."""


@dataclass(frozen=True, slots=True)
class VenueContext:
    """``/{VENUE}/``: the venue's domains with counts."""

    heading: str
    """Venue icon and id, e.g. ``🧪 ICML2026``."""
    venue: Venue
    """The venue's taxonomy record: ``id``, ``icon``, ``zh`` and ``en`` full names, dates."""
    count: int
    """Number of notes of the venue."""
    domains: tuple[Link, ...]
    """The venue × domain pages, most notes first, with counts."""
    hot: tuple[Link, ...]
    """Up to ten most frequent topics of the venue with counts (``×n``)."""


@dataclass(frozen=True, slots=True)
class DomainSection:
    """One venue's group of notes on a domain or topic page."""

    venue: Link
    """The venue × domain page (an in-page anchor on topic pages), ``count`` the notes in the group."""
    items: tuple[PaperItem, ...]
    """The group's notes: by slug on domain pages, by domain then slug on topic pages."""


@dataclass(frozen=True, slots=True)
class DomainContext:
    """``/domains/{domain}/``: one domain across venues."""

    heading: str
    """Domain icon and name."""
    count: int
    """Number of notes in the domain, all venues together."""
    venues: tuple[Link, ...]
    """The venue × domain page of every venue that has the domain, newest venue first, with counts."""
    hot: tuple[Link, ...]
    """Up to ten most frequent topics of the domain with counts (``×n``)."""
    sections: tuple[DomainSection, ...]
    """One group of notes per venue, in the order of ``venues``."""


@dataclass(frozen=True, slots=True)
class DomainsIndexContext:
    """``/domains/``: every domain with its count."""

    domains: tuple[Link, ...]
    """Every domain page with its count, most notes first."""


@dataclass(frozen=True, slots=True)
class TopicContext:
    """``/topics/{topic}/``: notes sharing a topic, grouped by venue, newest first."""

    heading: str
    """The topic's name."""
    count: int
    """Number of notes with the topic."""
    sections: tuple[DomainSection, ...]
    """Per venue: ``venue.url`` is an in-page anchor, ``venue.count`` the notes in the group."""


@dataclass(frozen=True, slots=True)
class TopicsIndexContext:
    """``/topics/``: every topic with its count, most frequent first."""

    topics: tuple[Link, ...]
    """Every topic page with its count, most notes first."""


@dataclass(frozen=True, slots=True)
class VenueCard:
    """One venue on the home page."""

    venue: Link
    """The venue page, ``count`` the venue's notes."""
    domain_count: int
    """Number of the venue's domains."""
    domains: tuple[Link, ...]
    """The venue × domain pages, most notes first, labelled with the domain name only."""


@dataclass(frozen=True, slots=True)
class HomeContext:
    """``/``: totals and one card per venue."""

    notes: int
    """Number of notes on the site."""
    venues: int
    """Number of venues."""
    domains: int
    """Number of distinct domains."""
    cards: tuple[VenueCard, ...]
    """One card per venue, newest first."""
    topics: tuple[Link, ...]
    """The thirty most frequent topics with counts."""


@dataclass(frozen=True, slots=True)
class NoteContext:
    """``/{VENUE}/{domain}/{slug}/``: one note."""

    entry: Entry
    """The resolved note: ``entry.note`` has the front matter (``authors``, ``keywords``, ``lang``, …),
    ``entry.venue``, ``entry.domain`` and ``entry.topics`` the taxonomy records."""
    title_html: str
    """The title as HTML (math kept as TeX spans); safe to output unescaped."""
    summary_html: str
    """The one-line summary as inline HTML; empty when the note has none."""
    venue: Link
    """The venue page."""
    domain: Link
    """The note's venue × domain page, labelled with the domain's icon and name."""
    topics: tuple[Link, ...]
    """The note's topic pages."""
    links: tuple[Link, ...]
    """External links (arXiv, OpenReview, code, PDF, …): absolute URLs, not to pass through ``rel``."""
    ratings: tuple[tuple[str, float], ...]
    """``(label, score)`` pairs in canonical order."""
    prev: Link | None
    """The previous note of the same venue × domain page (by slug), ``None`` for the first."""
    next: Link | None
    """The next note of the same venue × domain page, ``None`` for the last."""
    link_map: tuple[tuple[str, str | None], ...]
    """Relative links in the body -> site-relative target (``None``: broken)."""
    extra_meta: tuple[tuple[str, str], ...] = ()
    """Other metadata lines kept from an import (``meta:`` in front matter), as (label, inline HTML)."""
    grounding: Grounding | None = None
    """Front matter ``grounding``: numbers checked against the paper (``supported``/``checked``) and the ones
    not in it (``not_in_paper``, shown highlighted); ``None`` when the note was never checked."""
    related: tuple[RelatedItem, ...] = ()
    """The five nearest notes across venues by title, summary and keywords (TF-IDF cosine), best first;
    other notes about the same paper left out (``site/related.py``)."""


@dataclass(frozen=True, slots=True)
class SimpleContext:
    """404 and search pages: no data beyond the site."""

    kind: str
    """``search`` or ``404``."""


@dataclass(frozen=True, slots=True)
class RedirectContext:
    """An old URL kept alive: points to the note's current page."""

    target: str
    """Site-relative URL of the note's current page."""
    title: str
    """The note's title as plain text."""


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
