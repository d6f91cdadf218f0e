"""Plan stage: entries become page models (pure).

In: resolved ``Entry`` records, the taxonomy and the site config. Out: a list of
``Page`` records, each naming its template, its documented context dataclass and
a fingerprint of everything it shows, so the build can skip unchanged pages.
Every count shown on a page is computed here from the entries behind it.
"""
from __future__ import annotations

import hashlib
import marshal
import posixpath
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from papernotes.config import SiteConfig
from papernotes.site.contexts import (
    Crumb,
    DomainContext,
    DomainSection,
    DomainsIndexContext,
    HomeContext,
    Link,
    NoteContext,
    Page,
    PaperItem,
    RedirectContext,
    SimpleContext,
    SiteLabels,
    TopicContext,
    TopicsIndexContext,
    VenueCard,
    VenueContext,
    VenueDomainContext,
)
from papernotes.corpus.model import Entry
from papernotes.site.markdown import inline_markdown, title_text
from papernotes.site.resolve import group_by, listing_key  # noqa: F401  (listing_key: re-exported for planners)
from papernotes.taxonomy import Domain, Taxonomy, Topic, Venue

# ------------------------------------------------------------------ helpers

def venue_label(venue: Venue) -> str:
    return f"{venue.icon} {venue.id}"


def domain_label(domain: Domain, lang: str) -> str:
    return f"{domain.icon} {domain.name(lang)}"


def hot_topics(entries: Sequence[Entry], lang: str, limit: int, minimum: int) -> tuple[Link, ...]:
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


def topic_url(topic: Topic) -> str:
    return f"topics/{topic.slug}/"


def domain_page_url(domain: Domain) -> str:
    return f"domains/{domain.slug}/"


def paper_item(entry: Entry, context: str = "") -> PaperItem:
    note = entry.note
    return PaperItem(note.title_html, note.summary_html, entry.url, context, note.digest)


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
                tuple([t.slug for t in obj.topics]))
    if isinstance(obj, Venue):
        return (obj.id, obj.icon, obj.zh, obj.en)
    return (type(obj).__name__, *[_flat(getattr(obj, name)) for name in obj.__dataclass_fields__])


def _fingerprint(page: Page, salt: str) -> str:
    payload = marshal.dumps((salt, page.url, page.template, page.title, _flat(page.crumbs), _flat(page.context)))
    return hashlib.blake2b(payload, digest_size=16).hexdigest()


def resolve_local_link(entry: Entry, target: str, by_path: dict[str, str], urls: set[str]) -> str | None:
    """Map a relative link in a note body to a site-relative URL; ``None`` if nothing is there."""
    parts = urlsplit(target)
    path = unquote(parts.path)
    frag = f"#{parts.fragment}" if parts.fragment else ""
    if not path:
        return target
    if path.startswith("/"):
        candidate = path.lstrip("/")
    else:
        source_dir = posixpath.dirname(entry.note.path)
        if path.endswith(".md"):
            rel = posixpath.normpath(posixpath.join(source_dir, path))
            found = by_path.get(rel)
            return found + frag if found is not None else None
        candidate = posixpath.normpath(posixpath.join(entry.url, path))
        if candidate.startswith("../"):
            return None
    candidate = candidate.removesuffix("index.html")
    if candidate in ("", ".") or candidate in urls or candidate + "/" in urls:
        return (candidate if candidate not in (".",) else "") + ("/" if candidate + "/" in urls else "") + frag
    return None


# ------------------------------------------------------------------ planner

RATING_ORDER = ("novelty", "experiments", "writing", "value")


