"""Page models: the records the planner produces and the templates receive.

Each template gets exactly one context dataclass, documented here field by field
(``plan.plan_site`` builds them; ``theme.Theme`` renders them). Pure data, no logic
beyond formatting helpers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from papernotes.cite import Citation
from papernotes.corpus.model import Entry, Grounding
from papernotes.errors import Diagnostic
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
    """Every note, ordered by slug (this page's share of them when the list is split into pages)."""
    pager: Pager | None = None
    """Where this page stands when the notes are more than ``page_size``; ``None``: one page shows them all."""
    bib: str = ""
    """Site-relative URL of the ``.bib`` file of the whole venue × domain list: a BibTeX entry for each paper."""


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
    """One group of notes per venue, in the order of ``venues`` (this page's share of the groups when the notes
    are split into pages; a group's ``venue.count`` stays the whole group's)."""
    trend: TrendChart | None = None
    """Notes of the domain per venue, oldest venue first, as a chart (``None`` with a single venue)."""
    feed: str = ""
    """Site-relative URL of the domain's Atom feed; empty when the site has no feeds (``base_url`` not absolute)."""
    pager: Pager | None = None
    """Where this page stands when the notes are more than ``page_size``; ``None``: one page shows them all."""


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
    venues: tuple[Link, ...]
    """Every venue with the topic, newest first, with its count: an in-page anchor (``#ICML2026``) to its group,
    or the later page the group starts on (``topics/x/page/2/#ICML2026``) when the notes are split into pages."""
    sections: tuple[DomainSection, ...]
    """Per venue: ``venue.url`` is an in-page anchor, ``venue.count`` the notes in the whole group (this page's
    share of the groups when the notes are split into pages)."""
    trend: TrendChart | None = None
    """Notes with the topic per venue, oldest venue first, as a chart (``None`` with a single venue)."""
    feed: str = ""
    """Site-relative URL of the topic's Atom feed; empty when the site has no feeds."""
    pager: Pager | None = None
    """Where this page stands when the notes are more than ``page_size``; ``None``: one page shows them all."""


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
    growth: tuple[SeriesGrowth, ...] = ()
    """Per conference series with two editions or more: the topics growing fastest from the older to the
    newer of its two latest editions (``site/trends.py``)."""
    feed: str = ""
    """Site-relative URL of the site's Atom feed of new notes; empty when the site has no feeds."""
    bib: str = ""
    """Site-relative URL of the site's ``.bib`` file: a BibTeX entry for every paper."""


@dataclass(frozen=True, slots=True)
class FigureView:
    """One figure of the note's paper, rendered from the PDF beside the note (``site/figures.py``)."""

    number: int
    """The figure's number in the paper (``2`` for "Figure 2")."""
    label: str
    """The label as the paper prints it, e.g. ``Figure 2``."""
    caption: str
    """The whole caption as plain text (escape it: it comes from the PDF)."""
    url: str
    """Site-relative URL of the image file, beside the note's page (pass it through ``rel``)."""
    width: int
    """Width of the image in pixels (at least 800 where the PDF allows)."""
    height: int
    """Height of the image in pixels; with ``width`` it reserves the image's box before it loads."""


@dataclass(frozen=True, slots=True)
class FigureFile:
    """An image file the build copies into the site beside a note's page (the page kind ``figure``)."""

    source: str
    """Where the build's figure cache keeps the rendered image (``CORPUS/.papernotes/figures/…``)."""
    digest: str
    """Stands for the image's bytes: the PDF's SHA-256, the figure's number and the image's size."""


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a note came from, as its front matter records it (``draft``, ``import-mkdocs``)."""

    engine: str = ""
    """Front matter ``draft_engine``: the draft engine that wrote it (``openai``, ``extractive``); ``""``: not drafted."""
    model: str = ""
    """Front matter ``draft_model``: the language model, when the engine used one."""
    prompt: str = ""
    """Front matter ``draft_prompt``: the prompt file and a digest of its text, e.g. ``draft.zh@1a2b3c4d``."""
    date: str = ""
    """Front matter ``draft_date``: the day of the draft, ``YYYY-MM-DD``."""
    imported_from: str = ""
    """Front matter ``imported_from.site`` and ``.path``: the MkDocs site and file the note was imported from."""
    imported_url: str = ""
    """Front matter ``imported_from.repo``: the imported site's repository (an http(s) URL), or ``""``."""


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
    date: str = ""
    """The note's date, ``YYYY-MM-DD``: front matter ``date`` when valid, else its venue's date (feeds and
    structured data use it)."""
    related: tuple[RelatedItem, ...] = ()
    """The five nearest notes across venues by title, summary and keywords (TF-IDF cosine), best first;
    other notes about the same paper left out (``site/related/``)."""
    teaser: FigureView | None = None
    """The paper's Figure 1 (else its first figure), from the PDF beside the note, shown under the summary
    and as the page's ``og:image``; ``None`` without a PDF, with ``figures: none`` or ``figures = false``."""
    figures: tuple[FigureView, ...] = ()
    """The figures front matter ``figures: [2, 3]`` asks for, in that order (the 论文图表 / Figures section)."""
    figure_problems: tuple[Diagnostic, ...] = ()
    """What went wrong finding those figures (a number the paper lacks, an unreadable PDF): the build reports
    them with the page's problems; not for display."""
    citation: Citation | None = None
    """The paper's citation (``papernotes/cite.py``): title, ``authors``, ``year``, ``conference`` or
    ``journal``, ``arxiv_id``, ``pdf_url``, plain text to escape; the page's ``citation_*`` meta tags."""
    bibtex: str = ""
    """The paper's BibTeX entry (LaTeX specials already escaped for BibTeX; HTML-escape it), the Cite box."""
    provenance: Provenance | None = None
    """Who or what wrote the note and when (the provenance line); ``None`` for a note written by hand."""
    paper_url: str = ""
    """Where the body's numbers link (``#page=N`` added): the site's copy of the paper beside the page
    (``paper.pdf``, with ``publish_pdfs``), else arXiv's PDF; ``""``: the numbers link nowhere."""
    places_from: str = ""
    """The paper-cache record the numbers' places come from (the grounding's SHA-256 and the cache file's
    stat); ``""`` when this corpus never read the paper. Not for display: a new record re-renders the page."""
    report_url: str = ""
    """``report_url`` of papernotes.toml filled in for this note (its path and title, URL-encoded); ``""``:
    no "report a mistake" link."""


@dataclass(frozen=True, slots=True)
class TrendBar:
    """One venue in a trend chart: its count and the bar's geometry in the chart's own units."""

    venue: str
    """Venue id, e.g. ``ICLR2026`` (the label under the bar)."""
    count: int
    """Notes of the topic or domain at that venue."""
    share: float
    """``count`` as a percentage of all the venue's notes."""
    x: float
    """Left edge of the bar."""
    y: float
    """Top edge of the bar."""
    height: float
    """Height of the bar (0 for a venue without such notes)."""


@dataclass(frozen=True, slots=True)
class TrendChart:
    """A bar chart of notes per venue, oldest venue first, drawn as inline SVG by ``macros.html``'s ``trend``."""

    bars: tuple[TrendBar, ...]
    """One bar per venue of the site, oldest first."""
    width: int
    """Width of the SVG's ``viewBox`` (it scales to the page)."""
    height: int
    """Height of the ``viewBox``."""
    bar_width: float
    """Width of every bar."""
    base: float
    """Y of the axis line the bars stand on (venue labels go below it)."""


@dataclass(frozen=True, slots=True)
class GrowthTopic:
    """One topic's change between two editions of a conference series."""

    topic: Link
    """The topic page (``count`` unused: 0)."""
    before: int
    """Notes with the topic in the older edition."""
    after: int
    """Notes with the topic in the newer edition."""
    change: float
    """Change of the topic's share of the edition's notes, in percentage points (positive: growing)."""


@dataclass(frozen=True, slots=True)
class SeriesGrowth:
    """The fastest-growing topics of one conference series between its two latest editions."""

    series: str
    """Series name, e.g. ``ICLR``."""
    older: Link
    """The older edition's venue page, ``count`` its notes."""
    newer: Link
    """The newer edition's venue page, ``count`` its notes."""
    topics: tuple[GrowthTopic, ...]
    """Up to five topics, largest growth first."""


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
