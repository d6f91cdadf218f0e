"""Bounded inputs: CSV cells, BibTeX fields, LaTeX comments, JSON rows and formula length, each with its line.

The formula test counts work instead of timing it: the vendored KaTeX runs in a
QuickJS context whose array operations are instrumented (elements pushed,
shifted, copied or scanned), with the very script ``check`` runs. A linear
check does a bounded amount of that work per character; the HTML output KaTeX
used to render did four times as much for a formula twice as long.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import write_note
from papernotes.corpus.katex import _BATCH_JS, KATEX_DIR, MAX_FORMULA_CHARS, FormulaChecker
from papernotes.corpus.formulas import Formula
from papernotes.cli import app
from papernotes.intake.sources import MAX_FIELD_CHARS, SourceRequest, load_source
from papernotes.intake.sources.bibtex import parse_bibtex

quickjs = pytest.importorskip("quickjs")
runner = CliRunner()


# ---------------------------------------------------------------- CSV and JSON

def test_a_csv_cell_over_the_csv_module_limit_is_reported_with_its_row_line(tmp_path: Path) -> None:
    path = tmp_path / "papers.csv"
    huge = "y" * 200_000  # over csv's own 131,072 limit, which used to be a traceback
    path.write_text(f'title,abstract\nFirst,short\n"Second","{huge}"\n"Third","spans\ntwo lines"\nFourth,ok\n',
                    encoding="utf-8")
    result = load_source("csv", SourceRequest((str(path),), kind="csv"))
    assert [p.title for p in result.papers] == ["First", "Third", "Fourth"]
    [problem] = result.diagnostics
    assert (problem.line, problem.is_error) == (3, True)
    assert problem.message == (f"row 2: `abstract` is 200,000 characters long; at most {MAX_FIELD_CHARS:,} are "
                               "read: row skipped")
    assert result.papers[2].origin == (f"{path}:6",)  # lines still counted after the long cell
    import csv
    assert csv.field_size_limit() == 131_072  # the module's limit is restored


def test_a_cell_at_the_bound_is_read() -> None:
    from papernotes.intake.sources._table import papers_from_rows

    result = papers_from_rows([(2, {"title": "T", "abstract": "z" * MAX_FIELD_CHARS})], "x.csv")
    assert len(result.papers) == 1 and not result.diagnostics


def test_json_rows_carry_their_line(tmp_path: Path) -> None:
    path = tmp_path / "papers.json"
    path.write_text('{"source": {"name": "x", "list": [1, 2]},\n "papers": [\n  {"title": "A"},\n  {"title": ""},\n'
                    '\n  {"title": "C", "abstract": "' + "w" * (MAX_FIELD_CHARS + 1) + '"},\n  {"title": "D"}\n]}\n',
                    encoding="utf-8")
    result = load_source("json", SourceRequest((str(path),), kind="json"))
    assert [(p.title, p.origin) for p in result.papers] == [("A", (f"{path}:3",)), ("D", (f"{path}:7",))]
    assert [(d.line, d.message.split(":")[0]) for d in result.diagnostics] == [(4, "row 2 has no title; skipped"),
                                                                                (6, "row 3")]


def test_json_lines_follow_the_papers_list_json_reads() -> None:
    from papernotes.intake.sources._table import _json_rows

    text = ('{"papers": [{"title": "old"}],\n "note": {"papers": []},\n "pap\\u0065rs": [\n'
            '  {"title": "A"}, {"title": "B"},\n  {"title": "C"}\n ]\n}\n')
    assert [(line, row["title"]) for line, row in _json_rows(text, "x.json")] == [(4, "A"), (4, "B"), (5, "C")]


def test_cli_ingest_json_errors_exit_1_with_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "papers.json"
    path.write_text('[\n {"title": "A", "venue": "ICML 2024"},\n {"abstract": "no title"}\n]\n', encoding="utf-8")
    result = runner.invoke(app, ["ingest", "json", str(path), str(tmp_path / "notes")])
    assert result.exit_code == 1
    assert result.stderr == f"{path}:3: error: row 2 has no title; skipped\n"
    assert "1 new stub(s)" in result.stdout


# ---------------------------------------------------------------- BibTeX

def test_a_huge_bibtex_field_is_refused_before_latex_decoding(tmp_path: Path) -> None:
    text = ("@inproceedings{ok,\n title = {Fine},\n booktitle = {ICML},\n year = {2024}\n}\n"
            "@article{big,\n title = {Big},\n abstract = {" + "x" * 5_000_000 + "}\n}\n"
            "@inproceedings{after,\n title = {After},\n booktitle = {ICML},\n year = {2024}\n}\n")
    result = parse_bibtex(text, "big.bib")
    assert [p.title for p in result.papers] == ["Fine", "After"]
    [problem] = result.diagnostics
    assert str(problem) == ("big.bib:8: error: field `abstract` of entry 'big' is 5,000,000 characters long; at most "
                            f"{MAX_FIELD_CHARS:,} are read: entry skipped")


def test_percent_is_a_latex_comment_with_a_warning_naming_the_line() -> None:
    text = ("% a comment line\n@inproceedings{p,\n  title = {Fifty 50% Off},\n  booktitle = {ICML}, year = {2024},\n"
            "  abstract = {We gain 5% on ImageNet\n    and more; 3\\% is a percent sign.\n"
            "    A comment at the end of a line joins it %\n    with the next.}\n}\n")
    result = parse_bibtex(text, "refs.bib")
    [paper] = result.papers
    assert paper.title == "Fifty 50"
    assert paper.abstract == ("We gain 5 and more; 3% is a percent sign. A comment at the end of a line joins it "
                              "with the next.")
    assert [str(d) for d in result.diagnostics] == [
        "refs.bib:3: warning: `%` starts a LaTeX comment in `title`: the rest of the line is dropped ('Off'); "
        "write \\% for a percent sign",
        "refs.bib:5: warning: `%` starts a LaTeX comment in `abstract`: the rest of the line is dropped "
        "('on ImageNet'); write \\% for a percent sign",
    ]


def test_cli_ingest_reports_the_dropped_text(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text("@inproceedings{p,\n title = {T},\n booktitle = {ICML}, year = {2024},\n"
                   " abstract = {Accuracy rises by 12% over the baseline.}\n}\n", encoding="utf-8")
    result = runner.invoke(app, ["ingest", "bibtex", str(bib), str(tmp_path / "notes")])
    assert result.exit_code == 0  # a warning: the stub is written, with the abstract as LaTeX reads it
    assert f"{bib}:4: warning: `%` starts a LaTeX comment in `abstract`" in result.stderr
    assert "('over the baseline.')" in result.stderr
    [stub] = (tmp_path / "notes").rglob("*.md")
    assert "abstract: Accuracy rises by 12\n" in stub.read_text(encoding="utf-8")


# ---------------------------------------------------------------- formulas

COUNTER = """var WORK = 0; (function () {
  var ap = Array.prototype;
  function count(name, cost) {
    var f = ap[name];
    ap[name] = function () { WORK += cost(this, arguments); return f.apply(this, arguments); };
  }
  function whole(a) { return 1 + a.length; }
  count("splice", function (a, args) {
    var s = args[0] | 0; s = s < 0 ? Math.max(a.length + s, 0) : Math.min(s, a.length); return 1 + a.length - s; });
  count("push", function (a, args) { return args.length; });
  ["unshift", "shift", "slice", "concat", "indexOf", "join", "map", "forEach", "filter", "reverse"]
    .forEach(function (name) { count(name, whole); });
})();"""


def katex_work(tex: str, output: str = "mathml") -> tuple[int, str | None]:
    """Array work (elements pushed, shifted, copied, scanned) of ``check``'s KaTeX call on one display formula."""
    ctx = quickjs.Context()
    ctx.eval((KATEX_DIR / "katex.min.js").read_text(encoding="utf-8"))
    ctx.eval(COUNTER)
    script = _BATCH_JS if output == "mathml" else _BATCH_JS.replace('"mathml"', json.dumps(output))
    [verdict] = json.loads(ctx.eval(script)(json.dumps([[tex, True]])))
    return ctx.eval("WORK"), verdict


