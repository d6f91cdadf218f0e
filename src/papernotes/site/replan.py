"""Plan stage, the build's side: what a build plans, given what changed since the site was last published.

In: the project (config, taxonomy, salt), the loaded corpus, the build cache (what
the site published: ``cache.Published``, a ``PublishedNote`` row per note file,
``EditionRows`` per edition). Out: a ``SitePlan`` — the pages to compare and
render, and the rows to record once they are published. ``plan`` chooses one of
three ways, cheapest first:

- ``plan_bodies``: only note bodies changed (each edited note's listing key is
  unchanged): just those notes' own pages, in every edition (a one-language site
  is one), from the published rows; no other note is decoded;
- ``plan_scoped`` (one-language sites): every note resolved, but only the pages of
  the groups an edit touched;
- ``plan_whole``: every note resolved and related, every page of every edition.

The pure planning is ``site.plan`` and ``site.editions``; this module reads and
shapes the cache's records for them.
"""
from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from papernotes.cache import BuildCache, EditionRows, Published, PublishedNote, edition_key
from papernotes.corpus.load import LoadedCorpus
from papernotes.digests import stable_bytes
from papernotes.errors import BuildError, Diagnostic, warning
from papernotes.layout import CONFIG_NAME
from papernotes.markdown import title_text
from papernotes.site.contexts import Link, RelatedItem
from papernotes.site.editions import (
    edition_entries,
    edition_related,
    publish,
    site_editions,
    translated_entry,
    translations,
)
from papernotes.site.figures import FIGURE_TEMPLATE
from papernotes.site.kinds.feeds import feed_url
from papernotes.site.kinds.note import note_pages
from papernotes.site.manifest import ManifestError, read_manifest
from papernotes.site.paging import later_page_urls
from papernotes.site.plan import cell_url, fingerprinted, plan_site, PlanSettings, Scope, SiteIndex
from papernotes.site.related import cached_related, note_inputs, published_related
from papernotes.site.resolve import listing_key, resolve
from papernotes.site.strings import labels_for, ui_strings

if TYPE_CHECKING:
    from papernotes.corpus.model import Entry
    from papernotes.site.build import Project
    from papernotes.site.contexts import Page, SiteLabels
    from papernotes.site.editions import Edition


@dataclass(frozen=True)
class SitePlan:
    """The resolve and plan stages' output for one build."""

    pages: list  # list[Page]
    """Planned pages: the whole site, or only the edited notes' own pages (``complete`` false)."""
    complete: bool
    state: Published
    notes: list[PublishedNote]
    """The rows to record for the planned notes."""
    entries: list[Entry] | None = None
    """Every entry (for the search index) when the whole site was planned."""
    urls: frozenset[str] | None = None
    """Every directory page, when the whole site was planned."""
    stale: frozenset[str] = frozenset()
    """Pages to remove, when only part of the site was planned (a complete plan removes what it lacks)."""
    other_editions: tuple[tuple[str, str, list[Entry]], ...] = ()
    """``(URL prefix, language, entries)`` of each edition besides the site language's (whose entries are
    ``entries``), for their search indexes; empty on a one-language site."""
    related: str | None = None
    """Digest of the related-papers inputs the note pages were planned with (whole-site and scoped plans)."""
    editions: dict[str, EditionRows] | None = None
    """On a site with several editions, the rows to record for what each edition shows, by language."""


@dataclass(frozen=True)
class Changes:
    """What changed since the site was last published, as far as the build has looked."""

    previous: Published | None
    """The site's published state; ``None``: a first build, or a new salt (plan every page)."""
    changed: set[str]
    removed: set[str]
    strict: bool = False
    told: bool = False
    """The build was told which files changed (``serve``) and looked at nothing else: a body edit or nothing."""


