"""Plan stage: resolved entries become page records (pure).

In: resolved ``Entry`` records, the taxonomy and the site config. Out: a list of
``Page`` records, each naming its template, its documented context dataclass and
a fingerprint of everything it shows, so the build can skip unchanged pages.

The pages themselves come from the page kinds in ``site/kinds/`` (one module
per kind, found by the ``KINDS`` registry); this module builds the ``SiteIndex``
they share (the entries grouped every way a page needs them), runs them in
order and fingerprints what they return. A ``Scope`` limits planning to the
groups an edit touched. Every count shown on a page is computed from the
entries behind it.
"""
from __future__ import annotations

import hashlib
import posixpath
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from papernotes.corpus.model import Entry
from papernotes.digests import stable_bytes
from papernotes.errors import Diagnostic
from papernotes.registry import Registry
from papernotes.site.contexts import Crumb, Link, Page, PaperItem, SiteLabels
from papernotes.taxonomy import Domain, Taxonomy, Topic, Venue

if TYPE_CHECKING:
    from papernotes.config import SiteConfig
    from papernotes.site.figures import FigureStore

# ------------------------------------------------------------------ URLs and labels


def venue_url(venue: Venue) -> str:
    return f"{venue.id}/"


def cell_url(venue: Venue | str, domain: Domain | str) -> str:
    """The venue × domain page: ``ICML2026/optimization/``."""
    venue_id = venue if isinstance(venue, str) else venue.id
    slug = domain if isinstance(domain, str) else domain.slug
    return f"{venue_id}/{slug}/"


def topic_url(topic: Topic) -> str:
    return f"topics/{topic.slug}/"


def domain_page_url(domain: Domain) -> str:
    return f"domains/{domain.slug}/"


def venue_label(venue: Venue) -> str:
    return f"{venue.icon} {venue.id}"


def domain_label(domain: Domain, lang: str) -> str:
    return f"{domain.icon} {domain.name(lang)}"


def paper_item(entry: Entry, context: str = "") -> PaperItem:
    note = entry.note
    # the key stands for what a listing shows of the note, not for its file: a body edit leaves listings alone
    shown = hashlib.blake2b(f"{note.title_html}\0{note.summary_html}\0{note.lang}".encode(), digest_size=12)
    return PaperItem(note.title_html, note.summary_html, entry.url, context, shown.hexdigest(), note.lang)


def hot_topics(entries: Iterable[Entry], lang: str, limit: int, minimum: int) -> tuple[Link, ...]:
    """The ``limit`` most frequent topics with at least ``minimum`` notes.

    Ties keep the order in which topics first appear in ``entries`` (the page's own order).
    """
    counts: Counter[str] = Counter()
    first: dict[str, Topic] = {}
    for entry in entries:
        for topic in entry.topics:
            counts[topic.slug] += 1
            first.setdefault(topic.slug, topic)
    ranked = sorted(first, key=lambda slug: -counts[slug])  # stable: first appearance breaks ties
    return tuple(
        Link(first[s].name(lang), topic_url(first[s]), counts[s]) for s in ranked if counts[s] >= minimum
    )[:limit]


def site_urls(entries: Iterable[Entry]) -> set[str]:
    """Every directory page the site has (for resolving links written in note bodies)."""
    urls = {"", "topics/", "domains/", "search/"}
    for e in entries:
        urls.update((e.url, venue_url(e.venue), cell_url(e.venue, e.domain), domain_page_url(e.domain)))
        urls.update(topic_url(t) for t in e.topics)
    return urls


