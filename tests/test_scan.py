"""The corpus scan: a large tree is shared with a forked process and finds exactly what one process finds."""
from __future__ import annotations

import marshal
import os
import shutil
import sys
import threading
import types
from pathlib import Path

import pytest

import hostile_corpus
from conftest import EXAMPLES, watch_forks
from papernotes import forks
from papernotes.cache import BuildCache, NoteRow
from papernotes.cache_records import columns, rows
from papernotes.corpus import scan as walker
from papernotes.site.build import build
from sitecheck import site_contents

pytestmark = pytest.mark.skipif(not (sys.platform.startswith("linux") and len(os.sched_getaffinity(0)) > 1),
                                reason="the scan forks only on Linux with a second core")


def _scan(root: Path, split: int, monkeypatch: pytest.MonkeyPatch,
          fork: bool = True) -> tuple[list[walker.SourceFile], list[walker.Refused]]:
    """The scan of ``root``, shared once a level holds ``split`` folders. With ``fork``, whatever threads
    earlier tests left in this process (the scan itself forks only when none runs: see the last test)."""
    monkeypatch.setattr(walker, "SPLIT_FOLDERS", split)
    if fork:
        monkeypatch.setattr(forks, "can_fork", lambda: True)
    refused: list[walker.Refused] = []
    files = sorted(walker.scan(root, refused))
    return files, sorted(refused)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hostile_corpus.make(tmp_path_factory.mktemp("scan")).corpus


def test_a_shared_scan_finds_what_one_process_finds(hostile: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the hostile corpus: links in and out, loops, odd names, a FIFO, hidden and "_" folders
    alone = _scan(hostile, 10**9, monkeypatch)
    made = watch_forks(monkeypatch)
    shared = _scan(hostile, 2, monkeypatch)
    assert made, "the scan did not share its folders"
    assert shared == alone
    assert len(alone[0]) > 10 and len(alone[1]) > 10


def test_a_hard_link_across_the_shares_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for venue in ("A2024", "B2024", "C2024", "D2024"):
        (tmp_path / venue / "ml").mkdir(parents=True)
        (tmp_path / venue / "ml" / "note.md").write_text(f"---\ntitle: {venue}\n---\n", encoding="utf-8")
    os.link(tmp_path / "A2024/ml/note.md", tmp_path / "B2024/ml/twin.md")
    made = watch_forks(monkeypatch)
    files, refused = _scan(tmp_path, 2, monkeypatch)
    assert made
    paths = [f.path for f in files]
    # the parent walks A2024 and C2024, the child B2024 and D2024 (folders are dealt in name order)
    assert "A2024/ml/note.md" in paths and "B2024/ml/twin.md" not in paths and len(paths) == 4
    assert [(r.path, r.message) for r in refused] == [
        ("B2024/ml/twin.md", "the same file as A2024/ml/note.md; read once, under that name")]


def test_a_failed_child_leaves_its_share_to_the_parent(hostile: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alone = _scan(hostile, 10**9, monkeypatch)

    def broken(*args: object) -> object:
        raise MemoryError("the child cannot pack what it found")

    # the child packs what it found with marshal.dumps; the parent only unpacks
    monkeypatch.setattr(walker, "marshal", types.SimpleNamespace(dumps=broken, loads=marshal.loads))
    merged: list[bool] = []
    real_merge = walker._Walk.merge
    monkeypatch.setattr(walker._Walk, "merge", lambda self, *a: merged.append(real_merge(self, *a)) or merged[-1])
    assert _scan(hostile, 2, monkeypatch) == alone
    assert merged == [False]  # the child failed, and the parent walked its share


def test_no_fork_while_a_thread_runs(hostile: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alone = _scan(hostile, 10**9, monkeypatch, fork=False)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        made = watch_forks(monkeypatch)
        assert _scan(hostile, 2, monkeypatch, fork=False) == alone
        assert not made
    finally:
        stop.set()
        thread.join()


def test_an_interrupted_parent_leaves_no_child_behind(hostile: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()
    real_walk = walker._Walk.walk

    def walk(self: walker._Walk, stack: list[tuple[str, str]]) -> None:
        if os.getpid() == parent:
            raise KeyboardInterrupt
        real_walk(self, stack)

    monkeypatch.setattr(walker._Walk, "walk", walk)
    made = watch_forks(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        _scan(hostile, 2, monkeypatch)
    assert len(made) == 1
    with pytest.raises(ChildProcessError):  # already reaped: nothing left waiting on a pipe
        os.waitpid(made[0], os.WNOHANG)


@pytest.mark.slow
def test_a_shared_scan_hands_over_the_same_columns_each_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The child's share stays as the child packed it, after the parent's: two scans of the same tree give
    the same columns and digest, the parse cache finds just the file edited in the child's share, and builds
    from shared scans make the site one process makes."""
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    monkeypatch.setattr(walker, "SPLIT_FOLDERS", 2)  # the venues are dealt: ACL, ICLR, NeurIPS here; CVPR, ICML
    monkeypatch.setattr(forks, "can_fork", lambda: True)
    made = watch_forks(monkeypatch)
    first, again = walker.scan_corpus(corpus), walker.scan_corpus(corpus)
    assert len(made) == 2
    assert (first.columns, first.digest) == (again.columns, again.digest)
    with monkeypatch.context() as alone:
        alone.setattr(forks, "can_fork", lambda: False)
        one = walker.scan_corpus(corpus)
    assert first.files == one.files and len(one.files) > 40
    site = tmp_path / "site"
    build(corpus, site)

    note = sorted(corpus.glob("ICML2024/*/*.md"))[0]
    rel = note.relative_to(corpus).as_posix()
    with BuildCache(None) as cache:
        cache.save_notes({path: NoteRow(mtime, size, "", None, ()) for path, mtime, size in rows(first.columns)},
                         scanned=first.columns)
        assert cache.stale_notes(columns(rows(first.columns)[::-1])) == ([], [])  # listed in another order
        note.write_text(note.read_text(encoding="utf-8") + "\n\nOne more line.\n", encoding="utf-8")
        edited = walker.scan_corpus(corpus)
        assert edited.digest != first.digest
        assert [path for path, _, _ in cache.stale_notes(edited.columns)[0]] == [rel]
    result = build(corpus, site)
    assert result.rendered >= 1 and not result.up_to_date
    assert build(corpus, site).up_to_date
    with monkeypatch.context() as alone:
        alone.setattr(forks, "can_fork", lambda: False)
        build(corpus, tmp_path / "clean", use_cache=False)
    assert site_contents(site) == site_contents(tmp_path / "clean")
