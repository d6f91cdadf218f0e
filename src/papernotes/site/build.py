"""The build: corpus directory in, static site directory out.

``build`` reads as the pipeline: load (parse what changed) → compare with what
the site published → resolve → plan → render → publish → record. Only pages
whose fingerprint changed are rendered; when only note bodies changed, only
those notes are resolved and planned and the other notes are never decoded.
"""
from __future__ import annotations

import functools
import hashlib
import os
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from papernotes import __version__
from papernotes.cache import BuildCache, EditionRows, Published, PublishedNote, edition_key
from papernotes.corpus.load import (
    LoadedCorpus,
    Scan,
    cache_path,
    load_corpus,
    load_paths,
    scan_corpus,
)
from papernotes.digests import stable_bytes
from papernotes.errors import BuildError, CorpusError, Diagnostic, warning
from papernotes.layout import CONFIG_NAME, MANIFEST_NAME
from papernotes.site.publish import Staging, output_path
from papernotes.testhooks import pause

if TYPE_CHECKING:  # the rest of the pipeline loads when a build has something to do: a no-op stays light
    from papernotes.config import SiteConfig
    from papernotes.corpus.model import Entry
    from papernotes.site.contexts import Page
    from papernotes.site.editions import Edition
    from papernotes.taxonomy import Taxonomy

Progress = Callable[[str, int, int], None]

SEARCH_PENDING = "search-pending:"
"""Blob key (+ site): notes whose pages were published before their search entries (body edits publish
the pages first); the next build redoes those entries if the build that published them did not."""


@dataclass
class BuildResult:
    out: Path
    notes: int = 0
    pages: int = 0
    rendered: int = 0
    removed: int = 0
    up_to_date: bool = False
    seconds: float = 0.0
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]


@dataclass(frozen=True)
class Project:
    """A corpus and everything that shapes its site besides the notes."""

    root: Path
    config: SiteConfig
    taxonomy: Taxonomy
    salt: str
    """Changes with papernotes' code and assets, the theme folder, the config and the taxonomy: a new salt
    rebuilds every page."""


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


def settings_stamp(root: Path) -> str:
    """A cheap stand-in for the salt, compared before reading any setting: it changes whenever the salt
    may have (papernotes' files, the config's bytes, the taxonomy files and theme folder it names),
    judged by file sizes and modification times. Empty (never equal) when the config cannot be read."""
    import tomllib

    digest = hashlib.blake2b(__version__.encode(), digest_size=16)
    paths = [Path(__file__).resolve().parents[1]]
    try:
        data = (root / CONFIG_NAME).read_bytes()
    except FileNotFoundError:
        data = b""
    except OSError:
        return ""
    digest.update(data)
    try:
        config = tomllib.loads(data.decode("utf-8-sig")) if data else {}
        files = config.get("taxonomy", {})
        paths += [root / name for kind in ("venues", "domains", "topics") for name in files.get(kind, [])]
        if config.get("theme_dir"):
            paths.append(root / str(config["theme_dir"]))
    except (ValueError, AttributeError, TypeError):
        return ""
    for top in paths:
        for dirpath, dirnames, filenames in os.walk(top) if top.is_dir() else [(str(top.parent), [], [top.name])]:
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                try:
                    st = os.stat(os.path.join(dirpath, name))
                except OSError:
                    continue
                digest.update(f"{dirpath}/{name}\0{st.st_mtime_ns}\0{st.st_size}\n".encode())
    return digest.hexdigest()


def open_project(corpus: Path) -> Project:
    from papernotes.config import (  # the schema (pydantic) loads only here
        load_config,
        load_site_taxonomy,
    )

    root = corpus.resolve()
    if not root.is_dir():
        raise CorpusError(f"{root}: corpus directory not found")
    config, config_fp = load_config(root)
    taxonomy = load_site_taxonomy(root, config)
    salt = (f"{__version__}|{_package_fingerprint(config.theme_path(root))}|{config_fp}|{taxonomy.fingerprint}"
            f"|{config.language}")
    return Project(root, config, taxonomy, salt)


