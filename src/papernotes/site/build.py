"""The build: corpus directory in, static site directory out.

``build`` reads as the pipeline: load (parse what changed) → compare with what
the site published → resolve → plan (``site/replan.py`` chooses how much) →
render → publish → record. Only pages whose fingerprint changed are rendered;
when only note bodies changed, only those notes are resolved and planned and the
other notes are never decoded.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from papernotes import __version__
from papernotes.cache import BuildCache, Published
from papernotes.corpus.load import LoadedCorpus, cache_path, load_corpus, load_paths
from papernotes.corpus.scan import Scan, scan_corpus
from papernotes.disk import Staging, output_path
from papernotes.errors import CorpusError, Diagnostic
from papernotes.layout import CONFIG_NAME, MANIFEST_NAME
from papernotes.testhooks import pause

if TYPE_CHECKING:  # the rest of the pipeline loads when a build has something to do: a no-op stays light
    from papernotes.config import SiteConfig
    from papernotes.corpus.model import Entry
    from papernotes.site.figures import FigureStore
    from papernotes.site import replan
    from papernotes.site.replan import SitePlan
    from papernotes.site.search.background import Background, Records
    from papernotes.taxonomy import Taxonomy

Progress = Callable[[str, int, int], None]



@dataclass
class BuildResult:
    out: Path
    notes: int = 0
    translations: int = 0
    """Translations the editions show in place of their original (a note and its translations are one of ``notes``)."""
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
    figures: FigureStore | None = None
    """The figures of the PDFs beside notes (``site/figures.py``); ``None``: pages show none."""


def settings_stamp(root: Path, named: Sequence[str]) -> str:
    """A cheap stand-in for the salt, compared before reading any setting: it changes whenever the salt
    may have (papernotes' files, the config's bytes, and the files and folders ``named``), judged by file
    sizes and modification times; empty (never equal) when the config cannot be read.

    ``named`` is what the config named when the stamp was last recorded (``SiteConfig.named_paths``, kept
    in the stamp itself: ``stamp_names``). While the config's bytes are the same it names the same files,
    and when they differ the stamp differs anyway: so the config is never parsed here, only by its schema."""
    digest = hashlib.blake2b(__version__.encode(), digest_size=16)
    try:
        digest.update((root / CONFIG_NAME).read_bytes())
    except FileNotFoundError:
        pass
    except OSError:
        return ""
    for top in [Path(__file__).resolve().parents[1], *(root / name for name in named)]:
        for dirpath, dirnames, filenames in os.walk(top) if top.is_dir() else [(str(top.parent), [], [top.name])]:
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                try:
                    st = os.stat(os.path.join(dirpath, name))
                except OSError:
                    continue
                digest.update(f"{dirpath}/{name}\0{st.st_mtime_ns}\0{st.st_size}\n".encode())
    return "\n".join([digest.hexdigest(), *named])


def stamp_names(stamp: str) -> list[str]:
    """The files and folders a ``settings_stamp`` was taken over (see there)."""
    return stamp.split("\n")[1:]


def open_project(corpus: Path) -> Project:
    # lazy: 144 ms (importtime, beside papernotes.site.build): an up-to-date build never loads it
    from papernotes.config import (  # the schema (pydantic) loads only here
        load_config,
        load_site_taxonomy,
    )
    from papernotes.extras import available

    root = corpus.resolve()
    if not root.is_dir():
        raise CorpusError(f"{root}: corpus directory not found")
    config, config_fp = load_config(root)
    taxonomy = load_site_taxonomy(root, config)
    # installing the pdf extra shows the figures it could not
    figures = config.figures and available("pypdfium2")
    salt = (f"{__version__}|{_package_fingerprint(config.theme_path(root))}|{config_fp}|{taxonomy.fingerprint}"
            f"|{config.language}|{figures}")
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
        self._scratch = tempfile.TemporaryDirectory(prefix="papernotes-figures-") if not use_cache else None
        self._theme = None
        self._theme_precompiled = False
        self._lists: tuple[str, Mapping[str, tuple[str, ...]]] | None = None
        self._ahead: dict[str, Background | Records] = {}
        """Search indexes (or a large site's records) being made by forked processes, by edition prefix."""

    @property
    def project(self) -> Project:
        """Config, taxonomy and salt, read on first use (a build with nothing to do never needs them)."""
        if self._project is None:
            # lazy: 42 ms (importtime, beside papernotes.site.build): an up-to-date build never loads it
            from papernotes.site.figures import FigureStore

            project = open_project(self.root)
            # without the build cache, folders of this builder's (as the parse records live in memory)
            scratch = Path(self._scratch.name) if self._scratch is not None else None
            folder = self.cache_file.parent / "figures" if scratch is None else scratch / "figures"
            self._project = replace(project, figures=FigureStore(project.root, folder, project.config.figures,
                                                                 self.workers, scratch and scratch / "papers"))
        return self._project

    def build(self, *, strict: bool = False, edited: Collection[str] | None = None,
              found: Scan | None = None, on_pages: Callable[[], None] | None = None) -> BuildResult:
        """Bring the site up to date. ``edited``: the note paths a watcher saw change, so the corpus
        need not be scanned when only those notes' own pages change (anything else scans).
        ``found``: a scan of the corpus made just before, used instead of scanning again.
        ``on_pages``: called once the changed pages are published, which for body edits is before
        their search entries are (``serve`` reloads the browser then)."""
        try:
            return self._build(strict, edited, found, on_pages)
        finally:
            for ahead in self._ahead.values():  # the build failed before it took an index: stop its child
                ahead.cancel()
            self._ahead.clear()

    def _build(self, strict: bool, edited: Collection[str] | None, found: Scan | None,
               on_pages: Callable[[], None] | None) -> BuildResult:
        started = time.perf_counter()
        staging = self.staging
        staging.recover()  # finish a publish a crash interrupted before comparing with it
        site = staging.site_key
        result = BuildResult(self.out)
        with BuildCache(self.cache_file) as cache:
            previous = cache.published(site) if staging.has_previous() else None
            pending = cache.search_pending(site) if previous is not None else set()
            stamp = settings_stamp(self.root, stamp_names(previous.stamp) if previous is not None else [])
            if previous is not None and previous.stamp == stamp and edited is None and not strict:
                found = found or scan_corpus(self.root)  # nothing that shapes the site changed: did any note?
                if previous.scan == found.digest and not pending:
                    return self._up_to_date(result, previous, cache, started)
            project = self.project
            if stamp_names(stamp) != project.config.named_paths():
                # taken over other files than this config names: recorded with this config's names, it will
                # not match, and the next build takes it over them (stamped before the config was read)
                stamp = "\n".join([stamp.split("\n", 1)[0], *project.config.named_paths()])
            if previous is not None and previous.salt != project.salt:
                previous = None
            plan = None
            if edited is not None and previous is not None and not strict:  # serve: only the files it saw change
                loaded = load_paths(project.root, cache, edited)
                changes = self._changes(cache, loaded, previous, pending, edited, told=True)
                plan = self._plan(loaded, cache, changes)
            told = plan is not None  # it compared only those files: it settles nothing else
            if plan is None:
                found = found or scan_corpus(project.root)
                if previous is not None and previous.scan == found.digest and not strict and not pending:
                    cache.record_published(site, replace(previous, stamp=stamp), (), replace=False)
                    return self._up_to_date(result, previous, cache, started)
                loaded = load_corpus(project.root, cache, self.workers, found)
                pause("build.loaded")
                changes = self._changes(cache, loaded, previous, pending, strict=strict)
                plan = self._plan(loaded, cache, changes)
                assert plan is not None
            scan_digest = "" if told else found.digest  # type: ignore[union-attr]
            changed, removed = changes.changed, changes.removed
            pause("build.planned")
            if project.figures is not None:
                project.figures.save()
            result.notes, result.pages, result.translations = plan.state.notes, plan.state.pages, plan.state.translations
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
            generation = previous.generation if told and previous is not None else loaded.generation
            cache.record_published(site, replace(plan.state, scan=scan_digest, stamp=stamp, generation=generation),
                                   plan.notes, replace=plan.complete, urls=plan.urls, editions=plan.editions,
                                   settled=not told)
            if plan.related is not None:
                # lazy: 169 ms (importtime, beside papernotes.site.build): an up-to-date build never loads it
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

    def _changes(self, cache: BuildCache, loaded: LoadedCorpus, previous: Published | None, pending: set[str],
                 edited: Collection[str] | None = None, *, strict: bool = False, told: bool = False) -> replan.Changes:
        """The notes changed or removed since ``previous`` was published: among ``edited`` (a watcher's paths),
        else every note; the notes whose search entries are pending count as changed."""
        # lazy: 480 ms (importtime, beside site.build): the plan, render and search modules it loads are
        # what an up-to-date build never needs
        from papernotes.site import replan

        site = self.staging.site_key
        if edited is not None:
            changed, removed = cache.changed_since_published(site, {*edited, *pending})
        elif previous is not None:
            changed, removed = cache.changed_since_published(site, since=previous.generation)
        else:
            changed, removed = set(loaded.digests), set()
        return replan.Changes(previous, changed | (pending - removed), removed, strict, told)

    def _plan(self, loaded: LoadedCorpus, cache: BuildCache, changes: replan.Changes) -> SitePlan | None:
        # lazy: 480 ms (importtime, beside site.build), as in _changes
        from papernotes.site import replan

        return replan.plan(self.project, loaded, cache, self.staging.site_key, changes,
                           search_updatable=self._search_updatable, record=self.staging.out / MANIFEST_NAME,
                           related_lists=self._related_lists, on_resolved=self._search_ahead)

    def _search_updatable(self) -> bool:
        """Whether each edition's search store can take body edits (``search_update``); if one cannot (deleted,
        damaged, written by an older papernotes), edits take a path that makes the whole index."""
        # lazy: 331 ms (importtime, beside papernotes.site.build): an up-to-date build never loads it
        from papernotes.site.search import updatable

        if self.cache_file is None:
            return True  # no store: body edits have no search entries to update
        editions = self.project.config.editions
        return all(updatable(self.cache_file.parent / "editions" / lang if len(editions) > 1 else self.cache_file.parent)
                   for lang in editions)

    def _search_ahead(self, editions: list[tuple[str, str, list[Entry]]]) -> None:
        """Start each edition's search index in a forked process while the pages are planned and rendered, or
        on a large site its records until the render starts (``site/search/background.py`` says when;
        ``_render_and_publish`` takes an index if its edition shows those very entries; records are taken
        from the edition's search store, where the child put them)."""
        # lazy: 256 ms (importtime, beside papernotes.site.build): an up-to-date build never loads it
        from papernotes.site.search import corpus_bodies
        from papernotes.site.search.background import Background, Records

        project = self.project
        if self.cache_file is None or self.workers < 2:  # -j 1: one process
            return
        records = False  # one edition's records at most: a second child would share the same free core
        for prefix, lang, entries in editions:
            # each edition its own store on a site with several (as _render_and_publish has them)
            where = self.cache_file.parent / "editions" / lang if len(editions) > 1 else self.cache_file.parent
            ahead = (Background.start(entries, corpus_bodies(project.root), where, lang, project.taxonomy.synonyms)
                     or (None if records else Records.start(entries, project.root, where, lang)))
            records = records or isinstance(ahead, Records)
            if ahead is not None:
                self._ahead[prefix] = ahead

    def _up_to_date(self, result: BuildResult, previous: Published, cache: BuildCache, started: float) -> BuildResult:
        result.up_to_date, result.notes, result.pages = True, previous.notes, previous.pages
        result.translations = previous.translations
        parse_problems = [d for group in cache.note_problems().values() for d in group]
        result.diagnostics = list(dict.fromkeys([*parse_problems, *previous.problems,
                                                 *cache.page_problems(self.staging.site_key)]))
        result.seconds = time.perf_counter() - started
        return result

    def _related_lists(self, cache: BuildCache, site: str) -> Mapping[str, tuple[str, ...]] | None:
        """The related lists ``site`` shows (``published_related``), kept between builds while they stand."""
        # lazy: 201 ms (importtime, beside papernotes.site.build): an up-to-date build never loads it
        from papernotes.site.related import published_related

        shown = cache.related_shown(site)
        if shown is not None and self._lists is not None and self._lists[0] == shown:
            return self._lists[1]  # the lists are a function of the digest that names them
        lists = published_related(cache, site)
        self._lists = (shown, lists) if lists is not None else None
        return lists

    def theme(self, pages: int):  # type: ignore[no-untyped-def]
        """The theme, made once per builder (templates compiled up front for a large render)."""
        # lazy: 87 ms (importtime, beside papernotes.site.build): an up-to-date build never loads it
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
        # lazy: 317 ms (importtime, beside papernotes.site.build): an up-to-date build never loads it
        from papernotes.site.figures import FIGURE_TEMPLATE
        from papernotes.site.manifest import manifest, updated
        from papernotes.site.render import render_pages
        from papernotes.site.search import corpus_bodies, search_files
        from papernotes.site.theme import copy_assets

        staging, project = self.staging, self.project
        theme = self.theme(len(todo))
        staging.begin(incremental=incremental)
        try:
            for ahead in self._ahead.values():  # a large site's records: the render needs both cores
                ahead.before_render()
            problems = render_pages(theme, todo, staging, self.workers, self.progress)
            staging.planned_writes([p.output_path for p in todo])
            for url in stale:
                staging.remove(output_path(url))
            if plan.entries is not None:
                # the record covers the site language's edition, and pages, not the figure images beside them
                shown = [p for p in plan.pages if not p.edition and p.template != FIGURE_TEMPLATE]
                record = (manifest(shown) if plan.complete else
                          updated((staging.out / MANIFEST_NAME).read_bytes(), shown, stale))
                staging.write(MANIFEST_NAME, record)
                staging.planned_writes([MANIFEST_NAME])
            search_dir, read_body = self.cache_file.parent if self.cache_file else None, corpus_bodies(project.root)
            searches = []  # (URL prefix, files) of each edition's index
            search_later = plan.entries is None and search_dir is not None and staging.incremental
            if search_later:  # note bodies edited: their pages now, their search entries right after
                cache.add_search_pending(staging.site_key, {p.context.entry.note.path for p in plan.pages
                                                            if p.template == "note.html"})
            elif plan.entries is not None:
                for prefix, lang, entries in (("", project.config.language, plan.entries), *plan.other_editions):
                    # each edition its own store, apart from a one-language site's (whose body edits update theirs)
                    where = search_dir / "editions" / lang if search_dir is not None and plan.other_editions else search_dir
                    if where is not None:
                        where.mkdir(parents=True, exist_ok=True)
                    ahead = self._ahead.pop(prefix, None)  # made by a forked process meanwhile?
                    files = ahead.result(entries) if ahead is not None else None
                    if files is None:
                        files = search_files(entries, read_body, where, lang, self.workers,
                                             synonyms=project.taxonomy.synonyms)
                    searches.append((prefix, files))
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
        # lazy: 334 ms (importtime, beside papernotes.site.build): an up-to-date build never loads it
        from papernotes.site.search import corpus_bodies, forget, search_update

        staging, project = self.staging, self.project
        assert self.cache_file is not None
        several = len(project.config.editions) > 1
        searches, missed = [], False
        for prefix, lang in dict.fromkeys((p.edition, p.lang or project.config.language) for p in plan.pages):
            # each edition its own store on a site with several (as _render_and_publish made them)
            where = self.cache_file.parent / "editions" / lang if several else self.cache_file.parent
            found = search_update([p.context.entry for p in plan.pages if p.edition == prefix and
                                   p.template == "note.html"],
                                  corpus_bodies(project.root), where, lang, self.workers)
            if found is None:  # the store could not take them after all: they stay pending, and the next
                forget(where)  # build, finding the store unable to take body edits, makes the whole index
                missed = True
            else:
                searches.append((prefix, found))
        staging.begin(incremental=True)
        try:
            self._stage_searches(searches, cache)
            pause("build.search-rendered")
            staging.commit({"papernotes": __version__, "notes": plan.state.notes})
            self._searches_published(searches, cache, done=not missed)
        except BaseException:
            staging.abort()
            raise

    def _stage_searches(self, searches: list, cache: BuildCache) -> None:
        """Stage each edition's changed search files (``(URL prefix, SearchFiles)``)."""
        staging = self.staging
        for prefix, search in searches:
            known = cache.search_digests(staging.site_key, prefix)
            search_write, search_gone = search.changes(known if staging.incremental else None)
            for rel in search_write:
                staging.write(prefix + rel, search[rel])
            staging.planned_writes([prefix + rel for rel in search_write])
            for rel in search_gone:
                staging.remove(prefix + rel)
            # until published, what is being replaced is unknown: a build killed half-way rewrites it
            cache.save_search_digests(staging.site_key, prefix, {**known, **dict.fromkeys(search_write + search_gone, "?")})

    def _searches_published(self, searches: list, cache: BuildCache, *, done: bool) -> None:
        """Record what the search files now are; ``done``: every note's entry is published."""
        site = self.staging.site_key
        for prefix, search in searches:
            cache.save_search_digests(site, prefix, search.digests)
        if done:
            cache.clear_search_pending(site)


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

