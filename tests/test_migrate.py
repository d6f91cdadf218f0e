"""Import stage (``papernotes import-mkdocs``) on invented notes in the reference MkDocs format.

Fixtures: ``tests/fixtures/mkdocs/docs/{VENUE}/{domain}/{slug}.md`` plus the generated
pages, hidden files and misplaced files a real tree has. Byte-level oddities (CRLF, BOM,
a stray CR and tab, no final newline) live in the fixture files themselves.
"""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest
from typer.testing import CliRunner

from papernotes.site.build import build
from papernotes.cli import app
from papernotes.errors import CorpusError
from papernotes.migrate.convert import HEADER_KEY, convert_note, render_note, source_text
from papernotes.migrate.tree import import_tree
from papernotes.corpus.frontmatter import parse, split_front_matter
from papernotes.corpus.parse import parse_note

FIXTURES = Path(__file__).parent / "fixtures" / "mkdocs" / "docs"
NOTES = sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.glob("*/*/*.md")
               if p.name != "index.md" and p.stat().st_size)
STATE = ".papernotes"


def normalised(text: str) -> list[str]:
    return text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")


def assert_round_trip(original: str, fm: dict, body: str) -> None:
    """``source_text`` gives back the original, up to BOM, CRLF and trailing blanks of header lines."""
    expected, got = normalised(original), source_text(fm, body).split("\n")
    header = len(got) - len(body.split("\n"))
    assert len(got) == len(expected)
    assert [line.rstrip() for line in got[:header]] == [line.rstrip() for line in expected[:header]]
    assert got[header:] == expected[header:]


def read_imported(path: Path) -> tuple[dict, str]:
    raw, body, _ = split_front_matter(path.read_bytes().decode("utf-8"))  # read_text would turn a lone CR into LF
    return parse(raw), body


def convert(rel: str) -> tuple[dict, str, list]:
    return convert_note(rel, (FIXTURES / rel).read_bytes().decode("utf-8"))


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    dest = tmp_path_factory.mktemp("imported") / "corpus"
    return dest, import_tree(FIXTURES, dest)


def copy_docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    shutil.copytree(FIXTURES, docs)
    return docs


# ------------------------------------------------------------------ every fixture note

@pytest.mark.parametrize("rel", NOTES)
def test_fixture_round_trips_and_parses(rel: str) -> None:
    original = (FIXTURES / rel).read_bytes().decode("utf-8")
    fm, body, problems = convert_note(rel, original)
    assert not [d for d in problems if d.is_error]
    assert_round_trip(original, fm, body)
    text = render_note(fm, body)
    raw, body_again, _ = split_front_matter(text)
    assert parse(raw) == fm and body_again == body
    note, parse_problems = parse_note(rel, text)
    assert note is not None and not [d for d in parse_problems if d.is_error], parse_problems
    assert (note.title, note.venue, note.domain, note.slug) == (fm["title"], *rel.removesuffix(".md").split("/"))
    assert note.id == rel.removesuffix(".md")
    headings = [line[3:].strip() for line in body.split("\n") if line.startswith("## ")]
    assert [s.heading for s in note.sections] == headings


def test_canonical_note_moves_only_title_and_metadata() -> None:
    fm, body, problems = convert("ICML2031/optimization/sparse_momentum_for_toy_quadratics.md")
    assert fm == {
        "id": "ICML2031/optimization/sparse_momentum_for_toy_quadratics",
        "title": r"Sparse Momentum for Toy Quadratics: When $\beta$ Meets $\ell_1$",
        "venue": "ICML2031",
        "domain": "optimization",
        "keywords": ["momentum", "sparsity", "toy quadratic", r"$\ell_1$ 正则"],
        "links": {"arxiv": "3101.00042", "code": "https://github.com/example-lab/sparse-momentum"},
        "domain_label": "优化 / 动量方法",
        "meta": {"会议": "ICML 2031"},
    }
    assert problems == []
    assert body.startswith("\n## 一句话总结\n")
    note, _ = parse_note("x/y/z.md", render_note(fm, body))
    assert note.summary.startswith("在二次玩具问题上")
    assert dict(note.ratings) == {"novelty": 3, "experiments": 2, "writing": 4, "value": 3}
    assert dict(note.links)["arxiv"] == "https://arxiv.org/abs/3101.00042"


