"""kill -9 at named points of a build: the site stays whole and the next build repairs it exactly.

Each trial edits the corpus, starts ``papernotes build`` in a subprocess that pauses
at a named point (``papernotes.testhooks``), kills it there with SIGKILL and checks
that the site still works. Then (sometimes after putting the notes back as they
were published) it rebuilds and compares every file with a clean build of the
same corpus: a crash may cost time, never correctness.
"""
from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

import pausing
from conftest import EXAMPLES
from papernotes.site.build import build
from sitecheck import clean_build, dead_links, site_contents

#: (pause point, kind of edit that makes the build reach it).
POINTS = [
    ("build.loaded", "body"), ("build.rendered", "body"), ("publish.journal", "body"), ("publish.move#1", "body"),
    ("build.published", "body"), ("build.rendered", "title"), ("publish.journal", "title"),
    ("publish.move#2", "title"), ("publish.move#5", "remove"), ("publish.journal", "remove"),
    ("publish.swap", "config"), ("build.rendered", "config"),
]
TRIALS = 24


def edit(corpus: Path, kind: str, rng: random.Random, n: int) -> None:
    notes = sorted(corpus.rglob("*.md"))
    if kind == "config":  # the other edition comes and goes with the config
        editions = 'languages = ["zh", "en"]\n' if n % 2 else ""
        (corpus / "papernotes.toml").write_text(f'title = "Notes {n}"\n{editions}', encoding="utf-8")
        return
    if kind == "remove":  # an original: a translation alone may change no page when the site has one edition
        notes = [p for p in notes if not p.name.endswith((".en.md", ".zh.md"))]
    for note in rng.sample(notes, 3 if kind != "remove" else 1):
        if kind == "remove":
            note.unlink()
            continue
        text = note.read_text(encoding="utf-8")
        if kind == "body":
            text = text.replace("## ", f"## 改{n}\n\n## ", 1) if "## " in text else text + f"\n改{n}\n"
        else:  # a new title, keeping the YAML valid whatever the old one's quoting
            head, sep, rest = text.partition("\ntitle: ")
            old, nl, tail = rest.partition("\n")
            text = f'{head}{sep}"R{n} {old.strip(chr(34) + chr(39))}"{nl}{tail}' if sep else text
        note.write_text(text, encoding="utf-8")


def killed_at(point: str, corpus: Path, site: Path, tmp: Path) -> None:
    pausing.killed_at(point, corpus, tmp, ("build", "-o", str(site), "-q", "-j", "1"))


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_randomised_kill_9_trials(tmp_path: Path) -> None:
    rng = random.Random(20261201)
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    site = tmp_path / "site"
    build(corpus, site)
    for n in range(TRIALS):
        point, kind = POINTS[n] if n < len(POINTS) else rng.choice(POINTS)
        published = {p: p.read_bytes() for p in corpus.rglob("*") if p.is_file() and ".papernotes" not in p.parts}
        edit(corpus, kind, rng, n)
        killed_at(point, corpus, site, tmp_path)
        assert (site / "index.html").is_file() and dead_links(site) == [], (n, point, kind)
        if rng.random() < 0.4 and kind != "remove":  # the notes go back to what was last published
            for path, data in published.items():
                path.write_bytes(data)
            (corpus / "papernotes.toml").unlink(missing_ok=True) if kind == "config" else None
            for path, data in published.items():
                if path.name == "papernotes.toml":
                    path.write_bytes(data)
        result = build(corpus, site)
        assert result.errors == [] and not any(site.parent.glob(".site.journal")), (n, point, kind)
        clean = tmp_path / f"clean{n}"
        clean_build(corpus, clean)
        assert site_contents(site) == site_contents(clean), (n, point, kind)
        shutil.rmtree(clean)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("point", ["build.published", "build.search-rendered", "publish.journal#2",
                                   "publish.move#2"])
@pytest.mark.parametrize("revert", [False, True], ids=["kept", "reverted"])
def test_kill_9_between_a_body_edit_s_pages_and_its_search_entries(tmp_path: Path, point: str, revert: bool) -> None:
    """On a one-language site a body edit publishes its pages, then its search entries: a kill in between
    leaves the pages new and the index old, and the next build brings the index up to them."""
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    (corpus / "papernotes.toml").write_text('title = "Notes"\n', encoding="utf-8")
    site = tmp_path / "site"
    build(corpus, site)
    published = {p: p.read_bytes() for p in corpus.rglob("*.md")}
    note = sorted(p for p in published if not p.name.endswith((".en.md", ".zh.md")))[4]
    note.write_text(note.read_text(encoding="utf-8").replace("## ", "## 改\n\n## ", 1), encoding="utf-8")
    killed_at(point, corpus, site, tmp_path)
    assert dead_links(site) == []
    if revert:
        for path, data in published.items():
            path.write_bytes(data)
    result = build(corpus, site)
    assert result.errors == [] and not result.up_to_date
    clean_build(corpus, tmp_path / "clean")
    assert site_contents(site) == site_contents(tmp_path / "clean")
    assert build(corpus, site).up_to_date


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("point", "kind"), [
    ("build.loaded", "title"), ("build.planned", "title"), ("build.rendered", "title"), ("publish.journal", "title"),
    ("publish.move#3", "title"), ("build.published", "title"), ("build.planned", "config"), ("publish.swap", "config"),
    ("build.published", "config"), ("build.planned", "remove"),
])
def test_a_plain_build_repairs_a_build_killed_at_each_point(tmp_path: Path, point: str, kind: str) -> None:
    """Every pause point of a build, one at a time: what the cache says was published stays true, so a plain
    build (no --no-cache) makes the clean build's site, and then finds it up to date."""
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    site = tmp_path / "site"
    build(corpus, site)
    edit(corpus, kind, random.Random(point), 1)
    killed_at(point, corpus, site, tmp_path)
    assert (site / "index.html").is_file() and dead_links(site) == []
    result = build(corpus, site)
    assert result.errors == [] and not result.up_to_date
    clean_build(corpus, tmp_path / "clean")
    assert site_contents(site) == site_contents(tmp_path / "clean")
    assert build(corpus, site).up_to_date
