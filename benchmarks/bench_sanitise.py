"""Benchmark: what the hostile-input defences cost on the reference corpus.

Stage: none (a developer tool, not part of the package).
In: the reference MkDocs tree (default ``../shared/corpus/paper-notes/docs``),
imported once with ``import-mkdocs`` into a work directory on tmpfs when there
is one (so the disk does not drown the difference).
Out: on stdout, medians over ``--runs`` runs, each pair measured in one process
and interleaved:

- the render module on every note body: ``markdown_body`` with the
  allow-list (the default) and with ``trusted=True`` (``trust_html``); the
  sanitiser alone as the build runs it (``sanitise_body``: the engine's output
  checked, nh3 only for bodies with raw HTML or a refused attribute) and nh3 on
  every body;
- the parse stage's inline fragments (every summary and title): with the
  sanitiser and with it replaced by the identity;
- the corpus scan (``scan_corpus``, symlink checks included) and reading every
  note with its containment check (``read_inside``) against a plain read;
- a cold build (no cache), ``trust_html = false`` against ``true``.

Usage: python benchmarks/bench_sanitise.py [--docs DIR] [--runs 5] [--work DIR]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DOCS = REPO.parent / "shared" / "corpus" / "paper-notes" / "docs"


def timed(func: Callable[[], object]) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def pair(a: Callable[[], object], b: Callable[[], object], runs: int) -> tuple[float, float]:
    """Medians of ``a`` and ``b``, run alternately so drift hits both alike."""
    ta, tb = [], []
    for i in range(runs):
        first, second = (a, b) if i % 2 == 0 else (b, a)
        t1, t2 = timed(first), timed(second)
        ta.append(t1 if first is a else t2)
        tb.append(t2 if first is a else t1)
    return statistics.median(ta), statistics.median(tb)


def line(label: str, with_: float, without: float) -> None:
    extra = with_ - without
    print(f"{label:42s} {with_ * 1000:9.1f} ms {without * 1000:9.1f} ms   +{extra * 1000:7.1f} ms "
          f"({with_ / without:.2f}×)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=DEFAULT_DOCS)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()

    from papernotes.corpus import parse
    from papernotes.corpus.scan import scan_corpus
    from papernotes.migrate.tree import import_tree
    from papernotes import markdown
    from papernotes.site.build import build
    from papernotes.corpus.scan import read_inside
    from papernotes.sanitise import sanitise_body, sanitise_html

    base = args.work or Path(tempfile.mkdtemp(prefix="bench-sanitise-", dir="/dev/shm" if os.path.isdir(
        "/dev/shm") else None))
    corpus = base / "corpus"
    if not corpus.exists():
        import_tree(args.docs, corpus)
    notes = sorted(corpus.rglob("*.md"))
    texts = [p.read_text(encoding="utf-8") for p in notes]
    bodies = [parse.split_front_matter(t)[1] for t in texts]
    parsed = [parse.parse_note(str(p.relative_to(corpus)), t)[0] for p, t in zip(notes, texts)]
    summaries = [n.summary for n in parsed if n is not None]
    titles = [n.title for n in parsed if n is not None]
    sources = [markdown.normalise_math(b) for b in bodies]
    html = [markdown._wrap_math(markdown.pyromark.html(src, options=markdown.MARKDOWN_OPTIONS)) for src in sources]
    size = sum(len(b.encode()) for b in bodies)
    print(f"{len(notes)} notes, {size / 1e6:.1f} MB of Markdown, {sum(map(len, html)) / 1e6:.1f} MB of body HTML; "
          f"median of {args.runs} runs\n")
    print(f"{'':42s} {'with':>12s} {'without':>12s}   {'cost':>10s}")

    body_with, body_without = pair(lambda: [markdown.markdown_body(b) for b in bodies],
                                   lambda: [markdown.markdown_body(b, trusted=True) for b in bodies], args.runs)
    line("note bodies: markdown_body", body_with, body_without)
    shortcut, everything = pair(lambda: [sanitise_body(src, h) for src, h in zip(sources, html)],
                                lambda: [sanitise_html(h) for h in html], args.runs)
    from papernotes import sanitise

    calls = []
    sanitise.sanitise_html = lambda fragment: calls.append(1) or sanitise_html(fragment)
    [sanitise_body(src, h) for src, h in zip(sources, html)]
    sanitise.sanitise_html = sanitise_html
    cleaned = len(calls)
    print(f"{'  the sanitiser as run (sanitise_body)':42s} {shortcut * 1000:9.1f} ms   "
          f"({cleaned} of {len(notes)} bodies through nh3)")
    print(f"{'  nh3 on every body (sanitise_html)':42s} {everything * 1000:9.1f} ms   "
          f"({everything / len(notes) * 1e6:.0f} µs per note)")

    def inline_all() -> None:
        for s, t in zip(summaries, titles):
            markdown.inline_markdown(s)
            markdown.title_html(t)

    real_inline = markdown.sanitise_inline

    def inline_without() -> None:
        markdown.sanitise_inline = lambda fragment: fragment
        try:
            inline_all()
        finally:
            markdown.sanitise_inline = real_inline

    inline_with, inline_plain = pair(inline_all, inline_without, args.runs)
    line("summaries and titles (parse stage)", inline_with, inline_plain)

    scan = statistics.median(timed(lambda: scan_corpus(corpus)) for _ in range(args.runs))
    print(f"{'corpus scan (scan_corpus)':42s} {scan * 1000:9.1f} ms")
    rels = [str(p.relative_to(corpus)) for p in notes]
    checked, plain = pair(lambda: [read_inside(corpus, rel, 1 << 22) for rel in rels],
                          lambda: [(corpus / rel).read_bytes() for rel in rels], args.runs)
    line("read every note (read_inside / plain)", checked, plain)

    config = corpus / "papernotes.toml"
    original = config.read_text(encoding="utf-8")
    trusted_config = original + "\ntrust_html = true\n"

    def cold(text: str) -> Callable[[], object]:
        def run() -> None:
            config.write_text(text, encoding="utf-8")
            out = base / "site"
            shutil.rmtree(out, ignore_errors=True)
            build(corpus, out, use_cache=False)
        return run

    build_with, build_without = pair(cold(original), cold(trusted_config), args.runs)
    config.write_text(original, encoding="utf-8")
    line("cold build, in process (trust_html false/true)", build_with, build_without)
    if args.work is None:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