def plan(project: Project, loaded: LoadedCorpus, cache: BuildCache, site: str, changes: Changes, *,
         search_updatable: Callable[[], bool], record: Path,
         related_lists: Callable[[BuildCache, str], Mapping[str, tuple[str, ...]] | None] | None = None,
         on_resolved: Callable[[list[tuple[str, str, list[Entry]]]], None] | None = None) -> SitePlan | None:
    """The one place a build's plan is chosen, cheapest first: the edited bodies (every edition's search store
    taking the edit, ``search_updatable``), else the groups the edits touched, else the whole site. ``None``
    only when the build was ``told`` and the edit is more than bodies (it then scans and asks again)."""
    previous, changed, removed = changes.previous, changes.changed, changes.removed
    incremental = previous is not None and not changes.strict
    if incremental and not removed and search_updatable():
        bodies = plan_bodies(project, loaded, cache, site, changed, previous, related_lists)  # type: ignore[arg-type]
        if bodies is not None:
            return bodies
    if changes.told:
        return None
    if incremental:
        scoped = plan_scoped(project, loaded, cache, site, changed, removed, previous, record)  # type: ignore[arg-type]
        if scoped is not None:
            return scoped
    return plan_whole(project, loaded, cache, changes.strict, on_resolved=on_resolved)


def plan_settings(project: Project, lang: str | None = None):  # type: ignore[no-untyped-def]
    """The page kinds' settings for the ``lang`` edition (the site language's by default)."""

    return PlanSettings(project.config, project.taxonomy,
                        labels_for(lang or project.config.language, project.config.theme_path(project.root)),
                        project.figures)


def listing_digest(entry: Entry) -> str:
    """Digest of what pages other than the note's own show of it (``resolve.listing_key``)."""
    return hashlib.blake2b(stable_bytes(listing_key(entry)), digest_size=12).hexdigest()


def resolve_all(project: Project, loaded: LoadedCorpus, cache: BuildCache) -> tuple[list[Entry], list[Diagnostic]]:
    """Resolve every note; topic rule matches are memoised per note digest and taxonomy."""
    memo = cache.topic_memo(project.taxonomy.fingerprint)
    before = set(memo)
    entries, problems = resolve(loaded.notes, loaded.diagnostics, project.taxonomy, memo)
    live = set(loaded.digests.values())
    memo = {digest: slugs for digest, slugs in memo.items() if digest in live}
    if set(memo) != before:
        cache.save_topic_memo(project.taxonomy.fingerprint, memo)
    if entries and not project.config.absolute_base:
        where = project.root / CONFIG_NAME
        what = (f"base_url {project.config.base_url!r} is not absolute (https://host/path/)" if where.exists() else
                'no base_url: the file does not exist (create it with base_url = "https://host/path/")')
        problems.append(warning(str(where), 0, f"{what}: no Atom feeds, sitemap.xml, canonical or OpenGraph URLs "
                                "were made", "base-url"))
    return entries, problems


def plan_whole(project: Project, loaded: LoadedCorpus, cache: BuildCache, strict: bool,
               on_resolved: Callable[[list[tuple[str, str, list[Entry]]]], None] | None = None) -> SitePlan:
    """Resolve and plan every page; ``on_resolved`` is given each edition's ``(URL prefix, language,
    entries)`` as soon as they are known (the build starts their search indexes then)."""

    entries, problems = resolve_all(project, loaded, cache)
    errors = [d for d in [*loaded.diagnostics, *problems] if d.is_error]
    if strict and errors:
        raise BuildError(f"{len(errors)} error(s) in the corpus; nothing was written (--strict)", errors)
    if on_resolved is not None:
        on_resolved([("", project.config.language, entries)] if len(project.config.editions) == 1
                    else _edition_entries(project, loaded, entries))
    if project.figures is not None:  # a cold figure cache filled on every core before the pages need it
        project.figures.prepare(entries)
    related = cached_related(note_inputs(entries), cache)
    index = SiteIndex.of(entries, related.rows)
    rows = {path: PublishedNote(path, digest) for path, digest in loaded.digests.items()}
    for cell in index.by_cell.values():
        for i, e in enumerate(cell):
            rows[e.note.path] = _published_row(e, i)
    if len(project.config.editions) == 1:
        pages = plan_site(index, plan_settings(project), project.salt)
        state = Published(project.salt, len(entries), len(pages), problems=tuple(problems))
        return SitePlan(pages, True, state, list(rows.values()), list(index.entries), index.urls,
                        related=related.digest)
    pages, indexes = _plan_editions(project, loaded, entries, related.rows)
    (_, _, default), *others = indexes
    translated = sum(e.note.translation_of is not None for _, _, ix in indexes for e in ix.entries)
    state = Published(project.salt, len(entries), len(pages), problems=tuple(problems), translations=translated)
    editions = {lang: EditionRows([_published_row(e, i) for cell in ix.by_cell.values() for i, e in enumerate(cell)],
                                  {e.note.translation_of.original: e.note.path for e in ix.entries
                                   if e.note.translation_of is not None}, ix.urls)
                for _, lang, ix in indexes}
    return SitePlan(pages, True, state, list(rows.values()), list(default.entries), default.urls,
                    related=related.digest, editions=editions,
                    other_editions=tuple((prefix, lang, list(ix.entries)) for prefix, lang, ix in others))