def build(corpus: Path, out: Path, *, strict: bool = False, workers: int | None = None,
          progress: Progress | None = None, use_cache: bool = True, found: Scan | None = None) -> BuildResult:
    """Build ``corpus`` into ``out``; only changed pages are rendered when a previous build exists.
    ``found``: the corpus scanned a moment ago by the caller, so it is not scanned twice."""
    return Builder(corpus, out, workers=workers, progress=progress, use_cache=use_cache).build(strict=strict,
                                                                                              found=found)


class Builder:
    """Builds one corpus into one site, as often as asked (``serve`` keeps one between edits)."""

    def __init__(self, corpus: Path, out: Path, *, workers: int | None = None, progress: Progress | None = None,
                 use_cache: bool = True) -> None:
        self.root = corpus.resolve()
        if not self.root.is_dir():
            raise CorpusError(f"{self.root}: corpus directory not found")
        self.staging = Staging(out)
        self.staging.check_target(self.root)
        self.out = out
        self.workers = workers or os.cpu_count() or 1
        self.progress = progress
        self.cache_file = cache_path(self.root) if use_cache else None
        self._project: Project | None = None
        self._theme = None
        self._theme_precompiled = False
        self._lists: tuple[str, dict[str, tuple[str, ...]]] | None = None

    @property
    def project(self) -> Project:
        """Config, taxonomy and salt, read on first use (a build with nothing to do never needs them)."""
        if self._project is None:
            self._project = open_project(self.root)
        return self._project

    def build(self, *, strict: bool = False, edited: Collection[str] | None = None,
              found: Scan | None = None, on_pages: Callable[[], None] | None = None) -> BuildResult:
        """Bring the site up to date. ``edited``: the note paths a watcher saw change, so the corpus
        need not be scanned when only those notes' own pages change (anything else scans).
        ``found``: a scan of the corpus made just before, used instead of scanning again.
        ``on_pages``: called once the changed pages are published, which for body edits is before
        their search entries are (``serve`` reloads the browser then)."""
        started = time.perf_counter()
        staging = self.staging
        staging.recover()  # finish a publish a crash interrupted before comparing with it
        site = staging.site_key
        result = BuildResult(self.out)
        with BuildCache(self.cache_file) as cache:
            previous = cache.published(site) if staging.has_previous() else None
            pending = set(cache.load_blob(SEARCH_PENDING + site) or ()) if previous is not None else set()
            stamp = settings_stamp(self.root)
            if previous is not None and previous.stamp == stamp and edited is None and not strict:
                found = found or scan_corpus(self.root)  # nothing that shapes the site changed: did any note?
                if previous.scan == found.digest and not pending:
                    return self._up_to_date(result, previous, cache, started)
            project = self.project
            if previous is not None and previous.salt != project.salt:
                previous = None
            plan = loaded = None
            scan_digest = ""
            if edited is not None and previous is not None and not strict:
                loaded = load_paths(project.root, cache, edited)
                changed, removed = cache.changed_since_published(site, {*edited, *pending})
                changed |= pending - removed
                plan = None if removed else _plan_bodies(project, loaded, cache, site, changed, previous,
                                                         self._related_lists)
            if plan is None:
                found = found or scan_corpus(project.root)
                scan_digest = found.digest
                if previous is not None and previous.scan == found.digest and not strict and not pending:
                    cache.record_published(site, replace(previous, stamp=stamp), (), replace=False)
                    return self._up_to_date(result, previous, cache, started)
                loaded = load_corpus(project.root, cache, self.workers, found)
                pause("build.loaded")
                changed, removed = cache.changed_since_published(site) if previous is not None else (
                    set(loaded.digests), set())
                changed |= pending - removed
                if previous is not None and not removed and not strict:
                    plan = _plan_bodies(project, loaded, cache, site, changed, previous, self._related_lists)
                if plan is None and previous is not None and not strict:
                    plan = _plan_scoped(project, loaded, cache, site, changed, removed, previous,
                                        staging.out / MANIFEST_NAME)
                if plan is None:
                    plan = _plan_site(project, loaded, cache, strict)
            result.notes, result.pages = plan.state.notes, plan.state.pages
            result.diagnostics = [*loaded.diagnostics, *plan.state.problems]

            before = (cache.page_fingerprints(site, None if plan.complete else [p.url for p in plan.pages])
                      if previous is not None else {})
            todo = [p for p in plan.pages if before.get(p.url) != p.fingerprint]
            stale = set(before) - {p.url for p in plan.pages} if plan.complete else set(plan.stale)
            # Until the new state is recorded, what is being replaced counts as unknown: a publish killed
            # half-way is then redone by the next build, whatever the notes say by then.
            if previous is not None:
                cache.unpublish(site, previous, changed | removed, [p.url for p in todo])
            page_problems, search_later = self._render_and_publish(plan, todo, stale, cache,
                                                                   incremental=previous is not None)
            cache.update_page_problems(site, [*(p.url for p in todo), *stale], page_problems)
            cache.record_pages(site, {p.url: p.fingerprint for p in plan.pages}, stale, replace=plan.complete)
            cache.record_published(site, replace(plan.state, scan=scan_digest, stamp=stamp), plan.notes,
                                   replace=plan.complete, urls=plan.urls, editions=plan.editions)
            if plan.related is not None:
                from papernotes.site.related import mark_published

                mark_published(cache, site, plan.related)
            if on_pages is not None and (todo or stale):
                on_pages()
            if search_later:
                self._publish_search_update(plan, cache)
            # a note shown in two editions (untranslated) reports a problem of its body once
            result.diagnostics = list(dict.fromkeys([*result.diagnostics, *cache.page_problems(site)]))
            result.rendered, result.removed = len(todo), len(stale)
        result.seconds = time.perf_counter() - started
        return result

    def _up_to_date(self, result: BuildResult, previous: Published, cache: BuildCache, started: float) -> BuildResult:
        result.up_to_date, result.notes, result.pages = True, previous.notes, previous.pages
        parse_problems = [d for group in cache.note_problems().values() for d in group]
        result.diagnostics = list(dict.fromkeys([*parse_problems, *previous.problems,
                                                 *cache.page_problems(self.staging.site_key)]))
        result.seconds = time.perf_counter() - started
        return result

    def _related_lists(self, cache: BuildCache, site: str) -> dict[str, tuple[str, ...]] | None:
        """The related lists ``site`` shows (``published_related``), kept between builds while they stand."""
        from papernotes.site.related import SITE_BLOB, published_related

        shown = cache.load_blob(SITE_BLOB + site)
        if shown is not None and self._lists is not None and self._lists[0] == shown:
            return self._lists[1]  # the lists are a function of the digest that names them
        lists = published_related(cache, site)
        self._lists = (shown, lists) if lists is not None else None
        return lists

    def theme(self, pages: int):  # type: ignore[no-untyped-def]
        """The theme, made once per builder (templates compiled up front for a large render)."""
        from papernotes.site.render import PARALLEL_PAGES
        from papernotes.site.theme import Theme

        if self._theme is None or (pages >= PARALLEL_PAGES and not self._theme_precompiled):
            bytecode = self.cache_file.parent / "jinja" if self.cache_file is not None else None
            self._theme = Theme(self.project.config, self.project.root, bytecode, precompile=pages >= PARALLEL_PAGES)
            self._theme_precompiled = pages >= PARALLEL_PAGES
        return self._theme

    def _render_and_publish(self, plan: SitePlan, todo: list, stale: set[str], cache: BuildCache,
                            incremental: bool) -> tuple[list[tuple[str, Diagnostic]], bool]:
        """Publish the planned pages and, unless only note bodies changed, the search indexes; returns
        the pages' problems and whether the search entries of the edited bodies are still to publish."""
        from papernotes.site.manifest import manifest, updated
        from papernotes.site.render import render_pages
        from papernotes.site.search import corpus_bodies, search_files
        from papernotes.site.theme import copy_assets

        staging, project = self.staging, self.project
        theme = self.theme(len(todo))
        staging.begin(incremental=incremental)
        try:
            problems = render_pages(theme, todo, staging, self.workers, self.progress)
            staging.planned_writes([p.output_path for p in todo])
            for url in stale:
                staging.remove(output_path(url))
            if plan.entries is not None:
                shown = [p for p in plan.pages if not p.edition]  # the record covers the site language's edition
                record = (manifest(shown) if plan.complete else
                          updated((staging.out / MANIFEST_NAME).read_bytes(), shown, stale))
                staging.write(MANIFEST_NAME, record)
                staging.planned_writes([MANIFEST_NAME])
            search_dir, read_body = self.cache_file.parent if self.cache_file else None, corpus_bodies(project.root)
            searches = []  # (URL prefix, files) of each edition's index
            search_later = plan.entries is None and search_dir is not None and staging.incremental
            if search_later:  # note bodies edited: their pages now, their search entries right after
                cache.save_blob(SEARCH_PENDING + staging.site_key,
                                sorted({*(cache.load_blob(SEARCH_PENDING + staging.site_key) or ()),
                                        *(p.context.entry.note.path for p in plan.pages)}))
            elif plan.entries is not None:
                for prefix, lang, entries in (("", project.config.language, plan.entries), *plan.other_editions):
                    # each edition its own store, apart from a one-language site's (whose body edits update theirs)
                    where = search_dir / "editions" / lang if search_dir is not None and plan.other_editions else search_dir
                    if where is not None:
                        where.mkdir(parents=True, exist_ok=True)
                    searches.append((prefix, search_files(entries, read_body, where, lang, self.workers)))
            self._stage_searches(searches, cache)
            if not staging.incremental:
                copy_assets(staging, theme.theme_dir)
            pause("build.rendered")
            staging.commit({"papernotes": __version__, "notes": plan.state.notes})
            self._searches_published(searches, cache, done=not search_later)
        except BaseException:
            staging.abort()
            raise
        pause("build.published")
        return problems, search_later

    def _publish_search_update(self, plan: SitePlan, cache: BuildCache) -> None:
        """The search entries of the note bodies whose pages were just published, as a second publish."""
        from papernotes.site.search import corpus_bodies, search_update

        staging, project = self.staging, self.project
        assert self.cache_file is not None
        several = len(project.config.editions) > 1
        searches = []
        for prefix, lang in dict.fromkeys((p.edition, p.lang or project.config.language) for p in plan.pages):
            # each edition its own store on a site with several (as _render_and_publish made them)
            where = self.cache_file.parent / "editions" / lang if several else self.cache_file.parent
            found = search_update([p.context.entry for p in plan.pages if p.edition == prefix],
                                  corpus_bodies(project.root), where, lang, self.workers)
            if found is not None:
                searches.append((prefix, found))
        staging.begin(incremental=True)
        try:
            self._stage_searches(searches, cache)
            pause("build.search-rendered")
            staging.commit({"papernotes": __version__, "notes": plan.state.notes})
            self._searches_published(searches, cache, done=True)
        except BaseException:
            staging.abort()
            raise

    def _stage_searches(self, searches: list, cache: BuildCache) -> None:
        """Stage each edition's changed search files (``(URL prefix, SearchFiles)``)."""
        staging = self.staging
        for prefix, search in searches:
            key = f"search:{staging.site_key}" + (f":{prefix}" if prefix else "")
            known = cache.load_blob(key) or {}
            search_write, search_gone = search.changes(known if staging.incremental else None)
            for rel in search_write:
                staging.write(prefix + rel, search[rel])
            staging.planned_writes([prefix + rel for rel in search_write])
            for rel in search_gone:
                staging.remove(prefix + rel)
            # until published, what is being replaced is unknown: a build killed half-way rewrites it
            cache.save_blob(key, {**known, **dict.fromkeys(search_write + search_gone, "?")})

    def _searches_published(self, searches: list, cache: BuildCache, *, done: bool) -> None:
        """Record what the search files now are; ``done``: every note's entry is published."""
        site = self.staging.site_key
        for prefix, search in searches:
            cache.save_blob(f"search:{site}" + (f":{prefix}" if prefix else ""), search.digests)
        if done:
            cache.delete_blob(SEARCH_PENDING + site)