def test_extra_reordered_and_full_width_lines_are_kept_with_their_layout() -> None:
    rel = "ICML2031/optimization/extra_lines.md"
    fm, _, problems = convert(rel)
    assert fm["links"] == {"arxiv": "3101.00099", "code": "https://github.com/example-lab/extra-lines"}
    assert fm["keywords"] == ["额外行", "全角逗号", "乱序"]
    assert fm["domain_label"] == "优化 / 理论"
    assert fm["meta"] == {
        "会议": "ICML 2031 (Oral)",
        "作者": "Ada Example, Bo Sample (Toy University)",  # affiliation mixed in: not split into authors
        "arXiv": "3101.00099",  # bare id: not the canonical link form, so the raw text stays too
        "代码": "[GitHub](https://github.com/example-lab/extra-lines) (有)",
        "机构": "Toy University",
        "关键词": "额外行，全角逗号，乱序",
        "项目主页": "[page](https://example.org/extra-lines/)",
    }
    assert "authors" not in fm
    assert fm[HEADER_KEY][4:8] == ["**arXiv:** {}", "**代码**: {}", "**机构**: {}", "**领域**：{}"]
    assert [str(d) for d in problems] == [
        f"{rel}:7: warning: unknown metadata label `机构`; kept in `meta`",
        f"{rel}:10: warning: unknown metadata label `项目主页`; kept in `meta`",
    ]


def test_missing_lines_give_no_empty_fields() -> None:
    fm, _, problems = convert("ICML2031/optimization/missing_lines.md")
    assert "links" not in fm and "domain_label" not in fm and HEADER_KEY not in fm
    assert fm["keywords"] == ["minimal", "metadata"] and fm["meta"] == {"会议": "ICML 2031"}
    assert problems == []


def test_crlf_and_bom_are_normalised() -> None:
    for rel in ("NeurIPS2030/others/crlf_note.md", "NeurIPS2030/others/bom_note.md"):
        fm, body, _ = convert(rel)
        text = render_note(fm, body)
        assert "\r" not in text and "\ufeff" not in text
        assert HEADER_KEY not in fm, "CRLF/BOM alone is not a layout change"
    fm, body, _ = convert("NeurIPS2030/others/crlf_note.md")
    assert fm["title"] == "Windows Line Endings Everywhere" and fm["links"]["code"].endswith("/crlf")
    assert "$e^{i\\pi}+1=0$" in body


def test_stray_control_characters_in_the_body_are_kept() -> None:
    _, body, _ = convert("NeurIPS2030/others/stray_carriage_return.md")
    assert "(x;\theta), g(x) \rangle$" in body  # a real TAB and a real CR, as in the source


def test_note_without_title() -> None:
    rel = "ICML2031/optimization/no_title.md"
    fm, body, problems = convert(rel)
    assert fm["title"] == "no title" and fm["links"] == {"arxiv": "3101.00150"}
    assert fm[HEADER_KEY][0] == "**会议**: {}"
    assert [str(d) for d in problems] == [f"{rel}:1: warning: no `# Title` line; title made from the file name"]
    assert body.startswith("\n## 一句话总结")


def test_garbled_metadata_line_stays_in_the_body() -> None:
    rel = "ICML2031/llm_reasoning/bad_meta_line.md"
    fm, body, problems = convert(rel)
    assert "keywords" not in fm
    assert body.startswith("oops**关键词**: garbled, prefix  \n")
    assert [(d.line, d.code) for d in problems] == [(6, "bad-meta-line")]


def test_info_section_list_becomes_front_matter() -> None:
    fm, body, _ = convert("ICML2031/llm_reasoning/info_section.md")
    assert fm["authors"] == ["Cy Placeholder", "Di Dummy"]
    assert fm["links"] == {"arxiv": "3102.04321", "code": "https://github.com/example-lab/info-section"}
    assert fm[HEADER_KEY][2:4] == ["## 基本信息", "- **arXiv**: {}"]
    assert "\n## 基本信息" not in body and body.startswith("\n## 一句话总结")


def test_old_front_matter_is_kept_verbatim_and_fills_fields() -> None:
    fm, body, problems = convert("ICML2031/llm_reasoning/old_front_matter.md")
    assert fm["title"] == "Old Front Matter Before the Title"
    assert fm["keywords"] == ["front matter", "legacy"] and fm["domain_label"] == "LLM推理"
    assert fm["links"] == {"arxiv": "3102.05555", "code": "https://github.com/example-lab/old-fm"}
    assert fm[HEADER_KEY][:2] == ["---", 'title: "Old Front Matter Before the Title"']
    assert [d.code for d in problems] == ["old-front-matter"]
    assert not body.lstrip().startswith("---")