def _edition_entries(project: Project, loaded: LoadedCorpus,
                     entries: list[Entry]) -> list[tuple[str, str, list[Entry]]]:
    """``(URL prefix, language, entries)`` of each edition (the entries ``_plan_editions`` plans)."""
    found = translations(loaded.notes, {d.path for d in loaded.diagnostics if d.is_error})
    hide = project.config.untranslated == "hide"
    return [(edition.prefix, edition.lang, edition_entries(entries, found, edition, hide))
            for edition in site_editions(project.config.editions)]


def _plan_editions(project: Project, loaded: LoadedCorpus, entries: list[Entry],
                   related: Mapping[str, tuple[str, ...]]):  # type: ignore[no-untyped-def]
    """Every edition planned from its own entries (translations where there are some), under its prefix."""

    found = translations(loaded.notes, {d.path for d in loaded.diagnostics if d.is_error})
    hide = project.config.untranslated == "hide"
    planned, indexes = [], []
    for edition in site_editions(project.config.editions):
        shown = edition_entries(entries, found, edition, hide)
        index = SiteIndex.of(shown, edition_related(related, shown))
        settings = plan_settings(project, edition.lang)
        if edition.prefix:  # feeds and sitemaps make absolute URLs of the edition's (prefix-less) URLs
            config = settings.config
            settings = replace(settings, config=config.model_copy(update={"base_url": config.absolute_base + edition.prefix})
                               if config.absolute_base else config)
        pages = plan_site(index, settings, project.salt)
        # crawlers read /robots.txt only: the site language's names every edition's sitemap
        planned.append((edition, [p for p in pages if not (edition.prefix and p.template == "robots.txt")]))
        indexes.append((edition.prefix, edition.lang, index))
    return publish(planned, _language_names(project)), indexes


def _language_names(project: Project) -> dict[str, str]:
    """Each edition's language by its own name (``中文``, ``English``), for the language switch."""
    theme_dir = project.config.theme_path(project.root)
    return {lang: ui_strings(lang, theme_dir)["language_name"] for lang in project.config.editions}


def _published_row(entry: Entry, position: int) -> PublishedNote:
    return PublishedNote(entry.note.path, entry.note.digest, listing_digest(entry), entry.url,
                         cell_url(entry.venue, entry.domain), position, title_text(entry.note.title),
                         tuple(t.slug for t in entry.topics), _alias_urls(entry))


def _alias_urls(entry: Entry) -> tuple[str, ...]:
    return tuple(dict.fromkeys(a.strip("/") + "/" for a in entry.note.aliases if a.strip("/") + "/" != entry.url))


