"""The build: corpus directory in, static site directory out.

``build`` reads as the pipeline: load (parse what changed) → compare with what
the site published → resolve → plan → render → publish → record. Only pages
whose fingerprint changed are rendered; when only note bodies changed, only
those notes are resolved and planned and the other notes are never decoded.
"""
from __future__ import annotations

import hashlib
import marshal
import os
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from pathlib import Path

from papernotes import __version__
from papernotes.cache import BuildCache, Published, PublishedNote
from papernotes.config import CONFIG_NAME, SiteConfig, load_config, load_site_taxonomy
from papernotes.corpus.load import LoadedCorpus, cache_path, load_corpus, load_paths, scan_corpus
from papernotes.corpus.model import Entry
from papernotes.errors import BuildError, CorpusError, Diagnostic, warning
from papernotes.site.publish import Staging, output_path
from papernotes.site.related import cached_related, mark_published, note_inputs, published_related
from papernotes.site.resolve import listing_key, resolve
from papernotes.taxonomy import Taxonomy
from papernotes.testhooks import pause

Progress = Callable[[str, int, int], None]


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
    related: str | None = None
    """Digest of the related-papers inputs the note pages were planned with (whole-site plans)."""


def open_project(corpus: Path) -> Project:
    root = corpus.resolve()
    if not root.is_dir():
        raise CorpusError(f"{root}: corpus directory not found")
    config, config_fp = load_config(root)
    taxonomy = load_site_taxonomy(root, config)
    salt = (f"{__version__}|{_package_fingerprint(config.theme_path(root))}|{config_fp}|{taxonomy.fingerprint}"
            f"|{config.language}")
    return Project(root, config, taxonomy, salt)


def build(corpus: Path, out: Path, *, strict: bool = False, workers: int | None = None,
          progress: Progress | None = None, use_cache: bool = True) -> BuildResult:
    """Build ``corpus`` into ``out``; only changed pages are rendered when a previous build exists."""
    return Builder(corpus, out, workers=workers, progress=progress, use_cache=use_cache).build(strict=strict)


class Builder:
    """Builds one corpus into one site, as often as asked (``serve`` keeps one between edits)."""

    def __init__(self, corpus: Path, out: Path, *, workers: int | None = None, progress: Progress | None = None,
                 use_cache: bool = True) -> None:
        self.project = open_project(corpus)
        self.staging = Staging(out)
        self.staging.check_target(self.project.root)
        self.out = out
        self.workers = workers or os.cpu_count() or 1
        self.progress = progress
        self.cache_file = cache_path(self.project.root) if use_cache else None
        self._theme = None
        self._theme_precompiled = False

    def build(self, *, strict: bool = False, edited: Collection[str] | None = None) -> BuildResult:
        """Bring the site up to date. ``edited``: the note paths a watcher saw change, so the corpus
        need not be scanned when only those notes' own pages change (anything else scans)."""
        started = time.perf_counter()
        project, staging = self.project, self.staging
        staging.recover()  # finish a publish a crash interrupted before comparing with it
        site = staging.site_key
        result = BuildResult(self.out)
        with BuildCache(self.cache_file) as cache:
            previous = cache.published(site) if staging.has_previous() else None
            if previous is not None and previous.salt != project.salt:
                previous = None
            plan = loaded = None
            scan_digest = ""
            if edited is not None and previous is not None and not strict:
                loaded = load_paths(project.root, cache, edited)
                changed, removed = cache.changed_since_published(site, edited)
                plan = None if removed else _plan_bodies(project, loaded, cache, site, changed, previous)
            if plan is None:
                found = scan_corpus(project.root)
                scan_digest = found.digest
                if previous is not None and previous.scan == found.digest and not strict:
                    result.up_to_date, result.notes, result.pages = True, previous.notes, previous.pages
                    parse_problems = [d for group in cache.note_problems().values() for d in group]
                    result.diagnostics = [*parse_problems, *previous.problems, *cache.page_problems(site)]
                    result.seconds = time.perf_counter() - started
                    return result
                loaded = load_corpus(project.root, cache, self.workers, found)
                pause("build.loaded")
                changed, removed = cache.changed_since_published(site) if previous is not None else (
                    set(loaded.digests), set())
                if previous is not None and not removed and not strict:
                    plan = _plan_bodies(project, loaded, cache, site, changed, previous)
                if plan is None:
                    plan = _plan_site(project, loaded, cache, strict, self.workers)
            result.notes, result.pages = plan.state.notes, plan.state.pages
            result.diagnostics = [*loaded.diagnostics, *plan.state.problems]

            before = (cache.page_fingerprints(site, None if plan.complete else [p.url for p in plan.pages])
                      if previous is not None else {})
            todo = [p for p in plan.pages if before.get(p.url) != p.fingerprint]
            stale = set(before) - {p.url for p in plan.pages} if plan.complete else set()
            # Until the new state is recorded, what is being replaced counts as unknown: a publish killed
            # half-way is then redone by the next build, whatever the notes say by then.
            if previous is not None:
                cache.unpublish(site, previous, changed | removed, [p.url for p in todo])
            page_problems = self._render_and_publish(plan, todo, stale, cache, incremental=previous is not None)
            cache.update_page_problems(site, [*(p.url for p in todo), *stale], page_problems)
            cache.record_pages(site, {p.url: p.fingerprint for p in plan.pages}, stale, replace=plan.complete)
            cache.record_published(site, replace(plan.state, scan=scan_digest), plan.notes, replace=plan.complete,
                                   urls=plan.urls)
            if plan.related is not None:
                mark_published(cache, site, plan.related)
            result.diagnostics += cache.page_problems(site)
            result.rendered, result.removed = len(todo), len(stale)
        result.seconds = time.perf_counter() - started
        return result

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
                            incremental: bool) -> list[tuple[str, Diagnostic]]:
        from papernotes.site.manifest import MANIFEST_NAME, manifest
        from papernotes.site.render import render_pages
        from papernotes.site.search import search_index
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
                staging.write("search/index.json", search_index(plan.entries, project.config.language))
                staging.write(MANIFEST_NAME, manifest(plan.pages))
                staging.planned_writes(["search/index.json", MANIFEST_NAME])
            if not staging.incremental:
                copy_assets(staging, theme.theme_dir)
            pause("build.rendered")
            staging.commit({"papernotes": __version__, "notes": plan.state.notes})
        except BaseException:
            staging.abort()
            raise
        pause("build.published")
        return problems


