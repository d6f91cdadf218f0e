"""The build: corpus directory in, static site directory out.

One function, ``build``, calls the stages in order and reads top to bottom:
config → taxonomy → load (parse, cached) → resolve → plan pages → render
changed pages (in parallel) → search index and assets → atomic swap.
"""
from __future__ import annotations

import hashlib
import marshal
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from papernotes import __version__
from papernotes.site.cache import BuildCache, decode_problem, encode_problem
from papernotes.config import load_config, load_site_taxonomy
from papernotes.corpus.load import cache_path, load_corpus
from papernotes.errors import BuildError, CorpusError, Diagnostic
from papernotes.corpus.model import Entry
from papernotes.site.publish import Staging
from papernotes.site.resolve import listing_key, resolve

if TYPE_CHECKING:
    from papernotes.site.contexts import Page
    from papernotes.site.theme import Theme

Progress = Callable[[str, int, int], None]
PARALLEL_PAGES = 150


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


def redirects_for(entries: list[Entry]) -> list[tuple[str, Entry]]:
    out = []
    for entry in entries:
        for alias in entry.note.aliases:
            url = alias.strip("/") + "/"
            if url != entry.url:
                out.append((url, entry))
    return out


def build(corpus: Path, out: Path, *, strict: bool = False, workers: int | None = None,
          progress: Progress | None = None, use_cache: bool = True) -> BuildResult:
    """Build ``corpus`` into ``out``; only changed pages are rendered when a previous build exists."""
    started = time.perf_counter()
    corpus = corpus.resolve()
    if not corpus.is_dir():
        raise CorpusError(f"{corpus}: corpus directory not found")
    workers = workers or os.cpu_count() or 1
    result = BuildResult(out)
    config, config_fp = load_config(corpus)
    taxonomy = load_site_taxonomy(corpus, config)
    staging = Staging(out)
    staging.check_target(corpus)
    site_key = str(staging.out)
    salt = f"{__version__}|{_package_fingerprint()}|{config_fp}|{taxonomy.fingerprint}|{config.language}"

    with BuildCache(cache_path(corpus) if use_cache else None) as cache:
        loaded = load_corpus(corpus, cache, workers)
        previous_ok = staging.has_previous() and cache.get_meta(f"built:{site_key}") == salt
        # What changed since the last build that was published (not since the last parse: a build
        # killed after parsing must not leave its notes looking up to date).
        state = {n.path: n.digest for n in loaded.notes}
        published = (cache.load_blob(f"state:{site_key}") or {}) if previous_ok else {}
        changed = {path for path, digest in state.items() if published.get(path) != digest}
        removed = set(published) - set(state)
        if previous_ok and not changed and not removed and not strict:
            result.up_to_date = True
            result.notes = int(cache.get_meta(f"notes:{site_key}") or 0)
            resolved = cache.load_blob(f"resolve:{site_key}") or ()
            result.diagnostics = [*loaded.diagnostics, *map(decode_problem, resolved), *cache.page_problems(site_key)]
            result.pages = len(cache.page_fingerprints(site_key))
            result.seconds = time.perf_counter() - started
            return result
        memo_key = f"topics:{taxonomy.fingerprint}"
        memo = cache.load_blob(memo_key) or {}
        before_memo = set(memo)
        entries, problems = resolve(loaded.notes, loaded.diagnostics, taxonomy, memo)
        live = {n.digest for n in loaded.notes}
        memo = {digest: slugs for digest, slugs in memo.items() if digest in live}
        if set(memo) != before_memo:
            cache.delete_blobs("topics:")
            cache.save_blob(memo_key, memo)
        result.diagnostics = [*loaded.diagnostics, *problems]
        result.notes = len(entries)
        if strict and result.errors:
            raise BuildError(f"{len(result.errors)} error(s) in the corpus; nothing was written (--strict)")

        # the rendering half of the pipeline is imported only when something changed
        from papernotes.site.contexts import Page
        from papernotes.site.plan import notes_only_plan, plan_site
        from papernotes.site.search import corpus_bodies, search_files, search_update
        from papernotes.site.theme import Theme, labels_for

        labels = labels_for(config.language)
        # entries come in path order (load_corpus sorts), so the digest needs no sort
        listing = hashlib.blake2b(marshal.dumps([listing_key(e) for e in entries]), digest_size=16).hexdigest()
        before = cache.page_fingerprints(site_key) if previous_ok else {}
        bodies_only = previous_ok and not removed and cache.get_meta(f"listing:{site_key}") == listing
        if bodies_only:  # no listing, neighbour or search entry changed: only the edited notes' own pages
            pages = notes_only_plan(entries, changed, labels, salt)
            result.pages = len(before)
        else:
            pages = plan_site(entries, taxonomy, config, labels, salt, redirects_for(entries))
            result.pages = len(pages)
        todo = [p for p in pages if before.get(p.url) != p.fingerprint]
        stale = set() if bodies_only else set(before) - {p.url for p in pages}
        theme = Theme(config, corpus, cache_path(corpus).parent / "jinja" if use_cache else None,
                      precompile=len(todo) >= PARALLEL_PAGES)
        staging.begin(incremental=previous_ok)
        try:
            page_problems = _render_pages(theme, todo, staging, workers, progress)
            staging.planned_writes([p.output_path for p in todo])
            for url in stale:
                staging.remove(Page(url, "", "", None).output_path)
            search_dir = cache_path(corpus).parent if use_cache else None
            search = None
            if bodies_only and search_dir is not None:  # only the edited notes are needed
                edited = [e for e in entries if e.note.path in changed]
                search = search_update(edited, corpus_bodies(corpus), search_dir, config.language, workers)
            if search is None:
                search = search_files(entries, corpus_bodies(corpus), search_dir, config.language, workers)
            search_write, search_stale = search.changes(cache.load_blob(f"search:{site_key}") if previous_ok else None)
            for rel in search_write:
                staging.write(rel, search[rel])
            staging.planned_writes(search_write)
            for rel in search_stale:
                staging.remove(rel)
            if not previous_ok:
                _copy_assets(staging)
            staging.commit({"papernotes": __version__, "corpus": str(corpus), "notes": len(entries)})
        except BaseException:
            staging.abort()
            raise
        cache.update_page_problems(site_key, [*(p.url for p in todo), *stale], page_problems)
        result.diagnostics += cache.page_problems(site_key)
        result.rendered, result.removed = len(todo), len(stale)
        if bodies_only:
            cache.update_pages(site_key, {p.url: p.fingerprint for p in pages})
        else:
            cache.replace_pages(site_key, {p.url: p.fingerprint for p in pages})
        cache.set_meta(f"listing:{site_key}", listing)
        cache.save_blob(f"search:{site_key}", search.digests)
        cache.save_blob(f"state:{site_key}", state)
        cache.set_meta(f"built:{site_key}", salt)
        cache.set_meta(f"notes:{site_key}", str(len(entries)))
        cache.save_blob(f"resolve:{site_key}", [encode_problem(d) for d in problems])
    result.seconds = time.perf_counter() - started
    return result