def plan_scoped(project: Project, loaded: LoadedCorpus, cache: BuildCache, site: str, changed: set[str],
                 removed: set[str], previous: Published, record: Path) -> SitePlan | None:
    """Resolve every note, but plan only the pages the changed notes were or are on (``None``: plan all).

    The scope is every group (venue × domain page, venue, domain, topic) a changed note
    left or joined, the changed notes and their old and new neighbours, the notes whose
    links depend on which pages exist, and the site-wide pages. When a note joined,
    left or moved, every venue × domain page of its domain is in scope too: their
    cross-venue line counts it. When a venue's note count changed, every domain and
    topic page is: their trend charts show each venue's share.
    """

    if len(project.config.editions) > 1:
        return None  # groups are per edition, and a translation's edit touches its original's: plan them all
    try:
        read_manifest(record.read_bytes())  # updated in place below: it must be readable
    except (OSError, ManifestError):
        return None
    shown = published_related(cache, site)
    if shown is None:
        return None  # which notes list which is not known for sure
    entries, problems = resolve_all(project, loaded, cache)
    related = cached_related(note_inputs(entries), cache)
    index = SiteIndex.of(entries, related.rows)
    old = cache.published_notes(site, changed | removed)
    new = {e.note.path: e for e in index.entries if e.note.path in changed}
    cells: set[tuple[str, str]] = set()
    topics: set[str] = set()
    notes: set[str] = set(new)
    candidates: set[str] = set()  # pages that may be gone
    joined_or_left = venue_counts = False
    for path, row in old.items():
        if row.url is None or row.cell is None or row.position is None:
            continue
        venue_id, slug = row.cell.split("/")[:2]
        cells.add((venue_id, slug))
        topics.update(row.topics)
        candidates.update((row.url, *row.aliases, row.cell, f"{venue_id}/", f"domains/{slug}/",
                           *(f"topics/{t}/" for t in row.topics), feed_url("venues", venue_id),
                           feed_url("domains", slug), *(feed_url("topics", t) for t in row.topics)))
        for position in (row.position - 1, row.position + 1):
            if (other := cache.neighbour(site, row.cell, position)) is not None:
                notes.add(other.path)
        if path not in new or new[path].url != row.url:
            joined_or_left = True
        if path not in new or new[path].venue.id != venue_id:
            venue_counts = True
    for path, entry in new.items():
        key = (entry.venue.id, entry.domain.slug)
        cells.add(key)
        topics.update(t.slug for t in entry.topics)
        if path not in old or old[path].url is None:
            joined_or_left = venue_counts = True
        cell = index.by_cell[key]
        at = cell.index(entry)
        notes.update(e.note.path for e in cell[max(0, at - 1):at + 2])
    domains = {slug for _, slug in cells}
    if joined_or_left:
        cells.update(key for key in index.by_cell if key[1] in domains)
    if venue_counts:
        domains.update(index.by_domain)
        topics.update(index.by_topic)
    notes.update(e.note.path for e in index.entries if e.note.local_links)
    touched = changed | removed  # a note listing one of them shows its old title or URL
    # a listing that lost notes may have had more pages: as many as it has now plus one per note edited
    size = project.config.page_size
    for url, count in [*((cell_url(*key), len(index.by_cell.get(key, ()))) for key in cells),
                       *((f"domains/{slug}/", len(index.by_domain.get(slug, ()))) for slug in domains),
                       *((f"topics/{slug}/", len(index.by_topic.get(slug, ()))) for slug in topics)]:
        candidates.update(later_page_urls(url, count + len(touched), size))
    notes.update(path for path, near in related.rows.items() if shown.get(path) != near or touched.intersection(near))
    scope = Scope(frozenset(notes), frozenset(cells), frozenset(v for v, _ in cells), frozenset(domains),
                  frozenset(topics), site_wide=True)
    pages = plan_site(index, plan_settings(project), project.salt, scope)
    planned = {p.url for p in pages}
    # the figure files beside the pages planned, or beside the changed notes' old pages
    candidates |= cache.figure_files(site, {*(r.url for r in old.values() if r.url is not None),
                                            *(p.url for p in pages if p.template == "note.html")})
    stale = frozenset(candidates - planned - index.urls)
    known = cache.page_fingerprints(site, planned)
    rows = {path: PublishedNote(path, loaded.digests[path]) for path in changed if path in loaded.digests}
    for key in cells:
        for position, entry in enumerate(index.by_cell.get(key, ())):
            rows[entry.note.path] = _published_row(entry, position)
    state = Published(project.salt, len(entries), previous.pages - len(stale) + len(planned - set(known)),
                      problems=tuple(problems), translations=previous.translations)
    return SitePlan(pages, False, state, list(rows.values()), list(index.entries), index.urls, stale,
                    related=related.digest)