def plus_chain(terms: int) -> str:
    return "+".join("x" for _ in range(terms))


def test_formula_validation_is_linear_in_formula_length() -> None:
    assert '"mathml"' in _BATCH_JS
    small, verdict = katex_work(plus_chain(1_000))
    large, _ = katex_work(plus_chain(4_000))
    assert verdict is None
    assert large < 5 * small  # four times the formula, four times the work (quadratic: sixteen)
    biggest = plus_chain(MAX_FORMULA_CHARS // 2)  # the longest formula `check` validates
    work, verdict = katex_work(biggest)
    assert verdict is None and work < 10 * len(biggest)


def test_the_work_counter_sees_the_quadratic_html_builder() -> None:
    """The control: HTML output does sixteen times the work for four times the formula, so the test above can fail."""
    small, _ = katex_work(plus_chain(500), "htmlAndMathml")
    large, _ = katex_work(plus_chain(2_000), "htmlAndMathml")
    assert large > 12 * small


def test_a_formula_over_the_cap_is_an_error_without_running_katex(tmp_path: Path) -> None:
    tex = plus_chain(50_000)
    with FormulaChecker(None) as checker:
        [(formula, message)] = checker.check([Formula(3, tex, True), Formula(4, "x^2", False)])
        assert checker.engine_calls == 1  # only the short one reached the engine
    assert formula.line == 3 and message.startswith("99,999 characters long")
    corpus = tmp_path / "c"
    write_note(corpus, "ICML2024/optimization/big.md", title="Big", venue="ICML2024", domain="optimization",
               body=f"## 一句话总结\n一句话。\n\n$${tex}$$\n")
    result = runner.invoke(app, ["check", str(corpus), "--no-classifier"])
    assert result.exit_code == 1
    assert (f"ICML2024/optimization/big.md:9: error: formula of 99,999 characters: `check` validates formulas of "
            f"up to {MAX_FORMULA_CHARS:,} (split it): x+x+x") in result.stderr
