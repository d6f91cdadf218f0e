"""Benchmark: what drafting from the full text sends, by paper length and context size (no model called).

Stage: none (a developer tool, not part of the package).
In: two-column papers of about ``--pages`` pages each (the generator of
``bench_read.py``, built on ``tests/pdfgen.py``), read with ``read_paper``.
Out: a table on stdout (and ``--json FILE``) per paper length × context size
(``--contexts``):

- the paper's characters and estimated tokens (``engines._paper.estimate_tokens``);
- the mode ``draft`` picks (``full``: one request; ``map``: map-reduce) and the
  number of requests it makes before any repair (map requests + the reduce);
- estimated input tokens of those requests (prompts included; the reduce
  request counted without its facts, which depend on the model's replies);
- median milliseconds to plan the requests and to ground one drafted note
  against the paper (``engines._grounding.check``), over ``--runs``.

Request counts and token estimates are deterministic; only the two timings vary.

Usage: python benchmarks/bench_draft.py [--pages 10 30 60] [--contexts 8192 32768 128000] [--runs 5]
                                        [--json out.json] [--work DIR]
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "tests"))

from bench_read import make_paper  # noqa: E402

from papernotes.intake.draft import Drafted, Stub  # noqa: E402
from papernotes.intake.engines._conversation import Prompts, _draft_messages, _map_messages, _tokens  # noqa: E402
from papernotes.intake.engines._grounding import check  # noqa: E402
from papernotes.intake.engines._paper import Reading, estimate_tokens, full_text, plan  # noqa: E402
from papernotes.intake.paper import read_paper  # noqa: E402

FIELDS = {"title": "Generated Paper Number 1: Reading at Scale", "authors": "Ada Reader, Bob Parser",
          "venue": "ICML2026", "abstract": "We present Gutter Networks, a method for reading two-column papers."}
TABLE = "| Method | Hard | Easy |\n|---|---|---|\n" + "\n".join(
    f"| M{i} | 0.{4000 + 37 * i} | {40 + i}.{i}% |" for i in range(30))


def one(paper_pages: int, context: int, work: Path, runs: int) -> dict[str, object]:
    paper = read_paper(make_paper(work / f"p{paper_pages}.pdf", 1, paper_pages))
    prompts = Prompts.load("en")
    draft_overhead = _tokens(_draft_messages(prompts, Reading("full"), FIELDS))
    map_overhead = _tokens(_map_messages(prompts, FIELDS, "", ""))
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        reading = plan(paper, context, draft_overhead, map_overhead)
        timings.append(time.perf_counter() - start)
    if reading.mode == "full":
        requests, tokens = 1, draft_overhead + estimate_tokens(reading.text)
    else:
        maps = [_tokens(_map_messages(prompts, FIELDS, c.label, c.text)) for c in reading.chunks]
        reduce = _tokens(_draft_messages(prompts, reading, FIELDS))
        requests, tokens = len(maps) + 1, sum(maps) + reduce
    stub = Stub("n.md", "", {"title": FIELDS["title"]}, "")
    sections = {k: "Text." for k in ("background", "method", "highlights", "limitations", "related")}
    drafted = Drafted("Reaches 0.4642 on the hard split.", ("k",), {**sections, "experiments": TABLE}, {}, "b")
    grounding = []
    for _ in range(runs):
        start = time.perf_counter()
        found = check(stub, drafted, paper, "en")
        grounding.append(time.perf_counter() - start)
    text = full_text(paper)
    return {"pages": paper.pages, "context": context, "chars": len(text), "paper_tokens": estimate_tokens(text),
            "mode": reading.mode, "requests": requests, "input_tokens": tokens,
            "plan_ms": 1000 * statistics.median(timings), "numbers_checked": found.checked,
            "ground_ms": 1000 * statistics.median(grounding)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[10, 30, 60])
    parser.add_argument("--contexts", type=int, nargs="+", default=[8192, 32768, 128000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-draft-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        rows = [one(pages, context, work, args.runs) for pages in args.pages for context in args.contexts]
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{'pages':>5} {'context':>8} {'chars':>8} {'~tokens':>8} {'mode':>4} {'requests':>8} "
          f"{'~input tokens':>13} {'plan ms':>8} {'numbers':>7} {'ground ms':>9}")
    for r in rows:
        print(f"{r['pages']:>5} {r['context']:>8} {r['chars']:>8,} {r['paper_tokens']:>8,} {r['mode']:>4} "
              f"{r['requests']:>8} {r['input_tokens']:>13,} {r['plan_ms']:>8.1f} {r['numbers_checked']:>7} "
              f"{r['ground_ms']:>9.1f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
