"""Incremental builds equal clean builds: a random walk of edits, each followed by a rebuild compared
byte for byte with a build from scratch of the same corpus.

The edits cover every way a note can change what other pages show: its body only (the
fast path), its title or topics (listing pages re-planned in scope), its domain or
venue (it moves to another venue × domain page), aliases, a link to another note, a
new note, a deleted note, a note that stops parsing and is fixed again, a PDF added beside a note,
replaced or removed (its figures on the note's page), front matter ``figures`` set to other numbers,
``none`` or a bad value.
"""
from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest

from conftest import EXAMPLES
from papernotes.cache import BuildCache
from papernotes.corpus.load import load_corpus
from papernotes.corpus.scan import notes_beside
from papernotes.layout import paper_of
from pdfgen import figures_paper, sample_paper
from papernotes.site.build import Builder, build
from sitecheck import clean_build, site_contents

EDITS = ("body", "title", "topics", "domain", "venue", "alias", "link", "add", "remove", "break", "paper", "figures")
DOMAINS = ("optimization", "llm_reasoning", "model_compression", "multimodal_vlm")
VENUES = ("ICML2024", "ICLR2024", "NeurIPS2023")


def set_field(text: str, key: str, value: str) -> str:
    """``key: value`` in the front matter (replaced or added as its last line)."""
    head, sep, body = text.partition("\n---\n")
    if re.search(rf"(?m)^{key}:", head):
        head = re.sub(rf"(?m)^{key}:.*$", lambda _: f"{key}: {value}", head, count=1)
    else:
        head += f"\n{key}: {value}"
    return head + sep + body


def papers(where: Path) -> list[Path]:
    """Three PDFs made once: two with figures (laid out apart), one without."""
    made = [where / "two-columns.pdf", where / "one-column.pdf", where / "no-figures.pdf"]
    if not made[0].exists():
        where.mkdir(parents=True, exist_ok=True)
        figures_paper(made[0])
        figures_paper(made[1], columns=1)
        sample_paper(made[2])
    return made


def edit(corpus: Path, kind: str, rng: random.Random, n: int) -> str:
    notes = sorted(p for p in corpus.rglob("*.md"))
    note = rng.choice(notes)
    text = note.read_text(encoding="utf-8")
    if kind == "paper":
        existing = sorted(corpus.rglob("*.pdf"))
        if existing and rng.random() < 0.4:
            gone = rng.choice(existing)
            gone.unlink()
            return f"remove {gone.name}"
        paper = corpus / paper_of(note.relative_to(corpus).as_posix())
        shutil.copyfile(rng.choice(papers(corpus.parent / "papers")), paper)
        return f"paper {paper.name}"
    if kind == "figures":  # mostly on a note with a PDF
        beside = [p for p in notes if (corpus / paper_of(p.relative_to(corpus).as_posix())).exists()]
        note = rng.choice(beside) if beside and rng.random() < 0.8 else note
        text = set_field(note.read_text(encoding="utf-8"), "figures",
                         rng.choice(["[2]", "[1, 2]", "none", "[x]", "[9]", "[]"]))
    elif kind == "body":
        text += f"\n\n追加 {n}。\n"
    elif kind == "title":
        text = set_field(text, "title", f'"Edited title {n}"')
    elif kind == "topics":
        text = set_field(text, "topics", rng.choice(["[optimizer]", "[llm, reasoning]", "[]", f"[adhoc{n}]"]))
    elif kind == "domain":
        text = set_field(text, "domain", rng.choice(DOMAINS))
    elif kind == "venue":
        text = set_field(text, "venue", rng.choice(VENUES))
    elif kind == "alias":
        text = set_field(text, "aliases", f"[old/path{n}/]")
    elif kind == "link":
        other = rng.choice(notes)
        text += f"\n\nSee [another](/{other.relative_to(corpus).as_posix()}) and [gone](../missing{n}.md).\n"
    elif kind == "add":
        new = note.with_name(f"added_{n}.md")
        new.write_text(set_field(text, "id", f"added-{n}").replace("title: ", f"title: Added {n} ", 1),
                       encoding="utf-8")
        return f"add {new.name}"
    elif kind == "remove":
        note.unlink()
        return f"remove {note.name}"
    elif kind == "break":
        broken = note.with_name(f"broken_{n}.md")
        broken.write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
        return f"break {broken.name}"
    note.write_text(text, encoding="utf-8")
    return f"{kind} {note.name}"


