"""Benchmark: what the published-pages record costs a build, next to the stages around it.

Stage: none (a developer tool, not part of the package).
In: a papernotes corpus (e.g. ``python benchmarks/synth.py /tmp/syn50k --notes 50000``).
Out: on stdout, medians over ``--runs`` runs, measured in one process on the same
planned pages: ``plan_site``, ``search_index``, ``manifest`` (the record
``site/manifest.py`` writes) and ``read_manifest`` (what ``check --site`` reads),
the record's size, and the manifest's time as a ratio of plan + search index.

Usage: python benchmarks/bench_manifest.py CORPUS [--runs 7]
"""
from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path


def median_seconds(func: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    from papernotes.cache import BuildCache
    from papernotes.config import load_config, load_site_taxonomy
    from papernotes.corpus.load import cache_path, load_corpus
    from papernotes.site.manifest import manifest, read_manifest
    from papernotes.site.plan import PlanSettings, plan_site
    from papernotes.site.resolve import resolve
    from papernotes.site.search import search_index
    from papernotes.site.theme import labels_for

    corpus = args.corpus.resolve()
    config, _ = load_config(corpus)
    taxonomy = load_site_taxonomy(corpus, config)
    with BuildCache(cache_path(corpus)) as cache:
        loaded = load_corpus(corpus, cache)
        entries, _ = resolve(list(loaded.notes), list(loaded.diagnostics), taxonomy)
    settings = PlanSettings(config, taxonomy, labels_for(config.language))
    pages = plan_site(entries, settings, "salt")
    record = manifest(pages)

    plan = median_seconds(lambda: plan_site(entries, settings, "salt"), args.runs)
    search = median_seconds(lambda: search_index(entries, config.language), args.runs)
    write = median_seconds(lambda: manifest(pages), args.runs)
    read = median_seconds(lambda: read_manifest(record), args.runs)
    print(f"{len(entries)} notes, {len(pages)} pages, median of {args.runs} runs")
    print(f"plan_site      {plan * 1000:8.0f} ms")
    print(f"search_index   {search * 1000:8.0f} ms")
    print(f"manifest       {write * 1000:8.0f} ms   ({write / (plan + search):.2f} × plan + search index)")
    print(f"read_manifest  {read * 1000:8.0f} ms")
    print(f"record size    {len(record) / 1e6:8.2f} MB")


if __name__ == "__main__":
    main()
