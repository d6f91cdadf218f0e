"""Benchmark: reading PDFs (``papernotes read``) and the cost of ``check --grounding``.

Stage: none (a developer tool, not part of the package).
In: PDFs generated here with the test generator (``tests/pdfgen.py``, fpdf2):
``--papers`` two-column papers of about ``--pages`` pages each (prose, a
results table and a figure per section, vector and raster in turn, an
outline), each with distinct text so the cache
never serves one paper for another; and, when present, the reference notes
(``../shared/corpus/paper-notes/docs``) for the cost of finding numbers in real
notes. Out: a table on stdout (and ``--json FILE``):

- read: median ms per page over the papers, for pypdf's plain ``extract_text``
  (the baseline the issue quotes, ~33 ms/page on real papers), pypdfium2's plain
  text (``get_text_range``, the alternative text path) and for ``read_paper``
  without cache (metadata, text: pypdf with the position visitor, then reading
  order, cleanup, sections; figures and tables: ``find_figures``, pypdfium2),
  its ratio to pypdf's, pages/s, ``find_figures`` alone, and a cached read
  (same PDF again: SHA-256 + gzip'd JSON);
- figures: each paper's first figure and table rendered at 800 px
  (``render_figure``, ms and bytes), and those pictures, page 1 (dense text)
  and a noisy gradient (a photograph) encoded as PNG, lossy WebP (two
  methods), lossless WebP and as ``encode`` does: median bytes and ms of each;
- grounding: a corpus of ``--papers`` notes, each with its PDF beside it and a
  results table; median seconds (``--runs``) of ``check_corpus`` in-process
  without grounding, with grounding and a cold reading cache (papers read in
  worker processes), and with a warm cache; the difference is the cost;
- note numbers: seconds to find the numbers of every reference note (pure
  ``note_numbers``), and how many numbers a note states (median, p90).

Usage: python benchmarks/bench_read.py [--papers 12] [--pages 10] [--runs 3] [--json out.json] [--work DIR]
                                       [--docs DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

import pdfgen  # noqa: E402

DOCS = Path(os.environ.get("PAPERNOTES_SHARED", REPO.parent / "shared")) / "corpus" / "paper-notes" / "docs"


def make_paper(path: Path, k: int, pages: int) -> Path:
    """A two-column paper of about ``pages`` pages whose numbers depend on ``k``."""
    paper = pdfgen.Paper(f"Generated Paper Number {k}: Reading at Scale")
    paper.front("Ada Reader, Bob Parser", pdfgen.ABSTRACT)
    blocks: list[pdfgen.Block] = []
    section = 0
    while len(blocks) < 18 * pages:
        section += 1
        rows = tuple((f"Method{j}", f"{0.3 + 0.01 * ((k * 7 + j * 13 + section) % 60):.4f}",
                      f"{40 + ((k * 11 + j * 5 + section) % 50) / 10:.1f}", f"{k + j + section}")
                     for j in range(6))
        blocks += [pdfgen.Heading(str(section), f"Section Title {section}"), pdfgen.Para(pdfgen.INTRO),
                   pdfgen.Para(pdfgen.FILLER), pdfgen.Para(pdfgen.RESULTS),
                   pdfgen.Table((("Method", "Hard", "Easy", "Steps"), *rows), caption=f"Table {section}: results."),
                   pdfgen.Para(pdfgen.FILLER),
                   pdfgen.Figure(f"Figure {section}: what section {section} measures, drawn.",
                                 "raster" if section % 2 else "vector"),
                   pdfgen.Para(pdfgen.METHOD), pdfgen.Para(pdfgen.FILLER),
                   pdfgen.Para(pdfgen.ABLATION)]
    paper.flow(blocks, columns=2)
    paper.flow([pdfgen.Heading("", "References"), pdfgen.Para(pdfgen.REFERENCES)], columns=2)
    return paper.save(path)


NOTE = """---
title: "Generated Paper Number {k}: Reading at Scale"
venue: ICML2026
domain: optimization
---
## 一句话总结
Reaches 0.4642 on the hard split (46.4%), 1.8× faster, 12.5 ms per page.