# ------------------------------------------------------------ resolve + plan


def _settings(project: Project, lang: str | None = None):  # type: ignore[no-untyped-def]
    from papernotes.site.plan import PlanSettings
    from papernotes.site.theme import labels_for

    return PlanSettings(project.config, project.taxonomy,
                        labels_for(lang or project.config.language, project.config.theme_path(project.root)))


def listing_digest(entry: Entry) -> str:
    from papernotes.site.resolve import listing_key

    return hashlib.blake2b(stable_bytes(listing_key(entry)), digest_size=12).hexdigest()


def _resolve(project: Project, loaded: LoadedCorpus, cache: BuildCache) -> tuple[list[Entry], list[Diagnostic]]:
    """Resolve every note; topic rule matches are memoised per note digest and taxonomy."""
    from papernotes.site.resolve import resolve

    memo_key = f"topics:{project.taxonomy.fingerprint}"
    memo = cache.load_blob(memo_key) or {}
    before = set(memo)
    entries, problems = resolve(loaded.notes, loaded.diagnostics, project.taxonomy, memo)
    live = set(loaded.digests.values())
    memo = {digest: slugs for digest, slugs in memo.items() if digest in live}
    if set(memo) != before:
        cache.delete_blobs("topics:")
        cache.save_blob(memo_key, memo)
    if entries and not project.config.absolute_base:
        where = project.root / CONFIG_NAME
        what = (f"base_url {project.config.base_url!r} is not absolute (https://host/path/)" if where.exists() else
                'no base_url: the file does not exist (create it with base_url = "https://host/path/")')
        problems.append(warning(str(where), 0, f"{what}: no Atom feeds, sitemap.xml, canonical or OpenGraph URLs "
                                "were made", "base-url"))
    return entries, problems


