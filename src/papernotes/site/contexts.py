"""Page models: the records the planner produces and the templates receive.

Each template gets exactly one context dataclass, documented here field by field
(``pages.plan_site`` builds them; ``theme.Theme`` renders them). Pure data, no logic
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
    url: str
    """Site-relative target, e.g. ``ICML2026/optimization/``."""
    count: int = 0


@dataclass(frozen=True, slots=True)
class PaperItem:
    """One note in a listing: title linking to the note, one-line summary beneath."""

    title_html: str
    summary_html: str
    url: str
    context: str = ""
    """Venue / domain label shown on cross-venue listings (topic pages); empty elsewhere."""
    key: str = ""
    """Digest of the note's file: stands for title and summary in page fingerprints."""


@dataclass(frozen=True, slots=True)
class Crumb:
    label: str
    url: str


@dataclass(frozen=True, slots=True)
class VenueDomainContext:
    """``/{VENUE}/{domain}/``: the seed's page."""

    heading: str
    """Domain icon and name, e.g. ``📐 优化/理论``."""
    anchor: str
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
    venue: Venue
    count: int
    domains: tuple[Link, ...]
    hot: tuple[Link, ...]


@dataclass(frozen=True, slots=True)
class DomainSection:
    venue: Link
    items: tuple[PaperItem, ...]


@dataclass(frozen=True, slots=True)
class DomainContext:
    """``/domains/{domain}/``: one domain across venues."""

    heading: str
    count: int
    venues: tuple[Link, ...]
    hot: tuple[Link, ...]
    sections: tuple[DomainSection, ...]


@dataclass(frozen=True, slots=True)
class DomainsIndexContext:
    """``/domains/``: every domain with its count."""

    domains: tuple[Link, ...]


@dataclass(frozen=True, slots=True)
class TopicContext:
    """``/topics/{topic}/``: notes sharing a topic, grouped by venue, newest first."""

    heading: str
    count: int
    sections: tuple[DomainSection, ...]
    """Per venue: ``venue.url`` is an in-page anchor, ``venue.count`` the notes in the group."""


@dataclass(frozen=True, slots=True)
class TopicsIndexContext:
    """``/topics/``: every topic with its count, most frequent first."""

    topics: tuple[Link, ...]


@dataclass(frozen=True, slots=True)
class VenueCard:
    venue: Link
    domain_count: int
    domains: tuple[Link, ...]


@dataclass(frozen=True, slots=True)
class HomeContext:
    """``/``: totals and one card per venue."""

    notes: int
    venues: int
    domains: int
    cards: tuple[VenueCard, ...]
    topics: tuple[Link, ...]


@dataclass(frozen=True, slots=True)
class NoteContext:
    """``/{VENUE}/{domain}/{slug}/``: one note."""

    entry: Entry
    title_html: str
    summary_html: str
    venue: Link
    domain: Link
    topics: tuple[Link, ...]
    links: tuple[Link, ...]
    ratings: tuple[tuple[str, float], ...]
    """``(label, score)`` pairs in canonical order."""
    prev: Link | None
    next: Link | None
    link_map: tuple[tuple[str, str | None], ...]
    """Relative links in the body -> site-relative target (``None``: broken)."""
    extra_meta: tuple[tuple[str, str], ...] = ()
    """Other metadata lines kept from an import (``meta:`` in front matter), as (label, inline HTML)."""
    grounding: Grounding | None = None
    """Front matter ``grounding``: numbers checked against the paper (``supported``/``checked``) and the ones
    not in it (``not_in_paper``, shown highlighted); ``None`` when the note was never checked."""


@dataclass(frozen=True, slots=True)
class SimpleContext:
    """404 and search pages: no data beyond the site."""

    kind: str


@dataclass(frozen=True, slots=True)
class RedirectContext:
    """An old URL kept alive: points to the note's current page."""

    target: str
    title: str


@dataclass(frozen=True)
class Page:
    url: str
    """Site-relative URL: ``""`` for home, ``ICML2026/`` for a directory page, ``404.html`` for a file."""
    template: str
    title: str
    context: Any
    crumbs: tuple[Crumb, ...] = ()
    fingerprint: str = ""

    @property
    def output_path(self) -> str:
        return self.url + "index.html" if self.url == "" or self.url.endswith("/") else self.url


@dataclass(frozen=True, slots=True)
class SiteLabels:
    """Translated strings the planner needs (from ``data/i18n.toml``)."""

    lang: str
    strings: dict[str, str]

    def __call__(self, key: str, **kw: object) -> str:
        text = self.strings.get(key, key)
        return text.format(**kw) if kw else text
