"""What the places of numbers and the provenance line cost in page weight, before and after.

Stage: none (a developer tool, not part of the package).
In: the reference docs tree (default ``../shared/corpus/paper-notes/docs``), the real papers
(default ``../shared/papers``) and the ``src`` folder of an earlier papernotes (``--before``, e.g.
``git archive be959bf src | tar -x -C /tmp/before``). Out: a report on stdout (``--json FILE`` too).

What one run does, every build a subprocess (``bench_build.run_measured``), the two versions alternating:

- the reference corpus imported by each version (``import-mkdocs``: the "after" notes carry
  ``imported_from``, so their pages have a provenance line) and built: the gzip'd size of every note page
  of both sites (mean per note);
- the real papers ingested, drafted with the extractive engine (by the "after" version: the corpus is the
  same for both) and built by each version: the gzip'd size of each drafted note page, mean per note, and
  the numbers that carry a place.

What the same versions cost in no-op and one-edit rebuilds is ``bench_ab.py``'s to measure.

Usage: python benchmarks/bench_places.py --before /tmp/before/src [--docs DIR] [--papers DIR] [--json FILE]
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import bench_build as bb

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT.parent / "shared" / "corpus" / "paper-notes" / "docs"
PAPERS = ROOT.parent / "shared" / "papers"


def env_of(src: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if src is not None:  # PYTHONPATH comes before the editable install
        env["PYTHONPATH"] = str(src)
    return env


def run(cmd: list[str], src: Path | None, what: str) -> bb.Run:
    os.environ.pop("PYTHONPATH", None)
    saved = dict(os.environ)
    os.environ.update(env_of(src))
    try:
        return bb.run_measured(cmd, what)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def page_weight(site: Path, pattern: str = "*/*/*/index.html") -> tuple[int, float]:
    """(note pages, mean gzip'd bytes per page)."""
    sizes = [len(gzip.compress(p.read_bytes(), 6)) for p in site.glob(pattern)]
    return len(sizes), statistics.fmean(sizes) if sizes else 0.0


def drafted_corpus(work: Path, papers: Path) -> Path:
    corpus = work / "drafted"
    corpus.mkdir()
    (corpus / "papernotes.toml").write_text('language = "en"\n', encoding="utf-8")
    for pdf in sorted(papers.glob("*.pdf")):  # one by one: a PDF the reader refuses is left out
        subprocess.run([*bb.papernotes_cmd(), "ingest", "pdf", str(pdf), str(corpus), "--venue", "ICLR2024"],
                       capture_output=True, check=False)
    subprocess.run([*bb.papernotes_cmd(), "draft", str(corpus), "--engine", "extractive"], capture_output=True,
                   check=True)
    for note in corpus.glob("*/*.md"):
        text = note.read_text(encoding="utf-8")
        if "\ndomain:" not in text:
            note.write_text(text.replace("\nvenue:", "\ndomain: llm_reasoning\nvenue:", 1), encoding="utf-8")
    return corpus


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="src folder of the earlier papernotes")
    parser.add_argument("--docs", type=Path, default=DOCS)
    parser.add_argument("--papers", type=Path, default=PAPERS, help="real PDFs to draft (skipped when absent)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    versions = {"before": args.before.resolve(), "after": None}
    work = Path(tempfile.mkdtemp(prefix="papernotes-places-"))
    res: dict = {"load_before": [round(x, 2) for x in os.getloadavg()]}  # type: ignore[type-arg]
    try:
        corpora = {}
        for name, src in versions.items():
            corpus, site = work / f"{name}-corpus", work / f"{name}-site"
            run([*bb.papernotes_cmd(), "import-mkdocs", str(args.docs), str(corpus)], src, "import")
            run(bb.papernotes_build(corpus, site), src, "cold build")
            corpora[name] = (corpus, site)
        res["reference"] = {name: {"pages_gzip": page_weight(site)} for name, (_, site) in corpora.items()}
        if args.papers.is_dir():
            drafted = drafted_corpus(work, args.papers)
            res["drafted"] = {}
            for name, src in versions.items():
                site = work / f"{name}-drafted-site"
                run(bb.papernotes_build(drafted, site), src, "drafted build")
                pages = "".join(p.read_text(encoding="utf-8") for p in site.glob("*/*/*/index.html"))
                res["drafted"][name] = {"pages_gzip": page_weight(site),
                                        "placed_numbers": len(re.findall(r'class="place"', pages)),
                                        "unplaced_marks": len(re.findall(r'class="place off"', pages))}
        res["load_after"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(res, indent=1))
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