def test_html_comment_and_rule_after_metadata() -> None:
    fm, body, _ = convert("ICML2031/llm_reasoning/html_comment.md")
    assert fm[HEADER_KEY][0] == "<!-- 由 toy_stub_generator.py 自动生成 -->"
    assert fm["meta"]["代码"] == "待确认" and "code" not in fm["links"]
    assert body.startswith("\n---\n\n## 一句话总结")


def test_repeated_label_keeps_every_value() -> None:
    fm, _, problems = convert("NeurIPS2030/others/repeated_label.md")
    assert fm["links"]["code"] == "https://github.com/example-lab/first"
    assert [v.rsplit("/", 1)[-1] for v in fm["meta"]["代码"]] == ["first)", "second)"]
    assert [(d.line, d.code) for d in problems] == [(5, "repeated-label")]


def test_missing_final_newline_survives() -> None:
    rel = next(r for r in NOTES if r.startswith("NeurIPS2030/others/an_extremely_long"))
    fm, body, _ = convert(rel)
    assert not body.endswith("\n") and body.endswith("文件名超过一百个字符。")
    assert fm["title"].startswith("An Extremely Long Title")


# ------------------------------------------------------------------ the tree import

def test_import_counts_and_layout(imported: tuple[Path, object]) -> None:
    dest, report = imported
    assert (report.notes, report.imported, report.unchanged, report.conflicts) == (20, 19, 0, 0)
    assert report.skipped == 7  # 3 index.md, TODO.md, an empty note, a misplaced note, a .txt file
    assert not report.errors
    written = sorted(p.relative_to(dest).as_posix() for p in dest.glob("*/*/*.md"))
    assert written == [rel for rel in NOTES if rel != "ICML2031/optimization/empty.md"]
    assert "NeurIPS2030/others/an_extremely_long_file_name_that_keeps_going_well_past_one_hundred_characters_because_" \
           "some_titles_never_end_and_nobody_truncated_it.md" in written
    assert not (dest / "ICML2031" / "TODO.md").exists() and not (dest / "ICML2031" / "index.md").exists()
    assert (dest / "papernotes.toml").read_text(encoding="utf-8") == 'title = "Paper Notes"\nlanguage = "zh"\n'
    for rel in written:
        fm, body = read_imported(dest / rel)
        assert_round_trip((FIXTURES / rel).read_bytes().decode("utf-8"), fm, body)


def test_report_lists_problems_with_path_and_line(imported: tuple[Path, object]) -> None:
    dest, report = imported
    saved = json.loads((dest / STATE / "import-report.json").read_text(encoding="utf-8"))
    assert saved["counts"] == {"notes": 20, "imported": 19, "unchanged": 0, "kept_edits": 0, "conflicts": 0,
                               "skipped": 7}
    lines = [d["text"] for d in saved["diagnostics"]]
    for expected in (
        "ICML2031/optimization/no_title.md:1: warning: no `# Title` line; title made from the file name",
        "ICML2031/optimization/extra_lines.md:7: info: unknown metadata label `机构`; kept in `meta`",
        "ICML2031/llm_reasoning/bad_meta_line.md:6: warning: looks like a metadata line",
        "ICML2031/llm_reasoning/schrödinger_toy_bridge.md:5: info: no link in `代码: 无`; kept in `meta`",
        "ICML2031/optimization/relative_link_note.md:14: warning: link to `../../ideas/optimization/some_idea.md`",
        "ICML2031/optimization/empty.md: warning: empty file; not imported",
        "NeurIPS2030/stray.md: warning: not in a {VENUE}/{domain}/ folder; not imported",
        "NeurIPS2030/others/scratch.txt: warning: not a Markdown note; not imported",
    ):
        assert any(line.startswith(expected) for line in lines), expected
    assert saved["labels"]["会议"] == 18 and saved["labels"]["机构"] == 1
    assert all(re.match(r"^\S+?(:\d+)?: (error|warning|info): ", line) for line in lines)


def test_second_run_writes_no_note(imported: tuple[Path, object]) -> None:
    dest, _ = imported
    before = {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in dest.rglob("*")
              if p.is_file() and p.name != "import-report.json"}
    again = import_tree(FIXTURES, dest)
    assert (again.imported, again.unchanged, again.conflicts) == (0, 19, 0)
    after = {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in dest.rglob("*")
             if p.is_file() and p.name != "import-report.json"}
    assert after == before


