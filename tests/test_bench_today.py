"""benchmarks/today.py: the table it writes replaces the marked block of BENCHMARKS.md and nothing else."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

import hugo_reference  # noqa: E402
import today  # noqa: E402

DOC = ("# Benchmarks\r\n\nIntro with `<!-- today` in code.\n\n<!-- today:start -->\nold | table\n\n"
       "more old\n<!-- today:end -->\n\n## Lab notebook\n\n| kept | table |\n|---|---|\n")


def test_only_the_marked_block_changes() -> None:
    new = today.replace_block(DOC, "\nnew header\n\n| a | b |\n")
    head, tail = DOC.split("<!-- today:start -->")[0], DOC.split("<!-- today:end -->")[1]
    assert new == f"{head}<!-- today:start -->\nnew header\n\n| a | b |\n<!-- today:end -->{tail}"
    assert "old" not in new
    assert today.replace_block(new, "\nnew header\n\n| a | b |\n") == new  # a second run changes nothing


@pytest.mark.parametrize("text", ["no markers", "<!-- today:end -->\n<!-- today:start -->\n",
                                  DOC + "<!-- today:start -->\n<!-- today:end -->\n"])
def test_markers_missing_twice_or_reversed_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="today"):
        today.replace_block(text, "x")


def test_write_table_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "B.md"
    path.write_text("nothing marked\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="B.md"):
        today.write_table(path, "x")
    assert path.read_text(encoding="utf-8") == "nothing marked\n"
    path.write_text(DOC, encoding="utf-8")
    today.write_table(path, "fresh")
    assert "fresh" in path.read_text(encoding="utf-8") and "old" not in path.read_text(encoding="utf-8")


def test_the_table_has_one_line_per_row_and_four_cells() -> None:
    rows = [today.Row("cold build", "**1.00 s**", "≤ 2 s: met", "`papernotes build C -o S -q`"),
            today.Row("peer", "2.00 s", "", "`hugo`")]
    lines = today.render(rows, "Measured now.", "Legend.").splitlines()
    table = [line for line in lines if line.startswith("|")]
    assert len(table) == 2 + len(rows)
    assert all(line.count("|") == 5 for line in table)
    assert table[3] == "| peer | 2.00 s | — | `hugo` |"
    assert lines[0] == "Measured now." and lines[-1] == "Legend."


def test_benchmarks_md_has_one_block_to_rewrite() -> None:
    text = (REPO / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert today.replace_block(text, "x").startswith("# Benchmarks")
    assert text.index(today.START) < text.index("## Lab notebook")


def test_the_hugo_site_holds_every_note_and_a_section_per_folder(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    for rel in ("V2026/nlp/a.md", "V2026/nlp/b.md", "V2026/cv/c.md", ".papernotes/x/y.md"):
        (corpus / rel).parent.mkdir(parents=True, exist_ok=True)
        (corpus / rel).write_text("---\ntitle: 'T: x'\nvenue: V2026\n---\nbody\n", encoding="utf-8")
    site = tmp_path / "hugo"
    assert hugo_reference.write_site(corpus, site) == 3
    content = sorted(p.relative_to(site / "content").as_posix() for p in (site / "content").rglob("*.md"))
    assert content == ["V2026/cv/_index.md", "V2026/cv/c.md", "V2026/nlp/_index.md", "V2026/nlp/a.md", "V2026/nlp/b.md"]
    assert hugo_reference.NOTE_MARK in (site / "layouts" / "single.html").read_text(encoding="utf-8")
    assert "disablePathToLower = true" in (site / "hugo.toml").read_text(encoding="utf-8")