def plan_site(entries: Iterable[Entry], taxonomy: Taxonomy, config: SiteConfig, labels: SiteLabels,
              salt: str, redirects: Iterable[tuple[str, Entry]] = ()) -> list[Page]:
    """Every page of the site, with fingerprints; pure and deterministic."""
    lang = labels.lang
    entries = sorted(entries, key=lambda e: e.order)
    by_venue = group_by(entries, lambda e: e.venue.id)
    by_cell = group_by(entries, lambda e: (e.venue.id, e.domain.slug))
    by_domain = group_by(entries, lambda e: e.domain.slug)
    venues = sorted({e.venue.id: e.venue for e in entries}.values(), key=lambda v: v.sort_key)
    domains = {e.domain.slug: e.domain for e in entries}
    pages: list[Page] = []
    home_crumb = Crumb(labels("home"), "")

    def domain_order(slug: str, count: int) -> tuple[int, int, str]:
        return (-count, domains[slug].order, slug)

    # venue x domain pages and note pages
    for (venue_id, slug), cell in by_cell.items():
        cell.sort(key=lambda e: e.note.slug)
        venue, domain = cell[0].venue, cell[0].domain
        cross = tuple(
            Link(venue_label(v), f"{v.id}/{slug}/", len(by_cell[(v.id, slug)]))
            for v in venues if v.id != venue_id and (v.id, slug) in by_cell
        )
        heading = domain_label(domain, lang)
        ctx = VenueDomainContext(
            heading=heading,
            anchor=domain.slug,
            venue=Link(venue_label(venue), f"{venue_id}/", len(cell)),
            cross=cross,
            hot=hot_topics(cell, lang, config.hot_topics, config.hot_topic_min),
            items=tuple(paper_item(e) for e in cell),
        )
        suffix = "论文解读" if lang == "zh" else "paper notes"
        pages.append(Page(f"{venue_id}/{slug}/", "venue_domain.html", f"{venue_id} {domain.name(lang)}{suffix}", ctx,
                          (home_crumb, Crumb(venue_label(venue), f"{venue_id}/"))))
    pages.extend(_note_pages(entries, by_cell, labels))

    # venue pages
    for venue in venues:
        group = by_venue[venue.id]
        counts = Counter(e.domain.slug for e in group)
        ctx = VenueContext(
            heading=venue_label(venue),
            venue=venue,
            count=len(group),
            domains=tuple(Link(domain_label(domains[s], lang), f"{venue.id}/{s}/", n)
                          for s, n in sorted(counts.items(), key=lambda kv: domain_order(*kv))),
            hot=hot_topics(group, lang, 10, config.hot_topic_min),
        )
        pages.append(Page(f"{venue.id}/", "venue.html", venue.id, ctx, (home_crumb,)))

    # domain pages
    domain_links: list[Link] = []
    for slug, group in by_domain.items():
        domain = domains[slug]
        per_venue = group_by(group, lambda e: e.venue.id)
        ordered = [v for v in venues if v.id in per_venue]
        sections = tuple(
            DomainSection(Link(venue_label(v), f"{v.id}/{slug}/", len(per_venue[v.id])),
                          tuple(paper_item(e) for e in sorted(per_venue[v.id], key=lambda e: e.note.slug)))
            for v in ordered
        )
        ctx = DomainContext(
            heading=domain_label(domain, lang),
            count=len(group),
            venues=tuple(s.venue for s in sections),
            hot=hot_topics(group, lang, 10, config.hot_topic_min),
            sections=sections,
        )
        pages.append(Page(domain_page_url(domain), "domain.html", domain.name(lang), ctx,
                          (home_crumb, Crumb(labels("domains"), "domains/"))))
        domain_links.append(Link(domain_label(domain, lang), domain_page_url(domain), len(group)))
    domain_links.sort(key=lambda link: (-link.count, link.url))
    pages.append(Page("domains/", "domains.html", labels("all_domains"), DomainsIndexContext(tuple(domain_links)),
                      (home_crumb,)))

    # topic pages
    by_topic: dict[str, list[Entry]] = {}
    topic_of: dict[str, Topic] = {}
    for entry in entries:
        for topic in entry.topics:
            by_topic.setdefault(topic.slug, []).append(entry)
            topic_of.setdefault(topic.slug, topic)
    topic_links: list[Link] = []
    for slug, group in by_topic.items():
        topic = topic_of[slug]
        per_venue = group_by(group, lambda e: e.venue.id)
        ctx = TopicContext(
            heading=topic.name(lang),
            count=len(group),
            sections=tuple(
                DomainSection(Link(venue_label(v), f"#{v.id}", len(per_venue[v.id])),
                              tuple(paper_item(e, domain_label(e.domain, lang)) for e in per_venue[v.id]))
                for v in venues if v.id in per_venue
            ),
        )
        pages.append(Page(topic_url(topic), "topic.html", topic.name(lang), ctx,
                          (home_crumb, Crumb(labels("topics"), "topics/"))))
        topic_links.append(Link(topic.name(lang), topic_url(topic), len(group)))
    topic_links.sort(key=lambda link: (-link.count, link.url))
    pages.append(Page("topics/", "topics.html", labels("all_topics"), TopicsIndexContext(tuple(topic_links)),
                      (home_crumb,)))

    # home
    cards = []
    for venue in venues:
        counts = Counter(e.domain.slug for e in by_venue[venue.id])
        cards.append(VenueCard(
            Link(venue_label(venue), f"{venue.id}/", len(by_venue[venue.id])),
            len(counts),
            tuple(Link(domains[s].name(lang), f"{venue.id}/{s}/", n)
                  for s, n in sorted(counts.items(), key=lambda kv: domain_order(*kv))),
        ))
    pages.append(Page("", "home.html", config.title,
                      HomeContext(len(entries), len(venues), len(domains), tuple(cards), tuple(topic_links[:30]))))
    pages.append(Page("search/", "search.html", labels("search"), SimpleContext("search"), (home_crumb,)))
    pages.append(Page("404.html", "404.html", labels("not_found_title"), SimpleContext("404")))

    taken = {p.url for p in pages}
    for old, entry in redirects:
        if old not in taken:
            taken.add(old)
            pages.append(Page(old, "redirect.html", title_text(entry.note.title),
                              RedirectContext(entry.url, title_text(entry.note.title))))
    return [Page(p.url, p.template, p.title, p.context, p.crumbs, _fingerprint(p, salt)) for p in pages]