def plan_bodies(project: Project, loaded: LoadedCorpus, cache: BuildCache, site: str, changed: set[str],
                previous: Published,
                related_lists: Callable[[BuildCache, str], Mapping[str, tuple[str, ...]] | None] | None = None,
                ) -> SitePlan | None:
    """In every edition (a one-language site is one), the pages of the edited files and of the translations of
    edited originals (their stale-translation notice may come or go), when nothing other pages show of them
    changed and no translation changed what it translates; else ``None``. Neighbours, related lists and the
    pages a note's links resolve against come from the edition's published rows; no other note is decoded."""

    rows = cache.published_notes(site, changed)
    if len(rows) != len(changed):
        return None  # a new file
    editions = site_editions(project.config.editions)
    several = len(editions) > 1
    # a one-language site keeps its rows under the site's key, and shows no translation
    keys = {e.lang: edition_key(site, e.lang) if several else site for e in editions}
    shown = {e.lang: cache.edition_shown(site, e.lang) if several else {} for e in editions}
    if any(m is None for m in shown.values()):
        return None  # what the editions show is not known for sure
    files = loaded.parsed(sorted(changed))
    originals: set[str] = set()
    for path, note in files.items():
        if note is None or any(d.is_error for d in loaded.fresh.get(path, (None, ()))[1]):
            return None
        if note.translation_of is None:
            if rows[path].url is None:
                return None  # not on the site before (or it was a translation)
            originals.add(path)
        elif rows[path].url is not None or shown.get(note.lang, {}).get(note.translation_of.original) != path:
            return None  # a translation of another note or language now, or not shown before
        else:
            originals.add(note.translation_of.original)
    notes = {**loaded.parsed(sorted(originals - changed)), **files}
    if any(notes.get(p) is None or notes[p].translation_of is not None for p in originals):  # type: ignore[union-attr]
        return None
    diagnostics = [d for p in sorted(changed) if p in loaded.fresh for d in loaded.fresh[p][1]]
    entries, problems = resolve([notes[p] for p in sorted(originals)], diagnostics, project.taxonomy)  # type: ignore[misc]
    if len(entries) != len(originals) or any(d.is_error for d in problems):
        return None
    if any(listing_digest(e) != rows[e.note.path].listing for e in entries if e.note.path in changed):
        return None
    lists = (related_lists or published_related)(cache, site)
    if lists is None:
        return None  # the related lists the site shows are not known for sure

    def showing(lang: str, originals: Collection[str]) -> dict[str, PublishedNote]:
        """Original's path -> the row of the file the ``lang`` edition shows for it (absent: not shown)."""
        found = cache.published_notes(keys[lang], {shown[lang].get(p, p) for p in originals})  # type: ignore[union-attr]
        return {p: found[s] for p in originals if (s := shown[lang].get(p, p)) in found}  # type: ignore[union-attr]

    on = {e.lang: showing(e.lang, originals) for e in editions}

    @functools.lru_cache(maxsize=None)
    def links_of(lang: str) -> tuple[dict[str, str], frozenset[str]] | None:
        """What a note's links resolve against in one edition (``SiteIndex.by_path`` and ``urls``), read only
        for a note with links to other notes or pages; ``None`` when not recorded."""
        urls = cache.published_urls(keys[lang])
        if urls is None:
            return None
        by_path = cache.published_urls_by_path(keys[lang])
        # a translation's links to ../other.md name the originals: both paths lead to the page
        by_path.update({original: by_path[path] for original, path in shown[lang].items()  # type: ignore[union-attr]
                        if path in by_path})
        return by_path, urls

    planned: list[tuple[Edition, list[Page]]] = []
    edition_rows: dict[str, EditionRows] = {}
    for edition in editions:
        labels = plan_settings(project, edition.lang).labels
        pages, updated = [], []
        for entry in entries:
            row = on[edition.lang].get(entry.note.path)
            if row is None:
                continue  # this edition leaves the note out
            if row.path != entry.note.path:
                translation = notes[row.path] if row.path in notes else loaded.parsed([row.path])[row.path]
                if translation is None:
                    return None
                entry = translated_entry(entry, translation)
                if listing_digest(entry) != row.listing:
                    return None
            links = links_of(edition.lang) if entry.note.local_links else ({}, frozenset())
            if links is None:
                return None  # the edition's pages are not known for sure: plan them all
            by_path, urls = links
            near = showing(edition.lang, lists.get(entry.note.translation_of.original if entry.note.translation_of
                                                   else entry.note.path, ()))
            if any(r.url is None or r.title is None for r in near.values()):
                return None  # a related note the site does not show (a one-language site's rows cover every file)
            pages.extend(_note_pages(project, cache, keys[edition.lang], entry, row, list(near.values()), labels,
                                     by_path, urls))
            updated.append(replace(row, digest=entry.note.digest))
        planned.append((edition, pages))
        edition_rows[edition.lang] = EditionRows(updated)
    if several:
        # the note pages planned here exist in an edition exactly when it shows the note
        urls = {lang: {r.url for r in found.values()} for lang, found in on.items()}
        pages = publish(planned, _language_names(project), lambda lang, url: url in urls[lang])
    else:
        (_, pages), = planned
    notes_rows = [replace(rows[p], digest=files[p].digest) for p in sorted(changed)]  # type: ignore[union-attr]
    stale, state = _figure_changes(cache, site, pages, [p.url for p in pages if p.template == "note.html"], previous)
    return SitePlan(pages, False, state, notes_rows, editions=edition_rows if several else None, stale=stale)