def _plan_site(project: Project, loaded: LoadedCorpus, cache: BuildCache, strict: bool) -> SitePlan:
    """Resolve and plan every page."""
    from papernotes.site.plan import SiteIndex, plan_site
    from papernotes.site.related import cached_related, note_inputs

    entries, problems = _resolve(project, loaded, cache)
    errors = [d for d in [*loaded.diagnostics, *problems] if d.is_error]
    if strict and errors:
        raise BuildError(f"{len(errors)} error(s) in the corpus; nothing was written (--strict)", errors)
    related = cached_related(note_inputs(entries), cache)
    index = SiteIndex.of(entries, related.rows)
    rows = {path: PublishedNote(path, digest) for path, digest in loaded.digests.items()}
    for cell in index.by_cell.values():
        for i, e in enumerate(cell):
            rows[e.note.path] = _published_row(e, i)
    if len(project.config.editions) == 1:
        pages = plan_site(index, _settings(project), project.salt)
        state = Published(project.salt, len(entries), len(pages), problems=tuple(problems))
        return SitePlan(pages, True, state, list(rows.values()), list(index.entries), index.urls,
                        related=related.digest)
    pages, indexes = _plan_editions(project, loaded, entries, related.rows)
    state = Published(project.salt, len(entries), len(pages), problems=tuple(problems))
    (_, _, default), *others = indexes
    editions = {lang: EditionRows([_published_row(e, i) for cell in ix.by_cell.values() for i, e in enumerate(cell)],
                                  {e.note.translation_of.original: e.note.path for e in ix.entries
                                   if e.note.translation_of is not None}, ix.urls)
                for _, lang, ix in indexes}
    return SitePlan(pages, True, state, list(rows.values()), list(default.entries), default.urls,
                    related=related.digest, editions=editions,
                    other_editions=tuple((prefix, lang, list(ix.entries)) for prefix, lang, ix in others))


