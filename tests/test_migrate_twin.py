"""``import-mkdocs DOCS DEST --translation en=EN_DOCS``: a Chinese tree and its English twin as one corpus.

Fixtures: ``tests/fixtures/mkdocs_twin/{zh,en}/``, invented notes in the reference layout: four
notes in both trees, one only in each, and the generated ``index.md`` pages of both.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from papernotes.check.run import CheckOptions, check_corpus
from papernotes.cli import app
from papernotes.corpus.frontmatter import read
from papernotes.corpus.parse import parse_note
from papernotes.errors import CorpusError
from papernotes.migrate.convert import convert_note, source_text
from papernotes.migrate.tree import Twin, import_tree
from papernotes.site.build import build
from sitecheck import dead_links

TWIN = Path(__file__).parent / "fixtures" / "mkdocs_twin"
ZH, EN = TWIN / "zh", TWIN / "en"
PAIRS = ("ICML2031/optimization/sparse_steps_for_toy_bowls", "ICML2031/optimization/warmup_free_adam_on_toy_losses",
         "ICML2031/llm_reasoning/toy_chain_voting", "NeurIPS2030/image_generation/toy_diffusion_guidance")
runner = CliRunner()


def copy_trees(tmp_path: Path) -> tuple[Path, Path]:
    shutil.copytree(TWIN, tmp_path / "twin")
    return tmp_path / "twin" / "zh", tmp_path / "twin" / "en"


def translation_problems(dest: Path) -> list[str]:
    found, _ = check_corpus(dest, CheckOptions(formulas=False, classifier=False))
    return [str(d) for d in found if d.is_error or d.code.startswith("translation")]


def snapshot(dest: Path) -> dict[Path, tuple[int, int]]:
    return {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in dest.rglob("*.md")}


def same_lines(a: str, b: str) -> bool:
    """Equal up to trailing blanks of lines (the header's hard breaks, which ``source_text`` does not keep)."""
    return [line.rstrip() for line in a.split("\n")] == [line.rstrip() for line in b.split("\n")]


@pytest.mark.parametrize("rel", sorted(p.relative_to(EN).as_posix() for p in EN.glob("*/*/*.md") if p.name != "index.md"))
def test_english_twin_notes_round_trip(rel: str) -> None:
    original = (EN / rel).read_text(encoding="utf-8")
    fm, body, problems = convert_note(rel, original)
    assert not [d for d in problems if d.is_error]
    assert same_lines(source_text(fm, body), original)
    assert fm.get("domain_label") or "only_in" in rel  # `**Area**:` is the English domain label


def test_pairs_become_translations_and_one_sided_notes_are_kept(tmp_path: Path) -> None:
    dest = tmp_path / "corpus"
    result = runner.invoke(app, ["import-mkdocs", str(ZH), str(dest), "--translation", f"en={EN}", "-v"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "5 notes (+5 in the en twin): 10 imported, 0 unchanged, 0 conflicts, 8 files skipped" in text
    assert "en twin: 4 translations, 1 only in the twin (imported as originals), 1 DOCS note(s) without a " \
           "translation" in text
    lines = " ".join(result.output.split())
    assert "ICML2031/llm_reasoning/only_in_chinese_toy.md: info: not in the en twin: imported without a " \
           "translation" in lines
    assert "en:ICML2031/llm_reasoning/only_in_english_toy.md: info: not in DOCS: imported as an original in en" in lines

    written = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*.md"))
    assert written == sorted([*(f"{s}.md" for s in PAIRS), *(f"{s}.en.md" for s in PAIRS),
                              "ICML2031/llm_reasoning/only_in_chinese_toy.md",
                              "ICML2031/llm_reasoning/only_in_english_toy.md"])  # no index.md or TODO.md
    for stem in PAIRS:
        zh_text = (dest / f"{stem}.md").read_text(encoding="utf-8")
        en_text = (dest / f"{stem}.en.md").read_text(encoding="utf-8")
        zh, _ = parse_note(f"{stem}.md", zh_text)
        en, problems = parse_note(f"{stem}.en.md", en_text)
        assert zh is not None and en is not None and not [d for d in problems if d.is_error]
        assert (zh.lang, en.lang, en.id, en.slug) == ("zh", "en", zh.id, zh.slug)
        assert en.translation_of is not None and en.translation_of.digest == zh.text_digest
        front, body, _ = read(en_text)
        assert front["translation_of"] == {"digest": zh.text_digest}
        assert same_lines(source_text(front, body), (EN / f"{stem}.md").read_text(encoding="utf-8"))  # nothing lost
    only_en, _ = parse_note("x.md", (dest / "ICML2031/llm_reasoning/only_in_english_toy.md").read_text())
    assert only_en is not None and only_en.lang == "en" and only_en.translation_of is None

    report = json.loads((dest / ".papernotes" / "import-report.json").read_text(encoding="utf-8"))
    assert report["counts"] == {"notes": 5, "imported": 10, "unchanged": 0, "kept_edits": 0, "conflicts": 0,
                                "skipped": 8, "twin_notes": 5, "translations": 4, "twin_only": 1, "untranslated": 1}
    assert translation_problems(dest) == []  # no imported translation is stale
    # the config written for a twin import builds both editions
    assert 'languages = ["zh", "en"]' in (dest / "papernotes.toml").read_text(encoding="utf-8")
    site = build(dest, tmp_path / "site", workers=1, use_cache=False)
    assert site.errors == [] and site.notes == 6
    out = tmp_path / "site"
    assert dead_links(out) == []
    for stem in PAIRS:
        zh_page = (out / stem / "index.html").read_text(encoding="utf-8")
        en_page = (out / "en" / stem / "index.html").read_text(encoding="utf-8")
        assert '<html lang="zh-CN">' in zh_page and '<html lang="en">' in en_page
        assert 'class="untranslated-note"' not in zh_page + en_page
    only_zh = (out / "en/ICML2031/llm_reasoning/only_in_chinese_toy/index.html").read_text(encoding="utf-8")
    only_en = (out / "ICML2031/llm_reasoning/only_in_english_toy/index.html").read_text(encoding="utf-8")
    assert 'class="untranslated-note"' in only_zh and 'class="untranslated-note"' in only_en


def test_reimport_is_idempotent_and_keeps_an_edited_translation(tmp_path: Path) -> None:
    zh, en = copy_trees(tmp_path)
    dest = tmp_path / "corpus"
    twin = Twin("en", en)
    import_tree(zh, dest, twin=twin)
    before = snapshot(dest)
    again = import_tree(zh, dest, twin=twin)
    assert (again.imported, again.unchanged, again.conflicts) == (0, 10, 0) and snapshot(dest) == before

    target = dest / f"{PAIRS[2]}.en.md"
    edited = target.read_text(encoding="utf-8").replace("lifts accuracy", "raises accuracy")
    target.write_text(edited, encoding="utf-8")
    report = import_tree(zh, dest, twin=twin)
    assert (report.imported, report.kept, report.conflicts) == (0, 1, 0) and target.read_text() == edited

    src = en / f"{PAIRS[2]}.md"
    src.write_text(src.read_text(encoding="utf-8").replace("toy arithmetic", "toy arithmetic problems"),
                   encoding="utf-8")
    report = import_tree(zh, dest, twin=twin)
    assert report.conflicts == 1 and target.read_text(encoding="utf-8") == edited
    assert [str(d) for d in report.errors] == [
        f"{PAIRS[2]}.en.md: error: edited in DEST since the last import and changed at the source; kept "
        "(--force takes the source)"]
    forced = import_tree(zh, dest, twin=twin, force=True)
    assert forced.imported == 1 and "toy arithmetic problems" in target.read_text(encoding="utf-8")


def test_a_chinese_change_makes_the_imported_translation_stale_until_the_twin_follows(tmp_path: Path) -> None:
    zh, en = copy_trees(tmp_path)
    dest = tmp_path / "corpus"
    twin = Twin("en", en)
    import_tree(zh, dest, twin=twin)
    stem = PAIRS[3]
    (zh / f"{stem}.md").write_text((zh / f"{stem}.md").read_text(encoding="utf-8").replace("9.8", "9.7"),
                                   encoding="utf-8")
    report = import_tree(zh, dest, twin=twin)
    assert report.imported == 1 and report.unchanged == 9  # the translation's file stays as it was
    assert translation_problems(dest) == [
        f"{stem}.en.md:7: warning: translation is stale: toy_diffusion_guidance.md changed since it was translated"]
    (en / f"{stem}.md").write_text((en / f"{stem}.md").read_text(encoding="utf-8").replace("9.8", "9.7"),
                                   encoding="utf-8")
    report = import_tree(zh, dest, twin=twin)
    assert report.imported == 1 and translation_problems(dest) == []


def test_a_note_moving_from_one_side_to_both(tmp_path: Path) -> None:
    zh, en = copy_trees(tmp_path)
    dest = tmp_path / "corpus"
    twin = Twin("en", en)
    import_tree(zh, dest, twin=twin)
    rel = "ICML2031/llm_reasoning/only_in_english_toy.md"
    (zh / rel).write_text("# Only in English: A Toy Planner\n\n**会议**: ICML 2031\n\n## 一句话总结\n"
                          "这篇笔记现在有中文版了，向前规划 3 步。\n", encoding="utf-8")
    report = import_tree(zh, dest, twin=twin)
    assert (report.imported, report.conflicts, report.translations) == (2, 0, 5)
    assert (dest / rel.replace(".md", ".en.md")).is_file() and "中文版" in (dest / rel).read_text(encoding="utf-8")
    assert translation_problems(dest) == []


def test_bad_option_values(tmp_path: Path) -> None:
    result = runner.invoke(app, ["import-mkdocs", str(ZH), str(tmp_path / "c"), "--translation", str(EN)])
    assert result.exit_code == 2 and "expected LANG=DIR" in result.output
    with pytest.raises(CorpusError, match="twin not found"):
        import_tree(ZH, tmp_path / "c", twin=Twin("en", tmp_path / "missing"))
    with pytest.raises(CorpusError, match="the twin must not be DOCS"):
        import_tree(ZH, tmp_path / "c", twin=Twin("en", ZH))
