"""Import the real reference snapshot, then build it: every note keeps its text and its old URL.

The snapshot (third-party CC BY-NC-SA text) is read in place, never copied into the
repository: ``../shared/corpus/paper-notes/docs`` next to the repo, or the directory in
``PAPERNOTES_REFERENCE_DOCS``. Without it, every test here is skipped.
"""
from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from conftest import once_per_run
from papernotes.cache import BuildCache
from papernotes.check.ratings import ALL, rating_problems, rating_shares
from papernotes.corpus.load import load_corpus
from papernotes.site.build import build
from papernotes.corpus.formulas import extract_formulas
from papernotes.migrate.convert import source_text
from papernotes.migrate.tree import import_tree
from papernotes.corpus.frontmatter import parse, split_front_matter

DOCS = Path(os.environ.get("PAPERNOTES_REFERENCE_DOCS") or Path(__file__).parents[2] / "shared/corpus/paper-notes/docs")

pytestmark = [
    pytest.mark.skipif(not DOCS.is_dir(), reason=f"reference snapshot not found at {DOCS} "
                                                 "(set PAPERNOTES_REFERENCE_DOCS)"),
    pytest.mark.timeout(300),
    pytest.mark.slow,  # the module's site: 3,248 notes imported and built
]

_HREF = re.compile(r'href="([^"]*)"')


def folders() -> dict[str, list[str]]:
    """``VENUE/domain`` -> note slugs, straight from the file system."""
    out: dict[str, list[str]] = {}
    for path in DOCS.glob("*/*/*.md"):
        if path.name.lower() != "index.md" and not path.name.startswith("."):
            out.setdefault(f"{path.parent.parent.name}/{path.parent.name}", []).append(path.stem)
    return out


def _import_and_build(root: Path) -> tuple[Path, Path, object]:
    corpus, out = root / "corpus", root / "site"
    report = import_tree(DOCS, corpus)
    result = build(corpus, out, use_cache=False)
    return corpus, out, (report, result)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, object]:
    """The snapshot imported and built once per run, whichever workers run this module's tests."""
    return once_per_run(tmp_path_factory, "reference", _import_and_build)


def test_every_note_is_imported_without_errors(site: tuple[Path, Path, object]) -> None:
    corpus, _, (report, result) = site
    expected = sum(len(slugs) for slugs in folders().values())
    assert report.notes == report.imported == expected
    assert not report.errors, [report.line(d) for d in report.errors[:20]]
    assert len(list(corpus.glob("*/*/*.md"))) == expected
    assert result.notes == expected and not result.errors, [str(d) for d in result.errors[:20]]


def test_every_note_round_trips_and_keeps_its_formulas(site: tuple[Path, Path, object]) -> None:
    corpus, _, _ = site
    lost = []
    for path in sorted(corpus.glob("*/*/*.md")):
        rel = path.relative_to(corpus).as_posix()
        original = (DOCS / rel).read_bytes().decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n").split("\n")
        raw, body, _ = split_front_matter(path.read_bytes().decode("utf-8"))
        fm = parse(raw)
        rebuilt = source_text(fm, body).split("\n")
        header = len(rebuilt) - len(body.split("\n"))
        if len(rebuilt) != len(original) or rebuilt[header:] != original[header:] \
                or [x.rstrip() for x in rebuilt[:header]] != [x.rstrip() for x in original[:header]]:
            lost.append(rel)
            continue
        before = len(extract_formulas("\n".join(original[header:])))
        if len(extract_formulas(body)) != before:
            lost.append(f"{rel}: {before} formulas before, {len(extract_formulas(body))} after")
    assert not lost, lost[:20]


def test_old_urls_still_work(site: tuple[Path, Path, object]) -> None:
    _, out, _ = site
    missing = [f"{cell}/{slug}/" for cell, slugs in folders().items() for slug in slugs
               if not (out / cell / slug / "index.html").is_file()]
    assert not missing, missing[:20]


def test_each_venue_domain_page_lists_every_note_of_its_folder(site: tuple[Path, Path, object]) -> None:
    _, out, _ = site
    wrong = []
    paged = 0
    for cell, slugs in folders().items():
        listed: Counter[str] = Counter()
        pages = [out / cell / "index.html", *sorted((out / cell / "page").glob("*/index.html"))]  # a long list
        paged += len(pages) > 1
        for n, path in enumerate(pages):
            hrefs = [h.removeprefix("../../") if n else h for h in _HREF.findall(path.read_text(encoding="utf-8"))]
            listed.update(unquote(h).rstrip("/") for h in hrefs if re.fullmatch(r"[^./#?][^/#?]*/", h))
        if sorted(listed.elements()) != sorted(slugs):
            wrong.append(f"{cell}: {sum(listed.values())} listed, {len(slugs)} files")
    assert not wrong, wrong
    assert paged >= 3  # the folders of more than page_size notes were split, and counted across their pages


def test_internal_links_of_note_pages_resolve(site: tuple[Path, Path, object]) -> None:
    _, out, _ = site
    broken = []
    for cell, slugs in folders().items():
        for slug in slugs:
            page = out / cell / slug / "index.html"
            for href in set(_HREF.findall(page.read_text(encoding="utf-8"))):
                parts = urlsplit(href)
                if parts.scheme or parts.netloc or not parts.path:
                    continue
                target = (page.parent / unquote(parts.path)).resolve()
                if not (target.is_file() or (target / "index.html").is_file()):
                    broken.append(f"{cell}/{slug}/: {href}")
    assert not broken, broken[:20]


def test_reimport_writes_nothing(site: tuple[Path, Path, object]) -> None:
    corpus, _, _ = site
    again = import_tree(DOCS, corpus)
    assert (again.imported, again.conflicts, again.unchanged) == (0, 0, again.notes)


def test_check_finds_the_reference_ratings_inflated(site: tuple[Path, Path, object]) -> None:
    """The reference notes rate 93% of 3,084 papers 4★ or more for novelty and 94% of 2,848 for value
    (BENCHMARKS.md, 2026-12): far above the 60% `check` warns at, at every venue with enough notes."""
    corpus = site[0]
    notes = load_corpus(corpus, BuildCache(None)).notes  # read only: the shared import is not written to
    shares = {(s.venue, s.key): s for s in rating_shares(notes)}
    assert shares[ALL, "novelty"].rated > 3000 and shares[ALL, "value"].rated > 2700
    assert all(shares[ALL, key].share > 0.85 for key in ("novelty", "experiments", "writing", "value"))
    warned = {d.path for d in rating_problems(shares.values(), 0.6)}
    assert len(warned) >= 8 and warned == {v for (v, _), s in shares.items() if v != ALL and s.rated >= 10}