def _plan_editions(project: Project, loaded: LoadedCorpus, entries: list[Entry],
                   related: Mapping[str, tuple[str, ...]]):  # type: ignore[no-untyped-def]
    """Every edition planned from its own entries (translations where there are some), under its prefix."""
    from papernotes.site.editions import edition_entries, edition_related, publish, site_editions, translations
    from papernotes.site.plan import SiteIndex, plan_site
    from papernotes.site.theme import ui_strings

    found = translations(loaded.notes, {d.path for d in loaded.diagnostics if d.is_error})
    hide = project.config.untranslated == "hide"
    planned, indexes = [], []
    for edition in site_editions(project.config.editions):
        shown = edition_entries(entries, found, edition, hide)
        index = SiteIndex.of(shown, edition_related(related, shown))
        settings = _settings(project, edition.lang)
        if edition.prefix:  # feeds and sitemaps make absolute URLs of the edition's (prefix-less) URLs
            config = settings.config
            settings = replace(settings, config=config.model_copy(update={"base_url": config.absolute_base + edition.prefix})
                               if config.absolute_base else config)
        pages = plan_site(index, settings, project.salt)
        # crawlers read /robots.txt only: the site language's names every edition's sitemap
        planned.append((edition, [p for p in pages if not (edition.prefix and p.template == "robots.txt")]))
        indexes.append((edition.prefix, edition.lang, index))
    theme_dir = project.config.theme_path(project.root)
    names = {lang: ui_strings(lang, theme_dir)["language_name"] for lang in project.config.editions}
    return publish(planned, names), indexes