## 实验关键数据
| Method | Hard | Easy |
|---|---|---|
| Ours | 0.4642 | 0.5131 |
| Wrong | 0.673 | 0.712 |
"""


def bench_read(work: Path, papers: int, pages: int) -> dict[str, float]:
    import pypdfium2
    from pypdf import PdfReader

    from papernotes.intake.paper import read_paper
    from papernotes.intake.paper.figures import find_figures

    plain, pdfium, ours, figures, cached, page_counts, found = [], [], [], [], [], [], []
    cache = work / "cache"
    for k in range(papers):
        pdf = make_paper(work / f"p{k}.pdf", k, pages)
        data = pdf.read_bytes()
        t = time.perf_counter()
        reader = PdfReader(str(pdf))
        for page in reader.pages:
            page.extract_text()
        plain_s = time.perf_counter() - t
        t = time.perf_counter()
        doc = pypdfium2.PdfDocument(data)
        for i in range(len(doc)):
            doc[i].get_textpage().get_text_range()
        doc.close()
        pdfium_s = time.perf_counter() - t
        t = time.perf_counter()
        paper = read_paper(pdf, cache)
        ours_s = time.perf_counter() - t
        t = time.perf_counter()
        find_figures(str(pdf), data)
        figures_s = time.perf_counter() - t
        t = time.perf_counter()
        read_paper(pdf, cache)
        cached.append(time.perf_counter() - t)
        page_counts.append(paper.pages)
        found.append(len(paper.figures) + len(paper.tables))
        plain.append(1000 * plain_s / paper.pages)
        pdfium.append(1000 * pdfium_s / paper.pages)
        ours.append(1000 * ours_s / paper.pages)
        figures.append(1000 * figures_s / paper.pages)
    ms = statistics.median(ours)
    return {"papers": papers, "pages_median": statistics.median(page_counts),
            "plain_ms_per_page": statistics.median(plain), "pdfium_text_ms_per_page": statistics.median(pdfium),
            "read_ms_per_page": ms, "figures_ms_per_page": statistics.median(figures),
            "found_median": statistics.median(found),
            "ratio": ms / statistics.median(plain), "pages_per_s": 1000 / ms,
            "cached_read_ms": 1000 * statistics.median(cached)}


def bench_figures(work: Path, papers: int) -> dict[str, dict[str, float]]:
    """Render each paper's first figure and table at 800 px; encode them, page 1 (dense text, like a table or a
    plot's labels) and a noisy gradient (like a photograph), 800 px wide, five ways."""
    import io

    import pypdfium2
    from PIL import Image

    from papernotes.intake.paper.figures import WEBP_METHOD, WEBP_QUALITY, encode, find_figures, render_figure, \
        render_picture

    samples: dict[str, dict[str, list[float]]] = {}

    def add(name: str, key: str, value: float) -> None:
        samples.setdefault(name, {}).setdefault(key, []).append(value)

    def save(picture: Image.Image, **options: object) -> bytes:
        out = io.BytesIO()
        picture.save(out, **options)
        return out.getvalue()

    encodings = (("PNG", lambda p: save(p, format="PNG")),
                 (f"WebP q{WEBP_QUALITY} method {WEBP_METHOD}",
                  lambda p: save(p, format="WEBP", quality=WEBP_QUALITY, method=WEBP_METHOD)),
                 (f"WebP q{WEBP_QUALITY} method 4", lambda p: save(p, format="WEBP", quality=WEBP_QUALITY, method=4)),
                 (f"WebP lossless method {WEBP_METHOD}",
                  lambda p: save(p, format="WEBP", lossless=True, method=WEBP_METHOD)),
                 ("encode() (chosen)", lambda p: encode(p).data))
    for k in range(papers):
        data = (work / f"p{k}.pdf").read_bytes()
        figures, tables = find_figures("", data)
        pictures = []
        for figure in (*figures[:1], *tables[:1]):
            t = time.perf_counter()
            image = render_figure(data, figure)
            add("render_figure (render + encode)", "ms", 1000 * (time.perf_counter() - t))
            add("render_figure (render + encode)", "bytes", len(image.data))
            pictures.append(render_picture(data, figure))
        doc = pypdfium2.PdfDocument(data)
        pictures.append(doc[0].render(scale=800 / doc[0].get_width()).to_pil().convert("RGB"))
        doc.close()
        photo = Image.merge("RGB", [Image.effect_noise((800, 500), 40 + 5 * k + i).point(lambda v: v // 2)
                                    for i in range(3)])
        pictures.append(Image.blend(photo, Image.linear_gradient("L").resize((800, 500)).convert("RGB"), 0.5))
        for kind, picture in zip(("figure", "table", "page", "photo"), pictures):
            for name, run in encodings:
                t = time.perf_counter()
                size = len(run(picture))
                add(f"{kind}: {name}", "ms", 1000 * (time.perf_counter() - t))
                add(f"{kind}: {name}", "bytes", size)
    return {name: {key: statistics.median(values) for key, values in keys.items()} for name, keys in samples.items()}


def bench_grounding(work: Path, papers: int, pages: int, runs: int) -> dict[str, float]:
    from papernotes.check.run import CheckOptions, check_corpus

    corpus = work / "corpus"
    folder = corpus / "ICML2026" / "optimization"
    folder.mkdir(parents=True)
    for k in range(papers):
        shutil.copy(work / f"p{k}.pdf", folder / f"n{k}.pdf")
        (folder / f"n{k}.md").write_text(NOTE.format(k=k), encoding="utf-8")
    base = CheckOptions(formulas=False, classifier=False)
    grounded = CheckOptions(formulas=False, classifier=False, grounding=True)
    check_corpus(corpus, base)  # the parse cache is warm for every timed run

    def timed(options: CheckOptions, cold: bool) -> float:
        samples = []
        for _ in range(runs):
            if cold:
                shutil.rmtree(corpus / ".papernotes" / "papers", ignore_errors=True)
            t = time.perf_counter()
            check_corpus(corpus, options)
            samples.append(time.perf_counter() - t)
        return statistics.median(samples)

    plain = timed(base, False)
    cold = timed(grounded, True)
    warm = timed(grounded, False)
    return {"notes": papers, "check_s": plain, "grounding_cold_s": cold, "grounding_warm_s": warm,
            "cost_cold_s_per_note": (cold - plain) / papers, "cost_warm_ms_per_note": 1000 * (warm - plain) / papers}


def bench_note_numbers(docs: Path) -> dict[str, float] | None:
    from papernotes.intake.grounding import note_numbers
    from papernotes.corpus.frontmatter import split_front_matter

    if not docs.is_dir():
        return None
    files = [p for p in docs.rglob("*.md") if p.name not in ("index.md", "TODO.md")]
    texts = [split_front_matter(p.read_text(encoding="utf-8")) for p in files]
    t = time.perf_counter()
    counts = [sum(q.claim for q in note_numbers(body, line)) for _, body, line in texts]
    seconds = time.perf_counter() - t
    counts.sort()
    return {"notes": len(files), "seconds": seconds, "numbers": sum(counts),
            "median_per_note": statistics.median(counts), "p90_per_note": counts[int(0.9 * len(counts))]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=12)
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--work", type=Path)
    parser.add_argument("--docs", type=Path, default=DOCS, help="reference notes (default ../shared/corpus/...)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-read-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        results = {"cpus": os.cpu_count(), "read": bench_read(work, args.papers, args.pages),
                   "figures": bench_figures(work, args.papers),
                   "grounding": bench_grounding(work, args.papers, args.pages, args.runs),
                   "note_numbers": bench_note_numbers(args.docs)}
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    r, g, n = results["read"], results["grounding"], results["note_numbers"]
    print(f"read ({r['papers']} papers, median {r['pages_median']:.0f} pages):")
    print(f"  pypdf extract_text      {r['plain_ms_per_page']:7.1f} ms/page")
    print(f"  pypdfium2 text          {r['pdfium_text_ms_per_page']:7.1f} ms/page")
    print(f"  papernotes read_paper   {r['read_ms_per_page']:7.1f} ms/page  ({r['pages_per_s']:.0f} pages/s, "
          f"{r['ratio']:.2f}x the plain extraction; metadata, text, figures and tables)")
    print(f"  of which find_figures   {r['figures_ms_per_page']:7.1f} ms/page  "
          f"({r['found_median']:.0f} figures and tables a paper)")
    print(f"  cached read             {r['cached_read_ms']:7.1f} ms/paper")
    print("figures (first figure, first table, page 1 of each paper, a photograph; 800 px wide; median):")
    for name, values in results["figures"].items():
        print(f"  {name:42} {values['ms']:7.1f} ms  {values['bytes'] / 1024:7.1f} KiB")
    print(f"check --grounding ({g['notes']} notes with their PDF, {args.runs} runs, median):")
    print(f"  check without grounding {g['check_s']:7.2f} s")
    print(f"  grounding, cold cache   {g['grounding_cold_s']:7.2f} s  (+{g['cost_cold_s_per_note']:.3f} s/note)")
    print(f"  grounding, warm cache   {g['grounding_warm_s']:7.2f} s  (+{g['cost_warm_ms_per_note']:.1f} ms/note)")
    if n:
        print(f"note numbers in {n['notes']} reference notes: {n['seconds']:.2f} s, {n['numbers']:,} numbers "
              f"(median {n['median_per_note']:.0f}, p90 {n['p90_per_note']} per note)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
