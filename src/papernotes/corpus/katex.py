"""Math formulas, checked: the vendored KaTeX run in QuickJS over the formulas ``corpus/formulas.py`` finds.

Stage: shared by the ``check`` stage and the reference tests. In: ``Formula``
records. Out: from ``FormulaChecker.check``, the formulas KaTeX cannot render,
each with KaTeX's error message, and those over ``MAX_FORMULA_CHARS``. Checking
is linear in a formula's length (see ``_BATCH_JS``). The checker runs the
vendored ``katex.min.js`` (the very file the site ships to the browser) in
QuickJS, through the ``quickjs`` module that the ``quickjs-ng`` wheel provides,
so ``check`` rejects exactly what the browser would show as an error. Results
are cached in SQLite keyed by (KaTeX version, display, TeX).
"""
from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any, Literal, TypeVar

from papernotes.corpus.formulas import Formula, lint_tex

try:  # the ``quickjs-ng`` distribution installs the ``quickjs`` module
    import quickjs as _quickjs

    _QUICKJS: ModuleType | None = _quickjs
except ImportError:  # pragma: no cover - quickjs-ng is a hard dependency
    _QUICKJS = None

log = logging.getLogger(__name__)

K = TypeVar("K")


KATEX_DIR: Path = Path(__file__).resolve().parents[1] / "static" / "katex"
"""The vendored KaTeX distribution (``katex.min.js``, ``katex.min.css``, ``fonts/``)."""


def katex_version() -> str:
    """Version of the vendored KaTeX, as written in ``static/katex/VERSION``."""
    return (KATEX_DIR / "VERSION").read_text(encoding="utf-8").strip()


# --------------------------------------------------------------------------- KaTeX engine


_BATCH_JS = r"""
(function (json) {
  var items = JSON.parse(json), out = [];
  for (var i = 0; i < items.length; i++) {
    try {
      katex.renderToString(items[i][0], {
        displayMode: items[i][1], throwOnError: true,
        output: "mathml", strict: "ignore"
      });
      out.push(null);
    } catch (e) {
      out.push(String((e && e.message) || e));
    }
  }
  return JSON.stringify(out);
})
"""
"""Renders each (tex, display) pair; returns a JSON list of error messages or nulls.

``strict: "ignore"`` behaves exactly as KaTeX's default ``"warn"`` (which
never fails a formula) minus the console output. ``output: "mathml"``: KaTeX
parses the whole formula whatever the output, and its HTML builder is
quadratic in the number of binary operators and relations (it inserts each
space with ``Array.splice`` into the list of atoms): 36 s for one 50,000-term
formula, where the MathML builder is linear. The two outputs reject the same
formulas: every one of the 17,841 distinct formulas of the reference corpus
gets the same answer from both (``benchmarks/bench_inputs.py``).
"""

MAX_FORMULA_CHARS = 10_000
"""Longest formula ``check`` validates; a longer one is an error (the longest in the reference corpus has 355
characters). KaTeX in the reader's browser would take seconds over it."""

_Key = tuple[bool, str]
"""A formula's identity for checking: (display, tex)."""

_BATCH_SIZE = 256
"""Formulas per call into JavaScript."""
_COMMIT_EVERY = 2048
"""Engine results written to SQLite per transaction."""
_SQL_PARAMS = 400
"""TeX strings per cache SELECT (well under SQLite's variable limit)."""


