"""A damaged build cache (a real SQLite file, overwritten) is made anew with a warning: never a traceback."""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES, example_notes
from papernotes.corpus.load import cache_path
from papernotes.site.build import build
from sitecheck import clean_build, site_contents


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, Path]:
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    build(corpus, tmp_path / "site", workers=1)
    return corpus, tmp_path / "site"


def overwrite_table(db: Path, table: str) -> None:
    """Garbage over the first page of ``table``'s tree: the database opens, reading that table fails."""
    with sqlite3.connect(db) as conn:
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
        (page,) = conn.execute("PRAGMA page_size").fetchone()
        (meta,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'meta'").fetchone()
    conn.close()
    assert root not in (1, meta)
    with open(db, "r+b") as handle:
        handle.seek((root - 1) * page)
        handle.write(b"\xa5" * page)


def assert_warned_and_rebuilt(corpus: Path, site: Path, tmp_path: Path, stderr: str) -> None:
    line = f"{cache_path(corpus.resolve())}: warning: the build cache was damaged ("
    assert line in stderr and "made anew" in stderr and "Traceback" not in stderr
    clean_build(corpus, tmp_path / "clean")
    assert site_contents(site) == site_contents(tmp_path / "clean")
    assert build(corpus, site).up_to_date


def run_build(corpus: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "papernotes", "build", str(corpus), "-o", str(site), "-j", "1"],
                          capture_output=True, text=True, check=False)


def test_a_cache_that_is_not_a_database_is_made_anew(built: tuple[Path, Path], tmp_path: Path) -> None:
    corpus, site = built
    cache_path(corpus.resolve()).write_bytes(os.urandom(8192))
    note = example_notes(corpus)[3]
    note.write_text(note.read_text(encoding="utf-8") + "\n追加。\n", encoding="utf-8")
    done = run_build(corpus, site)
    assert done.returncode == 0, done.stderr
    assert "file is not a database" in done.stderr
    assert_warned_and_rebuilt(corpus, site, tmp_path, done.stderr)


@pytest.mark.parametrize("table", ["published", "notes", "pages"])
def test_a_cache_damaged_inside_is_made_anew(built: tuple[Path, Path], tmp_path: Path, table: str) -> None:
    """Found on opening or in the middle of the build, whichever table holds the damage."""
    corpus, site = built
    overwrite_table(cache_path(corpus.resolve()), table)
    note = example_notes(corpus)[5]
    note.write_text(note.read_text(encoding="utf-8") + "\n追加。\n", encoding="utf-8")
    done = run_build(corpus, site)
    assert done.returncode == 0, done.stderr
    assert "malformed" in done.stderr
    assert_warned_and_rebuilt(corpus, site, tmp_path, done.stderr)