def _package_fingerprint() -> str:
    """Changes when papernotes' own code, templates or assets change, so an upgrade rebuilds every page.

    Contents, not modification times: a reinstall or a checkout that leaves the files
    as they were must not turn the next build into a full one.
    """
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.blake2b(digest_size=8)
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            digest.update(path[len(str(root)):].encode())
            with open(path, "rb") as handle:
                digest.update(handle.read())
    return digest.hexdigest()


# ------------------------------------------------------------ rendering

_JOB: tuple[Theme, list[Page], Staging] | None = None


def _render_range(bounds: tuple[int, int]) -> list[tuple[str, Diagnostic]]:
    assert _JOB is not None  # set by the parent before forking; not user input
    theme, pages, staging = _JOB
    problems: list[tuple[str, Diagnostic]] = []
    for page in pages[bounds[0]:bounds[1]]:
        data, found = theme.render(page)
        staging.write(page.output_path, data)
        problems.extend((page.url, d) for d in found)
    return problems


def _render_pages(theme: Theme, pages: list[Page], staging: Staging, workers: int,
                  progress: Progress | None) -> list[tuple[str, Diagnostic]]:
    import gc
    import multiprocessing

    global _JOB
    total = len(pages)
    if progress:
        progress("render", 0, total)
    _JOB = (theme, pages, staging)
    try:
        if total < PARALLEL_PAGES or workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
            problems = []
            step = max(1, total // 50)
            for start in range(0, total, step):
                problems.extend(_render_range((start, min(total, start + step))))
                if progress:
                    progress("render", min(total, start + step), total)
            return problems
        chunk = max(20, total // (workers * 8) + 1)
        bounds = [(i, min(total, i + chunk)) for i in range(0, total, chunk)]
        problems = []
        gc.freeze()  # workers share the parent's records copy-on-write; GC would touch (and copy) every page
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(workers) as pool:
            done = 0
            for part in pool.imap(_render_range, bounds):
                problems.extend(part)
                done += chunk
                if progress:
                    progress("render", min(done, total), total)
        return problems
    finally:
        _JOB = None


def _copy_assets(staging: Staging) -> None:
    static = Path(str(resources.files("papernotes") / "static"))
    dest = staging.path("assets")
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(static, dest, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