class _KatexPool:
    """One QuickJS context with KaTeX loaded per worker thread.

    QuickJS releases the GIL while it runs, so a few threads (each with its own
    context: a context is not thread-safe) check formulas in parallel.
    """

    def __init__(self, source: str, workers: int) -> None:
        assert _QUICKJS is not None
        self._source = source
        self._workers = workers
        self._local = threading.local()
        self._executor: ThreadPoolExecutor | None = None

    def _function(self) -> Any:
        fn = getattr(self._local, "fn", None)
        if fn is None:
            assert _QUICKJS is not None
            ctx = _QUICKJS.Context()
            ctx.eval(self._source)
            fn = ctx.eval(_BATCH_JS)
            self._local.ctx = ctx
            self._local.fn = fn
        return fn

    def _run(self, batch: Sequence[_Key]) -> list[str | None]:
        assert _QUICKJS is not None
        fn = self._function()
        try:
            errors: list[str | None] = json.loads(
                fn(json.dumps([[tex, display] for display, tex in batch]))
            )
            return errors
        except _QUICKJS.JSException:
            if len(batch) == 1:
                raise
        # Something escaped the per-formula try/catch: isolate the culprit.
        out: list[str | None] = []
        for key in batch:
            try:
                out.extend(self._run([key]))
            except _QUICKJS.JSException as exc:
                out.append(f"KaTeX failed: {exc}")
        return out

    def run(self, keys: Sequence[_Key]) -> Iterator[tuple[Sequence[_Key], list[str | None]]]:
        """Yields (batch, errors) in order, batch by batch."""
        batches = [keys[i : i + _BATCH_SIZE] for i in range(0, len(keys), _BATCH_SIZE)]
        if self._workers <= 1 or len(batches) < 2:
            for batch in batches:
                yield batch, self._run(batch)
            return
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self._workers, thread_name_prefix="katex")
        yield from zip(batches, self._executor.map(self._run, batches), strict=True)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        self._local = threading.local()


def _default_workers() -> int:
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