def _published_row(entry: Entry, position: int) -> PublishedNote:
    from papernotes.site.markdown import title_text
    from papernotes.site.plan import cell_url

    return PublishedNote(entry.note.path, entry.note.digest, listing_digest(entry), entry.url,
                         cell_url(entry.venue, entry.domain), position, title_text(entry.note.title),
                         tuple(t.slug for t in entry.topics), _alias_urls(entry))


def _alias_urls(entry: Entry) -> tuple[str, ...]:
    return tuple(dict.fromkeys(a.strip("/") + "/" for a in entry.note.aliases if a.strip("/") + "/" != entry.url))


def _plan_scoped(project: Project, loaded: LoadedCorpus, cache: BuildCache, site: str, changed: set[str],
                 removed: set[str], previous: Published, record: Path) -> SitePlan | None:
    """Resolve every note, but plan only the pages the changed notes were or are on (``None``: plan all).

    The scope is every group (venue × domain page, venue, domain, topic) a changed note
    left or joined, the changed notes and their old and new neighbours, the notes whose
    links depend on which pages exist, and the site-wide pages. When a note joined,
    left or moved, every venue × domain page of its domain is in scope too: their
    cross-venue line counts it. When a venue's note count changed, every domain and
    topic page is: their trend charts show each venue's share.
    """
    from papernotes.site.kinds.feeds import feed_url
    from papernotes.site.manifest import ManifestError, read_manifest
    from papernotes.site.related import cached_related, note_inputs, published_related
    from papernotes.site.plan import Scope, SiteIndex, plan_site

    if len(project.config.editions) > 1:
        return None  # groups are per edition, and a translation's edit touches its original's: plan them all
    try:
        read_manifest(record.read_bytes())  # updated in place below: it must be readable
    except (OSError, ManifestError):
        return None
    shown = published_related(cache, site)
    if shown is None:
        return None  # which notes list which is not known for sure
    entries, problems = _resolve(project, loaded, cache)
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
    notes.update(path for path, near in related.rows.items() if shown.get(path) != near or touched.intersection(near))
    scope = Scope(frozenset(notes), frozenset(cells), frozenset(v for v, _ in cells), frozenset(domains),
                  frozenset(topics), site_wide=True)
    pages = plan_site(index, _settings(project), project.salt, scope)
    planned = {p.url for p in pages}
    stale = frozenset(candidates - planned - index.urls)
    known = cache.page_fingerprints(site, planned)
    rows = {path: PublishedNote(path, loaded.digests[path]) for path in changed if path in loaded.digests}
    for key in cells:
        for position, entry in enumerate(index.by_cell.get(key, ())):
            rows[entry.note.path] = _published_row(entry, position)
    state = Published(project.salt, len(entries), previous.pages - len(stale) + len(planned - set(known)),
                      problems=tuple(problems))
    return SitePlan(pages, False, state, list(rows.values()), list(index.entries), index.urls, stale,
                    related=related.digest)