def site_urls(entries: Iterable[Entry]) -> set[str]:
    """Every directory page the site has (for resolving links written in note bodies)."""
    urls = {"", "topics/", "domains/", "search/"}
    for e in entries:
        urls.update((e.url, f"{e.venue.id}/", f"{e.venue.id}/{e.domain.slug}/", f"domains/{e.domain.slug}/"))
        urls.update(topic_url(t) for t in e.topics)
    return urls


def _note_pages(entries: list[Entry], by_cell: dict[tuple[str, str], list[Entry]], labels: SiteLabels) -> list[Page]:
    by_path = {e.note.path: e.url for e in entries}
    urls = site_urls(entries)
    pages = []
    for cell in by_cell.values():
        for i, entry in enumerate(cell):
            prev = cell[i - 1] if i > 0 else None
            nxt = cell[i + 1] if i + 1 < len(cell) else None
            pages.append(note_page(entry, prev, nxt, labels, by_path, urls))
    return pages


def note_page(entry: Entry, prev: Entry | None, nxt: Entry | None, labels: SiteLabels,
              by_path: dict[str, str], urls: set[str], salt: str = "") -> Page:
    """The page of one note (with its fingerprint when ``salt`` is given)."""
    lang = labels.lang
    note = entry.note
    ratings = dict(note.ratings)
    ordered = [(labels(f"rating_{k}"), ratings.pop(k)) for k in RATING_ORDER if k in ratings]
    ordered += sorted(ratings.items())
    ctx = NoteContext(
        entry=entry,
        title_html=note.title_html,
        summary_html=note.summary_html,
        venue=Link(venue_label(entry.venue), f"{entry.venue.id}/"),
        domain=Link(domain_label(entry.domain, lang), f"{entry.venue.id}/{entry.domain.slug}/"),
        topics=tuple(Link(t.name(lang), topic_url(t)) for t in entry.topics),
        links=tuple(Link(_link_label(kind), url) for kind, url in note.links),
        ratings=tuple(ordered),
        prev=Link(title_text(prev.note.title), prev.url) if prev else None,
        next=Link(title_text(nxt.note.title), nxt.url) if nxt else None,
        link_map=tuple((t, resolve_local_link(entry, t, by_path, urls)) for t in note.local_links),
        extra_meta=_extra_meta(note.extra.get("meta"), note.venue),
    )
    page = Page(entry.url, "note.html", title_text(note.title), ctx, (
        Crumb(labels("home"), ""),
        Crumb(venue_label(entry.venue), f"{entry.venue.id}/"),
        Crumb(domain_label(entry.domain, lang), f"{entry.venue.id}/{entry.domain.slug}/"),
    ))
    return Page(page.url, page.template, page.title, ctx, page.crumbs, _fingerprint(page, salt)) if salt else page


def notes_only_plan(entries: list[Entry], changed_paths: set[str], labels: SiteLabels, salt: str) -> list[Page]:
    """The pages to re-plan when only note bodies changed (every ``listing_key`` is as before)."""
    by_cell = group_by(entries, lambda e: (e.venue.id, e.domain.slug))
    by_path = {e.note.path: e.url for e in entries}
    urls = site_urls(entries)
    pages = []
    for cell in by_cell.values():
        cell.sort(key=lambda e: e.note.slug)
        for i, entry in enumerate(cell):
            if entry.note.path in changed_paths:
                prev = cell[i - 1] if i > 0 else None
                nxt = cell[i + 1] if i + 1 < len(cell) else None
                pages.append(note_page(entry, prev, nxt, labels, by_path, urls, salt))
    return pages


#: ``meta:`` labels already shown through typed fields (links, keywords, domain, authors).
_SHOWN_META = {"arxiv", "代码", "code", "领域", "domain", "关键词", "keywords", "openreview", "pdf", "作者", "authors"}


def _extra_meta(meta: Any, venue: str) -> tuple[tuple[str, str], ...]:
    """Imported metadata worth showing: skips what typed fields show and a venue line that only repeats the id."""
    if not isinstance(meta, dict):
        return ()
    rows = []
    for key, value in meta.items():
        text = str(value).strip() if isinstance(value, (str, int, float)) else ""
        if not text or str(key).casefold() in _SHOWN_META:
            continue
        if re.sub(r"\W", "", text).casefold() == venue.casefold():
            continue
        rows.append((str(key), inline_markdown(text)))
    return tuple(rows)


def _link_label(kind: str) -> str:
    return {"arxiv": "arXiv", "openreview": "OpenReview", "code": "Code", "pdf": "PDF"}.get(kind, kind)