def resolve_local_link(note_path: str, note_url: str, target: str, by_path: dict[str, str],
                       urls: set[str] | frozenset[str]) -> str | None:
    """Map a relative link in a note body to a site-relative URL; ``None`` if nothing is there."""
    parts = urlsplit(target)
    path = unquote(parts.path)
    frag = f"#{parts.fragment}" if parts.fragment else ""
    if not path:
        return target
    if path.startswith("/"):
        candidate = path.lstrip("/")
    else:
        if path.endswith(".md"):
            rel = posixpath.normpath(posixpath.join(posixpath.dirname(note_path), path))
            found = by_path.get(rel)
            return found + frag if found is not None else None
        candidate = posixpath.normpath(posixpath.join(note_url, path))
        if candidate.startswith("../"):
            return None
    candidate = candidate.removesuffix("index.html")
    if candidate in ("", ".") or candidate in urls or candidate + "/" in urls:
        return (candidate if candidate != "." else "") + ("/" if candidate + "/" in urls else "") + frag
    return None


# ------------------------------------------------------------------ the shared index


def _group(entries: Iterable[Entry], key: Callable[[Entry], Any]) -> dict[Any, tuple[Entry, ...]]:
    groups: dict[Any, list[Entry]] = {}
    for entry in entries:
        groups.setdefault(key(entry), []).append(entry)
    return {k: tuple(v) for k, v in groups.items()}


@dataclass(frozen=True)
class SiteIndex:
    """The entries grouped every way a page kind needs them; built once per plan."""

    entries: tuple[Entry, ...]
    """Every entry in site order (newest venue first, then venue, domain and slug)."""
    venues: tuple[Venue, ...]
    """Venues that have notes, newest first."""
    domains: dict[str, Domain]
    """Domains that have notes, by slug."""
    topics: dict[str, Topic]
    """Topics that have notes, by slug, in order of first appearance."""
    by_venue: dict[str, tuple[Entry, ...]]
    by_cell: dict[tuple[str, str], tuple[Entry, ...]]
    """``(venue id, domain slug)`` -> entries ordered by slug: the venue × domain pages."""
    by_domain: dict[str, tuple[Entry, ...]]
    by_topic: dict[str, tuple[Entry, ...]]
    by_path: dict[str, str]
    """Note file path -> note page URL (links written as ``../other.md``)."""
    urls: frozenset[str]
    """Every directory page of the site (links written as site paths)."""
    related: Mapping[str, tuple[str, ...]]
    """Note path -> paths of its nearest notes across venues, best first (``site/related/``)."""

    @classmethod
    def of(cls, entries: Iterable[Entry], related: Mapping[str, tuple[str, ...]] | None = None) -> SiteIndex:
        """The index of ``entries``; ``related`` lists computed (and cached) by the build, else computed here."""
        ordered = tuple(sorted(entries, key=lambda e: e.order))
        if related is None:
            # lazy: 266 ms (importtime, beside papernotes.site.plan): `check` plans links without related papers
            from papernotes.site.related import related_of_entries

            related = related_of_entries(ordered)
        topics: dict[str, Topic] = {}
        by_topic: dict[str, list[Entry]] = {}
        for entry in ordered:
            for topic in entry.topics:
                topics.setdefault(topic.slug, topic)
                by_topic.setdefault(topic.slug, []).append(entry)
        cells = _group(ordered, lambda e: (e.venue.id, e.domain.slug))
        return cls(
            entries=ordered,
            venues=tuple(sorted({e.venue.id: e.venue for e in ordered}.values(), key=lambda v: v.sort_key)),
            domains={e.domain.slug: e.domain for e in ordered},
            topics=topics,
            by_venue=_group(ordered, lambda e: e.venue.id),
            by_cell={k: tuple(sorted(v, key=lambda e: e.note.slug)) for k, v in cells.items()},
            by_domain=_group(ordered, lambda e: e.domain.slug),
            by_topic={k: tuple(v) for k, v in by_topic.items()},
            # a translation's links to ../other.md name the originals: both paths lead to the page
            by_path={path: e.url for e in ordered for path in (
                (e.note.path, e.note.translation_of.original) if e.note.translation_of else (e.note.path,))},
            urls=frozenset(site_urls(ordered)),
            related=related,
        )

    def domain_order(self, slug: str, count: int) -> tuple[int, int, str]:
        """Domains on a venue's card and page: most notes first, then taxonomy order."""
        return (-count, self.domains[slug].order, slug)


