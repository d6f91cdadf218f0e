"""benchmarks/synth.py: a synthetic corpus parses without errors, builds, and is deterministic."""
from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

import pytest

from papernotes.site.build import build
from papernotes.cache import BuildCache
from papernotes.corpus.load import load_corpus

SYNTH = Path(__file__).resolve().parent.parent / "benchmarks" / "synth.py"


@pytest.fixture(scope="module")
def synth():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("synth", SYNTH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["synth"] = module
    spec.loader.exec_module(module)
    return module


def digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def test_200_notes_parse_without_errors_and_build(synth, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    corpus = tmp_path / "corpus"
    synth.generate(corpus, 200, seed=3)
    notes = list(corpus.glob("*/*/*.md"))
    assert len(notes) == 200
    assert len({p.parent.parent.name for p in notes}) >= 9  # venues
    assert len({p.parent.name for p in notes}) >= 25  # domains

    with BuildCache(None) as cache:
        loaded = load_corpus(corpus, cache, workers=1)
        errors = [str(d) for d in loaded.diagnostics if d.is_error]
        notes = loaded.notes
    assert errors == []
    assert len(notes) == 200
    assert {n.lang for n in notes} == {"zh", "en"}
    assert all(n.summary and n.ratings and n.keywords for n in notes)
    assert sum(len(n.sections) for n in notes) >= 8 * 200

    result = build(corpus, tmp_path / "site", workers=1)
    assert result.errors == []
    assert result.notes == 200
    assert (tmp_path / "site" / "search" / "index.json").is_file()


def test_200_notes_pass_papernotes_check(synth, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Formulas render in KaTeX, arXiv ids and titles are unique, sections are complete."""
    from papernotes.check.run import CheckOptions, check_corpus

    corpus = tmp_path / "corpus"
    synth.generate(corpus, 200, seed=5)
    diagnostics, checked = check_corpus(corpus, CheckOptions(classifier=False))
    assert checked.notes == 200 and checked.translations == 0
    assert [str(d) for d in diagnostics if d.is_error] == []


def test_same_seed_same_bytes(synth, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    synth.generate(tmp_path / "a", 30, seed=7)
    synth.generate(tmp_path / "b", 30, seed=7)
    synth.generate(tmp_path / "c", 30, seed=8)
    assert digest(tmp_path / "a") == digest(tmp_path / "b")
    assert digest(tmp_path / "a") != digest(tmp_path / "c")


def test_math_and_tables_present(synth) -> None:  # type: ignore[no-untyped-def]
    shape = synth.Shape(chars=4000, h3=6, inline=10, display=2, tables=2, rows=12)
    writer = synth.Writer(synth.FastRandom(1))
    text = synth.note_text(writer, shape, "ICML2025", "optimization", "X: A Title", "zh")
    measured = synth.shape_of(text)
    assert measured.display == 2 and measured.tables == 2 and measured.rows == 12
    assert measured.inline >= 3
    assert 2500 < measured.chars < 6000
