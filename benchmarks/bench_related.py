"""Benchmark: related papers (quality and cost) and the build-time cost of feeds, sitemap and trends.

Stage: none (a developer tool, not part of the package).
In: a papernotes corpus (the reference one: ``papernotes import-mkdocs DOCS DEST``; a synthetic one:
``python benchmarks/synth.py /tmp/s50k --notes 50000``).
Out, on stdout (and ``--json``): wall times, medians of ``--runs`` where cheap, of
- tokenising every note, building the model, scoring every row in this process and through the
  child process with ``--workers`` workers (what ``build`` does from 2,000 notes on);
- ``cached_related`` on a warm cache (what a body edit costs: nothing recomputed) and after one
  title edit (only the rows it can change are scored again: their number is printed);
- quality with ``--exact``: agreement of the top-5 with exact TF-IDF cosine (scikit-learn's
  TfidfVectorizer on the same terms, an exact sparse product, the same duplicate rules):
  the share of exact neighbours found, over every note;
- planning the feed, sitemap and robots pages and the trend charts and growth, rendering the
  feeds and sitemap, and their size.

Usage: python benchmarks/bench_related.py CORPUS [--exact] [--workers 2] [--runs 3] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path


def timed(func, runs: int = 1):  # type: ignore[no-untyped-def]
    times, value = [], None
    for _ in range(runs):
        start = time.perf_counter()
        value = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def exact_rows(inputs):  # type: ignore[no-untyped-def]
    """Top-5 by exact TF-IDF cosine (scikit-learn, sparse), same exclusions as papernotes."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    from papernotes.site.related import NEIGHBOURS

    notes = sorted(inputs, key=lambda r: r.path)
    matrix = TfidfVectorizer(analyzer=lambda terms: terms, lowercase=False).fit_transform([r.terms for r in notes])
    sims = (matrix @ matrix.T).tocsr()
    rows = {}
    for i, note in enumerate(notes):
        start, end = sims.indptr[i], sims.indptr[i + 1]
        cols, vals = sims.indices[start:end], sims.data[start:end]
        order = np.lexsort((cols, -vals))
        seen, row = {note.paper}, []
        for j in order:
            b = cols[j]
            if b == i or vals[j] <= 0 or notes[b].paper in seen:
                continue
            seen.add(notes[b].paper)
            row.append(notes[b].path)
            if len(row) == NEIGHBOURS:
                break
        rows[note.path] = row
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--exact", action="store_true")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    from papernotes.cache import BuildCache
    from papernotes.config import load_config, load_site_taxonomy
    from papernotes.corpus.load import cache_path, load_corpus
    from papernotes.site import related as R
    from papernotes.site.plan import PlanSettings, SiteIndex, plan_site
    from papernotes.site.resolve import resolve
    from papernotes.site.theme import Theme, labels_for
    from papernotes.site.trends import series_growth, trend_chart

    corpus = args.corpus.resolve()
    config, _ = load_config(corpus)
    if not config.absolute_base:
        config = config.model_copy(update={"base_url": "https://example.org/notes/"})
    taxonomy = load_site_taxonomy(corpus, config)
    with BuildCache(cache_path(corpus)) as cache:
        loaded = load_corpus(corpus, cache)
        entries, _ = resolve(list(loaded.notes), list(loaded.diagnostics), taxonomy)
    out: dict[str, object] = {"notes": len(entries), "load_average": os.getloadavg()[0]}
    raw = R.note_inputs(entries)

    out["tokenise_s"], inputs = timed(lambda: [R.RelatedInput(p, R.paper_key(a, t), R.terms_of(t, s, k))
                                                for p, t, s, k, a in raw])
    out["model_s"], model = timed(lambda: R.Model(inputs))
    out["rows_in_process_s"], rows = timed(lambda: [model.row(i) for i in range(model.n)])
    model = None  # freed before the child process forks
    limit = R.PARALLEL_NOTES
    R.PARALLEL_NOTES = 0
    out["related_child_s"], found = timed(lambda: R.related(inputs, args.workers))
    R.PARALLEL_NOTES = limit
    with BuildCache(None) as memory:
        out["cached_cold_s"], _ = timed(lambda: R.cached_related(raw, memory, args.workers))
        out["cached_warm_s"], again = timed(lambda: R.cached_related(raw, memory, args.workers), args.runs)
        assert not again.computed
        path, title, summary, keywords, arxiv = raw[len(raw) // 2]
        edited = [*raw[:len(raw) // 2], (path, title + " revisited", summary, keywords, arxiv), *raw[len(raw) // 2 + 1:]]
        out["title_edit_s"], update = timed(lambda: R.cached_related(edited, memory, args.workers))
        out["title_edit_rows_scored"] = update.recomputed
    if args.exact:
        out["exact_s"], exact = timed(lambda: exact_rows(inputs))
        shared = sum(len(set(found.get(p, ())) & set(row)) for p, row in exact.items())
        out["agreement_with_exact"] = round(shared / max(1, sum(map(len, exact.values()))), 4)
        out["notes_with_all_5_found"] = sum(set(found.get(p, ())) == set(row) for p, row in exact.items())

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
        print(f"{key:30} {value:.3f}" if isinstance(value, float) else f"{key:30} {value}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