@dataclass(frozen=True)
class Scope:
    """The groups an edit touched; a kind plans only the pages of these groups. ``None`` means all."""

    notes: frozenset[str] = frozenset()
    """Note paths whose own page must be planned (its neighbours' pages too when titles changed)."""
    cells: frozenset[tuple[str, str]] = frozenset()
    venues: frozenset[str] = frozenset()
    domains: frozenset[str] = frozenset()
    topics: frozenset[str] = frozenset()
    site_wide: bool = False
    """Pages that show the whole site (home, indexes, search) must be planned."""


@dataclass(frozen=True)
class PlanSettings:
    """What page kinds need besides the entries."""

    config: SiteConfig
    taxonomy: Taxonomy
    labels: SiteLabels
    figures: FigureStore | None = None
    """The figures of the PDFs beside notes, made or read from the cache when a note's page is planned."""

    @property
    def lang(self) -> str:
        return self.labels.lang

    @property
    def home(self) -> Crumb:
        return Crumb(self.labels("home"), "")


@dataclass(frozen=True)
class PageKind:
    """One kind of page: a name, a position in the plan and the function that plans its pages."""

    name: str
    order: int
    """Kinds run in this order; when two pages claim one URL the earlier kind keeps it."""
    plan: Callable[[SiteIndex, PlanSettings, Scope | None], Iterable[Page]]
    site_wide: bool = False
    """Planned (under a scope) only when the scope is site-wide."""


KINDS: Registry[PageKind] = Registry("page kind", "papernotes.site.kinds", "KIND")


# ------------------------------------------------------------------ fingerprints

_PRIMITIVE = (str, int, float, bool, type(None))


def _flat(obj: Any) -> Any:
    """Everything a page shows, as nested tuples of primitives (fast to serialise and hash)."""
    kind = type(obj)
    if kind is Link:
        return (obj.label, obj.url, obj.count)
    if kind is PaperItem:
        return (obj.url, obj.key, obj.context)
    if kind is Crumb:
        return (obj.label, obj.url)
    if isinstance(obj, _PRIMITIVE):
        return obj
    if isinstance(obj, (tuple, list)):
        return tuple([_flat(x) for x in obj])
    if isinstance(obj, Entry):
        # the note's digest stands for every field of the file; labels come from the taxonomy (salted)
        return (obj.note.path, obj.note.digest, obj.url, obj.venue.id, obj.domain.slug,
                tuple([t.slug for t in obj.topics]), obj.stale_translation)
    if isinstance(obj, Venue):
        return (obj.id, obj.icon, obj.zh, obj.en)
    if isinstance(obj, Diagnostic):
        return str(obj)
    return (type(obj).__name__, *[_flat(getattr(obj, name)) for name in obj.__dataclass_fields__])


def fingerprinted(page: Page, salt: str) -> Page:
    """``page`` with the hash of everything it shows (and of ``salt``: code, config and taxonomy)."""
    payload = stable_bytes((salt, page.url, page.template, page.title, _flat(page.crumbs), _flat(page.context)))
    digest = hashlib.blake2b(payload, digest_size=16).hexdigest()
    return replace(page, fingerprint=digest)


# ------------------------------------------------------------------ the planner


def plan_site(entries: Iterable[Entry] | SiteIndex, settings: PlanSettings, salt: str,
              scope: Scope | None = None, kinds: Sequence[str] | None = None) -> list[Page]:
    """The pages of the site (of ``scope`` only, when given), fingerprinted; pure and deterministic."""
    site = entries if isinstance(entries, SiteIndex) else SiteIndex.of(entries)
    pages: list[Page] = []
    taken: set[str] = set()
    for kind in sorted(KINDS, key=lambda k: k.order):
        if kinds is not None and kind.name not in kinds:
            continue
        if scope is not None and kind.site_wide and not scope.site_wide:
            continue
        for page in kind.plan(site, settings, scope):
            if page.url in taken:
                continue  # an alias cannot take the URL of a real page
            taken.add(page.url)
            pages.append(fingerprinted(page, salt))
    return pages
