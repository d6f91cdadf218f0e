"""Front-matter keys papernotes does not know: a warning naming ``path:line`` (and the key a typo resembles),
the note still published, the value reaching templates as ``note.extra`` (the theme docs/theming.md shows)."""
from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from conftest import REPO, write_note
from papernotes.cli import app
from papernotes.corpus.parse import parse_note
from papernotes.errors import Severity

runner = CliRunner()
NOTE = """---
title: Cover art
venue: ICML2024
domain: optimization
cover_image: covers/a.png
summery: A one-liner typed with a typo.
x_reviewer: me
---

## TL;DR
Text.
"""


def test_unknown_keys_are_warnings_with_their_line_and_a_guess() -> None:
    note, problems = parse_note("ICML2024/optimization/a.md", NOTE)
    assert note is not None and note.extra == {"cover_image": "covers/a.png", "summery": "A one-liner typed with a typo.",
                                               "x_reviewer": "me"}
    assert [(p.line, p.severity, p.code) for p in problems] == [(5, Severity.WARNING, "unknown-key"),
                                                                (6, Severity.WARNING, "unknown-key")]
    cover, typo = (p.message for p in problems)
    assert cover.startswith("unknown key `cover_image` (kept for templates as `note.extra`") and "did you mean" not in cover
    assert typo.startswith("unknown key `summery`; did you mean `summary`?")


def test_a_typo_of_title_is_named() -> None:
    _, problems = parse_note("a.md", NOTE.replace("title: Cover art", "titel: Cover art"))
    assert any(p.line == 2 and "unknown key `titel`; did you mean `title`?" in p.message for p in problems)


def theme_from_docs() -> str:
    """The note.html of docs/theming.md's section on keys of your own."""
    doc = (REPO / "docs" / "theming.md").read_text(encoding="utf-8")
    section = doc.split("## Front-matter keys of your own", 1)
    assert len(section) == 2, "docs/theming.md lost its section on front-matter keys of your own"
    block = re.search(r"```html\+jinja\n(.*?)```", section[1], re.S)
    assert block is not None
    return block[1]


def test_a_note_with_a_key_of_its_own_is_published_and_its_theme_shows_it(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    (corpus / "_theme" / "templates").mkdir(parents=True)
    (corpus / "_theme" / "templates" / "note.html").write_text(theme_from_docs(), encoding="utf-8")
    (corpus / "papernotes.toml").write_text('theme_dir = "_theme"\n', encoding="utf-8")
    (corpus / "ICML2024" / "optimization").mkdir(parents=True)
    (corpus / "ICML2024/optimization/a.md").write_text(NOTE, encoding="utf-8")
    write_note(corpus, "ICML2024/optimization/b.md", title="Plain", venue="ICML2024", domain="optimization")
    result = runner.invoke(app, ["build", str(corpus), "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert "ICML2024/optimization/a.md:5: warning: unknown key `cover_image`" in result.stderr
    assert "ICML2024/optimization/a.md:6: warning: unknown key `summery`; did you mean `summary`?" in result.stderr
    assert "x_reviewer" not in result.stderr and "skipped" not in result.stderr
    page = (tmp_path / "site/ICML2024/optimization/a/index.html").read_text(encoding="utf-8")
    assert '<img class="cover" src="covers/a.png" alt="">' in page
    plain = (tmp_path / "site/ICML2024/optimization/b/index.html").read_text(encoding="utf-8")
    assert 'class="cover"' not in plain and "Plain" in plain

    strict = runner.invoke(app, ["check", str(corpus), "--no-formulas", "--no-classifier"])
    assert strict.exit_code == 0 and "0 error(s), 14 warning(s)" in strict.stdout  # no authors: one each


def test_quoted_and_numeric_keys_are_reported_at_their_line_and_kept() -> None:
    text = "---\ntitle: T\nvenue: ICML2024\ndomain: optimization\n2024: year\n\"cover image\": a.png\n'封面': b.png\n---\n"
    note, problems = parse_note("a.md", text)
    assert note is not None and note.extra == {2024: "year", "cover image": "a.png", "封面": "b.png"}
    assert [(p.line, p.message.split(" (")[0]) for p in problems if p.code == "unknown-key"] == [
        (5, "unknown key `2024`"), (6, "unknown key `cover image`"), (7, "unknown key `封面`")]
