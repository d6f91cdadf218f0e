"""Formula extraction (pyromark's view of ``$…$``) and KaTeX validation."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from papernotes.corpus.katex import KATEX_DIR, FormulaChecker, katex_version
from papernotes.corpus.formulas import MARKDOWN_OPTIONS, Formula, extract_formulas, lint_tex, lost_escape

try:
    import quickjs  # noqa: F401  (provided by quickjs-ng)

    HAVE_QUICKJS = True
except ImportError:  # pragma: no cover
    HAVE_QUICKJS = False

needs_katex = pytest.mark.skipif(not HAVE_QUICKJS, reason="quickjs-ng not installed")


# --------------------------------------------------------------------------- extraction


def test_chinese_text_before_inline_formula_gives_right_line_and_tex() -> None:
    md = "# 标题\n\n这是一段很长的中文说明文字，其中有公式 $a_1 + \\beta^2$ 和更多文字。\n"
    assert extract_formulas(md) == [Formula(3, "a_1 + \\beta^2", False)]


def test_byte_offsets_do_not_drift_over_many_chinese_lines() -> None:
    md = "".join(f"第{i}行：中文中文中文中文\n\n" for i in range(40)) + "末尾 $x$\n"
    assert extract_formulas(md) == [Formula(81, "x", False)]


def test_display_math_line_is_the_opening_dollars() -> None:
    md = "前言\n\n$$\n\\sum_{i=1}^n x_i\n$$\n\n后记 $y$\n"
    formulas = extract_formulas(md)
    assert [(f.line, f.display) for f in formulas] == [(3, True), (7, False)]
    assert formulas[0].tex.strip() == "\\sum_{i=1}^n x_i"


def test_first_line_shifts_line_numbers() -> None:
    md = "$a$\n\n中文 $b$\n"
    assert [f.line for f in extract_formulas(md, first_line=1)] == [1, 3]
    assert [f.line for f in extract_formulas(md, first_line=10)] == [10, 12]


def test_formula_in_table_cell() -> None:
    md = "| 方法 | 复杂度 |\n|---|---|\n| 本文 | $O(n \\log n)$ |\n| 基线 | $O(n\\|E\\|)$ |\n"
    assert extract_formulas(md) == [
        Formula(3, "O(n \\log n)", False),
        # pulldown-cmark unescapes \| in table cells, exactly as the renderer does
        Formula(4, "O(n|E|)", False),
    ]


def test_currency_dollars_are_not_formulas() -> None:
    md = "价格是 $5 和 $10，总共 $15。\n\nCosts $3.50 per 1K tokens and $0.45 per run.\n"
    assert extract_formulas(md) == []


def test_code_span_and_code_block_dollars_are_not_formulas() -> None:
    md = (
        "用 `$x$` 和 `echo $HOME` 写。\n\n"
        "```bash\nexport A=$B\necho \"$x$\"\n```\n\n"
        "    indented $y$ code\n\n"
        "真的 $z$\n"
    )
    assert extract_formulas(md) == [Formula(10, "z", False)]


def test_unbalanced_braces_are_not_math_for_pulldown_cmark() -> None:
    # Documented pulldown-cmark behaviour: braces inside math must balance,
    # otherwise the dollars stay literal text (so nothing to check here).
    assert extract_formulas("$$\n\\frac{a}{\n$$\n") == []


def test_no_dollar_fast_path() -> None:
    assert extract_formulas("纯中文，没有公式。\n") == []


def test_markdown_options_enable_math_and_tables() -> None:
    import pyromark

    assert MARKDOWN_OPTIONS & pyromark.Options.ENABLE_MATH
    assert MARKDOWN_OPTIONS & pyromark.Options.ENABLE_TABLES


# --------------------------------------------------------------------------- vendored KaTeX


def test_vendored_katex_is_complete() -> None:
    assert (KATEX_DIR / "katex.min.js").is_file()
    assert (KATEX_DIR / "katex.min.css").is_file()
    assert (KATEX_DIR / "LICENSE").is_file()
    assert katex_version().count(".") == 2
    fonts = list((KATEX_DIR / "fonts").iterdir())
    assert fonts and all(f.suffix == ".woff2" for f in fonts)
    assert (KATEX_DIR.parent / "math.js").is_file()


# --------------------------------------------------------------------------- checker


@needs_katex
def test_checker_accepts_good_tex_and_rejects_bad() -> None:
    good = [
        Formula(1, "\\frac{a}{b} + \\sqrt{x^2}", False),
        Formula(2, "\\begin{aligned} a &= b \\\\ c &= d \\end{aligned}", True),
        Formula(3, "\\mathbb{E}_{x \\sim p}[\\log q(x)]", False),
    ]
    bad_frac = Formula(4, "\\frac{a}{", False)
    bad_cmd = Formula(5, "\\notacommand", True)
    with FormulaChecker(None) as checker:
        assert checker.engine == "katex"
        failures = checker.check([*good, bad_frac, bad_cmd])
    assert [f for f, _ in failures] == [bad_frac, bad_cmd]
    assert all(msg.startswith("KaTeX parse error") for _, msg in failures)
    assert "\\notacommand" in failures[1][1]


@needs_katex
def test_display_mode_is_passed_to_katex() -> None:
    # \tag is only allowed in display mode.
    with FormulaChecker(None) as checker:
        assert checker.check([Formula(1, "x \\tag{1}", True)]) == []
        assert len(checker.check([Formula(1, "x \\tag{1}", False)])) == 1


@needs_katex
def test_identical_formulas_are_evaluated_once() -> None:
    formulas = [Formula(i, "\\alpha", False) for i in range(1, 6)]
    with FormulaChecker(None) as checker:
        assert checker.check(formulas) == []
        assert checker.check(formulas) == []
        assert checker.engine_calls == 1


@needs_katex
def test_cache_hit_path_does_not_call_the_engine(tmp_path: Path) -> None:
    cache = tmp_path / ".papernotes" / "cache.sqlite"
    formulas = [Formula(1, "a^2", False), Formula(2, "\\frac{a}{", False), Formula(3, "b", True)]
    with FormulaChecker(cache) as first:
        expected = first.check(formulas)
        assert first.engine_calls == 3
    assert len(expected) == 1
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT count(*) FROM formula_check").fetchone() == (3,)

    with FormulaChecker(cache) as second:
        assert second.check(formulas) == expected
        assert second.engine_calls == 0
        assert second.cache_hits == 3
        # A formula not yet cached goes to the engine, alone.
        assert second.check([Formula(9, "\\undefinedthing", False)])
        assert second.engine_calls == 1


@needs_katex
def test_check_many_keeps_keys_and_uses_worker_threads() -> None:
    notes = [
        (f"note{i}.md", [Formula(1, f"x_{{{i}}}", False), Formula(2, f"\\bad{i}", False)])
        for i in range(600)
    ]
    with FormulaChecker(None, workers=2) as checker:
        failures = checker.check_many(notes)
    assert len(failures) == 600
    assert failures[0][0] == "note0.md" and failures[0][1].tex == "\\bad0"
    assert failures[-1][0] == "note599.md"


@needs_katex
def test_unwritable_cache_is_disabled_not_fatal(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with FormulaChecker(blocker / "cache.sqlite") as checker:
        assert len(checker.check([Formula(1, "\\frac{a}{", False)])) == 1


def test_lint_fallback() -> None:
    with FormulaChecker(None, engine="lint") as checker:
        assert checker.engine == "lint"
        failures = checker.check(
            [
                Formula(1, "\\frac{a}{b}", False),
                Formula(2, "\\frac{a}{", False),
                Formula(3, "\\left( x \\right.", False),
                Formula(4, "\\left( x", False),
                Formula(5, "\\begin{cases} a \\end{aligned}", True),
                Formula(6, "\\{ x \\}", False),
            ]
        )
    assert [f.line for f, _ in failures] == [2, 4, 5]


def test_lint_messages() -> None:
    assert lint_tex("a}") is not None
    assert lint_tex("\\right)") == "\\right without \\left"
    assert lint_tex("\\begin{matrix} a") == "\\begin{matrix} without \\end{matrix} at end of formula"
    assert lint_tex("\\rightarrow \\leftarrow") is None


def test_lost_escape_heuristic() -> None:
    assert lost_escape("\x07lpha_i") == (
        "control character U+0007 before 'lpha': probably a lost backslash (\\alpha)"
    )
    assert lost_escape("x_\theta") == "tab before 'heta': probably a lost backslash (\\theta)"
    assert lost_escape("a \neq b") == "line break before 'eq': probably a lost backslash (\\neq)"
    assert lost_escape("\\theta \\neq \\nu") is None
    assert lost_escape("\n u_t = v\n") is None  # multi-line display math


def test_missing_js_engine_falls_back_to_lint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import papernotes.corpus.katex as katex

    monkeypatch.setattr(katex, "_QUICKJS", None)
    with FormulaChecker(tmp_path / "cache.sqlite") as checker:
        assert checker.engine == "lint"
        assert [f.line for f, _ in checker.check([Formula(1, "{", False), Formula(2, "x", False)])] == [1]
    assert not (tmp_path / "cache.sqlite").exists()  # lint results are never cached
    with pytest.raises(RuntimeError):
        FormulaChecker(None, engine="katex")