def test_changed_source_is_rewritten_when_dest_untouched(tmp_path: Path) -> None:
    docs, dest = copy_docs(tmp_path), tmp_path / "corpus"
    import_tree(docs, dest)
    src = docs / "ICML2031" / "optimization" / "missing_lines.md"
    src.write_text(src.read_text(encoding="utf-8").replace("没有 arXiv", "仍然没有 arXiv"), encoding="utf-8")
    report = import_tree(docs, dest)
    assert (report.imported, report.unchanged, report.conflicts) == (1, 18, 0)
    assert "仍然没有 arXiv" in (dest / "ICML2031" / "optimization" / "missing_lines.md").read_text(encoding="utf-8")


def test_user_edits_are_protected_unless_forced(tmp_path: Path) -> None:
    docs, dest = copy_docs(tmp_path), tmp_path / "corpus"
    runner = CliRunner()
    assert runner.invoke(app, ["import-mkdocs", str(docs), str(dest)]).exit_code == 0
    rel = "ICML2031/llm_reasoning/chain_of_toys.md"
    edited = (dest / rel).read_text(encoding="utf-8") + "\n我的批注。\n"
    (dest / rel).write_text(edited, encoding="utf-8")
    src = docs / rel
    src.write_text(src.read_text(encoding="utf-8").replace("67\\%", "68\\%"), encoding="utf-8")

    result = runner.invoke(app, ["import-mkdocs", str(docs), str(dest)])
    assert result.exit_code == 1
    assert f"{rel}: error: edited in DEST since the last import and changed at the source; kept (--force takes " \
           "the source)" in result.output
    assert "0 imported, 18 unchanged, 1 conflicts" in result.output
    assert (dest / rel).read_text(encoding="utf-8") == edited

    result = runner.invoke(app, ["import-mkdocs", "--force", str(docs), str(dest)])
    assert result.exit_code == 0, result.output
    assert f"{rel}: warning: edited in DEST since the last import; overwritten (--force)" in result.output
    assert "68\\%" in (dest / rel).read_text(encoding="utf-8") and "我的批注" not in (dest / rel).read_text(encoding="utf-8")
    assert import_tree(docs, dest).unchanged == 19


