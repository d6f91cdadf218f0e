"""Page models of the listing pages: venue × domain, venue, domain, topic, their indexes and home, with trend charts."""
from __future__ import annotations

from dataclasses import dataclass

from papernotes.taxonomy import Venue
from papernotes.site.contexts.common import Link, Pager, PaperItem


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
