"""Plan stage, related papers: every note's list, from scratch or updated after an edit.

In: ``terms.RelatedInput`` records and, for an update, the ``update.Previous`` computation.
Out: an ``Outcome`` — every note's neighbours (indices into its sorted paths), the candidates
behind them, norms, and how many rows were scored. Up to ``exact.EXACT_NOTES`` notes the
lists are the exact top ``NEIGHBOURS`` by cosine (``exact``); beyond, candidates are pruned
(``pruned``). Ties break by path, so the result is a pure function of the inputs, whatever
their order. BENCHMARKS.md has the agreement with exact cosine and the cost.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from papernotes import forks
import papernotes.site.related.exact as exact  # the module: tests set exact.EXACT_NOTES
from papernotes.site.related.exact import Exact
from papernotes.site.related.model import Model, Row
from papernotes.site.related.pruned import Pruned
from papernotes.site.related.terms import RelatedInput
from papernotes.site.related.update import Previous, Stale, stale_exact, stale_pruned

SPLIT_ROWS = 20_000
"""From this many rows to score, a forked process takes blocks of them too (``forks.share``): at 50,000
notes the related lists keep one core of two busy for ~7 s of scoring otherwise."""
SPLIT_BLOCK = 2_000
"""Rows a process scores per task."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """One computation: every note's row, the candidates behind it, and what the next update needs."""

    paths: tuple[str, ...]
    """Every note's path, sorted: rows and candidates are indices into it."""
    rows: tuple[tuple[int, ...], ...]
    cands: tuple[tuple[int, ...], ...]
    norms: tuple[float, ...]
    recomputed: int
    """How many rows were scored (the others were kept from the previous computation)."""


def related(notes: Iterable[RelatedInput]) -> dict[str, tuple[str, ...]]:
    """Every note's neighbours (paths, best first); notes without any are left out."""
    return rows_by_path(compute(list(notes)))


def rows_by_path(outcome: Outcome) -> dict[str, tuple[str, ...]]:
    paths = outcome.paths
    return {paths[i]: tuple(paths[b] for b in row) for i, row in enumerate(outcome.rows) if row}


def compute(notes: list[RelatedInput], previous: Previous | None = None) -> Outcome:
    """Score every row, or with ``previous`` only the rows an edit can change."""
    model = Model(notes)
    exactly = model.n <= exact.EXACT_NOTES
    if previous is not None and (len(previous.paths) <= exact.EXACT_NOTES) != exactly:
        previous = None  # the last lists were made the other way
    everything: Stale = (list(range(model.n)), {})
    scorer: Exact | Pruned
    if exactly:
        scorer = Exact(model)
        todo, kept = everything if previous is None else stale_exact(scorer, previous)
    else:
        scorer = Pruned(model)
        todo, kept = everything if previous is None else stale_pruned(scorer, previous)
    scored = dict(zip(todo, _score(scorer.rows, todo), strict=True))
    results = [scored[i] if i in scored else kept[i] for i in range(model.n)]
    return Outcome(tuple(r.path for r in model.notes), tuple(r for r, _ in results), tuple(c for _, c in results),
                   tuple(model.norms.tolist()), len(todo))


def _score(rows: Callable[[Sequence[int]], list[Row]], todo: list[int]) -> list[Row]:
    if len(todo) < SPLIT_ROWS:
        return rows(todo)
    # many rows: a forked process scores blocks of them too (the model shared by the fork)
    blocks = [todo[i:i + SPLIT_BLOCK] for i in range(0, len(todo), SPLIT_BLOCK)]
    return [row for part in forks.share(blocks, rows, 2 if forks.can_fork() else 1) for row in part]