def files_of(corpus: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(corpus).as_posix(): (p.stat().st_mtime_ns, p.stat().st_size)
            for pattern in ("*.md", "*.pdf") for p in corpus.rglob(pattern)}


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize(("serve", "editions"), [(False, True), (True, True), (False, False)],
                         ids=["build", "serve", "one-language"])
def test_a_random_walk_of_edits_rebuilds_exactly_what_a_clean_build_makes(tmp_path: Path, serve: bool,
                                                                          editions: bool) -> None:
    """``serve``: one Builder for the whole walk, told which files changed, as ``serve`` does; ``editions``:
    the examples' two editions, else the site language's only (scoped plans)."""
    rng = random.Random(7 + serve + 2 * (not editions))
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    if not editions:
        config = corpus / "papernotes.toml"
        config.write_text(re.sub(r"(?m)^languages = .*\n", "", config.read_text(encoding="utf-8")), encoding="utf-8")
    site = tmp_path / "site"
    builder = Builder(corpus, site)
    builder.build()
    history: list[list[str]] = []
    figures: list[int] = []  # figure images on the site after each step
    for n in range(36 if not serve and editions else 24):
        before = files_of(corpus)
        kinds = rng.sample(EDITS, rng.choice((1, 1, 2)))
        if n % 3 == 1:  # PDFs and `figures:` every third step, so a short walk has them all
            kinds = ["paper", "figures"][:1 + n % 2] + kinds[:1]
        history.append([edit(corpus, kind, rng, n) for kind in kinds])
        if rng.random() < 0.3:  # fix the broken notes again
            for broken in corpus.rglob("broken_*.md"):
                broken.unlink()
        after = files_of(corpus)
        edited = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
        # as ``serve`` is told: a PDF's change is one of the notes beside it
        edited = {n for p in edited for n in ([p] if p.endswith(".md") else notes_beside(corpus, p))}
        if not serve:
            assert_the_files_saved_since_find_what_changed(builder, corpus, history)
        if serve:
            builder.build(edited=edited)
        else:
            build(corpus, site)
        assert_equal_to_a_clean_build(corpus, site, tmp_path / "clean", history)
        figures.append(len(list(site.rglob("figure-*.*"))))
    done = {step.split()[0] + "." + step.rpartition(".")[2] for steps in history for step in steps}
    # the walk added, replaced and removed PDFs and set `figures:`; figure images came and went
    assert {"paper.pdf", "remove.pdf", "figures.md"} <= done, history
    assert max(figures) > 0 and any(b < a for a, b in zip(figures, figures[1:])), figures
    if serve:  # an edit parsed by another command (``check``) that serve is not told of: a whole build finds it
        first, second = sorted(p for p in files_of(corpus) if p.endswith(".md"))[:2]
        for rel in (first, second):
            note = corpus / rel
            note.write_text(note.read_text(encoding="utf-8") + "\n\nAfter the session.\n", encoding="utf-8")
        with BuildCache(builder.cache_file) as cache:
            load_corpus(corpus, cache, workers=1)
        builder.build(edited={second})
        assert_the_files_saved_since_find_what_changed(builder, corpus, history)
        build(corpus, site)
        assert_equal_to_a_clean_build(corpus, site, tmp_path / "clean", history)


def assert_the_files_saved_since_find_what_changed(builder: Builder, corpus: Path, history: list) -> None:
    """What the site was built from, found from the files saved since: as by a whole comparison."""
    with BuildCache(builder.cache_file) as cache:
        load_corpus(corpus, cache, workers=1)
        published = cache.published(builder.staging.site_key)
        assert published is not None
        assert cache.changed_since_published(builder.staging.site_key, since=published.generation) == \
            cache.changed_since_published(builder.staging.site_key), history


def assert_equal_to_a_clean_build(corpus: Path, site: Path, clean: Path, history: list) -> None:
    clean_build(corpus, clean)
    got, want = site_contents(site), site_contents(clean)
    differ = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
    assert differ == [], (history, differ[:10])
    shutil.rmtree(clean)


