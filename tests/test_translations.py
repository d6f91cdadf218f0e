"""Translations in the corpus: the file-name rule, ``translation_of``, ``check`` and the build (originals only)."""
from __future__ import annotations

import shutil
from pathlib import Path

from conftest import EXAMPLES, write_note
from papernotes.check.run import CheckOptions, check_corpus
from papernotes.corpus.frontmatter import update
from papernotes.corpus.parse import parse_note
from papernotes.corpus.translation import text_digest, translation_name, translation_path
from papernotes.site.build import build

ORIGINAL = """---
id: demo-paper
title: "Demo: $O(1/t)$ rates"
venue: ICML2026
domain: optimization
lang: zh
topics: [optimizer]
keywords: [Adam, 收敛]
links: {arxiv: "2401.01234"}
---

## 一句话总结
一句话，含 $x^2$ 和 0.42。
"""


def translation(digest: str, **changes: object) -> str:
    text = f"""---
id: demo-paper
title: "Demo: $O(1/t)$ rates"
venue: ICML2026
domain: optimization
keywords: [Adam, convergence]
translation_of: {{digest: {digest}}}
---

## TL;DR
One sentence with $x^2$ and 0.42.
"""
    return update(text, changes) if changes else text


def digest_of(text: str, path: str = "ICML2026/optimization/demo.md") -> str:
    note, _ = parse_note(path, text)
    assert note is not None
    return note.text_digest


# ---------------------------------------------------------------- the name rule and parse

def test_names() -> None:
    assert translation_name("A/b/foo.en.md") == ("A/b/foo.md", "en")
    assert translation_name("foo.zh.md") == ("foo.md", "zh")
    assert translation_name("A/b/foo.md") == ("A/b/foo.md", "")
    assert translation_name("A/b/foo.de.md") == ("A/b/foo.de.md", "")  # not a language papernotes knows
    assert translation_name("A/en.md") == ("A/en.md", "")
    assert translation_path("A/b/foo.md", "en") == "A/b/foo.en.md"


def test_translation_parses_with_its_originals_slug_and_its_record() -> None:
    digest = digest_of(ORIGINAL)
    note, problems = parse_note("ICML2026/optimization/demo.en.md", translation(digest))
    assert problems == [] and note is not None
    assert (note.slug, note.lang, note.id) == ("demo", "en", "demo-paper")
    assert note.translation_of is not None
    assert (note.translation_of.original, note.translation_of.digest) == ("ICML2026/optimization/demo.md", digest)
    assert note.line_of("translation_of") == 7
    original, _ = parse_note("ICML2026/optimization/demo.md", ORIGINAL)
    assert original is not None and original.translation_of is None and original.lang == "zh"


def test_default_id_of_a_translation_is_its_originals() -> None:
    text = translation("c0ffee" * 6 + "abcd", id=None)
    text = "\n".join(line for line in text.split("\n") if not line.startswith("id:"))
    note, _ = parse_note("ICML2026/optimization/demo.en.md", text)
    assert note is not None and note.id == "ICML2026/optimization/demo"


def test_text_digest_covers_the_translatable_text_only() -> None:
    base = digest_of(ORIGINAL)
    assert digest_of(ORIGINAL.replace("topics: [optimizer]", "topics: [llm]")) == base
    assert digest_of(ORIGINAL.replace("0.42", "0.43")) != base
    assert digest_of(ORIGINAL.replace("收敛]", "收敛, 动量]")) != base
    assert digest_of(ORIGINAL.replace("rates", "speeds")) != base
    assert digest_of(ORIGINAL.replace("\n", "\r\n")) == base  # line endings are not content
    assert base == text_digest('Demo: $O(1/t)$ rates', "", ["Adam", "收敛"], ORIGINAL.split("---\n", 2)[2])


def test_bad_records_and_suffixes_are_errors_with_lines() -> None:
    path = "ICML2026/optimization/demo.en.md"
    _, problems = parse_note(path, translation("not-a-digest"))
    assert [str(d) for d in problems] == [
        f"{path}:7: error: `translation_of` must be a mapping {{digest: <40 hex digits>}} (and optionally `model`)"]
    _, problems = parse_note(path, translation("c0ffee" * 6 + "abcd", lang="zh"))
    assert [str(d) for d in problems] == [f"{path}:8: error: `lang: zh` in a file named as the en translation"]
    _, problems = parse_note("ICML2026/optimization/demo.md", translation("c0ffee" * 6 + "abcd"))
    assert [str(d) for d in problems] == [
        "ICML2026/optimization/demo.md:7: error: `translation_of` is only for translations: name the file "
        "ICML2026/optimization/demo.en.md (or .zh.md) beside its original"]


def test_record_survives_the_cache_codec() -> None:
    from papernotes.corpus.model import Note

    note, _ = parse_note("ICML2026/optimization/demo.en.md", translation("a" * 40))
    assert note is not None and Note.from_row(note.to_row()) == note


