"""Benchmark: Markdown engines on the note corpus, speed and math safety.

Stage: none (a developer tool, not part of the package).
In: a directory of notes (``*.md``, searched recursively); default
``../shared/corpus/paper-notes/docs`` relative to the repository root.
Out: a table on stdout: median seconds over 5 runs to render every note with
pyromark (the engine papernotes uses, with its options), cmarkgfm (GFM with
the table extension) and markdown-it-pyrs (CommonMark + tables), the ratio
to the fastest, and for each engine the number of notes in which the TeX of
some ``$…$``/``$$…$$`` formula does not survive intact (``_`` turned into
``<em>``, ``\\{`` unescaped to ``{``, ``\\\\`` to ``\\``...).

The formulas are found by pyromark (``papernotes.corpus.formulas.extract_formulas``);
an engine keeps a formula intact when its HTML, unescaped and with runs of
whitespace collapsed, contains the formula's TeX between its delimiters
(``$``/``$$`` for engines without math support, the math ``<span>`` for
pyromark).

Usage: python benchmarks/engines.py [DOCS_DIR]
cmarkgfm and markdown-it-pyrs are benchmark-only: pip install cmarkgfm markdown-it-pyrs
"""
from __future__ import annotations

import html
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DOCS = REPO.parent / "shared" / "corpus" / "paper-notes" / "docs"
RUNS = 5

try:
    from papernotes.corpus.formulas import MARKDOWN_OPTIONS, Formula, extract_formulas
except ImportError:  # running from a checkout without the package installed
    sys.path.insert(0, str(REPO / "src"))
    from papernotes.corpus.formulas import MARKDOWN_OPTIONS, Formula, extract_formulas

import pyromark  # noqa: E402  (after the path fix above, like papernotes)

Render = Callable[[str], str]
_WS = re.compile(r"\s+")
_FRONT_MATTER = re.compile(r"\A---\r?\n.*?\r?\n---\r?\n", re.DOTALL)


def engines() -> tuple[dict[str, Render], list[str]]:
    """The engines that can be imported, and a note for each that cannot."""
    found: dict[str, Render] = {}
    missing: list[str] = []
    found["pyromark"] = lambda text: pyromark.html(text, options=MARKDOWN_OPTIONS)
    try:
        import cmarkgfm

        found["cmarkgfm"] = lambda text: cmarkgfm.markdown_to_html_with_extensions(
            text, extensions=["table"]
        )
    except ImportError:
        missing.append("cmarkgfm not installed (pip install cmarkgfm): skipped")
    try:
        from markdown_it_pyrs import MarkdownIt

        md = MarkdownIt("commonmark").enable("table")
        found["markdown-it-pyrs"] = md.render
    except ImportError:
        missing.append("markdown-it-pyrs not installed (pip install markdown-it-pyrs): skipped")
    return found, missing


def normalise(text: str) -> str:
    return _WS.sub(" ", text)


def needle(engine: str, formula: Formula) -> str:
    """What the unescaped, whitespace-collapsed HTML must contain for the TeX to be intact."""
    tex = normalise(formula.tex)
    if engine == "pyromark":
        kind = "display" if formula.display else "inline"
        return f'<span class="math math-{kind}">{tex}</span>'
    fence = "$$" if formula.display else "$"
    return f"{fence}{tex}{fence}"


def main(argv: list[str]) -> int:
    docs = Path(argv[1]) if len(argv) > 1 else DEFAULT_DOCS
    if not docs.is_dir():
        print(f"skipped: notes directory {docs} not found")
        return 0
    paths = sorted(docs.rglob("*.md"))
    if not paths:
        print(f"skipped: no *.md under {docs}")
        return 0
    texts = [_FRONT_MATTER.sub("", p.read_text(encoding="utf-8")) for p in paths]
    formulas = [extract_formulas(t) for t in texts]
    total_formulas = sum(len(f) for f in formulas)
    size_mb = sum(len(t.encode()) for t in texts) / 1e6
    print(f"{len(paths)} notes, {size_mb:.1f} MB, {total_formulas} formulas (pyromark), {RUNS} runs each")

    found, missing = engines()
    for line in missing:
        print(line)

    medians: dict[str, float] = {}
    altered: dict[str, tuple[int, int]] = {}
    for name, render in found.items():
        times: list[float] = []
        outputs: list[str] = []
        for _ in range(RUNS):
            start = time.perf_counter()
            outputs = [render(t) for t in texts]
            times.append(time.perf_counter() - start)
        medians[name] = statistics.median(times)
        bad_notes = bad_formulas = 0
        for out, note_formulas in zip(outputs, formulas, strict=True):
            if not note_formulas:
                continue
            flat = normalise(html.unescape(out))
            misses = sum(1 for f in note_formulas if needle(name, f) not in flat)
            bad_formulas += misses
            bad_notes += misses > 0
        altered[name] = (bad_notes, bad_formulas)

    fastest = min(medians.values())
    notes_with_math = sum(1 for f in formulas if f)
    print()
    print(f"{'engine':<18} {'median s':>9} {'ratio':>6}  math altered (notes / formulas)")
    for name in sorted(medians, key=medians.__getitem__):
        notes, forms = altered[name]
        print(
            f"{name:<18} {medians[name]:>9.3f} {medians[name] / fastest:>5.2f}x"
            f"  {notes:>5} / {notes_with_math} notes, {forms} / {total_formulas} formulas"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