# ------------------------------------------------------------ resolve + plan


def _settings(project: Project):  # type: ignore[no-untyped-def]
    from papernotes.site.plan import PlanSettings
    from papernotes.site.theme import labels_for

    return PlanSettings(project.config, project.taxonomy, labels_for(project.config.language))


def listing_digest(entry: Entry) -> str:
    return hashlib.blake2b(marshal.dumps(listing_key(entry)), digest_size=12).hexdigest()


def _resolve(project: Project, loaded: LoadedCorpus, cache: BuildCache) -> tuple[list[Entry], list[Diagnostic]]:
    """Resolve every note; topic rule matches are memoised per note digest and taxonomy."""
    memo_key = f"topics:{project.taxonomy.fingerprint}"
    memo = cache.load_blob(memo_key) or {}
    before = set(memo)
    entries, problems = resolve(loaded.notes, loaded.diagnostics, project.taxonomy, memo)
    live = set(loaded.digests.values())
    memo = {digest: slugs for digest, slugs in memo.items() if digest in live}
    if set(memo) != before:
        cache.delete_blobs("topics:")
        cache.save_blob(memo_key, memo)
    return entries, problems


def _plan_site(project: Project, loaded: LoadedCorpus, cache: BuildCache, strict: bool, workers: int = 1) -> SitePlan:
    """Resolve and plan every page."""
    from papernotes.site.markdown import title_text
    from papernotes.site.plan import SiteIndex, cell_url, plan_site

    entries, problems = _resolve(project, loaded, cache)
    if entries and not project.config.absolute_base:
        problems.append(warning(str(project.root / CONFIG_NAME), 0, f"base_url {project.config.base_url!r} is not "
                                "absolute (https://host/path/): no Atom feeds, sitemap.xml, canonical or OpenGraph "
                                "URLs were made", "base-url"))
    errors = sum(d.is_error for d in [*loaded.diagnostics, *problems])
    if strict and errors:
        raise BuildError(f"{errors} error(s) in the corpus; nothing was written (--strict)")
    related = cached_related(note_inputs(entries), cache, workers)
    index = SiteIndex.of(entries, related.rows)
    pages = plan_site(index, _settings(project), project.salt)
    rows = {path: PublishedNote(path, digest) for path, digest in loaded.digests.items()}
    for cell in index.by_cell.values():
        for i, e in enumerate(cell):
            rows[e.note.path] = PublishedNote(e.note.path, e.note.digest, listing_digest(e), e.url,
                                              cell_url(e.venue, e.domain), i, title_text(e.note.title))
    state = Published(project.salt, len(entries), len(pages), "", tuple(problems))
    return SitePlan(pages, True, state, list(rows.values()), list(index.entries), index.urls, related.digest)


def _plan_bodies(project: Project, loaded: LoadedCorpus, cache: BuildCache, site: str, changed: set[str],
                 previous: Published) -> SitePlan | None:
    """The edited notes' own pages, when nothing other pages show of them changed; else ``None``."""
    from papernotes.site.contexts import Link, RelatedItem
    from papernotes.site.kinds.note import note_page
    from papernotes.site.plan import fingerprinted

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
    lists = published_related(cache, site)
    if lists is None:
        return None  # the related lists the site shows are not known for sure
    shown = cache.published_notes(site, {p for e in entries for p in lists.get(e.note.path, ())})
    if any(row.url is None or row.title is None for row in shown.values()):
        return None
    labels = _settings(project).labels
    linked = any(e.note.local_links for e in entries)
    by_path = cache.published_urls_by_path(site) if linked else {}
    urls = cache.published_urls(site) if linked else frozenset()
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


# ------------------------------------------------------------ fingerprints


def _package_fingerprint(theme_dir: Path | None = None) -> str:
    """Changes when papernotes' own code, templates or assets change, or the site's theme folder does,
    so an upgrade or a theme edit rebuilds every page.

    Contents, not modification times: a reinstall or a checkout that leaves the files
    as they were must not turn the next build into a full one.
    """
    roots = [Path(__file__).resolve().parents[1]]
    if theme_dir is not None:
        roots += [theme_dir / "templates", theme_dir / "static"]
    digest = hashlib.blake2b(digest_size=8)
    for index, root in enumerate(roots):
        digest.update(f"\0{index}\0".encode())
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]  # pruned while walking: bytecode is no input
            files += [os.path.join(dirpath, name) for name in filenames]
        for path in sorted(files):
            digest.update(path[len(str(root)):].encode())
            with open(path, "rb") as handle:
                digest.update(handle.read())
    return digest.hexdigest()