def _plan_bodies(project: Project, loaded: LoadedCorpus, cache: BuildCache, site: str, changed: set[str],
                 previous: Published,
                 related_lists: Callable[[BuildCache, str], dict[str, tuple[str, ...]] | None] | None = None,
                 ) -> SitePlan | None:
    """The edited notes' own pages, when nothing other pages show of them changed; else ``None``."""
    from papernotes.site.contexts import Link, RelatedItem
    from papernotes.site.kinds.note import note_page
    from papernotes.site.plan import fingerprinted
    from papernotes.site.related import published_related
    from papernotes.site.resolve import resolve

    if len(project.config.editions) > 1:
        return _plan_edition_bodies(project, loaded, cache, site, changed, previous, related_lists)
    rows = cache.published_notes(site, changed)
    if len(rows) != len(changed) or any(row.url is None for row in rows.values()):
        return None  # a new note, or one the site did not show
    paths = sorted(changed)
    notes = loaded.parsed(paths)
    diagnostics = [d for p in paths if p in loaded.fresh for d in loaded.fresh[p][1]]
    entries, problems = resolve([n for n in notes.values() if n is not None], diagnostics, project.taxonomy)
    if len(entries) != len(paths) or any(d.is_error for d in problems):
        return None
    if any(listing_digest(e) != rows[e.note.path].listing for e in entries):
        return None
    lists = (related_lists or published_related)(cache, site)
    if lists is None:
        return None  # the related lists the site shows are not known for sure
    shown = cache.published_notes(site, {p for e in entries for p in lists.get(e.note.path, ())})
    if any(row.url is None or row.title is None for row in shown.values()):
        return None
    labels = _settings(project).labels
    linked = any(e.note.local_links for e in entries)
    by_path = cache.published_urls_by_path(site) if linked else {}
    urls = cache.published_urls(site) if linked else frozenset()
    if urls is None:
        return None  # which pages the site has is not known for sure
    pages = []
    for entry in entries:
        row = rows[entry.note.path]
        prev, nxt = cache.neighbour(site, row.cell, row.position - 1), cache.neighbour(site, row.cell, row.position + 1)
        related = tuple(RelatedItem(shown[p].title, shown[p].url, shown[p].url.partition("/")[0])  # type: ignore[arg-type]
                        for p in lists.get(entry.note.path, ()) if p in shown)
        page = note_page(entry, Link(prev.title, prev.url) if prev else None,
                         Link(nxt.title, nxt.url) if nxt else None, labels, by_path, urls, related)
        pages.append(fingerprinted(page, project.salt))
    notes_rows = [replace(rows[e.note.path], digest=e.note.digest) for e in entries]
    return SitePlan(pages, False, previous, notes_rows)