def _figure_changes(cache: BuildCache, site: str, pages: Sequence[Page], notes: Iterable[str | None],
                    previous: Published) -> tuple[frozenset[str], Published]:
    """The figure files the site has beside the pages of ``notes`` (URLs) that ``pages`` no longer have (a PDF
    removed or replaced, ``figures:`` edited), and the site's state with its page count updated."""
    planned = {p.url for p in pages}
    had = cache.figure_files(site, [url for url in notes if url is not None])
    stale = frozenset(had - planned)
    added = {p.url for p in pages if p.template == FIGURE_TEMPLATE} - had
    if not stale and not added:
        return stale, previous
    return stale, replace(previous, pages=previous.pages - len(stale) + len(added))


def _note_pages(project: Project, cache: BuildCache, key: str, entry: Entry, row: PublishedNote,
                related: Sequence[PublishedNote], labels: SiteLabels, by_path: dict[str, str],
                urls: frozenset[str]) -> list[Page]:
    """A note's page planned from the published rows under ``key`` (one site or one edition): its neighbours
    at ``row``'s place, ``related`` the rows of its related notes, best first."""

    assert row.cell is not None and row.position is not None  # a note the site shows
    prev, nxt = cache.neighbour(key, row.cell, row.position - 1), cache.neighbour(key, row.cell, row.position + 1)
    items = tuple(RelatedItem(r.title, r.url, r.url.partition("/")[0]) for r in related)  # type: ignore[arg-type, union-attr]
    pages = note_pages(entry, Link(prev.title, prev.url) if prev else None,  # type: ignore[arg-type]
                       Link(nxt.title, nxt.url) if nxt else None, labels, by_path, urls,  # type: ignore[arg-type]
                       items, project.figures, project.config)
    return [fingerprinted(page, project.salt) for page in pages]
