"""Benchmark: related papers (quality and cost, old against new) and the build-time cost of feeds, sitemap and trends.

Stage: none (a developer tool, not part of the package).
In: a papernotes corpus (the reference one: ``papernotes import-mkdocs DOCS DEST``; a synthetic one:
``python benchmarks/synth.py /tmp/s50k --notes 50000``). The corpus is loaded through an in-memory cache:
nothing is written into it.
Out, on stdout (and ``--json``): wall times, medians of ``--runs``, the old and the new runs alternating, of
- ``cached_related`` on an empty cache (what a cold build pays: tokenising, the model, every row), old
  (``--old``, a git revision from before the ``site/related/`` package: its four flat ``site/related*.py``
  modules) and new;
- ``cached_related`` after one title edit (only the rows it can change are scored again: their number is
  printed) and on an unchanged warm cache (a body edit);
- the model and the scoring alone, new, from the tokenised notes;
- quality with ``--exact``: agreement of old and new top-5 with exact cosine over every pair on the same
  quantised weights (scipy, an exact sparse product, the same duplicate rules): the share of exact
  neighbours found, and the notes whose list is exactly the exact one;
- planning the feed, sitemap and robots pages and the trend charts and growth, rendering the
  feeds and sitemap, and their size.

Usage: python benchmarks/bench_related.py CORPUS [--old a423897] [--exact] [--runs 3] [--json out.json]
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def timed(func, runs: int = 1):  # type: ignore[no-untyped-def]
    times, value = [], None
    for _ in range(runs):
        start = time.perf_counter()
        value = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


OLD_MODULES = ("related", "related_exact", "related_model", "related_update")
"""The flat modules of related papers before the ``site/related/`` package (up to a423897)."""
_OLD_IMPORTS = (
    ("from papernotes.site import related_exact, related_update",
     "import related_exact_old as related_exact, related_update_old as related_update"),
    ("papernotes.site.related_model", "related_model_old"),
    ("papernotes.site.related_update", "related_update_old"),
    ("papernotes.site.related_exact", "related_exact_old"),
    ("from papernotes.site import related\n", "import related_old as related\n"),
    ("from papernotes.site.related import", "from related_old import"),
)


def old_module(rev: str, where: Path) -> ModuleType:
    """``site/related.py`` of ``rev`` with the flat modules it imports, importable next to the new package."""
    for name in OLD_MODULES:
        text = subprocess.run(["git", "-C", str(REPO), "show", f"{rev}:src/papernotes/site/{name}.py"],
                              check=True, capture_output=True, text=True).stdout
        for module, alias in _OLD_IMPORTS:
            text = text.replace(module, alias)
        (where / f"{name}_old.py").write_text(text, encoding="utf-8")
    sys.path.insert(0, str(where))
    return importlib.import_module("related_old")


def exact_rows(model) -> dict[str, tuple[str, ...]]:  # type: ignore[no-untyped-def]
    """Top-5 by exact cosine of the quantised weights (scipy, sparse, 500 rows at a time), same exclusions."""
    import numpy as np
    import scipy.sparse as sparse

    from papernotes.site.related import NEIGHBOURS

    matrix = sparse.csr_matrix((model.weight.astype(np.float64), (model.row, model.col)),
                               shape=(model.n, len(model.vocab)))
    rows = {}
    for start in range(0, model.n, 500):
        block = (matrix[start:start + 500] @ matrix.T).toarray()
        block /= model.norms[start:start + 500, None] * model.norms[None, :]
        for k, scores in enumerate(block):
            i = start + k
            scores[i] = 0.0
            found = np.flatnonzero(scores > 0)
            seen, row = {model.paper[i]}, []
            for b in found[np.lexsort((found, -scores[found]))].tolist():
                if model.paper[b] not in seen:
                    seen.add(model.paper[b])
                    row.append(model.notes[b].path)
                    if len(row) == NEIGHBOURS:
                        break
            if row:
                rows[model.notes[i].path] = tuple(row)
    return rows


def agreement(found: dict[str, tuple[str, ...]], exact: dict[str, tuple[str, ...]]) -> tuple[float, int]:
    shared = sum(len(set(found.get(p, ())) & set(row)) for p, row in exact.items())
    identical = sum(found.get(p) == row for p, row in exact.items())
    return round(shared / max(1, sum(map(len, exact.values()))), 4), identical


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--old", default="a423897", help="git revision of the implementation to compare with")
    parser.add_argument("--exact", action="store_true")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    from papernotes.cache import BuildCache
    from papernotes.config import load_config, load_site_taxonomy
    from papernotes.corpus.load import load_corpus
    from papernotes.site import related as R
    from papernotes.site.related import exact as related_exact
    from papernotes.site.related.exact import Exact
    from papernotes.site.related.model import Model
    from papernotes.site.related.pruned import Pruned
    from papernotes.site.plan import PlanSettings, SiteIndex, plan_site
    from papernotes.site.resolve import resolve
    from papernotes.site.strings import labels_for
    from papernotes.site.theme import Theme
    from papernotes.site.trends import series_growth, trend_chart

    corpus = args.corpus.resolve()
    config, _ = load_config(corpus)
    if not config.absolute_base:
        config = config.model_copy(update={"base_url": "https://example.org/notes/"})
    taxonomy = load_site_taxonomy(corpus, config)
    with BuildCache(None) as cache:  # never write into the corpus
        loaded = load_corpus(corpus, cache)
        entries, _ = resolve(list(loaded.notes), list(loaded.diagnostics), taxonomy)
    raw = R.note_inputs(entries)
    out: dict[str, object] = {"notes": len(entries), "load_average_before": os.getloadavg()[0],
                              "exact_below": related_exact.EXACT_NOTES}
    scratch = tempfile.TemporaryDirectory()
    old = old_module(args.old, Path(scratch.name))
    path, title, summary, keywords, arxiv = raw[len(raw) // 2]
    edited = [*raw[:len(raw) // 2], (path, title + " revisited", summary, keywords, arxiv), *raw[len(raw) // 2 + 1:]]

    def cold(module):  # type: ignore[no-untyped-def]
        with BuildCache(None) as memory:
            start = time.perf_counter()
            first = module.cached_related(raw, memory)
            cold_s = time.perf_counter() - start
            start = time.perf_counter()
            update = module.cached_related(edited, memory)
            edit_s = time.perf_counter() - start
            start = time.perf_counter()
            again = module.cached_related(edited, memory)
            warm_s = time.perf_counter() - start
            assert not again.computed
        return cold_s, edit_s, warm_s, update.recomputed, first.rows

    times: dict[str, list[tuple[float, float, float]]] = {"old": [], "new": []}
    rows = {}
    for _ in range(args.runs):  # alternating, so both see the same load
        for name, module in (("old", old), ("new", R)):
            cold_s, edit_s, warm_s, scored, rows[name] = cold(module)
            times[name].append((cold_s, edit_s, warm_s))
            out[f"{name}_title_edit_rows_scored"] = scored
    for name, runs in times.items():
        for k, label in enumerate(("cold", "title_edit", "warm")):
            out[f"{name}_{label}_s"] = round(statistics.median(r[k] for r in runs), 3)
            out[f"{name}_{label}_all_s"] = [round(r[k], 3) for r in runs]
    out["cold_ratio_old_over_new"] = round(out["old_cold_s"] / out["new_cold_s"], 1)  # type: ignore[operator]
    inputs = [R.RelatedInput(p, R.paper_key(a, t), R.terms_of(t, s, k)) for p, t, s, k, a in raw]
    out["new_model_s"], model = timed(lambda: Model(inputs), args.runs)
    if model.n <= related_exact.EXACT_NOTES:
        out["new_rows_exact_s"], _ = timed(lambda: Exact(model).rows(range(model.n)), args.runs)
    out["new_rows_pruned_s"], _ = timed(lambda: Pruned(model).rows(range(model.n)), args.runs)
    out["old_new_identical_lists"] = sum(rows["old"].get(p) == row for p, row in rows["new"].items())
    if args.exact:
        out["exact_s"], exact = timed(lambda: exact_rows(model))
        out["old_agreement_with_exact"], out["old_lists_equal_exact"] = agreement(rows["old"], exact)
        out["new_agreement_with_exact"], out["new_lists_equal_exact"] = agreement(rows["new"], exact)
        if model.n <= related_exact.EXACT_NOTES:
            limit = related_exact.EXACT_NOTES
            related_exact.EXACT_NOTES = 0
            pruned = R.related(inputs)
            related_exact.EXACT_NOTES = limit
            out["pruned_agreement_with_exact"], out["pruned_lists_equal_exact"] = agreement(pruned, exact)
    out["load_average_after"] = os.getloadavg()[0]

    found = rows["new"]
    settings = PlanSettings(config, taxonomy, labels_for(config.language))
    index = SiteIndex.of(entries, found)
    out["plan_feeds_sitemap_robots_s"], pages = timed(
        lambda: plan_site(index, settings, "salt", kinds=["feeds", "sitemap", "robots"]), args.runs)
    totals = {v: len(g) for v, g in index.by_venue.items()}
    out["trend_charts_and_growth_s"], _ = timed(lambda: (
        [trend_chart(g, index.venues, totals) for g in (*index.by_topic.values(), *index.by_domain.values())],
        series_growth(index.by_venue, index.venues, settings.lang)), args.runs)
    theme = Theme(config, corpus, precompile=False)
    out["render_feeds_sitemap_s"], rendered = timed(lambda: [theme.render(p)[0] for p in pages])
    out["feed_pages"] = sum(p.template == "feed.xml" for p in pages)
    out["feeds_and_sitemap_bytes"] = sum(map(len, rendered))
    for key, value in out.items():
        print(f"{key:34} {value:.3f}" if isinstance(value, float) else f"{key:34} {value}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
