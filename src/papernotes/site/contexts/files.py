"""Page models of the pages that are files: feeds, .bib files, sitemap, robots.txt, 404, search and redirects."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FeedEntry:
    """One note in an Atom feed."""

    title: str
    """The note's title as plain text."""
    url: str
    """Absolute URL of the note's page (also the entry's id)."""
    updated: str
    """The note's date as an RFC 3339 date-time (``NoteContext.date`` at midnight UTC)."""
    summary_html: str
    """The one-line summary as inline HTML (escaped into the feed as ``type="html"``)."""
    authors: tuple[str, ...]
    """Author names from front matter (may be empty)."""
    categories: tuple[str, ...]
    """Names of the note's venue, domain and topics."""


@dataclass(frozen=True, slots=True)
class FeedContext:
    """``/feeds/….xml``: an Atom feed of the newest notes of the site, of a venue, a domain or a topic."""

    title: str
    """Feed title, e.g. ``Paper Notes · 联邦学习``."""
    id: str
    """Absolute URL of the feed itself (its id and ``rel="self"`` link)."""
    page: str
    """Absolute URL of the HTML page the feed follows (``rel="alternate"``)."""
    updated: str
    """The newest entry's date (RFC 3339); stable across rebuilds."""
    entries: tuple[FeedEntry, ...]
    """The newest notes, newest first (by date, then URL), at most ``FEED_ENTRIES``."""


@dataclass(frozen=True, slots=True)
class BibContext:
    """``/bib/….bib``: BibTeX of the papers of the whole site or of one venue × domain page."""

    entries: tuple[str, ...]
    """One BibTeX entry per paper, in the page's order, keys unique within the file (``cite.bibtex_entry``)."""


@dataclass(frozen=True, slots=True)
class SitemapContext:
    """``/sitemap.xml``: the public URL of every page worth indexing (sitemaps.org protocol)."""

    urls: tuple[str, ...]
    """Absolute URLs of the pages, in URL order (empty in a sitemap index)."""
    parts: tuple[str, ...] = ()
    """In a sitemap index (more than 50,000 pages): absolute URLs of the part files, each a plain sitemap."""


@dataclass(frozen=True, slots=True)
class RobotsContext:
    """``/robots.txt``: crawlers may read everything; points at the sitemap."""

    sitemap: str
    """Absolute URL of ``sitemap.xml``; empty when ``base_url`` is not absolute."""
    sitemaps: tuple[str, ...] = ()
    """Absolute URLs of every edition's sitemap, the site language's (``sitemap``) first; empty when
    ``base_url`` is not absolute."""


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
