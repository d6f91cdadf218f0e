"""Benchmark: how right the reader is on real papers, field by field.

Stage: none (a developer tool, not part of the package).
In: a folder of real PDFs with ``truth.json`` (``../shared/papers``, read by a
person: title, authors, abstract, venue, arXiv id, Figure 1's and Table 1's
pages). Out: one row per PDF and a total row on stdout (✓ right, ✗ wrong, with
what was read), and ``--json FILE`` with the same. Each PDF is read as ``ingest
pdf`` reads it (``read_paper`` without cache, the venue resolved from its
printed line with the shipped taxonomy). ``tests/test_real_papers.py`` holds
the same comparison (``tests/papertruth.py``).

Usage: python benchmarks/bench_pdfs.py [--papers DIR] [--json out.json] [--only NAME]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from papertruth import FIELDS, PAPERS, compare, load_truth, read_fields  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=Path, default=PAPERS)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--only", help="a PDF name (or part of one)")
    args = ap.parse_args()
    if not (args.papers / "truth.json").is_file():
        print(f"{args.papers}: no truth.json; nothing to measure", file=sys.stderr)
        return 2
    truths = [t for t in load_truth(args.papers / "truth.json") if not args.only or args.only in t["file"]]
    rows = []
    totals = dict.fromkeys(FIELDS, 0)
    for truth in truths:
        start = time.perf_counter()
        got = read_fields(args.papers / truth["file"])
        ms = (time.perf_counter() - start) * 1000
        verdict = compare(truth, got)
        rows.append({"file": truth["file"], "ms": round(ms), "pages": truth["pages"], "got": got,
                     "right": verdict})
        for field, ok in verdict.items():
            totals[field] += ok
        marks = " ".join(("✓" if verdict[f] else "✗") + f for f in FIELDS)
        print(f"{truth['file']:34} {ms / truth['pages']:6.0f} ms/page  {marks}")
        for f in FIELDS:
            if not verdict[f]:
                print(f"    {f}: read {json.dumps(got[f], ensure_ascii=False)[:200]}"
                      f"  truth {json.dumps(truth.get(_TRUTH_KEY.get(f, f)), ensure_ascii=False)[:200]}")
    n = len(truths)
    print("\n| field | right |\n| --- | --- |")
    for f in FIELDS:
        print(f"| {f} | {totals[f]}/{n} |")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "totals": totals, "n": n}, ensure_ascii=False, indent=1))
    return 0


_TRUTH_KEY = {"abstract": "abstract_start", "arxiv": "arxiv_id", "fig1_page": "fig1_page",
              "table1_page": "first_table_page"}

if __name__ == "__main__":
    raise SystemExit(main())
