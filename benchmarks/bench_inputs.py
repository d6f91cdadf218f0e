"""Bounded inputs: the cost of a large formula in `check`, of a huge BibTeX field in `ingest`, and what changed.

    python benchmarks/bench_inputs.py [--docs DIR] [--skip-agreement] [--json out.json]

``--docs`` defaults to ``$PAPERNOTES_REFERENCE_DOCS``, else ``../shared/corpus/paper-notes/docs``.

1. **Formulas**: one display formula ``x+x+…+x`` of N terms, validated by the
   vendored KaTeX in QuickJS with the HTML+MathML output (what `check` ran
   before) and the MathML output (what it runs now); median of 3 runs, both in
   this process. KaTeX's HTML builder inserts each operator's spacing with
   ``Array.splice``, so its time grows with the square of the number of
   operators; the MathML builder's is linear.
2. **Agreement**: every distinct formula of the reference corpus (imported
   from ``--docs``) validated both ways; the number whose verdict differs (0
   means the MathML check rejects exactly what the browser rejects).
3. **BibTeX**: one entry with a single field of N characters (no spaces) run
   through bibtexparser with LaTeX decoding as `ingest` did before (pylatexenc
   over the whole field), and through `parse_bibtex` now (the field is
   reported as too long before any decoding), 5 MB included.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import quickjs

from papernotes.corpus.katex import _BATCH_JS, KATEX_DIR
from papernotes.corpus.formulas import extract_formulas
from papernotes.corpus.frontmatter import split_front_matter


def _katex(output: str):  # type: ignore[no-untyped-def]
    ctx = quickjs.Context()
    ctx.eval((KATEX_DIR / "katex.min.js").read_text(encoding="utf-8"))
    fn = ctx.eval(_BATCH_JS.replace('"mathml"', json.dumps(output)))
    return ctx, fn


def _time(fn, *args) -> float:  # type: ignore[no-untyped-def]
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        fn(*args)
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def formulas() -> list[dict[str, object]]:
    rows = []
    engines = {out: _katex(out) for out in ("htmlAndMathml", "mathml")}
    print("terms   chars   html+mathml   mathml   ratio")
    for terms in (1_000, 2_000, 5_000, 10_000, 20_000):
        batch = json.dumps([["+".join("x" for _ in range(terms)), True]])
        html = _time(engines["htmlAndMathml"][1], batch)
        mathml = _time(engines["mathml"][1], batch)
        rows.append({"terms": terms, "chars": 2 * terms - 1, "html_s": round(html, 3), "mathml_s": round(mathml, 3)})
        print(f"{terms:5d} {2 * terms - 1:7d} {html:11.2f} s {mathml:6.2f} s {html / mathml:6.1f}×")
    return rows


def agreement(docs: Path) -> dict[str, int]:
    from papernotes.migrate.tree import import_tree

    keys: set[tuple[bool, str]] = set()
    with tempfile.TemporaryDirectory() as tmp:
        import_tree(docs, Path(tmp) / "c")
        for path in (Path(tmp) / "c").rglob("*.md"):
            if ".papernotes" in path.parts:
                continue
            _, body, line = split_front_matter(path.read_text(encoding="utf-8").replace("\r\n", "\n"))
            keys.update((f.display, f.tex) for f in extract_formulas(body, line))
    ordered = sorted(keys)
    verdicts = {}
    for output in ("htmlAndMathml", "mathml"):
        _, fn = _katex(output)
        out: list[object] = []
        started = time.perf_counter()
        for i in range(0, len(ordered), 256):
            out += json.loads(fn(json.dumps([[tex, display] for display, tex in ordered[i:i + 256]])))
        verdicts[output] = out
        print(f"{output}: {len(ordered)} distinct formulas in {time.perf_counter() - started:.1f} s, "
              f"{sum(v is not None for v in out)} rejected")
    differ = sum(a != b for a, b in zip(verdicts["htmlAndMathml"], verdicts["mathml"]))
    print(f"verdicts that differ: {differ}")
    return {"formulas": len(ordered), "rejected": sum(v is not None for v in verdicts["mathml"]), "differ": differ}


def bibtex() -> list[dict[str, object]]:
    import bibtexparser
    from bibtexparser import middlewares as mw

    from papernotes.intake.sources.bibtex import parse_bibtex

    rows = []
    print("field chars   before (LaTeX decoding)   now")
    for size in (50_000, 100_000, 200_000, 5_000_000):
        text = "@article{big,\n title = {Big},\n abstract = {" + "x" * size + "}\n}\n"
        before = None
        if size <= 200_000:  # 5 MB took 7 minutes; the smaller sizes show the growth
            started = time.perf_counter()
            bibtexparser.parse_string(text, append_middleware=[mw.LatexDecodingMiddleware()])
            before = time.perf_counter() - started
        started = time.perf_counter()
        result = parse_bibtex(text, "big.bib")
        now = time.perf_counter() - started
        assert not result.papers and result.diagnostics[0].code == "too-long"
        rows.append({"chars": size, "before_s": round(before, 2) if before is not None else None,
                     "now_s": round(now, 3)})
        shown = f"{before:8.2f} s" if before is not None else "   (not run)"
        print(f"{size:11,d}   {shown:>22}   {now:.3f} s")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=Path, default=Path(os.environ.get("PAPERNOTES_REFERENCE_DOCS")
                                                          or Path(__file__).resolve().parents[2] / "shared/corpus/paper-notes/docs"))
    parser.add_argument("--skip-agreement", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report: dict[str, object] = {"formulas": formulas(), "bibtex": bibtex()}
    if not args.skip_agreement and args.docs.is_dir():
        report["agreement"] = agreement(args.docs)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