def test_the_parse_cache_writes_the_scan_s_paths_only_when_they_change(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit rewrites the scan's mtimes and sizes but not its paths (2.5 MB at 50,000 notes); a new note
    rewrites both; each time the cache finds exactly the files that changed."""
    import sqlite3

    from papernotes.cache import BuildCache
    from papernotes.corpus.load import load_corpus

    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    written: list[str] = []

    class Logged(sqlite3.Connection):
        def execute(self, sql: str, parameters: object = (), /) -> sqlite3.Cursor:  # type: ignore[override]
            if sql.startswith("INSERT OR REPLACE INTO blobs"):
                written.append(parameters[0])  # type: ignore[index]
            return super().execute(sql, parameters)  # type: ignore[arg-type]

    real = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: real(*a, factory=Logged, **k))

    def parsed() -> list[str]:
        written.clear()
        with BuildCache(tmp_path / "cache.sqlite") as cache:
            return sorted(load_corpus(corpus, cache, workers=1).fresh)

    assert len(parsed()) > 40 and {"scanned-paths", "scanned-times"} <= set(written)
    note = sorted(p for p in corpus.rglob("*.md") if p.parent != corpus)[3]
    note.write_text(note.read_text(encoding="utf-8") + "\n\nOne more line.\n", encoding="utf-8")
    assert parsed() == [note.relative_to(corpus).as_posix()]
    assert "scanned-times" in written and "scanned-paths" not in written
    assert parsed() == [] and written == []  # nothing changed: nothing written
    added = note.with_name("added.md")
    shutil.copyfile(note, added)
    assert parsed() == [added.relative_to(corpus).as_posix()]
    assert {"scanned-paths", "scanned-times"} <= set(written)
    assert parsed() == []


def test_notes_set_aside_by_an_interrupted_publish_are_compared_until_a_build_settles(tmp_path: Path) -> None:
    """A publish killed after ``unpublish`` leaves notes that no save made newer than the site: they are still
    found, by the files saved since the site was built plus the set-aside ones, until a build publishes them."""
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    site = tmp_path / "site"
    builder = Builder(corpus, site)
    builder.build()
    key = builder.staging.site_key
    with BuildCache(builder.cache_file) as cache:
        previous = cache.published(key)
        assert previous is not None and previous.generation > 0
        assert cache.changed_since_published(key, since=previous.generation) == (set(), set())
        aside = sorted(cache.note_digests())[:2]
        cache.unpublish(key, previous, aside, [])  # and the build is killed here
        assert cache.changed_since_published(key, since=previous.generation) == (set(aside), set())
    assert not build(corpus, site).up_to_date
    with BuildCache(builder.cache_file) as cache:
        settled = cache.published(key)
        assert settled is not None and settled.scan
        assert cache.changed_since_published(key, since=settled.generation) == (set(), set())
        assert not cache.unpublished(key)
    clean = tmp_path / "clean"
    clean_build(corpus, clean)
    assert site_contents(site) == site_contents(clean)


def test_a_removal_is_remembered_until_every_site_was_built_after_it(tmp_path: Path) -> None:
    """Two sites from one corpus: a removed note's tombstone stays while one of them was built before the
    removal (that site still finds it, by the files saved or removed since), and goes once both passed it."""
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    first, second = Builder(corpus, tmp_path / "a"), Builder(corpus, tmp_path / "b")
    first.build()
    second.build()
    gone = sorted(corpus.rglob("*.md"))[3]
    rel = gone.relative_to(corpus).as_posix()
    gone.unlink()
    first.build()

    def tombstones() -> set[str]:
        with BuildCache(first.cache_file) as cache:
            return {path for (path,) in cache.db.execute("SELECT path FROM removed_notes")}

    assert tombstones() == {rel}  # the second site has not seen the removal yet
    with BuildCache(second.cache_file) as cache:
        behind = cache.published(second.staging.site_key)
        assert behind is not None
        assert cache.changed_since_published(second.staging.site_key, since=behind.generation) == (set(), {rel})
    assert not build(corpus, tmp_path / "b").up_to_date
    assert tombstones() == set()
    clean = tmp_path / "clean"
    clean_build(corpus, clean)
    assert site_contents(tmp_path / "b") == site_contents(clean) == site_contents(tmp_path / "a")