def test_edit_of_a_note_whose_source_did_not_change_is_kept_quietly(tmp_path: Path) -> None:
    dest = tmp_path / "corpus"
    import_tree(FIXTURES, dest)
    note = dest / "ICML2031" / "optimization" / "missing_lines.md"
    note.write_text(note.read_text(encoding="utf-8") + "\n我的补充。\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["import-mkdocs", str(FIXTURES), str(dest)])
    assert result.exit_code == 0, result.output
    assert "19 unchanged (1 edited in DEST, kept), 0 conflicts" in result.output
    assert "我的补充" in note.read_text(encoding="utf-8")
    assert import_tree(FIXTURES, dest, force=True).imported == 1 and "我的补充" not in note.read_text(encoding="utf-8")


def test_deleted_note_stays_deleted_until_its_source_changes(tmp_path: Path) -> None:
    docs, dest = copy_docs(tmp_path), tmp_path / "corpus"
    import_tree(docs, dest)
    target = dest / "NeurIPS2030" / "others" / "bom_note.md"
    target.unlink()
    report = import_tree(docs, dest)
    assert (report.kept, report.conflicts) == (1, 0) and not target.exists()
    src = docs / "NeurIPS2030" / "others" / "bom_note.md"
    src.write_bytes(src.read_bytes() + "新增一行。\n".encode())
    report = import_tree(docs, dest)
    assert report.conflicts == 1 and not target.exists()
    assert str(report.errors[0]) == ("NeurIPS2030/others/bom_note.md: error: deleted from DEST since the last import "
                                     "and changed at the source; kept (--force takes the source)")
    assert import_tree(docs, dest, force=True).imported == 1 and target.exists()


def test_existing_file_not_written_by_the_importer_is_a_conflict(tmp_path: Path) -> None:
    dest = tmp_path / "corpus"
    mine = dest / "ICML2031" / "optimization" / "missing_lines.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("my own note\n", encoding="utf-8")
    (dest / "papernotes.toml").write_text('title = "Mine"\n', encoding="utf-8")
    report = import_tree(FIXTURES, dest)
    assert report.conflicts == 1 and mine.read_text(encoding="utf-8") == "my own note\n"
    assert "was not written by the importer" in report.errors[0].message
    assert (dest / "papernotes.toml").read_text(encoding="utf-8") == 'title = "Mine"\n'


def test_unreadable_notes_and_bad_folders_are_errors(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "ICML2031" / "optimization").mkdir(parents=True)
    (docs / "ICML2031" / "optimization" / "latin1.md").write_bytes("# Title\n\n**会议**: x\n".encode() + b"caf\xe9\n")
    (docs / "ICML2031" / "Bad Folder").mkdir()
    (docs / "ICML2031" / "Bad Folder" / "note.md").write_text("# T\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["import-mkdocs", str(docs), str(tmp_path / "corpus")])
    assert result.exit_code == 1
    assert "ICML2031/optimization/latin1.md:4: error: file is not valid UTF-8; not imported" in result.output
    assert "ICML2031/Bad Folder/note.md: error: folder names ICML2031/Bad Folder are not" in result.output


def test_dest_inside_docs_is_refused(tmp_path: Path) -> None:
    docs = copy_docs(tmp_path)
    with pytest.raises(CorpusError):
        import_tree(docs, docs / "ICML2031" / "out")
    result = CliRunner().invoke(app, ["import-mkdocs", str(tmp_path / "missing"), str(tmp_path / "corpus")])
    assert result.exit_code == 2 and "not found" in result.output


def test_cli_prints_summary_and_hides_info_unless_verbose(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["import-mkdocs", str(FIXTURES), str(tmp_path / "corpus")])
    assert result.exit_code == 0, result.output
    assert "20 notes: 19 imported, 0 unchanged, 0 conflicts, 7 files skipped" in result.output
    assert "info:" not in result.output and "(-v lists them)" in result.output
    verbose = runner.invoke(app, ["import-mkdocs", "-v", str(FIXTURES), str(tmp_path / "corpus")])
    assert "ICML2031/optimization/extra_lines.md:7: info: unknown metadata label `机构`" in verbose.output
    assert "ICML2031/optimization/extra_lines.md:10: info: unknown metadata label `项目主页`" in verbose.output


# ------------------------------------------------------------------ the imported corpus builds

def test_imported_fixtures_build_with_old_urls_and_working_links(imported: tuple[Path, object], tmp_path: Path) -> None:
    dest, _ = imported
    site = tmp_path / "site"
    result = build(dest, site, workers=1, use_cache=False)
    assert not result.errors, [str(d) for d in result.errors]
    for rel in [p.relative_to(dest).as_posix() for p in dest.glob("*/*/*.md")]:
        assert (site / rel.removesuffix(".md") / "index.html").is_file(), rel
    broken = [str(d) for d in result.diagnostics if d.code == "broken-link"]
    assert len(broken) == 1 and "ideas/optimization/some_idea.md" in broken[0]
    page = (site / "ICML2031" / "optimization" / "relative_link_note" / "index.html").read_text(encoding="utf-8")
    hrefs = {unquote(h) for h in re.findall(r'href="([^"]+)"', page)}
    assert "../../llm_reasoning/chain_of_toys/" in hrefs
    assert "../../llm_reasoning/schrödinger_toy_bridge/" in hrefs  # written percent-encoded in the source
    listing = (site / "ICML2031" / "optimization" / "index.html").read_text(encoding="utf-8")
    linked = {unquote(h).rstrip("/") for h in re.findall(r'href="([^"./][^"/]*)/"', listing)}
    assert linked == {p.stem for p in (dest / "ICML2031" / "optimization").glob("*.md")}
    assert os.path.isdir(site / "NeurIPS2030" / "image_generation" / "φ-dpo_toy_fairness")


def test_links_with_non_ascii_targets_are_rewritten(imported: tuple[Path, object], tmp_path: Path) -> None:
    dest, _ = imported
    build(dest, tmp_path / "site", workers=1, use_cache=False)
    page = (tmp_path / "site" / "ICML2031" / "optimization" / "relative_link_note" / "index.html").read_text(encoding="utf-8")
    hrefs = {unquote(h) for h in re.findall(r'href="([^"]+)"', page)}
    assert "../sparse_momentum_for_toy_quadratics/#方法详解" in hrefs
    assert "../../../NeurIPS2030/image_generation/φ-dpo_toy_fairness/" in hrefs
    assert not any(h.endswith(".md") or ".md#" in h for h in hrefs)