# ---------------------------------------------------------------- check

def corpus_with_pair(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "papernotes.toml").write_text('title = "t"\n', encoding="utf-8")
    folder = root / "ICML2026" / "optimization"
    folder.mkdir(parents=True)
    (folder / "demo.md").write_text(ORIGINAL, encoding="utf-8")
    (folder / "demo.en.md").write_text(translation(digest_of(ORIGINAL)), encoding="utf-8")
    return root


def translation_diagnostics(root: Path) -> list[str]:
    found, _ = check_corpus(root, CheckOptions(formulas=False, classifier=False))
    return [str(d) for d in found if d.code.startswith("translation") or d.code == "duplicate-paper"]


def test_check_fresh_stale_orphan_and_mismatch(tmp_path: Path) -> None:
    root = corpus_with_pair(tmp_path / "c")
    folder = root / "ICML2026" / "optimization"
    assert translation_diagnostics(root) == []  # same arXiv id and title as its original: not a duplicate

    (folder / "demo.md").write_text(ORIGINAL.replace("topics: [optimizer]", "topics: [llm]"), encoding="utf-8")
    assert translation_diagnostics(root) == []  # only front matter the translation is not made from

    (folder / "demo.md").write_text(ORIGINAL.replace("0.42", "0.45"), encoding="utf-8")
    assert translation_diagnostics(root) == [
        "ICML2026/optimization/demo.en.md:7: warning: translation is stale: demo.md changed since it was translated"]

    (folder / "demo.en.md").write_text(translation("c0ffee" * 6 + "abcd", domain="llm_reasoning"), encoding="utf-8")
    assert "ICML2026/optimization/demo.en.md:5: error: `domain` is 'llm_reasoning' but demo.md has 'optimization'; " \
           "a translation shares its original's domain" in translation_diagnostics(root)

    (folder / "other.en.md").write_text(translation("c0ffee" * 6 + "abcd"), encoding="utf-8")
    (folder / "demo.md").unlink()
    found = translation_diagnostics(root)
    assert "ICML2026/optimization/other.en.md:1: error: translation without an original: there is no other.md " \
           "beside it" in found
    assert "ICML2026/optimization/demo.en.md:1: error: translation without an original: there is no demo.md " \
           "beside it" in found


def test_check_unrecorded_same_language_and_other_links(tmp_path: Path) -> None:
    root = corpus_with_pair(tmp_path / "c")
    folder = root / "ICML2026" / "optimization"
    text = translation("c0ffee" * 6 + "abcd", links={"arxiv": "2402.99999"})
    (folder / "demo.en.md").write_text(text.replace("translation_of: {digest: " + "c0ffee" * 6 + "abcd" + "}\n", ""),
                                       encoding="utf-8")
    write_note(root, "ICML2026/optimization/solo.md", title="Solo", venue="ICML2026", domain="optimization", lang="zh")
    write_note(root, "ICML2026/optimization/solo.zh.md", title="Solo", venue="ICML2026", domain="optimization",
               translation_of={"digest": "b" * 40})
    found = translation_diagnostics(root)
    assert found == [
        "ICML2026/optimization/demo.en.md:1: warning: no `translation_of: {digest: …}`: nobody can tell whether "
        "demo.md changed since it was translated",
        "ICML2026/optimization/demo.en.md:7: warning: link `arxiv` is https://arxiv.org/abs/2402.99999 but demo.md "
        "has https://arxiv.org/abs/2401.01234; is it the same paper?",
        "ICML2026/optimization/solo.zh.md:1: error: a translation in the language of its original (zh): solo.md is "
        "in zh too",
        "ICML2026/optimization/solo.zh.md:5: warning: translation is stale: solo.md changed since it was translated",
    ]


def test_translation_of_a_broken_original_is_not_called_an_orphan(tmp_path: Path) -> None:
    root = corpus_with_pair(tmp_path / "c")
    (root / "ICML2026" / "optimization" / "demo.md").write_text("no front matter\n", encoding="utf-8")
    found, _ = check_corpus(root, CheckOptions(formulas=False, classifier=False))
    assert [d.code for d in found if d.is_error] == ["front-matter"]


def test_build_shows_originals_only(tmp_path: Path) -> None:
    root = corpus_with_pair(tmp_path / "c")
    result = build(root, tmp_path / "site", workers=1, use_cache=False)
    assert result.errors == [] and result.notes == 1
    page = (tmp_path / "site" / "ICML2026" / "optimization" / "demo" / "index.html").read_text(encoding="utf-8")
    assert "一句话" in page and "One sentence" not in page


def test_examples_check_without_translation_problems(tmp_path: Path) -> None:
    root = tmp_path / "c"
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns(".papernotes"))
    assert translation_diagnostics(root) == []
    langs = [translation_name(p.relative_to(root).as_posix())[1] for p in root.rglob("*.md")]
    assert langs.count("en") >= 10 and langs.count("zh") >= 3  # the example site is bilingual both ways