class FormulaChecker:
    """Validates formulas with the vendored KaTeX, caching results in SQLite.

    ``check`` returns the formulas KaTeX cannot render with its message, as
    ``katex.renderToString(tex, {throwOnError: true, displayMode})`` reports
    it. Identical formulas are checked once; results persist in the table
    ``formula_check`` of ``cache_path`` (created if missing) keyed by (KaTeX
    version, display, tex), so a warm run does not start the engine at all.

    If the ``quickjs`` module (from the ``quickjs-ng`` dependency) cannot be
    imported, or ``engine="lint"`` is asked for, the checker falls back to
    ``lint_tex``, a pure-Python structural lint (balanced braces,
    ``\\begin``/``\\end`` and ``\\left``/``\\right`` pairing) that misses unknown
    commands; ``engine`` then says ``"lint"`` and nothing is cached.

    A cache that cannot be opened or written (read-only corpus) is logged and
    disabled; checking goes on without it.
    """

    def __init__(
        self,
        cache_path: Path | None = None,
        *,
        engine: Literal["auto", "katex", "lint"] = "auto",
        workers: int | None = None,
    ) -> None:
        if engine == "katex" and _QUICKJS is None:
            raise RuntimeError("the quickjs module (package quickjs-ng) is not installed")
        self.engine: Literal["katex", "lint"] = (
            "lint" if engine == "lint" or _QUICKJS is None else "katex"
        )
        self.katex_version: str = f"{katex_version()}+mathml"
        """Cache key of the results: the vendored KaTeX's version and the output the check renders."""
        self.engine_calls: int = 0
        """Formulas sent to the engine (KaTeX or the lint), not answered by a cache."""
        self.cache_hits: int = 0
        """Distinct formulas answered by the SQLite cache."""
        self._workers = workers if workers is not None else _default_workers()
        self._memo: dict[_Key, str | None] = {}
        self._pool: _KatexPool | None = None
        self._db: sqlite3.Connection | None = None
        if cache_path is not None and self.engine == "katex":
            self._db = self._open_cache(Path(cache_path))

    # -- cache

    def _open_cache(self, path: Path) -> sqlite3.Connection | None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, timeout=30)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS formula_check ("
                " katex_version TEXT NOT NULL,"
                " display INTEGER NOT NULL,"
                " tex TEXT NOT NULL,"
                " error TEXT,"
                " PRIMARY KEY (katex_version, display, tex)"
                ") WITHOUT ROWID"
            )
            db.commit()
            return db
        except (OSError, sqlite3.Error) as exc:
            log.warning("formula cache %s disabled: %s", path, exc)
            return None

    def _cache_lookup(self, keys: list[_Key]) -> dict[_Key, str | None]:
        assert self._db is not None
        found: dict[_Key, str | None] = {}
        for display in (False, True):
            texs = [tex for d, tex in keys if d is display]
            for i in range(0, len(texs), _SQL_PARAMS):
                chunk = texs[i : i + _SQL_PARAMS]
                rows = self._db.execute(
                    "SELECT tex, error FROM formula_check"
                    " WHERE katex_version = ? AND display = ?"
                    f" AND tex IN ({','.join('?' * len(chunk))})",
                    (self.katex_version, int(display), *chunk),
                )
                for tex, err in rows:
                    found[(display, tex)] = err
        return found

    def _cache_store(self, rows: list[tuple[_Key, str | None]]) -> None:
        if self._db is None or not rows:
            return
        try:
            with self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO formula_check (katex_version, display, tex, error)"
                    " VALUES (?, ?, ?, ?)",
                    [(self.katex_version, int(d), tex, err) for (d, tex), err in rows],
                )
        except sqlite3.Error as exc:
            log.warning("formula cache disabled: %s", exc)
            self._db.close()
            self._db = None

    # -- checking

    def check(self, formulas: Iterable[Formula]) -> list[tuple[Formula, str]]:
        """The formulas KaTeX rejects, in input order, each with KaTeX's message.

        A formula over ``MAX_FORMULA_CHARS`` is rejected without running KaTeX.
        """
        items = list(formulas)
        self._resolve((f.display, f.tex) for f in items if len(f.tex) <= MAX_FORMULA_CHARS)
        failures: list[tuple[Formula, str]] = []
        for f in items:
            if len(f.tex) > MAX_FORMULA_CHARS:
                failures.append((f, f"{len(f.tex):,} characters long; `check` validates formulas of up to "
                                    f"{MAX_FORMULA_CHARS:,}: split it"))
                continue
            err = self._memo[(f.display, f.tex)]
            if err is not None:
                failures.append((f, err))
        return failures

    def check_many(self, notes: Iterable[tuple[K, Iterable[Formula]]]) -> list[tuple[K, Formula, str]]:
        """``check`` for many notes at once: (key, formulas) in, (key, formula, message) out.

        Prefer it to one ``check`` per note on a cold cache: the distinct
        formulas of all notes go to the engine together, which keeps every
        worker thread busy.
        """
        groups = [(key, list(formulas)) for key, formulas in notes]
        self._resolve((f.display, f.tex) for _, formulas in groups for f in formulas if len(f.tex) <= MAX_FORMULA_CHARS)
        return [(key, f, err) for key, formulas in groups for f, err in self.check(formulas)]

    def _resolve(self, wanted: Iterable[_Key]) -> None:
        """Make sure every key is in the memo: from the cache, else from the engine."""
        missing = [k for k in dict.fromkeys(wanted) if k not in self._memo]
        if missing and self._db is not None:
            try:
                cached = self._cache_lookup(missing)
            except sqlite3.Error as exc:
                log.warning("formula cache unreadable, ignored: %s", exc)
                cached = {}
            self.cache_hits += len(cached)
            self._memo.update(cached)
            missing = [k for k in missing if k not in cached]
        if missing:
            self._evaluate(missing)

    def _evaluate(self, keys: list[_Key]) -> None:
        self.engine_calls += len(keys)
        if self.engine == "lint":
            for key in keys:
                self._memo[key] = lint_tex(key[1])
            return
        if self._pool is None:
            source = (KATEX_DIR / "katex.min.js").read_text(encoding="utf-8")
            self._pool = _KatexPool(source, self._workers)
        pending: list[tuple[_Key, str | None]] = []
        for batch, errors in self._pool.run(keys):
            for key, err in zip(batch, errors, strict=True):
                self._memo[key] = err
                pending.append((key, err))
            if len(pending) >= _COMMIT_EVERY:
                self._cache_store(pending)
                pending = []
        self._cache_store(pending)

    # -- lifetime

    def close(self) -> None:
        """Stop the worker threads and close the cache (idempotent)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> FormulaChecker:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