def _plan_edition_bodies(project: Project, loaded: LoadedCorpus, cache: BuildCache, site: str, changed: set[str],
                         previous: Published,
                         related_lists: Callable[[BuildCache, str], dict[str, tuple[str, ...]] | None] | None = None,
                         ) -> SitePlan | None:
    """``_plan_bodies`` on a site with several editions: in every edition, the pages of the edited files and of
    the translations of edited originals (their stale-translation notice may come or go), when nothing other
    pages show of them changed and no translation changed what it translates; else ``None``. A note's links
    resolve against its edition's recorded pages."""
    from papernotes.site.contexts import Link, RelatedItem
    from papernotes.site.editions import publish, site_editions, translated_entry
    from papernotes.site.kinds.note import note_page
    from papernotes.site.plan import fingerprinted
    from papernotes.site.related import published_related
    from papernotes.site.resolve import resolve
    from papernotes.site.theme import ui_strings

    rows = cache.published_notes(site, changed)
    if len(rows) != len(changed):
        return None  # a new file
    editions = site_editions(project.config.editions)
    shown = {e.lang: cache.edition_shown(site, e.lang) for e in editions}
    lists = (related_lists or published_related)(cache, site)
    if lists is None or any(m is None for m in shown.values()):
        return None  # what the editions or the related lists show is not known for sure
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
    keys = {e.lang: edition_key(site, e.lang) for e in editions}

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
        labels = _settings(project, edition.lang).labels
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
            related = tuple(RelatedItem(r.title, r.url, r.url.partition("/")[0])  # type: ignore[arg-type, union-attr]
                            for r in near.values())
            prev = cache.neighbour(keys[edition.lang], row.cell, row.position - 1)  # type: ignore[arg-type, operator]
            nxt = cache.neighbour(keys[edition.lang], row.cell, row.position + 1)  # type: ignore[arg-type, operator]
            page = note_page(entry, Link(prev.title, prev.url) if prev else None,  # type: ignore[arg-type]
                             Link(nxt.title, nxt.url) if nxt else None, labels, by_path, urls, related)  # type: ignore[arg-type]
            pages.append(fingerprinted(page, project.salt))
            updated.append(replace(row, digest=entry.note.digest))
        planned.append((edition, pages))
        edition_rows[edition.lang] = EditionRows(updated)
    theme_dir = project.config.theme_path(project.root)
    names = {lang: ui_strings(lang, theme_dir)["language_name"] for lang in project.config.editions}
    # the note pages planned here exist in an edition exactly when it shows the note
    urls = {lang: {r.url for r in found.values()} for lang, found in on.items()}
    pages = publish(planned, names, lambda lang, url: url in urls[lang])
    notes_rows = [replace(rows[p], digest=files[p].digest) for p in sorted(changed)]  # type: ignore[union-attr]
    return SitePlan(pages, False, previous, notes_rows, editions=edition_rows)


# ------------------------------------------------------------ fingerprints


def _package_fingerprint(theme_dir: Path | None = None) -> str:
    """Changes when papernotes' own code, templates or assets change, or the site's theme folder does,
    so an upgrade or a theme edit rebuilds every page.

    Contents, not modification times: a reinstall or a checkout that leaves the files
    as they were must not turn the next build into a full one.
    """
    roots = [Path(__file__).resolve().parents[1]]
    if theme_dir is not None:
        roots += [theme_dir / "templates", theme_dir / "static", theme_dir / "i18n.toml"]
    digest = hashlib.blake2b(digest_size=8)
    for index, root in enumerate(roots):
        digest.update(f"\0{index}\0".encode())
        files = [str(root)] if root.is_file() else []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]  # pruned while walking: bytecode is no input
            files += [os.path.join(dirpath, name) for name in filenames]
        for path in sorted(files):
            digest.update(path[len(str(root)):].encode())
            with open(path, "rb") as handle:
                digest.update(handle.read())
    return digest.hexdigest()

